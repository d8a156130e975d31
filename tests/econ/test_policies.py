"""Policies: the composite rule's arithmetic, the persona heuristic's directions, plug-in and fallbacks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from psychoagent.econ.config import PolicyConfig
from psychoagent.econ.policies import (
    AgentState,
    CompositePolicy,
    HouseholdView,
    Intent,
    IntentBatch,
    Outcomes,
    PerAgentPolicy,
    PersonaHeuristicPolicy,
    Policy,
    make_policy,
    register_policy,
)
from psychoagent.econ.snapshot import NewsItem, Snapshot
from psychoagent.persona import Persona

from .conftest import run


def snap(**kw: object) -> Snapshot:
    base = dict(tick=5, prices={"consumer_goods": 20.0}, wages={"consumer_goods": 20.0}, interest_rate=0.03,
                price_level=20.0, inflation=0.02, wage=22.0, wage_inflation=0.02, nominal_gdp=1e5, real_gdp=1e5,
                gdp_growth=0.0, unemployment=0.04, tax_revenue=1e3, mean_consumption_share=0.0)  # fmt: skip
    base.update(kw)
    return Snapshot(**base)  # type: ignore[arg-type]


def state(persona: Persona | None = None, **kw: object) -> AgentState:
    base = dict(id=1, sector="consumer_goods", skill=1.0, cash=0.0, deposits=6000.0, potential_income=3000.0,
                last_income=3000.0, worked=True, consume_share=0.4, persona=persona or Persona())  # fmt: skip
    base.update(kw)
    return AgentState(**base)  # type: ignore[arg-type]


def test_composite_rule_arithmetic() -> None:
    """EconAgent's composite: the price rule (even ids here) and the CATS buffer rule (odd ids), both on this
    month's pay and rounded down to 0.02; the work rule on potential pay."""
    s = snap()
    priced = CompositePolicy().decide(s, state(id=2))
    assert priced.consume == pytest.approx(np.floor((20.0 / (6000.0 + 3000.0)) ** 0.1 / 0.02) * 0.02)
    assert priced.work == pytest.approx((3000.0 / (6000.0 * 1.03)) ** 0.1)
    assert priced.save == 1.0
    buffered = CompositePolicy().decide(s, state(id=1))  # spends all but h / (1 + r) = 1 / 1.03 months of pay
    assert buffered.consume == pytest.approx(np.floor((9000.0 - 3000.0 / 1.03) / 9000.0 / 0.02) * 0.02)
    # no income at all: the buffer rule waits
    assert CompositePolicy().decide(s, state(id=1, worked=False, last_income=0.0)).consume == 0.0
    # out of work on benefits: the buffer rule spends on the income the household lives on (last month's net
    # income), not on none (EconAgent's rule had no benefits; with none, half the laid-off stopped spending)
    benefit = CompositePolicy().decide(s, state(id=1, worked=False, last_income=1500.0)).consume
    h1, g = 1.0 / 1.03, 1500.0 / 3000.0 - 1.0
    spend = (1.0 + (6000.0 / 3000.0 - h1 - h1 * g) / (1.0 + g)) * 1500.0
    assert benefit == pytest.approx(np.floor(spend / 7500.0 / 0.02) * 0.02) and benefit > 0.5
    idle = CompositePolicy().decide(s, state(id=2, worked=False)).consume
    assert idle == pytest.approx(np.floor((20.0 / 6000.0) ** 0.1 / 0.02) * 0.02)
    broke = CompositePolicy().decide(s, state(deposits=0.0))
    assert broke.work == 1.0 and 0 <= broke.consume <= 1


def test_composite_draws_one_rule_per_household_from_the_model() -> None:
    m, _ = run(policy="composite", ticks=2, households=200)
    rule = m.policy.buffer_rule  # type: ignore[attr-defined]
    assert rule is not None and rule.shape == (200,) and 0.35 < rule.mean() < 0.65


def test_rate_channel_defers_spending_not_work() -> None:
    """A rate above neutral (r_n + target = 3 %) lowers the spending target by sigma x horizon x the gap."""
    pol = PersonaHeuristicPolicy()
    a = state(consume_share=0.35)
    neutral, hike, cut = (pol.decide(snap(interest_rate=r), a) for r in (0.03, 0.07, 0.0))
    assert hike.consume < neutral.consume < cut.consume
    assert hike.work == neutral.work == cut.work
    off = PersonaHeuristicPolicy(PolicyConfig(consume_rate=0.0))
    assert off.decide(snap(interest_rate=0.07), a).consume == pytest.approx(off.decide(snap(), a).consume)


