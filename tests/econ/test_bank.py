"""The bank: overdrawn firms and the government pay interest, depositors receive it, no money is created."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.model import EconomyModel

from .conftest import run

PAID = EconomyConfig.model_validate({"bank": {"interest": "paid"}})


def _overdrawn(rate: float, pay_capitalised: bool = True) -> EconomyModel:
    """Three months from the opening balances (no burn-in: only the overdrafts set here are owed); by default the
    bank pays out capitalised interest, so that what borrowers are charged is what depositors may earn."""
    cfg = EconomyConfig.model_validate({"burn_in": 0, "bank": {"pay_capitalised": pay_capitalised}})
    model, _ = run(ticks=3, households=30, seed=5, config=cfg)
    model.interest_rate = rate
    model.firms[0].cash = -50_000.0  # an overdraft of the consumer-goods firm
    model.gov_balance = -20_000.0
    return model


def test_depositors_receive_exactly_what_borrowers_pay() -> None:
    model = _overdrawn(0.03)  # loans earn less than the policy rate on all deposits: everything is paid out
    before = model.total_money()
    firm_cash = [f.cash for f in model.firms]
    deposits = model.households.deposits.copy()
    model.bank.accrue()
    interest = model.bank.settle(deposits)
    loan = (0.03 + model.config.bank.loan_spread) / 12.0
    assert interest.sum() == pytest.approx(loan * (50_000.0 + 20_000.0), rel=1e-12)
    assert model.firms[0].cash == pytest.approx(firm_cash[0] - loan * 50_000.0)
    assert [f.cash for f in model.firms[1:]] == firm_cash[1:]  # positive balances pay nothing
    assert model.gov_balance == pytest.approx(-20_000.0 - loan * 20_000.0)
    np.testing.assert_allclose(interest, deposits / deposits.sum() * interest.sum())  # pro rata to deposits
    model.households.deposits += interest
    assert model.total_money() == pytest.approx(before, rel=1e-12)
    assert model.bank.settle(deposits).sum() == 0.0  # settled: nothing owed twice


def test_depositors_earn_at_most_the_policy_rate_and_the_bank_keeps_the_rest() -> None:
    model = _overdrawn(0.03)
    model.firms[0].cash = -1e9  # the loans earn far more than the policy rate on the deposits
    before = model.total_money()
    deposits = model.households.deposits.copy()
    model.bank.accrue()
    owed = model.bank.owed.sum() + model.bank.gov_owed
    interest = model.bank.settle(deposits)
    cap = model.config.bank.deposit_beta * 0.03 * model.config.bank.interest_months / 12.0
    np.testing.assert_allclose(interest, cap * deposits)
    assert model.bank.equity == pytest.approx(owed - interest.sum())
    model.households.deposits += interest
    assert model.total_money() == pytest.approx(before, rel=1e-12)


def test_a_higher_rate_moves_more_money_from_borrowers_to_savers() -> None:
    paid = []
    for rate in (0.03, 0.07):
        model = _overdrawn(rate)
        model.bank.accrue()
        paid.append((model.bank.settle(model.households.deposits).sum(), model.firms[0].cash))
    assert paid[1][0] > paid[0][0] and paid[1][1] < paid[0][1]


def test_yearly_interest_in_a_run_is_paid_by_borrowers() -> None:
    events: list[dict[str, float]] = []
    model = EconomyModel(PAID, seed=3, households=30)
    model.bus.subscribe("bank.interest_paid", lambda e: events.append(e.payload))
    start = model.total_money()
    model.run(24)
    assert [e["mode"] for e in events] == ["paid", "paid"]
    assert sum(e["total"] for e in events) == pytest.approx(model.bank.paid_out)
    assert model.money_created == 0.0 and model.total_money() == pytest.approx(start, rel=1e-10)


def test_created_interest_keeps_econagents_rule() -> None:
    # a natural rate that keeps the rule's rate above zero, so that interest is credited at all
    cfg = EconomyConfig.model_validate({"bank": {"interest": "created", "natural_rate": 0.05}})
    model = EconomyModel(cfg, seed=3, households=30)
    model.run(12)
    assert model.money_created > 0 and model.bank.paid_out == 0.0
    assert (
        model.bank.month_cost(0) == 0.0 and not model.bank.owed.any()
    )  # overdrafts are free, as in EconAgent


def test_a_cognitive_firms_unit_cost_includes_the_interest_on_its_overdraft(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    costs = []
    for interest in (0.0, 1000.0):
        model = EconomyModel(PAID, seed=2, households=30, firms="cognitive")
        model.run(2)
        monkeypatch.setattr(model.bank, "month_cost", lambda index, x=interest: x)
        model.run(1)
        assert model.firm_board is not None
        month = model.firm_board.states[0].months[-1]
        costs.append(month.unit_cost * month.produced)
    assert costs[1] - costs[0] == pytest.approx(1000.0, rel=1e-9)


def test_interest_beyond_a_firms_credit_line_is_charged_but_not_paid_out() -> None:
    model = _overdrawn(0.03)
    model.firms[0].sold = 0.0  # no sales this month: no credit line, the whole overdraft is impaired
    model.bank.accrue()
    interest = model.bank.settle(model.households.deposits.copy())
    loan = (0.03 + model.config.bank.loan_spread) / 12.0
    assert interest.sum() == pytest.approx(loan * 20_000.0, rel=1e-12)  # only the government's interest
    assert model.firms[0].cash == pytest.approx(-50_000.0 - loan * 50_000.0)  # the firm still owes it
    assert model.bank.equity == pytest.approx(loan * 50_000.0)  # kept by the bank: no deposits created


def test_interest_a_firm_pays_by_borrowing_more_is_kept_by_the_bank() -> None:
    model = _overdrawn(0.05, pay_capitalised=False)  # the default
    loan = (0.05 + model.config.bank.loan_spread) / 12.0
    before = model.total_money()
    model.bank.accrue()
    interest = model.bank.settle(model.households.deposits.copy())
    assert interest.sum() == pytest.approx(loan * 20_000.0, rel=1e-12)  # only the government paid
    assert model.firms[0].cash == pytest.approx(-50_000.0 - loan * 50_000.0)  # capitalised
    assert model.bank.equity == pytest.approx(loan * 50_000.0)
    model.households.deposits += interest
    assert model.total_money() == pytest.approx(before, rel=1e-12)
    model.bank.accrue()  # a month later the firm is in funds at the credit date: it pays in cash
    owed = float(model.bank.owed.sum()) + model.bank.gov_owed
    model.firms[0].cash = 1_000_000.0
    assert model.bank.settle(model.households.deposits.copy()).sum() == pytest.approx(owed, rel=1e-12)
