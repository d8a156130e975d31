"""Mesa AgentSet access to cognitive agents: households and firms that think are `mesa.Agent`s a Mesa user can
inspect, filter and step as usual, and the run files do not change for it."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.agents import CognitiveFirm, CognitiveHousehold, Firm, Household
from psychoagent.econ.cognitive.policy import CognitivePolicy
from psychoagent.econ.collect import agents_frame
from psychoagent.econ.distributed.driver import sharded
from psychoagent.econ.mind.household import HouseholdMind
from psychoagent.econ.model import EconomyModel


@pytest.fixture(scope="module")
def model() -> EconomyModel:
    m = EconomyModel(seed=5, policy="cognitive", households=24, firms="cognitive")
    m.run(6)
    return m


def test_cognitive_households_are_the_models_agents(model: EconomyModel) -> None:
    hh = model.agents_by_type[CognitiveHousehold]
    assert len(hh) == 24 and not len(model.agents_by_type.get(Household, ()))
    assert hh.get("index") == list(range(24))  # index order: the order the tick steps them in
    assert all(isinstance(a.mind, HouseholdMind) and a.mind.remembers for a in hh)
    assert [m.unique_id for m in model.members] == [a.unique_id for a in hh]
    assert all(a is model.members[a.index] and isinstance(a, Household) for a in hh)


def test_select_by_persona_trait_and_groupby_archetype(model: EconomyModel) -> None:
    hh = model.agents_by_type[CognitiveHousehold]
    bold = hh.select(lambda a: a.risk_preference > 0.6)
    expected = [i for i, p in enumerate(model.personas) if p.risk_preference > 0.6]
    assert bold.get("index") == expected and 0 < len(bold) < 24
    assert hh.groupby(lambda a: a.persona.name).count() == Counter(p.name for p in model.personas)
    # the agent's persona is the evolved one the model holds
    assert all(a.persona is model.personas[a.index] for a in hh)
    assert np.isclose(sum(hh.get("wealth")), float(model.households.wealth.sum()))


def test_do_a_method_on_every_household_reaches_their_memory() -> None:
    policy = CognitivePolicy(cognitive=CognitiveConfig(memory_backend="private"))
    m = EconomyModel(seed=2, policy=policy, households=4)
    m.run(1)
    hh = m.agents_by_type[CognitiveHousehold]
    hh.do("note", m.tick, "A neighbour said the factory is closing.")
    assert all(a.mind.pending[-1]["text"] == "A neighbour said the factory is closing." for a in hh)
    m.step()  # the tick encodes what was queued
    for a in hh:
        assert a.memory is not None  # (new events of this tick wait for the next)
        top = a.memory.recall("neighbour factory closing", k=1)[0].unit
        assert (
            top.content == "A neighbour said the factory is closing."
            and top.namespace == f"household:{a.index}"
        )


def test_counts_after_a_run_and_the_rule_baseline_has_none(model: EconomyModel) -> None:
    assert len(model.agents_by_type[CognitiveHousehold]) == 24 == len(model.personas)
    firms = model.agents_by_type[CognitiveFirm]
    assert len(firms) == len(model.config.sectors) and list(firms) == model.firms
    assert all(f.persona is not None and f.mind is not None and f.mind.name == f.name for f in firms)
    assert model.firm_board is not None and list(model.firm_board.agents) == model.firms
    rule = EconomyModel(seed=5, policy="persona", households=24)
    rule.run(2)
    assert CognitiveHousehold not in rule.agent_types and CognitiveFirm not in rule.agent_types
    assert len(rule.agents_by_type[Household]) == 24 and len(rule.agents_by_type[Firm]) == len(rule.firms)


def test_a_share_of_cognitive_households_keeps_ids_and_agents_csv() -> None:
    policy = CognitivePolicy(cognitive=CognitiveConfig(share=0.5))
    m = EconomyModel(seed=4, policy=policy, households=10)
    rule = EconomyModel(seed=4, policy="persona", households=10)
    assert [a.unique_id for a in m.members] == [a.unique_id for a in rule.members]
    thinking = m.agents_by_type[CognitiveHousehold]
    assert len(thinking) == 5 and len(m.agents_by_type[Household]) == 5
    assert sorted(thinking.get("index")) == sorted(policy.kit.minds())
    m.run(3)
    frame = agents_frame(m)
    assert len(frame) == 30
    assert frame["agent_id"].tolist() == [a.unique_id for a in m.members] * 3


def test_sharded_households_live_in_the_shards_models() -> None:
    policy = sharded(CognitivePolicy(), 2)
    m = EconomyModel(seed=3, policy=policy, households=8)
    m.run(2)
    assert CognitiveHousehold not in m.agent_types and len(m.agents_by_type[Household]) == 8
    assert policy.shards is not None
    held = [a.index for s in policy.shards.shards for a in s.model.agents_by_type[CognitiveHousehold]]  # type: ignore[attr-defined]
    assert held == list(range(8))
    policy.close()
