"""Intent parsing: English and Chinese intents -> structured orders."""

from __future__ import annotations

import pytest

from psychoagent.econ.mind.intent import parse_intent, zh_number

CASES = [
    ("use 20% of cash to buy as much steel as possible", "BUY", "steel", None, 0.2, None),
    ("用20%的现金尽可能多地买入钢材", "BUY", "steel", None, 0.2, None),
    ("用百分之十五的现金买入钢材", "BUY", "steel", None, 0.15, None),
    ("Sell 10 units of steel at 130 or better", "SELL", "steel", 10.0, None, 130.0),
    ("卖出一半的钢材", "SELL", "steel", None, 0.5, None),
    ("buy 5 shares of tech stock below 50", "BUY", "stock:tech", 5.0, None, 50.0),
    ("买入5股科技股，价格不超过50", "BUY", "stock:tech", 5.0, None, 50.0),
    ("sell all my steel", "SELL", "steel", None, 1.0, None),
    (
        "I think steel is cheap now, so I will put 30 percent of my cash into steel. Buy it.",
        "BUY",
        "steel",
        None,
        0.3,
        None,
    ),
]


@pytest.mark.parametrize(("text", "side", "instrument", "qty", "share", "limit"), CASES)
def test_intents_parse_to_orders(text: str, side: str, instrument: str, qty: float | None,
                                 share: float | None, limit: float | None) -> None:  # fmt: skip
    parsed = parse_intent(text)
    assert len(parsed.orders) == 1, parsed
    o = parsed.orders[0]
    assert (o.side, o.instrument, o.quantity, o.limit_price) == (side, instrument, qty, limit)
    assert o.budget_share == pytest.approx(share) if share is not None else o.budget_share is None


@pytest.mark.parametrize("text", ["I will wait.", "观望", "hold off for now"])
def test_wait_intents_have_no_orders(text: str) -> None:
    parsed = parse_intent(text)
    assert parsed.orders == [] and parsed.wait and "wait" in parsed.reason


def test_unknown_or_not_allowed_instrument_gives_a_reason() -> None:
    assert parse_intent("buy gold").reason.startswith("no tradable instrument")
    assert parse_intent("buy 5 shares of tech stock", allowed=["steel"]).orders == []
    assert parse_intent("").reason == "empty intent"


def test_zh_numbers() -> None:
    assert (
        zh_number("二十") == 20
        and zh_number("十五") == 15
        and zh_number("三") == 3
        and zh_number("x") is None
    )
