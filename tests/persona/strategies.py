"""Hypothesis strategies for personas and outcome events."""

from __future__ import annotations

from hypothesis import strategies as st

from psychoagent.persona import Allocation, Baseline, OutcomeEvent, Persona

unit = st.floats(0.0, 1.0, allow_nan=False)
signed = st.floats(-1.0, 1.0, allow_nan=False)
DOMAINS = (None, "tech", "energy")


@st.composite
def allocations(draw: st.DrawFn) -> Allocation:
    weights = draw(st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4).filter(lambda w: sum(w) > 0.05))
    return Allocation.normalised(dict(zip(("consume", "save", "invest", "rnd"), weights, strict=True)))


@st.composite
def personas(draw: st.DrawFn) -> Persona:
    return Persona(
        risk_preference=draw(unit),
        optimism=draw(signed),
        learning_rate=draw(unit),
        social_tendency=draw(unit),
        allocation=draw(allocations()),
        domain_optimism=draw(st.dictionaries(st.sampled_from(("tech", "energy")), signed, max_size=2)),
        miss_streak=draw(st.integers(0, 3)),
        baseline=Baseline(
            risk_preference=draw(unit),
            optimism=draw(signed),
            learning_rate=draw(unit),
            social_tendency=draw(unit),
            allocation=draw(allocations()),
        ),
    )


returns = st.floats(-1.0, 1.0, allow_nan=False)


@st.composite
def events(draw: st.DrawFn) -> OutcomeEvent:
    return OutcomeEvent(
        expected=draw(returns),
        actual=draw(returns),
        stake=draw(st.floats(0.0, 2.0)),
        domain=draw(st.sampled_from(DOMAINS)),
    )


steps = st.one_of(events(), st.floats(0.0, 20.0))
"""One step of a trajectory: an outcome event or a tick of that many time units."""
