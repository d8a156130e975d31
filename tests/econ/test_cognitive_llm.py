"""The LLM policy on the offline model: batched decisions, parsed Chinese intents, cache record and replay."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from psychoagent.agent.bus import EventBus
from psychoagent.econ.cognitive.llm_policy import LLMPolicy
from psychoagent.econ.model import EconomyModel
from psychoagent.llm import CacheConfig, CacheMissError, LLMClient, LLMConfig, OfflineBackend


def trader(messages: Any, schema: Any) -> dict[str, Any]:
    """A scripted model: buys tech stock with a Chinese intent, or (for some prompts) answers garbage."""
    user = next(m["content"] for m in messages if m["role"] == "user")
    if len(user) % 4 == 0:
        return {"type": "SELL EVERYTHING"}  # invalid: repaired, then the counted WAIT fallback
    return {"type": "DECIDE", "intent": "用20%的现金尽可能多地买入科技股", "expected_return": 0.05}


def run(client: LLMClient, ticks: int = 5) -> tuple[LLMPolicy, list[tuple[Any, ...]], Counter[str]]:
    bus = EventBus(keep=100_000)
    policy = LLMPolicy(client=client)
    model = EconomyModel(seed=5, policy=policy, households=20, bus=bus)
    model.run(ticks)
    fills = [(e.tick, e.source, e.payload.get("instrument"), e.payload.get("quantity"))
             for e in bus.history if e.type == "market.order_filled"]  # fmt: skip
    return policy, fills, Counter(e.type for e in bus.history)


def test_llm_policy_offline_end_to_end() -> None:
    backend = OfflineBackend(rule=trader)
    policy, fills, seen = run(LLMClient(backend))
    stats = policy.usage()["purposes"]["decision"]
    assert stats["calls"] == policy.counts["llm.calls"] > 0
    assert any(f[2] == "stock:tech" for f in fills)  # the Chinese intent was parsed and executed
    assert seen["guardrail.rejected"] + seen["guardrail.adjusted"] > 0
    assert backend.requests and "Briefing:" in backend.requests[0].messages[-1]["content"]


def test_default_offline_model_trades_by_its_rule() -> None:
    backend = OfflineBackend()
    policy, fills, seen = run(LLMClient(backend), ticks=12)  # a year: an economy at rest moves personas later
    assert policy.counts.get("decision.DECIDE", 0) > 0 and policy.counts.get("decision.WAIT", 0) > 0
    assert fills and seen["persona.evolved"] > 0
    assert seen["guardrail.rejected"] + seen["guardrail.adjusted"] > 0
    last = backend.requests[0].messages[-1]["content"].rsplit("\n", 1)[-1]
    assert last.startswith("Data: ") and '"assets"' in last  # the data line the offline rule reads


def test_offline_decision_follows_persona_and_prices() -> None:
    from psychoagent.econ.cognitive.offline_rules import answer_decision

    def data(risk: float, gap: float, trend: float, held: float = 0.0) -> dict[str, Any]:
        return {"horizon": 3, "household": {"cash": 1000.0},
                "persona": {"risk_preference": risk, "optimism": 0.0, "allocation": {"invest": 0.3}},
                "assets": {"steel": {"price": 10.0, "gap": gap, "trend": trend, "held": held}}}  # fmt: skip

    cheap = answer_decision(data(0.5, gap=-0.1, trend=0.0))
    dear = answer_decision(data(0.5, gap=0.1, trend=0.0, held=5.0))
    assert cheap["type"] == "DECIDE" and cheap["orders"][0]["side"] == "BUY"
    assert dear["type"] == "DECIDE" and dear["orders"][0]["side"] == "SELL"
    bold, timid = answer_decision(data(0.9, -0.1, 0.0)), answer_decision(data(0.1, -0.1, 0.0))
    assert bold["orders"][0]["budget_share"] > timid["orders"][0]["budget_share"]
    assert answer_decision(data(0.5, gap=0.0, trend=0.0))["type"] == "WAIT"


def test_replay_from_cache_gives_the_same_run(tmp_path: Path) -> None:
    db = str(tmp_path / "cache.db")
    record = LLMClient(OfflineBackend(rule=trader), LLMConfig(cache=CacheConfig(mode="record", path=db)))
    _, fills, _ = run(record, ticks=6)  # the first fills of this economy come in month 5
    record.close()

    def no_model(messages: Any, schema: Any) -> Any:
        raise AssertionError("replay must not call the model")

    replay = LLMClient(OfflineBackend(rule=no_model), LLMConfig(cache=CacheConfig(mode="replay", path=db)))
    _, again, _ = run(replay, ticks=6)
    assert fills and again == fills
    with pytest.raises(CacheMissError):
        run(replay, ticks=7)  # one tick further than recorded: a replay miss is an error, not a silent call


def test_llm_fused_briefings_are_batched_and_cached() -> None:
    def model(messages: Any, schema: Any) -> dict[str, Any]:
        if "analyst" in messages[0]["content"]:
            return {"text": "Steel is cheap; past buys after falls paid off."}
        return {"type": "WAIT", "reason": "fused"}

    backend = OfflineBackend(rule=model)
    policy = LLMPolicy(client=LLMClient(backend))
    policy.cognitive.recall.llm_briefing = True
    EconomyModel(seed=5, policy=policy, households=20).run(3)
    purposes = policy.usage()["purposes"]
    assert purposes["fusion"]["calls"] > 0 and purposes["decision"]["calls"] > 0
    decisions = [r for r in backend.requests if "analyst" not in r.messages[0]["content"]]
    assert 'Briefing: "Steel is cheap' in decisions[-1].messages[-1]["content"]


def test_llm_policy_asks_once_per_group_of_alike_households() -> None:
    from psychoagent.agent.config import CognitiveConfig

    def calls(group: bool) -> tuple[int, int, int]:
        cfg = CognitiveConfig()
        cfg.llm.group = group
        policy = LLMPolicy(cognitive=cfg, client=LLMClient(OfflineBackend(rule=trader)))
        EconomyModel(seed=5, policy=policy, households=60).run(4)
        decided = sum(v for k, v in policy.counts.items() if k.startswith("decision."))
        return policy.counts["llm.calls"], decided, policy.usage()["purposes"]["decision"]["calls"]

    grouped, decided, asked = calls(True)
    alone, decided_alone, _ = calls(False)
    assert alone == decided_alone == 60 * 4  # one call per deciding household and month without groups
    assert grouped == asked and grouped <= 0.5 * decided  # every household still decided, from fewer calls
