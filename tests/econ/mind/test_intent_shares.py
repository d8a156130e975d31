"""A stated share outside 0-100 % refuses the order instead of falling back to the default (selling everything)."""

from __future__ import annotations

from psychoagent.econ.mind.intent import parse_intent


def test_out_of_range_percent_refuses_the_order() -> None:
    for text in ("sell 500% of my steel", "buy steel with 0% of cash", "卖出150%的钢材"):
        parsed = parse_intent(text, allowed=["steel"])
        assert parsed.orders == [] and "out of range" in parsed.reason, text
    assert parse_intent("sell 50% of my steel", allowed=["steel"]).orders[0].budget_share == 0.5
