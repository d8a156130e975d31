"""Public market state per instrument: prices, values, trend, volatility, flow, the chartist share and the
information intensity.

The chartist share follows the discrete-choice switching of Franke & Westerhoff (2012, "Structural stochastic
volatility in asset pricing dynamics", the DCA-HPM variant): the attractiveness of value over trend trading is
a = a0 + herd_switch x (n_value - n_trend) + misalignment x ln(V / P)^2 and n_trend = 1 / (1 + exp(switching a)).

Information intensity (the directing process of the mixture-of-distributions hypothesis; Clark 1973, Tauchen &
Pitts 1983; persistent as in Andersen 1996): log I_t = persistence x log I_{t-1} + innovation, stationary s.d.
`dispersion`; at a session's start it moves by `headlines` x the month's news surprise. What it scales is
normalised so that, on average, households review and disagree as much as without it.
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
        self.opened_steel = False
        self.price = np.ones(k)
        self.value = np.ones(k)
        self.dividend = np.zeros(k)
        self.ratio: float | None = None
        """log of the stock market's long-run average ratio to households' money (the value level reads it)"""
        v0 = icfg.initial_volatility
        self.abs_fast = np.full(k, v0)
        self.abs_slow = np.full(k, v0)
        self.trend = np.zeros(k)
        self.flow = np.zeros(k)
        self.chartist = np.full(k, 0.5)
        self.last_return = np.zeros(k)
        self.session_volume = np.zeros(k)
        self.information = np.zeros(k)
        self.usual_news = 0.0

    def update_values(
        self,
        dividends: np.ndarray,
        producer_price: float | None,
        opening: Callable[[], np.ndarray],
        steel_col: int | None,
        money: float,
    ) -> None:
        """Fold this month's dividends into each firm's smoothed share of all dividends and recompute values.

        Stocks: value_f = L x share_f, where share_f is an EWMA (half-life dividend_halflife months) of firm f's
        share of the month's dividends, starting at the opening split so the market opens at value; floored at
        value_floor x the mean price. Shares, not levels, are smoothed so that a first large payout cannot swamp a
        tiny starting average. The level L is `money` (households' money per share) x the long-run average ratio
        of the market to it (`level` below), or with `value_anchor` off the market's own price sum, which left
        the level of the whole market to no value trader at all. Steel: the steel firm's posted price
        (replacement cost); it sets steel's reference price at the first session, and at every session with
        `steel_reset` (else the market keeps last month's price).
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
            total = self.level(float(p.sum()), money) if self.cfg.value_anchor else p.sum()
            self.value[cols] = np.maximum(total * self.dividend[cols], self.cfg.value_floor * p.mean())
        if steel_col is not None and producer_price is not None:
            self.value[steel_col] = producer_price
            if self.cfg.steel_reset or not self.opened_steel:
                self.price[steel_col] = producer_price
            self.opened_steel = True

    def level(self, market: float, money: float) -> float:
        """The stocks' value level: `money` x the EWMA (half-life value_halflife months) of the market's ratio to
        money, which starts at the opening's. Valuation ratios revert to their long-run mean (Campbell & Shiller
        1988), so a run-up that money does not back is read as a gap, while the level of rest is found, not set."""
        now = float(np.log(max(market, 1e-12) / max(money, 1e-12)))
        if self.ratio is None:
            self.ratio = float(np.log(self.cfg.opening_ratio))
        else:
            self.ratio += (1.0 - 0.5 ** (1.0 / self.cfg.value_halflife)) * (now - self.ratio)
        return float(np.exp(self.ratio)) * money

    def attention_all(self) -> np.ndarray:
        """Recent over long-run mean |return| per instrument, clipped to attention_range."""
        lo, hi = self.cfg.investors.attention_range
        return np.clip(self.abs_fast / np.maximum(self.abs_slow, 1e-12), lo, hi)

    def hear(self, news: float) -> None:
        """A month's news at its session's start (news: the summed |sentiment| of its headlines): the log
        information intensity of every instrument moves by `headlines` x the surprise, news less its usual level."""
        icfg = self.cfg.information
        if icfg.enabled:
            self.information += icfg.headlines * (news - self.usual_news)
            self.usual_news += 2.0 / (icfg.news_memory + 1.0) * (news - self.usual_news)

    def step_information(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance each instrument's log information intensity x one round (a stationary AR(1), s.d. s) and return
        the factors of the review chance, exp(a x - (a s)^2 / 2), and of the shared and private news s.d.,
        exp(b x - (b s)^2): normalised so the mean chance and the mean news variance are those without it."""
        icfg = self.cfg.information
        k = self.information.size
        if not icfg.enabled:
            return np.ones(k), np.ones(k), np.ones(k)
        rho, sd, x = icfg.persistence, icfg.dispersion, self.information
        x = self.information = rho * x + sd * np.sqrt(1.0 - rho * rho) * rng.standard_normal(k)
        a, b, c = icfg.activity, icfg.shared, icfg.disagreement
        return (
            np.exp(a * x - 0.5 * (a * sd) ** 2),
            np.exp(b * x - (b * sd) ** 2),
            np.exp(c * x - (c * sd) ** 2),
        )

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
