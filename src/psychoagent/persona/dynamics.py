"""The math of persona evolution as pure functions over numpy arrays (one element per agent).

The scalar and the vectorised path both run these functions (the scalar path on arrays of length one), so the
two give bit-identical results. Every coefficient comes from an `EvolutionConfig`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from psychoagent.persona.config import AllocationDynamics, EvolutionConfig, TraitDynamics

Array = NDArray[np.float64]

HALF = 0.5
"""Base of the half-life decay: the gap to baseline halves every half_life ticks."""


def prediction_error(expected: Array, actual: Array) -> Array:
    """Signed prediction error: actual minus expected outcome (seed 2.1.2: -15 % vs +10 % gives -0.25)."""
    return actual - expected


def importance(stake: Array, config: EvolutionConfig) -> Array:
    """Weight of an event from its stake (share of liquid wealth): s / (s + s_half), rising and saturating at 1."""
    return stake / (stake + config.stake_half_importance)


def is_major(error: Array, config: EvolutionConfig) -> NDArray[np.bool_]:
    """True where the prediction error reaches the major-event threshold (seed 003, 4.2)."""
    return np.abs(error) >= config.major_event_threshold


def impact(error: Array, weight: Array, major: NDArray[np.bool_], config: EvolutionConfig) -> Array:
    """Signed shock: prospect-theory value of the error (|e| ** alpha, losses times lambda) x importance x gate."""
    magnitude = np.abs(error) ** config.value_exponent
    side = np.where(error < 0.0, -config.loss_aversion, 1.0)
    gate = np.where(major, 1.0, config.minor_event_weight)
    return side * magnitude * weight * gate


def learning_multiplier(learning_rate: Array, config: EvolutionConfig) -> Array:
    """How much faster than configured this persona learns: learning_rate / reference learning rate."""
    return learning_rate / config.reference_learning_rate


def trait_step(shock: Array, multiplier: Array, dynamics: TraitDynamics) -> Array:
    """Smoothed change: an EMA step (weight speed x multiplier, at most 1) toward current + sensitivity x shock,
    capped at max_step so that no single event makes the persona jump."""
    weight = np.minimum(dynamics.speed * multiplier, 1.0)
    return clip(weight * (dynamics.sensitivity * shock), -dynamics.max_step, dynamics.max_step)


def clip(value: Array, low: float, high: float) -> Array:
    """Limit values to [low, high] (np.minimum/np.maximum: same result as np.clip, less call overhead)."""
    return np.minimum(np.maximum(value, low), high)


def bounded(value: Array, step: Array, low: float, high: float) -> Array:
    """Apply a step and keep the trait inside its range."""
    return clip(value + step, low, high)


def row_sum(weights: Array) -> Array:
    """Sum of each row of an (n, 4) weight matrix, added left to right (order fixed for reproducibility)."""
    return ((weights[:, 0] + weights[:, 1]) + weights[:, 2]) + weights[:, 3]


def renormalise(weights: Array) -> Array:
    """Project non-negative rows back onto the simplex by dividing by their sum."""
    return weights / row_sum(weights)[:, None]


def tilt_allocation(
    allocation: Array, shock: Array, multiplier: Array, dynamics: AllocationDynamics
) -> Array:
    """Shift budget along the configured direction: w_k * exp(tilt * d_k), renormalised; zero weights stay zero."""
    tilt = trait_step(shock, multiplier, dynamics)
    direction = np.asarray(dynamics.direction_vector(), dtype=np.float64)
    return renormalise(allocation * np.exp(tilt[:, None] * direction[None, :]))


def advance_streak(streak: NDArray[np.int64], major: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Consecutive major misses: +1 on a major error, back to 0 on an event the persona saw coming."""
    return np.where(major, streak + 1, 0).astype(np.int64)


def boost_learning(
    learning_rate: Array, streak: NDArray[np.int64], config: EvolutionConfig
) -> tuple[Array, NDArray[np.bool_]]:
    """Raise the learning rate toward 1 while misses repeat (seed 2.1.2); returns the new rate and where it rose."""
    boosted = streak >= config.miss_streak_trigger
    raised = learning_rate + config.miss_boost * (1.0 - learning_rate)
    return np.where(boosted, raised, learning_rate), boosted


def decay_factor(dt: float, half_life: float) -> float:
    """Share of the gap to baseline left after dt ticks: 0.5 ** (dt / half_life)."""
    if dt < 0:
        raise ValueError(f"dt must be >= 0, got {dt}")
    return float(HALF ** (dt / half_life))


def decay(value: Array, baseline: Array, factor: float) -> Array:
    """Geometric return toward baseline: b + (x - b) * factor."""
    return baseline + (value - baseline) * factor
