"""Decision-critical numbers (order sizes, shares) out of range become the declared fallback, never the bound."""

from __future__ import annotations

import json
from typing import Any

from psychoagent.econ.mind.schema import Decision
from psychoagent.llm import LLMClient, OfflineBackend
from psychoagent.llm.schema import CRITICAL, is_critical, prepare_schema

ALL_IN = {"type": "DECIDE", "orders": [{"side": "SELL", "instrument": "steel", "budget_share": 5}]}


def _decide(answer: dict[str, Any]) -> tuple[Decision, OfflineBackend]:
    backend = OfflineBackend(rule=lambda messages, schema: answer)
    client = LLMClient(backend)
    decision = client.structured(
        [{"role": "user", "content": "decide"}], Decision, purpose="decision",
        fallback=lambda reason: Decision(type="WAIT", reason=f"fallback: {reason}"[:200]),
    )  # fmt: skip
    return decision, backend


def test_a_share_of_5_is_not_clamped_to_all_in_but_falls_back() -> None:
    decision, backend = _decide(ALL_IN)
    assert decision.type == "WAIT" and decision.orders == []
    assert decision.reason.startswith("fallback:") and "budget_share" in decision.reason
    assert len(backend.requests) > 1  # the model was asked to correct itself before the fallback


def test_expected_return_out_of_range_falls_back_too() -> None:
    decision, _ = _decide({"type": "DECIDE", "intent": "buy steel", "expected_return": 30})
    assert decision.type == "WAIT"


def test_valid_decisions_pass_and_the_marker_is_not_shown_to_the_model() -> None:
    good = {"type": "DECIDE", "orders": [{"side": "BUY", "instrument": "steel", "budget_share": 0.2}]}
    decision, backend = _decide(good)
    assert decision.orders[0].budget_share == 0.2 and len(backend.requests) == 1
    assert CRITICAL not in json.dumps(prepare_schema(Decision))


def test_is_critical_walks_nested_fields() -> None:
    assert is_critical(Decision, ("orders", 0, "budget_share"))
    assert is_critical(Decision, ("orders", 0, "quantity")) and is_critical(Decision, ("expected_return",))
    assert not is_critical(Decision, ("type",)) and not is_critical(Decision, ("orders", 0, "side"))
