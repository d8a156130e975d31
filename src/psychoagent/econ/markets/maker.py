"""A designated market maker for each stock and, optionally, for steel: it quotes both sides of every call auction
around the last price, skewed against its inventory, and keeps that inventory within bounds.

Quotes (Ho & Stoll 1981; Avellaneda & Stoikov 2008, in logs): the reservation price is the last price shifted
against the inventory gap and moved with the last round's net order flow f in [-1, 1] (quotes learn from the
flow: Glosten & Milgrom 1985, Kyle 1985), c = P exp(flow x f - skew x (q - q*) / q*); the half-spread widens with
recent volatility, delta = max(min_half_spread, spread_vol x recent mean |r|) (a dealer's spread rises with the
risk of holding inventory, as in both papers). The bid c exp(-delta) and the ask c exp(delta) each offer `size` x
q* units, the bid no more than the cash pays for and no more than keeps q <= (1 + band) q*, the ask no more than
keeps q >= (1 - band) q* (never a short sale). A quote the skew takes past the last price moves the reference
price even without a trade, as any one-sided quote does (markets/clearing.py): inventory pressure moves prices,
so they revert after the maker has absorbed a run of one-sided orders. (Capping the skew at the last price, tried
together with a steel maker, raised the stocks' monthly return autocorrelation to +0.10-0.12 on seeds 1-4.)

Balance sheet: at the first session the maker takes `inventory_share` of each stock's float from households (the
shares it holds as a legacy position, like the treasury's opening bonds; no money moves) and households subscribe
its capital, cash worth `capital` x that inventory at the opening prices, paid from their deposits in proportion
to them. Households hold no steel at the opening, so the maker buys its steel, `inventory_share` x households'
strategic steel holding, from the steel firm's stock at the first session in which the firm has some, with cash
households subscribe for it and for its capital (bought in the market from an empty stock instead, its bid rose
with its inventory gap round after round where nobody sold steel, and in a 12-household economy steel reached
10^12). Its cash is money, counted in the model's money stock;
its shares earn dividends like any holder's. At a session's end it pays `payout` of its cash above the capital to
households as an equal lump sum (its owners receive its trading profit), so money is only moved, never made.
"""

from __future__ import annotations

import numpy as np

from psychoagent.econ.investors import OrderArrays
from psychoagent.econ.markets.config import MakerConfig

MAKER = -2
"""Owner index of the market maker's quotes in an auction (households 0 .. n-1; steel dealer and treasury -1)."""
_OWNER = np.array([MAKER], dtype=np.int64)


class MarketMaker:
    """Cash and an inventory per instrument column; quotes for the columns it makes a market in."""

    def __init__(self, cfg: MakerConfig, k: int, cols: list[int]) -> None:
        self.cfg = cfg
        self.cols = cols if cfg.enabled else []
        self.units = np.zeros(k)
        self.target = np.zeros(k)
        self.flow_avg = np.zeros(k)
        self.cash = 0.0
        self.capital = 0.0
        self.opened = False

    def open(self, units: np.ndarray, prices: np.ndarray, deposits: np.ndarray) -> None:
        """Take the opening inventory of each stock from households' `units` (n x k, in place) and the capital from
        their `deposits` (in place), at the opening `prices`; a column households hold none of (steel) waits for
        `stock_up`."""
        self.opened = True
        share = self.cfg.inventory_share
        for k in self.cols:
            self.target[k] = share * float(units[:, k].sum())
            units[:, k] *= 1.0 - share
            self.units[k] = self.target[k]
        self.cash = self.capital = self._subscribe(self.cfg.capital * float(self.target @ prices), deposits)

    def stock_up(self, k: int, wanted: float, stock: float, price: float, deposits: np.ndarray) -> float:
        """Buy the inventory of column k from its producer's `stock` at `price`, once: `inventory_share` x the
        `wanted` units households mean to hold, at most the stock, paid with cash households subscribe from their
        `deposits` (in place), with capital for it as for a stock; returns the units bought (the caller moves
        them from the producer), 0 while the producer has none."""
        if k not in self.cols or self.target[k] > 0 or stock <= 0 or price <= 0:
            return 0.0
        q = min(self.cfg.inventory_share * max(wanted, 0.0), stock)
        paid = self._subscribe((1.0 + self.cfg.capital) * q * price, deposits)
        q = min(q, paid / ((1.0 + self.cfg.capital) * price))
        self.units[k] = self.target[k] = q
        self.cash += paid - q * price
        self.capital += paid - q * price
        return q

    @staticmethod
    def _subscribe(want: float, deposits: np.ndarray) -> float:
        """Cash households pay in from their deposits (in place, in proportion to them): `want`, at most all."""
        base = np.maximum(deposits, 0.0)
        if base.sum() <= 0 or want <= 0:
            return 0.0
        paid = min(want, float(base.sum()))
        deposits -= paid * base / base.sum()
        return paid

    def quotes(self, k: int, price: float, volatility: float, flow: float,
               fee: float) -> tuple[OrderArrays, OrderArrays]:  # fmt: skip
        """(bid, ask) of the maker for one auction of column k at last price `price`; empty where it makes no
        market, has no cash to bid or no room in its inventory band."""
        q_star = float(self.target[k])
        if k not in self.cols or q_star <= 0:
            return OrderArrays.empty(), OrderArrays.empty()
        c = self.cfg
        q = float(self.units[k])
        self.flow_avg[k] += 2.0 / (c.flow_span + 1.0) * (flow - self.flow_avg[k])
        shift = c.flow * flow + c.flow_trend * float(self.flow_avg[k])
        centre = price * np.exp(shift - c.skew * (q - q_star) / q_star)
        delta = max(c.min_half_spread, c.spread_vol * volatility)
        bid_px, ask_px = centre * np.exp(-delta), centre * np.exp(delta)
        size = c.size * q_star
        bid_q = min(size, (1.0 + c.band) * q_star - q, max(self.cash, 0.0) / (bid_px * (1.0 + fee)))
        ask_q = min(size, q - (1.0 - c.band) * q_star)
        bid = (
            OrderArrays(_OWNER, np.array([bid_q]), np.array([bid_px]))
            if bid_q > 1e-9
            else OrderArrays.empty()
        )
        ask = (
            OrderArrays(_OWNER, np.array([ask_q]), np.array([ask_px]))
            if ask_q > 1e-9
            else OrderArrays.empty()
        )
        return bid, ask

    def settle(self, k: int, sold: float, bought: float, price: float, fee: float) -> None:
        """The maker's side of an auction of column k."""
        self.units[k] += bought - sold
        self.cash += sold * price * (1.0 - fee) - bought * price * (1.0 + fee)

    def dividend(self, k: int, per_share: float) -> None:
        """Dividends on the maker's shares of column k."""
        self.cash += per_share * float(self.units[k])

    def pay_out(self) -> float:
        """Cash above the capital paid to the owners this session (taken from the maker's cash)."""
        out = self.cfg.payout * max(self.cash - self.capital, 0.0)
        self.cash -= out
        return out
