"""Guardrails: parsing, persona adjustment, each rule's rejection and reason, look-ahead veto."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent.agent.config import GuardrailConfig, LookaheadConfig
from psychoagent.econ.mind.guardrails import (
    Account,
    Guardrails,
    adjust_for_persona,
    lookahead,
    persona_scale,
)
from psychoagent.econ.mind.schema import ApprovedOrder, Decision, OrderSpec

PRICES = {"steel": 100.0, "stock:tech": 50.0}


def account(cash: float = 10_000.0, **holdings: float) -> Account:
    held = {k.replace("stock_", "stock:"): v for k, v in holdings.items()}
    return Account(agent=1, cash=cash, holdings=held, prices=PRICES, income=1000.0, spending=500.0)


def check(decision: Decision, acct: Account, *, risk: float = 0.5, baseline: float = 0.5,
          recent: list[bool] | None = None, guard: Guardrails | None = None, vol: float = 0.02):  # fmt: skip
    g = guard or Guardrails(look=LookaheadConfig(enabled=False))
    return g.check(decision, acct, risk=risk, baseline_risk=baseline, recent_high_risk=recent or [],
                   allowed=list(PRICES), volatility={k: vol for k in PRICES}, rng=np.random.default_rng(0))  # fmt: skip


def buy(share: float, instrument: str = "steel") -> Decision:
    return Decision(type="DECIDE", orders=[OrderSpec(side="BUY", instrument=instrument, budget_share=share)])


def test_seed_example_budget_20_to_15_when_risk_fell() -> None:
    order = OrderSpec(side="BUY", instrument="steel", budget_share=0.2)
    adjusted, note = adjust_for_persona(order, risk=0.45, baseline=0.7, cfg=GuardrailConfig())
    assert adjusted.budget_share == pytest.approx(0.15)
    assert "20% -> 15%" in note


def test_persona_adjustment_direction() -> None:
    cfg = GuardrailConfig()
    assert persona_scale(0.3, 0.6, cfg) < 1.0 < persona_scale(0.8, 0.5, cfg)
    assert persona_scale(0.5, 0.5, cfg) == 1.0
    sell = OrderSpec(side="SELL", instrument="steel", budget_share=0.5)
    assert adjust_for_persona(sell, 0.1, 0.9, cfg)[0] == sell


def test_intent_is_parsed_when_orders_are_missing() -> None:
    res = check(Decision(type="DECIDE", intent="用20%的现金尽可能多地买入钢材"), account())
    assert len(res.approved) == 1
    o = res.approved[0]
    assert o.instrument == "steel" and o.quantity == pytest.approx(20.0) and o.stake == pytest.approx(0.2)


def test_unparseable_intent_is_rejected_with_reason() -> None:
    res = check(Decision(type="DECIDE", intent="buy some gold"), account())
    assert not res.approved and res.rejected[0].stage == "parse"
    assert "no tradable instrument" in res.rejected[0].reason


def test_max_trade_share_rule() -> None:
    res = check(buy(0.5), account())
    assert [r.rule for r in res.rejected] == ["max_trade_share"]
    assert "limit 30% per trade" in res.rejected[0].reason


def test_consecutive_high_risk_rule() -> None:
    decision = buy(0.15, "stock:tech")
    ok = check(decision, account(), recent=[True])
    assert ok.approved and ok.approved[0].high_risk
    res = check(decision, account(), recent=[True, True])
    assert [r.rule for r in res.rejected] == ["consecutive_high_risk"]
    assert "number 3 in a row" in res.rejected[0].reason
    assert check(buy(0.15, "steel"), account(), recent=[True, True]).approved  # steel is not high-risk


def test_max_position_rule() -> None:
    res = check(buy(0.25), account(cash=10_000, steel=40))  # 4000 held + 2500 bought of 14000 total = 46 %
    assert res.approved
    res = check(buy(0.25), account(cash=5_000, steel=60))  # 6000 + 1250 of 11000 = 66 %
    assert [r.rule for r in res.rejected] == ["max_position_share"]


def test_min_cash_rule() -> None:
    acct = Account(agent=1, cash=1000.0, holdings={}, prices=PRICES, income=0.0, spending=900.0)
    res = check(buy(0.3), acct)
    assert [r.rule for r in res.rejected] == ["min_cash"] and "month(s) of spending" in res.rejected[0].reason


def test_feasibility_short_sale_and_no_cash() -> None:
    sell = Decision(type="DECIDE", orders=[OrderSpec(side="SELL", instrument="steel", quantity=5)])
    res = check(sell, account())
    assert res.rejected[0].stage == "feasibility" and "short sales" in res.rejected[0].reason
    res = check(buy(0.2), account(cash=0.0))
    assert res.rejected[0].stage == "feasibility" and "cash" in res.rejected[0].reason
    clipped = check(Decision(type="DECIDE", orders=[OrderSpec(side="SELL", instrument="steel", quantity=50)]),
                    account(steel=10))  # fmt: skip
    assert clipped.approved[0].quantity == 10


def test_rules_are_configurable_and_can_be_switched_off() -> None:
    assert check(
        buy(0.5), account(), guard=Guardrails(rules=["min_cash"], look=LookaheadConfig(enabled=False))
    ).approved
    assert check(buy(0.5), account(), guard=Guardrails(enabled=False)).approved
    with pytest.raises(ValueError, match="unknown guardrail rules"):
        Guardrails(rules=["nope"])


def test_lookahead_vetoes_a_bankrupting_order() -> None:
    # all cash into a volatile asset while monthly spending exceeds income: selling late cannot cover it
    acct = Account(agent=1, cash=3000.0, holdings={}, prices=PRICES, income=0.0, spending=450.0)
    order = ApprovedOrder(
        agent=1, side="BUY", instrument="stock:tech", quantity=59.0, limit_price=50.0, stake=0.98
    )
    vol = {"stock:tech": 0.3}
    reason = lookahead(order, acct, vol, {}, LookaheadConfig(), np.random.default_rng(1))
    assert reason is not None and "bankruptcy risk" in reason
    safe = ApprovedOrder(
        agent=1, side="BUY", instrument="stock:tech", quantity=2.0, limit_price=50.0, stake=0.03
    )
    assert lookahead(safe, acct, vol, {}, LookaheadConfig(), np.random.default_rng(1)) is None


def test_lookahead_loss_limit_depends_on_the_persona() -> None:
    # 25 % of assets into one stock on top of a 25 % position: too much for a cautious agent only
    acct = Account(
        agent=1, cash=6000.0, holdings={"stock:tech": 40.0}, prices=PRICES, income=500.0, spending=500.0
    )
    order = ApprovedOrder(
        agent=1, side="BUY", instrument="stock:tech", quantity=40.0, limit_price=50.0, stake=0.25
    )
    vol = {"stock:tech": 0.05}
    cautious = lookahead(order, acct, vol, {}, LookaheadConfig(), np.random.default_rng(2), risk=0.1)
    bold = lookahead(order, acct, vol, {}, LookaheadConfig(), np.random.default_rng(2), risk=0.9)
    assert cautious is not None and "bad-case portfolio loss" in cautious and bold is None


def test_lookahead_veto_through_the_pipeline() -> None:
    g = Guardrails(GuardrailConfig(max_trade_share=1.0, max_position_share=1.0, min_cash_months=0.0))
    acct = Account(agent=1, cash=3000.0, holdings={}, prices=PRICES, income=0.0, spending=450.0)
    res = check(buy(1.0, "stock:tech"), acct, guard=g, vol=0.3)
    assert not res.approved and res.vetoed and res.vetoed[0].rule == "sandbox"
    assert any("lookahead" in f for f in res.feedback())


def test_fire_sale_rule() -> None:
    sell = Decision(type="DECIDE", orders=[OrderSpec(side="SELL", instrument="stock:tech", budget_share=0.9)])
    calm = account(stock_tech=10)
    assert check(sell, calm).approved
    fallen = Account(
        agent=1, cash=10_000.0, holdings={"stock:tech": 10}, prices=PRICES, changes={"stock:tech": -0.12}
    )
    res = check(sell, fallen)
    assert [r.rule for r in res.rejected] == ["fire_sale"] and "right after a 12% fall" in res.rejected[
        0
    ].reason
    half = Decision(type="DECIDE", orders=[OrderSpec(side="SELL", instrument="stock:tech", budget_share=0.5)])
    assert check(half, fallen).approved
