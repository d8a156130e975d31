"""The stocks' market maker: two-sided quotes skewed against inventory, a bounded inventory, conserved money and
shares, and auctions that trade."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.investors import OrderArrays
from psychoagent.econ.markets import ASSET_COLUMNS, TradingConfig
from psychoagent.econ.markets.config import MakerConfig
from psychoagent.econ.markets.maker import MarketMaker
from psychoagent.econ.model import EconomyModel


def maker(**cfg: object) -> MarketMaker:
    """A maker in column 0 of two columns, opened on 10 households holding 10 shares each at price 10."""
    mm = MarketMaker(MakerConfig(**cfg), 2, [0])  # type: ignore[arg-type]
    units = np.full((10, 2), 10.0)
    mm.open(units, np.array([10.0, 1.0]), np.full(10, 100.0))
    return mm


def test_opening_takes_shares_and_capital_from_households_without_making_any() -> None:
    mm = MarketMaker(MakerConfig(inventory_share=0.1, capital=1.0), 2, [0])
    units, deposits = np.full((10, 2), 10.0), np.full(10, 100.0)
    mm.open(units, np.array([10.0, 1.0]), deposits)
    assert units[:, 0].sum() + mm.units[0] == pytest.approx(100.0)
    assert units[:, 1].sum() == 100.0 and mm.units[1] == 0.0  # only the columns it makes a market in
    assert deposits.sum() + mm.cash == pytest.approx(1000.0)
    assert mm.cash == pytest.approx(10.0 * 10.0)  # capital x its inventory's value


def test_steel_is_bought_once_from_the_producers_stock_with_cash_households_subscribe() -> None:
    mm = MarketMaker(MakerConfig(inventory_share=0.1, capital=1.0), 2, [0, 1])
    units, deposits = np.full((10, 2), 10.0), np.full(10, 100.0)
    units[:, 1] = 0.0  # households hold no steel
    mm.open(units, np.array([10.0, 2.0]), deposits)
    assert mm.target[1] == 0.0 and mm.cash == pytest.approx(100.0)
    assert mm.stock_up(1, 400.0, 0.0, 2.0, deposits) == 0.0  # the producer has none: wait
    bought = mm.stock_up(1, 400.0, 25.0, 2.0, deposits)
    assert bought == pytest.approx(25.0)  # 10 % of 400 is 40, but the stock holds 25
    assert mm.units[1] == mm.target[1] == pytest.approx(25.0)
    # households paid the steel (50) and capital as large (50); the 50 for the steel went to the producer
    assert deposits.sum() == pytest.approx(1000.0 - 100.0 - 100.0)
    assert mm.cash == pytest.approx(150.0) and mm.capital == pytest.approx(150.0)
    assert mm.stock_up(1, 400.0, 25.0, 2.0, deposits) == 0.0  # once


def test_quotes_both_sides_around_the_price_and_leans_against_inventory() -> None:
    mm = maker(skew=0.1, min_half_spread=0.01, spread_vol=0.0)
    bid, ask = mm.quotes(0, 10.0, 0.0, 0.0, 0.0)
    assert bid.limit[0] < 10.0 < ask.limit[0] and bid.quantity[0] > 0 and ask.quantity[0] > 0
    assert mm.quotes(1, 10.0, 0.0, 0.0, 0.0)[0].agent.size == 0  # no market in column 1
    mm.units[0] *= 1.5  # long: both quotes fall, to sell
    low_bid, low_ask = mm.quotes(0, 10.0, 0.0, 0.0, 0.0)
    assert low_bid.limit[0] < bid.limit[0] and low_ask.limit[0] < ask.limit[0]
    mm.units[0] = 0.0  # empty: it only bids
    assert mm.quotes(0, 10.0, 0.0, 0.0, 0.0)[1].agent.size == 0
    flowing = maker(flow=0.01)  # buying pressure moves both quotes up
    assert (
        flowing.quotes(0, 10.0, 0.0, 1.0, 0.0)[0].limit[0]
        > flowing.quotes(0, 10.0, 0.0, 0.0, 0.0)[0].limit[0]
    )


def test_a_run_of_one_sided_rounds_moves_the_quotes_further_than_one_round() -> None:
    def bid_after(rounds: int, **cfg: object) -> float:
        mm = maker(flow=0.0, spread_vol=0.0, **cfg)
        for _ in range(rounds - 1):
            mm.quotes(0, 10.0, 0.0, 1.0, 0.0)
        return float(mm.quotes(0, 10.0, 0.0, 1.0, 0.0)[0].limit[0])

    assert bid_after(20, flow_trend=0.02) > bid_after(1, flow_trend=0.02) > bid_after(1, flow_trend=0.0)
    assert bid_after(20, flow_trend=0.0) == pytest.approx(bid_after(1, flow_trend=0.0))


def test_spread_widens_with_volatility() -> None:
    mm = maker(min_half_spread=0.001, spread_vol=0.5)
    calm = mm.quotes(0, 10.0, 0.001, 0.0, 0.0)
    wild = mm.quotes(0, 10.0, 0.05, 0.0, 0.0)
    assert wild[1].limit[0] / wild[0].limit[0] > calm[1].limit[0] / calm[0].limit[0]


def test_inventory_band_stops_the_quote_that_would_leave_it() -> None:
    mm = maker(band=0.5)
    q_star = mm.target[0]
    mm.units[0] = 1.5 * q_star  # at the top: sells only
    bid, ask = mm.quotes(0, 10.0, 0.0, 0.0, 0.0)
    assert bid.agent.size == 0 and ask.quantity[0] > 0
    mm.units[0] = 0.5 * q_star  # at the bottom: buys only
    bid, ask = mm.quotes(0, 10.0, 0.0, 0.0, 0.0)
    assert ask.agent.size == 0 and bid.quantity[0] > 0
    mm.units[0], mm.cash = q_star, 0.0  # no cash: no bid
    assert mm.quotes(0, 10.0, 0.0, 0.0, 0.0)[0].agent.size == 0


def small(seed: int, maker_on: bool, steel: bool = True) -> EconomyModel:
    cfg = EconomyConfig(trading=TradingConfig(rounds=10, maker=MakerConfig(enabled=maker_on, steel=steel)))
    return EconomyModel(cfg, seed=seed, households=40)


def test_in_the_economy_inventory_stays_in_band_money_is_kept_and_more_auctions_trade() -> None:
    traded = {}
    for on, steel in ((False, False), (True, False), (True, True)):  # the steel maker's books are checked too
        shares = []
        for seed in (1, 2):
            model = small(seed, on, steel)
            mm, markets = model.markets.maker, model.markets
            start = model.total_money() - model.money_created
            band = mm.cfg.band
            for _ in range(8):
                model.step()
                for (
                    k
                ) in mm.cols:  # steel is bought from the producer's stock: its bottom is 0 when it had none
                    low = (1 - band) * mm.target[k] if k in markets.firm_col.values() else 0.0
                    assert low - 1e-9 <= mm.units[k] <= (1 + band) * mm.target[k] + 1e-9
                for k in markets.firm_col.values():
                    assert markets.units[:, k].sum() + mm.units[k] == pytest.approx(markets.shares, rel=1e-9)
                assert mm.cash >= -1e-9
                assert model.total_money() - model.money_created == pytest.approx(start, rel=1e-9)
            df = pd.DataFrame(markets.records, columns=list(ASSET_COLUMNS))
            stocks = df[df["asset"].str.startswith("stock:")]
            shares.append(float((stocks["volume"] > 0).mean()))
        traded[on, steel] = float(np.mean(shares))
    assert traded[True, False] > traded[False, False] + 0.05, traded  # the stocks' maker, alone


@pytest.mark.parametrize("steel", [False, True])
def test_a_steel_maker_sells_when_the_steel_firm_has_no_stock_to_sell(steel: bool) -> None:
    """The steel firm's dealer sells only from its stock; a household's bid above the last price then trades only
    with the maker's inventory."""
    model = small(1, True, steel)
    model.step()  # the first session opens the maker: its steel target is set
    markets, mm = model.markets, model.markets.maker
    k = markets.col["steel"]
    firm = markets._steel_firm()
    assert firm is not None
    firm.inventory = 0.0
    mm.units[k] = mm.target[k]
    assert bool(mm.target[k] > 0) == steel
    price, held = float(markets.state.price[k]), float(mm.units[k])
    bid = OrderArrays(np.array([0]), np.array([1.0]), np.array([price * 1.05]))
    markets._auction(model.tick, 0, k, "steel", ([], []), (bid, OrderArrays.empty()))
    volume = markets.records[-1][ASSET_COLUMNS.index("volume")]
    assert bool(volume > 0) == steel
    assert mm.units[k] == pytest.approx(held - volume)
