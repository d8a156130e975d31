"""Information arrival in the markets (mixture of distributions): intensity process, news, orders and volume."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from psychoagent.agent.bus import EventBus
from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.investors import Holdings, Signals, investor_orders
from psychoagent.econ.markets import ASSET_COLUMNS, InvestorConfig, TradingConfig
from psychoagent.econ.markets.config import InformationConfig
from psychoagent.econ.markets.state import MarketState
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.snapshot import NewsItem


def state(**info: object) -> MarketState:
    cfg = TradingConfig(information=InformationConfig(**info))  # type: ignore[arg-type]
    return MarketState(3, cfg, [0, 1, 2])


def test_intensity_averages_one_and_comes_in_spells() -> None:
    s, rng = state(), np.random.default_rng(0)
    draws = np.array([s.step_information(rng)[0] for _ in range(40_000)])[:, 0]
    assert draws.mean() == pytest.approx(1.0, abs=0.08)  # E[intensity] = 1: mean activity is unchanged
    logs = np.log(draws)
    assert np.corrcoef(logs[:-1], logs[1:])[0, 1] == pytest.approx(0.98, abs=0.01)
    assert logs.std() == pytest.approx(0.78, abs=0.1)


def test_switched_off_information_changes_nothing() -> None:
    s = state(enabled=False)
    s.hear(3.0)
    factors = s.step_information(np.random.default_rng(1))
    assert all(np.array_equal(f, np.ones(3)) for f in factors) and not s.information.any()


def test_news_surprise_raises_intensity_and_routine_news_wears_off() -> None:
    s = state(headlines=0.5, news_memory=12.0)
    s.hear(2.0)
    np.testing.assert_allclose(s.information, 1.0)  # 0.5 x (2.0 - 0: nothing usual yet)
    jumps = []
    for _ in range(60):  # the same news every month becomes the usual level
        before = s.information.copy()
        s.hear(2.0)
        jumps.append(float((s.information - before)[0]))
    assert jumps[0] > 0.8 and abs(jumps[-1]) < 0.01
    s.hear(0.0)  # a month quieter than usual lowers it
    assert (s.information - 1.0 - sum(jumps) < 0).all()


def _signals(k: int, arrivals: float, spread: float) -> Signals:
    one = np.ones(k)
    return Signals(price=one * 10.0, fundamental=one * 10.0, trend=one * 0.0, attention=one, flow=one * 0.0,
                   chartist_share=one * 0.5, weight=one / k, news_value=one * 0.0, news_trend=one * 0.0,
                   arrivals=one * arrivals, spread_shared=one * spread, spread_private=one * spread)  # fmt: skip


def _book(arrivals: float, spread: float, seed: int, liquidity: float = 0.0) -> tuple[int, float]:
    """(orders, units offered on both sides) of 2,000 alike households in one instrument."""
    n, rng = 2000, np.random.default_rng(seed)
    traits = np.tile([0.5, 0.0, 0.5, 0.5], (n, 1))
    hold = Holdings(cash=np.full(n, 500.0), units=np.full((n, 1), 50.0), wealth=np.full(n, 1000.0),
                    unit_cap=np.array([1e9]))  # fmt: skip
    (bids, asks), = investor_orders(_signals(1, arrivals, spread), traits, np.full(n, 0.5), hold,
                                    InvestorConfig(liquidity=liquidity), 0.001, rng)  # fmt: skip
    return bids.agent.size + asks.agent.size, float(bids.quantity.sum() + asks.quantity.sum())


def test_more_information_brings_more_traders_and_larger_orders() -> None:
    quiet = [_book(0.5, 0.7, seed) for seed in range(5)]
    busy = [_book(2.0, 1.4, seed) for seed in range(5)]
    assert min(b[0] for b in busy) > 2.5 * max(q[0] for q in quiet)
    assert np.mean([b[1] / b[0] for b in busy]) > 1.5 * np.mean([q[1] / q[0] for q in quiet])


def test_liquidity_trading_keeps_quiet_rounds_from_emptying() -> None:
    """With a liquidity share, a quiet round (intensity 0.1) keeps at least that share of a normal round's orders."""
    for liquidity in (0.0, 0.5):
        quiet = np.mean([_book(0.1, 1.0, seed, liquidity)[0] for seed in range(5)])
        normal = np.mean([_book(1.0, 1.0, seed, liquidity)[0] for seed in range(5)])
        assert (quiet / normal > 0.5) == (liquidity > 0), (liquidity, quiet, normal)


def small(seed: int = 4) -> EconomyModel:
    cfg = EconomyConfig(trading=TradingConfig(rounds=5))
    return EconomyModel(cfg, seed=seed, households=60, bus=EventBus(keep=100_000))


def _stock_volume(model: EconomyModel, tick: int) -> float:
    df = pd.DataFrame(model.markets.records, columns=list(ASSET_COLUMNS))
    df = df[(df["tick"] == tick) & df["asset"].str.startswith("stock:")]
    return float(df["volume"].sum())


def _with_news(model: EconomyModel) -> EconomyModel:
    """The model with a full-size bad headline added to its next month's news."""
    generate = model.news_generator.generate
    model.news_generator.generate = lambda t, now, before: [  # type: ignore[method-assign]
        *generate(t, now, before),
        NewsItem(t, "Output shrinks 9.0% in a month", -1.0, "output"),
    ]
    return model


def test_sessions_after_news_trade_more_and_conserve_money_and_shares() -> None:
    calm_volume = news_volume = 0.0
    for seed in range(1, 7):  # one session is noisy: compare the total over six economies
        calm, news = small(seed), small(seed)
        for m in (calm, news):
            m.run(3)
        start = news.total_money() - news.money_created
        _with_news(news).step()
        calm.step()
        calm_volume += _stock_volume(calm, 4)
        news_volume += _stock_volume(news, 4)
        assert news.total_money() == pytest.approx(start + news.money_created, rel=1e-10)
        for inst, k in news.markets.col.items():
            if inst.startswith("stock:"):
                held = news.markets.units[:, k].sum() + news.markets.maker.units[k]
                assert held == pytest.approx(news.markets.shares, rel=1e-9)
        assert news.markets.units.min() >= -1e-9 and (news.households.deposits >= -1e-6).all()
    assert news_volume > 1.1 * calm_volume
