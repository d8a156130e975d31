"""Public market state per instrument: prices, values, trend, volatility, flow and the chartist share.

The chartist share follows the discrete-choice switching of Franke & Westerhoff (2012, "Structural stochastic
volatility in asset pricing dynamics", the DCA-HPM variant): the attractiveness of value over trend trading is
a = a0 + herd_switch x (n_value - n_trend) + misalignment x ln(V / P)^2 and n_trend = 1 / (1 + exp(switching a)).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from psychoagent.econ.markets.config import TradingConfig


class MarketState:
    """Arrays indexed by instrument column; updated after every auction and at each session's start."""

    def __init__(self, k: int, cfg: TradingConfig, stock_cols: list[int]) -> None:
        icfg = cfg.investors
        self.cfg = cfg
        self.stock_cols = np.array(stock_cols, dtype=np.int64)
        self.opened = False
        self.price = np.ones(k)
        self.value = np.ones(k)
        self.dividend = np.zeros(k)
        v0 = icfg.initial_volatility
        self.abs_fast = np.full(k, v0)
        self.abs_slow = np.full(k, v0)
        self.trend = np.zeros(k)
        self.flow = np.zeros(k)
        self.chartist = np.full(k, 0.5)
        self.last_return = np.zeros(k)
        self.session_volume = np.zeros(k)

    def update_values(
        self,
        dividends: np.ndarray,
        producer_price: float | None,
        opening: Callable[[], np.ndarray],
        steel_col: int | None,
    ) -> None:
        """Fold this month's dividends into each firm's smoothed share of all dividends and recompute values.

        Stocks (relative dividend discount): value_f = (sum_j P_j) x share_f, where share_f is an EWMA (half-life
        dividend_halflife months) of firm f's share of the month's dividends, starting at the opening split so
        the market opens at value; floored at value_floor x the mean price. Shares, not levels, are smoothed so
        that a first large payout cannot swamp a tiny starting average. The level of the whole market is left to
        households' portfolio balance, whose cash is what can buy it. Steel: the steel firm's posted price
        (replacement cost), which also resets steel's reference price, since the dealer quotes around it.
        """
        cols = self.stock_cols
        if not self.opened:
            self.opened = True
            self.price = opening()
            self.dividend[cols] = self.price[cols] / max(float(self.price[cols].sum()), 1e-12)
        elif cols.size and dividends[cols].sum() > 0:
            alpha = 1.0 - 0.5 ** (1.0 / self.cfg.dividend_halflife)
            d = np.maximum(dividends[cols], 0.0)
            self.dividend[cols] += alpha * (d / d.sum() - self.dividend[cols])
        if cols.size:
            p = self.price[cols]
            self.value[cols] = np.maximum(p.sum() * self.dividend[cols], self.cfg.value_floor * p.mean())
        if steel_col is not None and producer_price is not None:
            self.value[steel_col] = producer_price
            self.price[steel_col] = producer_price

    def attention_all(self) -> np.ndarray:
        """Recent over long-run mean |return| per instrument, clipped to attention_range."""
        lo, hi = self.cfg.investors.attention_range
        return np.clip(self.abs_fast / np.maximum(self.abs_slow, 1e-12), lo, hi)

    def after_auction(self, k: int, price: float, volume: float, bids: float, asks: float) -> float:
        """Record an auction's outcome (price: the clearing price, or the quote when nothing crossed); returns
        its log return."""
        icfg = self.cfg.investors
        old = float(self.price[k])
        r = float(np.log(price / old))
        n_c = float(self.chartist[k])
        gap = float(np.log(self.value[k] / price))
        a = icfg.predisposition + icfg.herd_switch * (1.0 - 2.0 * n_c) + icfg.misalignment * gap * gap
        self.chartist[k] = 1.0 / (1.0 + np.exp(np.clip(icfg.switching * a, -50.0, 50.0)))
        self.trend[k] += 2.0 / (icfg.trend_span + 1.0) * (r - self.trend[k])
        self.abs_fast[k] += icfg.attention_fast * (abs(r) - self.abs_fast[k])
        self.abs_slow[k] += icfg.attention_slow * (abs(r) - self.abs_slow[k])
        self.flow[k] = (bids - asks) / (bids + asks) if bids + asks > 0 else 0.0
        self.price[k] = price
        self.last_return[k] = r
        self.session_volume[k] += volume
        return r
