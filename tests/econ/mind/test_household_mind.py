"""Persona-modulated recall, working memory, cross-layer recall, briefings and perception."""

from __future__ import annotations

import numpy as np

from psychoagent.agent.cognition import tick_time
from psychoagent.agent.config import CognitiveConfig, PerceptionConfig
from psychoagent.agent.recall import WorkingItem, WorkingMemory, persona_factor
from psychoagent.econ.mind.household import Expectation, HouseholdMind
from psychoagent.econ.mind.perception import (
    Belief,
    BeliefKeys,
    PriceHistory,
    TickPerception,
    observe_instrument,
    perceive,
)
from psychoagent.memory.api import Memory
from psychoagent.persona import Persona


def test_persona_factor_direction() -> None:
    risky = np.array([True, True, False])
    outcome = np.array([0.1, -0.1, -0.1])
    bold = persona_factor(risky, outcome, 0.9, 0.5)
    shy = persona_factor(risky, outcome, 0.1, 0.5)
    assert bold[0] > 1 > bold[1] and shy[0] < 1 < shy[1]
    assert bold[2] == shy[2] == 1.0


def _agent_with_history(risk: float) -> tuple[HouseholdMind, Persona]:
    mem = Memory(embedder="hash", appraiser=None, namespace="household:0")
    agent = HouseholdMind(0, Persona(risk_preference=risk), mem, CognitiveConfig())
    agent.expect(Expectation(1, 2, "stock:tech", "BUY", 100.0, 5, 0.05, 0.3, "sharp_fall", True))
    agent.expect(Expectation(1, 2, "steel", "BUY", 100.0, 5, 0.05, 0.3, "sharp_fall", True))
    agent.score(2, {"stock:tech": 120.0, "steel": 80.0})  # tech: risky success; steel: risky failure
    agent.encode(2)
    return agent, Persona(risk_preference=risk)


def _ranks(risk: float) -> list[str]:
    agent, persona = _agent_with_history(risk)
    found = agent.recall(3, "bought after a sharp fall signal expecting", [], persona, k=2)
    return [u.metadata["instrument"] for u, _, parts in found.episodes]


def test_risk_seeker_recalls_risky_success_first_risk_averse_the_failure() -> None:
    assert _ranks(0.95)[0] == "stock:tech"
    assert _ranks(0.05)[0] == "steel"
    agent, persona = _agent_with_history(0.95)
    hit = agent.recall(3, "bought after a sharp fall", [], persona, k=2).episodes[0]
    assert hit[2]["persona"] > 1.0  # the part is exposed with the other score parts


def test_persona_recall_can_be_ablated() -> None:
    cfg = CognitiveConfig()
    cfg.ablation.persona_recall = False
    mem = Memory(embedder="hash", appraiser=None)
    agent = HouseholdMind(0, Persona(), mem, cfg)
    assert agent.stage not in mem.pipeline


def test_working_memory_is_bounded_and_ranked() -> None:
    wm = WorkingMemory(3)
    wm.load([WorkingItem("episode", str(i), float(i)) for i in range(10)])
    assert wm.texts() == ["9", "8", "7"]


def test_briefing_is_short_uses_graph_beliefs_and_is_reused() -> None:
    mem = Memory(embedder="hash", appraiser=None, namespace="household:1")
    agent = HouseholdMind(1, Persona(), mem, CognitiveConfig())
    hist = PriceHistory(36)
    for t, p in enumerate([125, 126, 124, 125, 120]):
        hist.record(t, {"steel": p})
    agent.semantic.news_belief("steel", "A new steel mill opened", -0.6, tick_time(4))
    obs = perceive(hist, ["steel"], agent.semantic.by_subject(), PerceptionConfig(), {"interest_rate": 0.05})
    b1 = agent.brief(5, "buy steel", obs, ["steel", "interest_rate"], Persona())
    assert len(b1.text.split()) <= 200 and not b1.metadata["reused"]
    assert "new steel mill" in b1.text and "financing costs" in b1.text  # depth-2 graph from interest_rate
    b2 = agent.brief(5, "buy steel", obs, ["steel", "interest_rate"], Persona())
    assert b2.metadata["reused"] and b2.text == b1.text


