"""Government bonds: deficits financed by issuance, coupons at the policy rate, money conserved, yields listed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from psychoagent.econ.collect import assets_frame
from psychoagent.econ.config import EconomyConfig

from .conftest import run, scenario

DEFICIT = EconomyConfig.model_validate(
    {"trading": {"bonds": {"deficit_share": 0.01}}, "benefit": {"replacement": 0.0}, "burn_in": 0}
)  # a known deficit from the opening balances: unemployment insurance off
HIKE = [{"kind": "rate_shock", "start": 10, "delta": 0.04}]


def test_money_is_conserved_with_coupons_deficits_and_bond_sales() -> None:
    model, df = run(ticks=30, config=DEFICIT, scenario=scenario(shocks=HIKE))
    start = df["total_money"].iloc[0] - df["money_created"].iloc[0]
    np.testing.assert_allclose(df["total_money"], start + df["money_created"], rtol=1e-10)
    t = model.markets.treasury
    assert t.issued - t.bought_back > 0  # the deficit was financed by selling bonds
    # sessions finance the shortfall as it arises: an undersubscribed one (bids thin out when little news
    # arrives) leaves at most about a month's deficit spending for the next
    assert abs(model.gov_balance) < 0.01 * df["nominal_gdp"].max()


def test_outstanding_bonds_change_only_by_what_the_treasury_sold_or_bought() -> None:
    model, _ = run(ticks=2, config=DEFICIT)
    t = model.markets.treasury
    before, net = t.outstanding(), t.issued - t.bought_back
    model.run(6)
    assert t.outstanding() == pytest.approx(before + (t.issued - t.bought_back) - net, rel=1e-9)
    assert t.issued - t.bought_back > net


def test_yields_follow_the_policy_rate() -> None:
    base, base_macro = run(ticks=16)
    model, macro = run(
        ticks=16, scenario=scenario(shocks=[{"kind": "rate_shock", "start": 6, "delta": 0.05}])
    )

    def window(frame: pd.DataFrame, col: str) -> float:
        return float(frame[(frame.tick > 6) & (frame.tick <= 12)][col].mean())

    rise = window(macro, "interest_rate") - window(base_macro, "interest_rate")
    bonds = [assets_frame(m).query("asset == 'bond'") for m in (base, model)]
    lift = window(bonds[1], "yield") - window(bonds[0], "yield")
    # the coupon is the policy rate + premium: against the same seed without the hike, a 5 pp hike lifts the
    # yield by a good part of the rate's rise (less where the higher coupon also lifts the bond's price)
    assert rise >= 0.04 and lift > 0.4 * rise
    bond = bonds[1]
    coupon = model.markets.treasury.coupon_rate() * model.config.trading.bonds.face
    last = bond.iloc[-1]
    assert last["yield"] == pytest.approx(coupon / last["price"])


def test_a_deficit_the_market_cannot_absorb_at_par_raises_the_yield() -> None:
    calm, _ = run(ticks=24, config=EconomyConfig.model_validate({"benefit": {"replacement": 0.0}}))
    pressed, _ = run(ticks=24, config=DEFICIT)
    price = [assets_frame(m).query("asset == 'bond'")["price"].iloc[-20:].mean() for m in (calm, pressed)]
    assert price[1] < price[0]


def test_assets_table_lists_the_bond_with_prices_and_yields() -> None:
    model, _ = run(ticks=3)
    df = assets_frame(model)
    bond, rest = df[df.asset == "bond"], df[df.asset != "bond"]
    assert len(bond) == 3 * model.config.trading.rounds and bond["price"].gt(0).all()
    assert bond["yield"].notna().all() and rest["yield"].isna().all()
    off = EconomyConfig.model_validate({"trading": {"bonds": {"enabled": False}}})
    model, _ = run(ticks=2, config=off)
    assert "bond" not in set(assets_frame(model)["asset"])


def test_a_hike_raises_the_households_bond_weight() -> None:
    model, _ = run(ticks=1)
    t = model.markets.treasury
    bank = model.config.bank
    model.interest_rate = bank.natural_rate + bank.inflation_target  # neutral: the configured weight
    assert t.weight() == pytest.approx(model.config.trading.bonds.weight)
    model.interest_rate += 0.04  # Godley and Lavoie's lambda1 = 5: 4 points lift the weight by 0.2
    assert t.weight() == pytest.approx(model.config.trading.bonds.weight + 0.2)
    model.interest_rate = 0.0
    assert t.weight() < model.config.trading.bonds.weight
