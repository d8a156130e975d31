"""Properties of persona evolution (ECONOMY.md): ranges, simplex, loss aversion, geometric decay, threshold,
determinism, and the vectorised path equal to the scalar one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from psychoagent.persona import (
    Baseline,
    EvolutionConfig,
    EvolutionEngine,
    OutcomeEvent,
    Persona,
    PersonaArray,
)
from tests.persona.strategies import events, personas, steps

FAST = settings(max_examples=60, deadline=None)
PRESETS = st.sampled_from(("default", "resilient", "volatile"))


def run(engine: EvolutionEngine, persona: Persona, trajectory: list[OutcomeEvent | float]) -> list[Persona]:
    out = []
    for step in trajectory:
        persona = (
            engine.update(persona, step)[0] if isinstance(step, OutcomeEvent) else engine.tick(persona, step)
        )
        out.append(persona)
    return out


def assert_valid(p: Persona) -> None:
    for value in (p.risk_preference, p.learning_rate, p.social_tendency):
        assert 0.0 <= value <= 1.0
    assert -1.0 <= p.optimism <= 1.0
    assert all(-1.0 <= v <= 1.0 for v in p.domain_optimism.values())
    weights = p.allocation.as_tuple()
    assert all(w >= 0.0 for w in weights)
    assert math.fsum(weights) == pytest.approx(1.0, abs=1e-12)


@FAST
@given(personas(), st.lists(steps, max_size=12), PRESETS)
def test_traits_stay_in_range_and_weights_on_the_simplex(
    persona: Persona, trajectory: list[OutcomeEvent | float], preset: str
) -> None:
    for p in run(EvolutionEngine(preset), persona, trajectory):
        assert_valid(p)


@FAST
@given(
    st.floats(0.06, 0.4),
    st.floats(0.01, 0.5),
    st.floats(1.0, 3.0),
    st.floats(0.2, 0.8),
    st.sampled_from(("risk_preference", "optimism", "social_tendency")),
)
def test_loss_moves_a_trait_lambda_times_more_than_an_equal_gain(
    size: float, stake: float, lam: float, learning_rate: float, trait: str
) -> None:
    config = EvolutionConfig(
        loss_aversion=lam,
        social_tendency={"sensitivity": 0.3, "speed": 0.2, "max_step": 0.1, "half_life": 60.0},
    )
    engine = EvolutionEngine(config)
    persona = Persona(learning_rate=learning_rate)
    _, gain = engine.update(persona, OutcomeEvent(expected=0.0, actual=size, stake=stake))
    _, loss = engine.update(persona, OutcomeEvent(expected=0.0, actual=-size, stake=stake))
    d_gain, d_loss = gain.deltas[trait], loss.deltas[trait]
    dynamics = getattr(config, trait)
    low = -1.0 if trait == "optimism" else 0.0
    # linear regime: no per-event cap and no range bound reached
    assume(abs(d_loss) < dynamics.max_step * (1 - 1e-9))
    assume(persona.traits()[trait] + d_loss > low)
    assert d_gain > 0 > d_loss
    assert abs(d_loss) == pytest.approx(lam * abs(d_gain), rel=1e-9)
    assert loss.impact == pytest.approx(-lam * gain.impact, rel=1e-12)


@FAST
@given(personas(), st.floats(0.5, 30.0), st.integers(1, 8), PRESETS)
def test_without_events_a_trait_returns_geometrically_at_its_half_life(
    persona: Persona, dt: float, k: int, preset: str
) -> None:
    engine = EvolutionEngine(preset)
    cfg = engine.config
    half_lives = {
        "risk_preference": cfg.risk_preference.half_life,
        "optimism": cfg.optimism.half_life,
        "learning_rate": cfg.learning_rate_half_life,
        "social_tendency": cfg.social_tendency.half_life,
    }
    p = persona
    for _ in range(k):
        p = engine.tick(p, dt)
    for trait, half_life in half_lives.items():
        base = getattr(persona.baseline, trait)
        gap0 = getattr(persona, trait) - base
        expected_gap = gap0 * 0.5 ** (k * dt / half_life)
        assert getattr(p, trait) - base == pytest.approx(expected_gap, rel=1e-9, abs=1e-12)
    one_half_life = engine.tick(persona, cfg.risk_preference.half_life)
    assert one_half_life.risk_preference - persona.baseline.risk_preference == pytest.approx(
        (persona.risk_preference - persona.baseline.risk_preference) / 2, abs=1e-12
    )


@FAST
@given(
    st.floats(0.2, 0.8),
    st.floats(0.01, 1.0),
    st.floats(0.001, 0.999),
    st.floats(1.0, 8.0),
    st.sampled_from((-1.0, 1.0)),
    PRESETS,
)
def test_errors_below_the_threshold_move_traits_less_than_errors_above(
    level: float, stake: float, below_share: float, above_factor: float, sign: float, preset: str
) -> None:
    engine = EvolutionEngine(preset)
    threshold = engine.config.major_event_threshold
    persona = Persona(risk_preference=level, optimism=level - 0.5)
    small = OutcomeEvent(expected=0.0, actual=sign * threshold * below_share, stake=stake)
    big = OutcomeEvent(expected=0.0, actual=sign * threshold * above_factor, stake=stake)
    _, why_small = engine.update(persona, small)
    _, why_big = engine.update(persona, big)
    assert not why_small.major and why_big.major
    assert abs(why_small.impact) < abs(why_big.impact)
    for trait in ("risk_preference", "optimism"):
        assert abs(why_small.deltas[trait]) < abs(why_big.deltas[trait])


@FAST
@given(personas(), st.lists(steps, max_size=10), PRESETS)
def test_same_inputs_give_identical_trajectories(
    persona: Persona, trajectory: list[OutcomeEvent | float], preset: str
) -> None:
    first = [p.model_dump() for p in run(EvolutionEngine(preset), persona, trajectory)]
    second = [p.model_dump() for p in run(EvolutionEngine(preset), persona, trajectory)]
    assert first == second


@FAST
@given(
    st.lists(st.tuples(personas(), events()), min_size=1, max_size=12),
    st.floats(0.0, 15.0),
    PRESETS,
)
def test_vectorised_path_equals_scalar_path(
    rows: list[tuple[Persona, OutcomeEvent]], dt: float, preset: str
) -> None:
    engine = EvolutionEngine(preset)
    people = [p for p, _ in rows]
    evs = [e for _, e in rows]
    scalar = [engine.tick(engine.update(p, e)[0], dt) for p, e in rows]
    batch, out = engine.update_many(
        PersonaArray.from_personas(people),
        [e.expected for e in evs],
        [e.actual for e in evs],
        [e.stake for e in evs],
        domains=[e.domain for e in evs],
    )
    vector = engine.tick_many(batch, dt).to_personas()
    assert [p.model_dump() for p in vector] == [p.model_dump() for p in scalar]
    assert np.array_equal(out.error, [e.actual - e.expected for e in evs])


def test_vectorised_broadcasts_scalars_and_rejects_bad_input() -> None:
    engine = EvolutionEngine()
    arr = PersonaArray.repeat(Persona.archetype("speculator"), 5)
    new, out = engine.update_many(arr, 0.10, -0.15, 0.30)
    assert len(new) == 5 and out.major.all()
    assert len(set(new.risk_preference.tolist())) == 1
    with pytest.raises(ValueError, match="stake"):
        engine.update_many(arr, 0.1, 0.0, -0.2)
    with pytest.raises(ValueError, match="domains"):
        engine.update_many(arr, 0.1, 0.0, 0.2, domains=["tech"])


def test_baseline_is_not_moved_by_events() -> None:
    engine = EvolutionEngine()
    p = Persona(baseline=Baseline(risk_preference=0.3))
    q, _ = engine.update(p, OutcomeEvent(expected=0.1, actual=-0.3, stake=0.5))
    assert q.baseline == p.baseline
