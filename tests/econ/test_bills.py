"""Treasury bills at the bank's window: a rate above the threshold moves households' money into bills bought from
the bank, a lower rate brings it back, and money only changes hands."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent.econ.bills import target_share
from psychoagent.econ.bills_config import BillsConfig
from psychoagent.econ.model import EconomyModel

from .conftest import run


def _model() -> EconomyModel:
    model, _ = run(ticks=2, households=30, seed=7)
    return model


def test_bill_share_rises_with_the_rate_above_its_threshold_and_is_capped() -> None:
    cfg = BillsConfig()
    assert target_share(cfg.threshold, cfg) == pytest.approx(0.0, abs=1e-12)
    assert target_share(cfg.threshold - 0.005, cfg) == 0.0
    assert target_share(0.0, cfg) == 0.0
    high = target_share(cfg.threshold + 0.04, cfg)
    assert high == pytest.approx(cfg.semi_elasticity * 0.04)
    assert target_share(0.04, cfg) > target_share(0.006, cfg)  # a hike from near the floor moves money
    assert target_share(5.0, cfg) == cfg.max_share


def test_a_high_rate_moves_money_into_bills_and_a_low_rate_back() -> None:
    model = _model()
    bills, hh, cfg = model.bills, model.households, model.config.bank.bills
    start_total, start_money, stock = model.total_money(), model.money(), bills.bank
    held, money = bills.households.copy(), hh.cash + hh.deposits
    model.interest_rate = 0.12
    gap = cfg.speed * (target_share(0.12, cfg) * (money + held) - held)
    bought = bills.trade()
    assert bought > 0 and bought == pytest.approx(float(np.clip(gap, -held, money).sum()), rel=1e-9)
    assert model.money() == pytest.approx(start_money - bought, rel=1e-12)
    assert bills.bank == pytest.approx(stock - bought)
    assert bills.households.sum() + bills.bank == pytest.approx(bills.issued)
    assert model.total_money() == pytest.approx(start_total, rel=1e-12)  # the bank's reserves hold it
    assert (hh.cash >= -1e-9).all() and (hh.deposits >= -1e-9).all()
    held = bills.households.copy()
    model.interest_rate = 0.0
    sold = -bills.trade()
    np.testing.assert_allclose(bills.households, held * (1.0 - cfg.speed))
    assert sold == pytest.approx(cfg.speed * held.sum())
    assert model.total_money() == pytest.approx(start_total, rel=1e-12)


def test_purchases_are_rationed_when_the_bank_runs_out() -> None:
    model = _model()
    held = model.bills.households.sum()
    model.bills.bank = 100.0  # all but 100 of the bank's bills are gone
    model.interest_rate = 0.2
    assert model.bills.trade() == pytest.approx(100.0)
    assert model.bills.bank == pytest.approx(0.0) and model.bills.households.sum() == pytest.approx(
        held + 100.0
    )


def test_households_bills_earn_the_policy_rate_from_the_government() -> None:
    model = _model()
    model.bills.households[:] = 1200.0
    model.interest_rate = 0.05
    balance = model.gov_balance
    paid = model.bills.interest()
    np.testing.assert_allclose(paid, 1200.0 * 0.05 / 12.0)
    assert model.gov_balance == pytest.approx(balance - paid.sum())