def test_persona_heuristic_follows_traits_and_news() -> None:
    pol = PersonaHeuristicPolicy()
    spender = pol.decide(snap(), state(Persona.archetype("startup CEO")))
    cautious = pol.decide(snap(), state(Persona.archetype("cautious household")))
    assert cautious.save < spender.save  # save share = 1 - allocation.consume
    calm = pol.decide(snap(), state())
    gloom = pol.decide(snap(news=(NewsItem(5, "crash", -1.0),)), state())
    slack = pol.decide(snap(unemployment=0.3), state())
    assert gloom.consume < calm.consume and slack.consume < calm.consume
    poor = pol.decide(snap(), state(deposits=100.0))
    assert poor.work > calm.work
    for x in (spender, cautious, calm, gloom, slack, poor):
        assert 0 <= x.work <= 1 and 0 <= x.consume <= 1 and 0 <= x.save <= 1


def test_policies_implement_the_protocol_and_unknown_names_fail() -> None:
    assert isinstance(make_policy("composite"), Policy) and isinstance(make_policy("persona"), Policy)
    with pytest.raises(ValueError, match=r"unknown policy 'llm-magic'.*composite"):
        make_policy("llm-magic")
    with pytest.raises(ValueError, match="cannot load policy"):
        make_policy("no.such.module:Thing")


class Frugal(PerAgentPolicy):
    """A per-household policy, as a cognitive policy would be written: reads only snapshot and own state."""

    name = "frugal"

    def __init__(self, cfg: object = None) -> None:
        self.calls = 0
        self.ticks: list[int] = []

    def decide(self, snapshot: Snapshot, state: AgentState) -> Intent:
        self.calls += 1
        self.ticks.append(snapshot.tick)
        return Intent(work=1.0, consume=0.1, save=0.5)


def test_a_new_policy_plugs_in() -> None:
    register_policy("frugal", Frugal)
    assert isinstance(make_policy("frugal"), Frugal)
    pol = Frugal()
    model, _df = run(ticks=3, households=10, policy=pol)
    assert pol.calls == 30 and sorted(set(pol.ticks)) == [1, 2, 3]
    assert model.policy.name == "frugal"
    assert np.allclose(model.households.consume_share, 0.1)


class Broken(PerAgentPolicy):
    name = "broken"

    def decide(self, snapshot: Snapshot, state: AgentState) -> Intent:
        return Intent(work=float("nan"), consume=float("inf") if state.id % 2 else 0.5, save=2.0)


def test_bad_intents_fall_back_and_are_counted() -> None:
    model, df = run(ticks=4, households=10, policy=Broken())
    assert model.fallbacks > 0 and df["fallbacks"].iloc[-1] == model.fallbacks
    assert np.isfinite(df["price_level"]).all()
    assert (model.households.deposits <= model.households.wealth + 1e-9).all()  # save clipped to 1


def test_snapshot_and_view_are_read_only() -> None:
    model, _ = run(ticks=2, households=8)
    s = model.snapshot()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.interest_rate = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.prices["steel"] = 0.0  # type: ignore[index]
    view = model.view()
    with pytest.raises(ValueError):
        view.cash[0] = 1e9
    assert s.to_dict()["prices"] == dict(s.prices)
    assert len(view) == 8 and view.agent(0).persona is model.members[0].persona


def test_batch_and_single_decisions_agree() -> None:
    model, _ = run(ticks=2, households=6)
    s, view = model.snapshot(), model.view()
    for pol in (CompositePolicy(), PersonaHeuristicPolicy()):
        batch = pol.decide_batch(s, view)
        assert isinstance(batch, IntentBatch)
        for i in range(len(view)):
            one = pol.decide(s, view.agent(i))
            assert one.work == pytest.approx(batch.work[i]) and one.consume == pytest.approx(batch.consume[i])


class Learning(Frugal):
    """A policy that learns: after each tick it lowers the optimism of households that were rationed or idle."""

    name = "learning"

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Outcomes] = []

    def feedback(self, outcomes: Outcomes, view: HouseholdView) -> dict[int, Persona]:
        self.seen.append(outcomes)
        return {
            i: view.personas[i].model_copy(update={"optimism": -1.0}) for i in range(len(view)) if i % 2 == 0
        }


def test_feedback_receives_outcomes_and_can_install_personas() -> None:
    pol = Learning()
    model, _ = run(ticks=3, households=10, policy=pol)
    assert [o.tick for o in pol.seen] == [1, 2, 3]
    last = pol.seen[-1]
    assert last.worked.shape == (10,) and (last.spent <= last.budget + 1e-9).all()
    assert last.metrics["tick"] == 3 and last.rationed.dtype == bool
    opt = model.households.traits[:, 1]
    assert (opt[::2] == -1.0).all() and (opt[1::2] > -1.0).all()
    assert model.members[0].persona.optimism == -1.0
    with pytest.raises(ValueError, match="persona update"):
        model.set_personas({99: Persona()})
