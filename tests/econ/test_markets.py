"""Markets inside the economy: conservation, no short sales, determinism, dividends, orders, assets.csv."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from psychoagent.agent.bus import EventBus
from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.investors import trend_weight
from psychoagent.econ.markets import ASSET_COLUMNS, InvestorConfig, TradingConfig
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.orders import Order, Side
from psychoagent.econ.run import simulate
from psychoagent.eval.rundata import RunData


def small(seed: int = 5, households: int = 30, **trading: object) -> EconomyModel:
    cfg = EconomyConfig(trading=TradingConfig(rounds=5, **trading))  # type: ignore[arg-type]
    return EconomyModel(cfg, seed=seed, households=households, bus=EventBus(keep=100_000))


def test_units_and_money_are_conserved_and_nobody_is_short() -> None:
    model = small()
    start = model.total_money()
    markets = model.markets
    for _ in range(6):
        model.step()
        for inst, k in markets.col.items():
            if inst.startswith("stock:"):
                held = markets.units[:, k].sum() + markets.maker.units[k]
                assert held == pytest.approx(markets.shares, rel=1e-9)
        assert markets.units.min() >= -1e-9 and markets.maker.units.min() >= -1e-9
        assert (model.households.deposits >= -1e-6).all()
        assert model.total_money() == pytest.approx(start + model.money_created, rel=1e-10)
    volume = pd.DataFrame(markets.records, columns=list(ASSET_COLUMNS))["volume"]
    assert volume.sum() > 0 and markets.fees > 0


def test_same_seed_gives_the_same_trades() -> None:
    a, b, c = small(seed=9), small(seed=9), small(seed=10)
    for m in (a, b, c):
        m.run(4)
    assert a.markets.records == b.markets.records
    np.testing.assert_array_equal(a.markets.units, b.markets.units)
    assert a.markets.records != c.markets.records


def test_dividends_paid_equal_the_payout_and_follow_holdings() -> None:
    model = small()
    model.run(3)
    firm = model.firms[0]
    before = model.markets._div.copy()
    k = model.markets.firm_col[firm.index]
    maker = model.markets.maker.cash
    paid = model.markets.pay_dividend(firm, 1000.0)
    assert paid.sum() + model.markets.maker.cash - maker == pytest.approx(1000.0, rel=1e-9)
    np.testing.assert_allclose(paid, 1000.0 * model.markets.units[:, k] / model.markets.shares)
    assert model.markets._div[k] - before[k] == pytest.approx(1000.0 / model.markets.shares)


def test_submitted_orders_fill_within_their_limit_and_are_published() -> None:
    model = small()
    model.run(2)
    model.firms[model.sector_names.index("steel")].inventory += 200.0  # a float: steel is made to order
    quote = model.markets.quote("stock:tech")
    limit = quote.price * 1.2
    receipt = model.markets.submit([
        Order(agent_id=0, instrument="stock:tech", side=Side.BUY, quantity=1.0, limit_price=limit),
        {"agent_id": 1, "instrument": "steel", "side": "BUY", "budget_share": 0.01},
    ])  # fmt: skip
    assert len(receipt.accepted) == 2 and not receipt.rejected
    model.step()
    fills = [f for f in model.markets.fills(0) if f.instrument == "stock:tech"]
    assert fills and all(f.requested == 1.0 and 0 <= f.round < 5 for f in fills)
    assert sum(f.quantity for f in fills) <= 1.0 + 1e-9
    for f in fills:
        if f.quantity:
            assert f.price <= limit and f.fee == pytest.approx(f.quantity * f.price * 0.001)
    kinds = {e.type for e in model.bus.history}
    assert {"market.cleared"} <= kinds and ({"market.order_filled", "market.order_expired"} & kinds)
    cleared = [e for e in model.bus.history if e.type == "market.cleared" and e.payload.get("kind")]
    assert {e.payload["market"] for e in cleared} == set(model.markets.instruments)
    from psychoagent.econ.orders import Fill

    for e in model.bus.history:  # a fill's event payload is the fill's JSON dump
        if e.type == "market.order_filled":
            assert e.payload == Fill(**e.payload).model_dump(mode="json")


def test_bad_orders_are_rejected_with_a_reason_and_counted() -> None:
    model = small()
    model.run(1)
    shares = model.markets.shares
    held = model.markets.holdings(2)["stock:tech"]
    model.households.cash[3] = 1e12
    receipt = model.markets.submit([
        {"agent_id": 0, "instrument": "stock:tech", "side": "BUY", "quantity": float("nan")},
        {"agent_id": 0, "instrument": "gold", "side": "BUY", "quantity": 1.0},
        {"agent_id": 0, "instrument": "stock:tech", "side": "HOLD", "quantity": 1.0},
        "not an order",
        Order(agent_id=0, instrument="stock:nope", side=Side.BUY, quantity=1.0),
        Order(agent_id=10_000, instrument="stock:tech", side=Side.BUY, quantity=1.0),
        Order(agent_id=2, instrument="stock:tech", side=Side.SELL, quantity=held + 1.0),
        Order(agent_id=4, instrument="stock:tech", side=Side.BUY, quantity=1e9),
        Order(agent_id=3, instrument="stock:tech", side=Side.BUY, quantity=0.5 * shares),
    ])  # type: ignore[list-item]  # fmt: skip
    reasons = [r.reason for r in receipt.rejected]
    assert reasons == ["invalid"] * 4 + ["unknown_instrument", "unknown_agent", "short_sale",
                                         "insufficient_cash", "position_limit"]  # fmt: skip
    assert not receipt.accepted and sum(model.markets.rejections.values()) == 9
    assert "quantity" in receipt.rejected[0].detail
    events = [e for e in model.bus.history if e.type == "market.order_rejected"]
    assert len(events) == 9 and events[-1].source == "household:3"


def test_two_sales_cannot_sell_the_same_shares_twice() -> None:
    model = small()
    i = int(np.argmax(model.markets.units[:, model.markets.col["stock:tech"]]))
    held = model.markets.holdings(i)["stock:tech"]
    half = Order(agent_id=i, instrument="stock:tech", side=Side.SELL, quantity=0.6 * held)
    receipt = model.markets.submit([half, half.model_copy(update={"order_id": "second"})])
    assert len(receipt.accepted) == 1 and receipt.rejected[0].reason == "short_sale"


def test_trading_can_be_switched_off(tmp_path) -> None:
    model = small(enabled=False)
    model.run(2)
    assert model.markets.instruments == () and model.markets.records == []
    assert model.snapshot().assets == {}
    receipt = model.markets.submit([Order(agent_id=0, instrument="steel", side=Side.BUY, quantity=1.0)])
    assert receipt.rejected[0].reason == "markets_closed"


def test_assets_csv_has_the_documented_columns(tmp_path) -> None:
    simulate(tmp_path, agents=10, ticks=2, seed=1)
    run = RunData.open(tmp_path)
    df = run.assets
    assert df is not None
    assert list(df.columns[:3]) == ["period", "tick", "round"]
    assert {"period", "tick", "asset", "price", "volume", "return"} <= set(df.columns)
    assets = set(df["asset"])
    assert assets == {"steel", "stock:consumer_goods", "stock:steel", "stock:tech", "bond"}
    assert len(df) == 2 * 20 * len(assets) and df["period"].max() == 40
    for _, g in df[df["asset"].str.startswith("stock:")].groupby("asset"):
        logp = np.log(g["price"].to_numpy())
        np.testing.assert_allclose(np.diff(logp), g["return"].to_numpy()[1:], atol=1e-8)
    snap = run.macro
    assert len(snap) == 2


def test_persona_sets_the_trend_weight() -> None:
    cfg = InvestorConfig()
    low = trend_weight(np.array([0.1]), np.array([0.2]), cfg)
    risky = trend_weight(np.array([0.9]), np.array([0.2]), cfg)
    unstable = trend_weight(np.array([0.1]), np.array([0.9]), cfg)
    assert risky > low and unstable > low


def test_an_order_of_all_the_cash_never_overdraws_the_household() -> None:
    model = small(households=20, position_limit=1.0)
    model.run(1)
    price = model.markets.quote("stock:tech").price
    receipt = model.markets.submit([Order(agent_id=i, instrument="stock:tech", side=Side.BUY, budget_share=1.0,
                                          limit_price=price * 1.5) for i in range(5)])  # fmt: skip
    assert len(receipt.accepted) == 5
    model.step()
    hh = model.households
    assert (hh.deposits >= -1e-6).all() and (hh.cash >= -1e-6).all()
    assert any(f.quantity > 0 for i in range(5) for f in model.markets.fills(i))
