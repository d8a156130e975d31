"""The stocks' value level: anchored to households' money by the market's long-run ratio to it, so a run-up that
money does not back opens a gap to value instead of carrying the value along."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent.econ.markets.config import TradingConfig
from psychoagent.econ.markets.state import MarketState

MONEY = 1000.0


def opened(cfg: TradingConfig) -> MarketState:
    """Two stocks opening at the portfolio balance of `MONEY` (0.3 of wealth), split 3:1."""
    state = MarketState(2, cfg, [0, 1])
    a = cfg.opening_invest_share
    total = a / (1.0 - a) * MONEY
    state.update_values(np.zeros(2), None, lambda: np.array([0.75, 0.25]) * total, None, MONEY)
    return state


def test_the_market_opens_at_value() -> None:
    state = opened(TradingConfig())
    assert state.value == pytest.approx(state.price)


def test_a_run_up_money_does_not_back_opens_a_gap_to_value() -> None:
    state = opened(TradingConfig())
    start = state.value.copy()
    state.price *= 10.0  # a tenfold run-up with the same money
    state.update_values(np.zeros(2), None, lambda: state.price, None, MONEY)
    alpha = 1.0 - 0.5 ** (1.0 / TradingConfig().value_halflife)
    assert state.value == pytest.approx(start * 10.0**alpha)  # one month moves the level by alpha in logs
    assert (state.value < state.price / 9.0).all()


def test_without_the_anchor_the_value_follows_the_market() -> None:
    state = opened(TradingConfig(value_anchor=False))
    state.price *= 10.0
    state.update_values(np.zeros(2), None, lambda: state.price, None, MONEY)
    assert state.value == pytest.approx(state.price)


def test_the_level_follows_money_and_settles_at_the_markets_own_ratio() -> None:
    state = opened(TradingConfig(value_halflife=1.0))
    state.price *= 1.5  # the market rests 1.5 times above its opening ratio
    for _ in range(40):
        state.update_values(np.zeros(2), None, lambda: state.price, None, MONEY)
    assert state.value == pytest.approx(state.price, rel=1e-6)


def test_twice_the_money_is_twice_the_value() -> None:
    state = opened(TradingConfig(value_halflife=1e9))  # the ratio stays at the opening's
    start = state.value.copy()
    state.update_values(np.zeros(2), None, lambda: state.price, None, 2.0 * MONEY)
    assert state.value == pytest.approx(2.0 * start)
