"""The evolution engine on concrete cases: the seed's worked example, presets, threshold, domains, decay."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from psychoagent.persona import (
    EvolutionConfig,
    EvolutionEngine,
    OutcomeEvent,
    Persona,
    list_presets,
)

CRASH = OutcomeEvent(expected=0.10, actual=-0.15, stake=0.30)


def investor() -> Persona:
    return Persona.archetype("moderately optimistic investor")


def test_default_loss_aversion_is_tversky_kahneman() -> None:
    engine = EvolutionEngine()
    assert engine.config.loss_aversion == 2.25
    assert engine.config.value_exponent == 0.88
    assert EvolutionEngine(EvolutionConfig(loss_aversion=1.5)).config.loss_aversion == 1.5


def test_every_config_field_documents_itself() -> None:
    for name, field in EvolutionConfig.model_fields.items():
        assert field.description, name


def test_seed_worked_example() -> None:
    """Expected +10 %, got -15 %, 30 % of liquid funds (seed 003, 2.1.2)."""
    engine = EvolutionEngine()
    p0 = investor()
    assert p0.risk_preference == 0.7
    p1, why = engine.update(p0, CRASH)
    assert why.error == pytest.approx(-0.25)
    assert why.major and why.impact < 0
    # risk preference falls noticeably, from 0.7 toward 0.5
    assert 0.5 <= p1.risk_preference <= 0.62
    # optimism, the fast dimension, falls more
    assert why.deltas["optimism"] < why.deltas["risk_preference"] < 0
    # budget moves from investment to saving
    assert why.deltas["allocation.invest"] < 0 < why.deltas["allocation.save"]
    # first miss: learning rate unchanged; second consecutive miss: it rises
    assert p1.learning_rate == p0.learning_rate and not why.learning_boosted
    p2, why2 = engine.update(p1, CRASH)
    assert p2.learning_rate > p1.learning_rate and why2.learning_boosted and why2.miss_streak == 2
    text = str(why)
    assert "-25.0%" in text and "risk_preference: 0.700 -> " in text


def test_a_hit_resets_the_miss_streak() -> None:
    engine = EvolutionEngine()
    p, _ = engine.update(investor(), CRASH)
    p, why = engine.update(p, OutcomeEvent(expected=0.05, actual=0.06, stake=0.3))
    assert not why.major and p.miss_streak == 0
    p, why = engine.update(p, CRASH)
    assert not why.learning_boosted


def test_presets_order_the_size_of_the_reaction() -> None:
    assert {"default", "resilient", "volatile"} <= set(list_presets())
    drops = {
        name: EvolutionEngine(name).update(investor(), CRASH)[1].deltas["risk_preference"]
        for name in ("resilient", "default", "volatile")
    }
    assert drops["volatile"] < drops["default"] < drops["resilient"] < 0
    assert EvolutionEngine.preset("Volatile").config.major_event_threshold < 0.05
    with pytest.raises(ValueError, match="choose one of"):
        EvolutionEngine("moody")


def test_resilient_recovers_faster_than_volatile() -> None:
    gaps = {}
    for name in ("resilient", "volatile"):
        engine = EvolutionEngine(name)
        p, _ = engine.update(investor(), CRASH)
        before = p.baseline.risk_preference - p.risk_preference
        gaps[name] = (p.baseline.risk_preference - engine.tick(p, 20).risk_preference) / before
    assert gaps["resilient"] < gaps["volatile"]


def test_domain_event_moves_domain_view_more_than_global_mood() -> None:
    engine = EvolutionEngine()
    p, why = engine.update(investor(), CRASH.model_copy(update={"domain": "tech"}))
    assert why.deltas["optimism[tech]"] < why.deltas["optimism"] < 0
    assert p.optimism_for("tech") < p.optimism
    later = engine.tick(p, 1000)
    assert later.optimism_for("tech") == pytest.approx(p.baseline.optimism)


def test_tick_returns_to_baseline_and_keeps_the_simplex() -> None:
    engine = EvolutionEngine()
    p, _ = engine.update(investor(), CRASH)
    q = engine.tick(p, 10_000)
    assert q.risk_preference == pytest.approx(0.7) and q.optimism == pytest.approx(0.3)
    assert sum(q.allocation.values()) == pytest.approx(1.0)
    assert engine.tick(p, 0).risk_preference == p.risk_preference
    with pytest.raises(ValueError, match="dt"):
        engine.tick(p, -1)


def test_bad_events_are_rejected_with_the_field_name() -> None:
    with pytest.raises(ValidationError, match="stake"):
        OutcomeEvent(expected=0.1, actual=0.0, stake=-0.1)
    with pytest.raises(ValidationError, match="actual"):
        OutcomeEvent(expected=0.1, actual=float("nan"), stake=0.1)


def test_update_each_and_tick_each_match_one_call_per_persona() -> None:
    """The vectorised batch gives bit-identical personas and explanations to the scalar calls."""
    engine = EvolutionEngine()
    people = [investor(), Persona(risk_preference=0.2, optimism=-0.3), Persona(risk_preference=0.9)]
    events = [CRASH, OutcomeEvent(expected=0.02, actual=0.08, stake=0.1, domain="steel", time=3),
              OutcomeEvent(expected=0.05, actual=-0.01, stake=0.6, domain=None)]  # fmt: skip
    batch = engine.update_each(people, events)
    for persona, event, (new, why) in zip(people, events, batch, strict=True):
        one, expl = engine.update(persona, event)
        assert new == one and why == expl
    assert engine.tick_each(people, dt=3) == [engine.tick(p, dt=3) for p in people]
    assert engine.update_each([], []) == [] and engine.tick_each([]) == []
    with pytest.raises(ValueError, match="one entry per persona"):
        engine.update_each(people, events[:1])


def test_update_in_rounds_applies_each_agents_events_in_order() -> None:
    engine = EvolutionEngine()
    people = {3: investor(), 8: Persona(risk_preference=0.3)}
    events = {3: [CRASH, OutcomeEvent(expected=0.0, actual=0.2, stake=0.2)], 8: [CRASH]}
    done = engine.update_in_rounds(people, events)
    first, _ = engine.update(people[3], CRASH)
    second, why = engine.update(first, events[3][1])
    assert [p for p, _ in done[3]] == [first, second] and done[3][1][1] == why
    assert done[8][0] == engine.update(people[8], CRASH)
