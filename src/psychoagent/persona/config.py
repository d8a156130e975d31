"""Every coefficient of persona evolution, with its reason and source, and the named presets (seed 003, 2.1.2, 4.2).

Time is measured in ticks: whatever unit the caller passes to `EvolutionEngine.tick(persona, dt)`.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from psychoagent.config import (
    Count,
    FrozenConfigModel,
    NonNegative,
    Positive,
    PositiveShare,
    Share,
)
from psychoagent.persona.archetypes import ALLOCATION_KEYS


class TraitDynamics(FrozenConfigModel):
    """How one trait reacts to an impact and how fast it drifts back to its baseline."""

    sensitivity: NonNegative
    """how far the trait's target moves per unit of impact (0: the trait ignores events)"""
    speed: PositiveShare
    """EMA weight: share of the gap to the target closed per event at the reference learning rate; small for
    core traits, large for moods (seed 003, 4.2)"""
    max_step: Positive
    """largest change one event can make, so that the persona never jumps (seed 2.1.2)"""
    half_life: Positive
    """ticks for the gap to baseline to halve when nothing happens; ln 2 / -ln(1 - g) for an adaptive
    expectation with gain g (ECONOMY.md)"""


class AllocationDynamics(TraitDynamics):
    """Budget reaction: an impact tilts log-weights along `direction`, then the weights are renormalised."""

    direction: dict[str, float] = Field(
        default_factory=lambda: {"consume": 0.0, "save": -1.0, "invest": 1.0, "rnd": 0.5}
    )
    """log-weight tilt per unit of (bounded) impact: good surprises shift budget from saving to investment and
    R&D, bad ones back to saving; consumption is left to households' needs"""

    def direction_vector(self) -> tuple[float, ...]:
        """The tilt in ALLOCATION_KEYS order."""
        unknown = set(self.direction) - set(ALLOCATION_KEYS)
        if unknown:
            raise ValueError(
                f"unknown allocation keys {sorted(unknown)}; allowed: {', '.join(ALLOCATION_KEYS)}"
            )
        return tuple(float(self.direction.get(k, 0.0)) for k in ALLOCATION_KEYS)


class EvolutionConfig(FrozenConfigModel):
    """All knobs of the evolution engine. The defaults are the 'default' preset."""

    loss_aversion: Positive = 2.25
    """lambda: a loss moves traits lambda times more than an equal gain (Tversky & Kahneman 1992;
    meta-analyses find 1.3-2.0, see ECONOMY.md, so treat it as a parameter)"""
    value_exponent: PositiveShare = 0.88
    """curvature of the value function, |error| ** alpha: diminishing sensitivity (Tversky & Kahneman 1992)"""
    major_event_threshold: NonNegative = 0.05
    """absolute prediction error (in return units, 0.05 = 5 points) from which an event counts as major and
    updates fully (seed 003, 4.2)"""
    minor_event_weight: Share = 0.2
    """share of its impact a minor (below-threshold) event keeps: small wins and losses only fine-tune"""
    stake_half_importance: Positive = 0.1
    """stake (share of liquid wealth) at which an event has importance 0.5: importance = s / (s + this), so 30
    % of one's funds weighs 0.75 (seed 003, 2.1.2)"""
    reference_learning_rate: PositiveShare = 0.5
    """learning rate at which trait speeds apply as configured; a persona's speeds scale with learning_rate /
    this (experience-dependent gain, Malmendier & Nagel 2016)"""
    miss_streak_trigger: Count = 2
    """consecutive major misses from which the learning rate rises ('second misjudgment in a row', seed 2.1.2)"""
    miss_boost: Share = 0.5
    """share of the gap to the maximum learning rate closed per miss once the streak is reached; people weight
    recent data more in volatile periods (regime-dependent gain, ECONOMY.md)"""
    domain_spillover: Share = 0.5
    """share of a domain-specific optimism change that also reaches global optimism"""
    risk_preference: TraitDynamics = Field(
        default_factory=lambda: TraitDynamics(sensitivity=0.6, speed=0.4, max_step=0.2, half_life=60.0)
    )
    """core trait: slow, capped, long memory (seed 003, 4.2)"""
    optimism: TraitDynamics = Field(
        default_factory=lambda: TraitDynamics(sensitivity=1.0, speed=0.8, max_step=0.5, half_life=8.0)
    )
    """mood: reacts fast and fades fast (seed 003, 4.2)"""
    social_tendency: TraitDynamics = Field(
        default_factory=lambda: TraitDynamics(sensitivity=0.0, speed=0.2, max_step=0.1, half_life=60.0)
    )
    """own investment outcomes say nothing clear about cooperation, so it only drifts to baseline; raise
    sensitivity to let success breed outreach"""
    learning_rate_half_life: Positive = 10.0
    """ticks for a raised learning rate to fall halfway back ('for a while', seed 2.1.2)"""
    allocation: AllocationDynamics = Field(
        default_factory=lambda: AllocationDynamics(sensitivity=1.0, speed=0.3, max_step=0.5, half_life=30.0)
    )
    """budget habits: slower than mood, faster than risk preference"""

    @classmethod
    def preset(cls, name: str) -> EvolutionConfig:
        """A named preset: 'default', 'resilient' or 'volatile' (see PRESETS)."""
        key = name.strip().lower()
        if key not in PRESETS:
            raise ValueError(
                f"unknown evolution preset {name!r}; choose one of: {', '.join(sorted(PRESETS))}"
            )
        return cls.model_validate(PRESETS[key])


def list_presets() -> list[str]:
    """Names of the evolution presets, sorted."""
    return sorted(PRESETS)


PRESETS: dict[str, dict[str, Any]] = {
    # The documented defaults.
    "default": {},
    # Resilient personality (seed 2.1.2): a high bar for what counts as major, small slow changes, quick recovery.
    "resilient": {
        "major_event_threshold": 0.10,
        "minor_event_weight": 0.1,
        "miss_boost": 0.25,
        "risk_preference": {"sensitivity": 0.4, "speed": 0.25, "max_step": 0.1, "half_life": 30.0},
        "optimism": {"sensitivity": 0.8, "speed": 0.5, "max_step": 0.3, "half_life": 4.0},
        "social_tendency": {"sensitivity": 0.0, "speed": 0.2, "max_step": 0.1, "half_life": 30.0},
        "learning_rate_half_life": 5.0,
        "allocation": {"sensitivity": 0.6, "speed": 0.2, "max_step": 0.3, "half_life": 15.0},
    },
    # Volatile personality (seed 2.1.2): small surprises count, large fast swings, long-lasting scars.
    "volatile": {
        "major_event_threshold": 0.02,
        "minor_event_weight": 0.5,
        "miss_boost": 0.8,
        "risk_preference": {"sensitivity": 0.9, "speed": 0.7, "max_step": 0.35, "half_life": 120.0},
        "optimism": {"sensitivity": 1.2, "speed": 1.0, "max_step": 0.8, "half_life": 16.0},
        "social_tendency": {"sensitivity": 0.0, "speed": 0.2, "max_step": 0.1, "half_life": 120.0},
        "learning_rate_half_life": 20.0,
        "allocation": {"sensitivity": 1.5, "speed": 0.5, "max_step": 0.8, "half_life": 60.0},
    },
}
"""Evolution presets by name: overrides of the defaults, validated by EvolutionConfig."""