def test_perception_reads_the_seed_example() -> None:
    series = np.array([126.0, 124.0, 125.0, 125.0, 120.0])
    belief = Belief("steel", "event", "oversupply", -0.6, 1, "known event: a new steel mill opened")
    obs = observe_instrument("steel", series, [belief], PerceptionConfig())
    assert obs is not None
    assert abs(obs.change + 0.04) < 1e-9 and abs(obs.average - 124.6667) < 1e-3 and obs.signal == "sharp_fall"
    assert "down 4%" in obs.text and "below its 3-period average" in obs.text
    assert "lower prices more likely" in obs.text and obs.belief_effect < 0


def test_tick_perception_sees_what_perceive_sees_and_shares_beliefs() -> None:
    hist = PriceHistory(36)
    for t, (s, x) in enumerate([(125, 30), (126, 31), (124, 33), (125, 32), (120, 35)]):
        hist.record(t, {"steel": s, "stock:tech": x})
    macro = {"interest_rate": 0.05, "inflation": 0.02, "unemployment": 0.06}
    cfg = PerceptionConfig()
    mill = Belief("steel", "event", "oversupply", -0.6, 1, "known event: a new steel mill opened")
    seeing = TickPerception(hist, ["steel", "stock:tech"], cfg, macro)
    for beliefs in ({}, {"steel": [mill]}, {"steel": [mill], "interest_rate": [mill]}):
        assert seeing.observe(beliefs) == perceive(hist, ["steel", "stock:tech"], beliefs, cfg, macro)
    again = seeing.observe({"steel": [mill]})
    assert again[0] is seeing.observe({"steel": [mill]})[0]  # one description per distinct belief set
    assert "new steel mill" in again[0].text and "new steel mill" not in again[1].text
    held = [mill]
    shared = seeing.observe({"steel": held})
    assert seeing.observe({"steel": held})[0] is shared[0]  # the same list object: found without hashing it
    held.append(
        Belief("steel", "after:sharp_fall", "rise", 0.4, 3, "after a sharp fall, steel tended to rise")
    )
    changed = seeing.observe({"steel": list(held)})
    assert changed == perceive(hist, ["steel", "stock:tech"], {"steel": held}, cfg, macro)
    assert "tended to rise" in changed[0].text


def test_belief_keys_carry_over_ticks_and_equal_lists_share_one_tuple() -> None:
    hist = PriceHistory(36)
    macro = {"interest_rate": 0.05, "inflation": 0.02, "unemployment": 0.06}
    cfg, names = PerceptionConfig(), ["steel", "stock:tech"]
    mill = Belief("steel", "event", "oversupply", -0.6, 1, "known event: a new steel mill opened")
    rate = Belief("interest_rate", "raises", "financing_cost", -1.0, 1, "higher rates raise financing costs")
    mine = {"steel": [mill], "interest_rate": [rate]}
    yours = {"steel": [Belief(*vars(mill).values())], "interest_rate": [rate]}  # equal, not the same objects
    keys = BeliefKeys()
    assert keys.of(mine["steel"]) is keys.of(yours["steel"]) == (mill,)
    for t, (s, x) in enumerate([(125, 30), (126, 31), (124, 33), (120, 35)]):
        hist.record(t, {"steel": s, "stock:tech": x})
        keys.next_month()
        seeing = TickPerception(hist, names, cfg, macro, keys)
        for beliefs in (mine, yours, {}):
            assert seeing.observe(beliefs) == perceive(hist, names, beliefs, cfg, macro)
        assert seeing.observe(mine)[0] is seeing.observe(yours)[0]
