"""The debt rule: deficits are sold as bonds, what the auctions leave is closed through the lump sum, debt stays
near its anchor and the government's balance stays above -2 months of nominal GDP."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.month import debt_rule

from .conftest import run


def test_the_rule_returns_a_surplus_and_withholds_an_overdraft() -> None:
    model, _ = run(ticks=2)
    speed = model.config.fiscal.balance_speed
    model.gov_balance = 1000.0
    assert debt_rule(model) == pytest.approx(speed * 1000.0)  # debt far below the anchor
    model.gov_balance = -1000.0
    assert debt_rule(model) == pytest.approx(-speed * 1000.0)


def test_debt_above_the_anchor_is_paid_down() -> None:
    model, _ = run(ticks=2, config=EconomyConfig.model_validate({"fiscal": {"debt_anchor": 0.0}}))
    model.gov_balance = 0.0
    debt = model.markets.bonds_outstanding() * model.config.trading.bonds.face
    assert debt > 0 and debt_rule(model) == pytest.approx(-model.config.fiscal.debt_speed / 12.0 * debt)


@pytest.mark.parametrize("deficit", [0.0, 0.03])
def test_the_balance_stays_above_two_months_of_gdp(deficit: float) -> None:
    cfg = EconomyConfig.model_validate({"trading": {"bonds": {"deficit_share": deficit}}})
    _, df = run(ticks=60, households=40, config=cfg)
    months = df["gov_balance"] / df["nominal_gdp"]
    assert months.min() > -2.0 and np.abs(months.iloc[-12:]).max() < 0.5, months.describe()
