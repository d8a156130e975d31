"""Uniform-price call auction as pure functions of order arrays (no model, no randomness).

Rule: the clearing price is the candidate price (any limit price in the book, or the last price) that
maximises executed volume min(D(p), S(p)), where D(p) is the buy quantity with limit >= p and S(p) the sell
quantity with limit <= p. Ties go to the smallest imbalance |D(p) - S(p)|, then to the price closest to the
last price, then to the lower price, so the result is unique and deterministic.

Allocation: every executed order trades at the one clearing price; on the long side orders are served in price
priority (better limits first) and pro rata within the marginal price level, so two identical orders get
identical fills whatever their position in the arrays. A buy never pays more than its limit, a sell never
receives less than its limit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
_REL = 1e-12


@dataclass(frozen=True)
class AuctionResult:
    """Outcome of one call auction: price, volume, fills aligned with the input arrays, depth at the price."""

    price: float
    volume: float
    bid_fill: FloatArray
    ask_fill: FloatArray
    demand: float
    supply: float

    @property
    def traded(self) -> bool:
        """Whether anything changed hands."""
        return self.volume > 0


def _check(px: FloatArray, q: FloatArray, side: str) -> None:
    if px.shape != q.shape or px.ndim != 1:
        raise ValueError(f"{side} prices and quantities must be 1-d arrays of one length")
    # one reduction each: NaN fails both comparisons, so min > 0 and max < inf covers NaN, inf and <= 0
    if px.size and not (px.min() > 0 and px.max() < np.inf):
        raise ValueError(f"{side} limit prices must be finite and > 0")
    if q.size and not (q.min() > 0 and q.max() < np.inf):
        raise ValueError(f"{side} quantities must be finite and > 0")


def depth(bid_px: FloatArray, bid_q: FloatArray, ask_px: FloatArray, ask_q: FloatArray,
          prices: FloatArray) -> tuple[FloatArray, FloatArray]:  # fmt: skip
    """Demand D(p) (buys with limit >= p) and supply S(p) (sells with limit <= p) at each of `prices`."""
    ob = np.argsort(bid_px, kind="stable")
    bp, cb = bid_px[ob], np.concatenate([[0.0], np.cumsum(bid_q[ob])])
    oa = np.argsort(ask_px, kind="stable")
    ap, ca = ask_px[oa], np.concatenate([[0.0], np.cumsum(ask_q[oa])])
    demand = cb[-1] - cb[np.searchsorted(bp, prices, side="left")]
    supply = ca[np.searchsorted(ap, prices, side="right")]
    return demand, supply


def clearing_price(bid_px: FloatArray, bid_q: FloatArray, ask_px: FloatArray, ask_q: FloatArray,
                   last_price: float) -> tuple[float, float, float]:  # fmt: skip
    """(price, demand, supply) of the call auction; price = last_price and no depth when nothing crosses."""
    if not bid_px.size or not ask_px.size or bid_px.max() < ask_px.min():
        return last_price, 0.0, 0.0
    cands = np.sort(np.concatenate([bid_px, ask_px, [last_price]]))  # repeats are harmless: same D, S
    demand, supply = depth(bid_px, bid_q, ask_px, ask_q, cands)
    vol = np.minimum(demand, supply)
    best = vol.max()
    keep = vol >= best * (1.0 - _REL)
    imb = np.abs(demand - supply)
    keep &= imb <= imb[keep].min() * (1.0 + _REL) + 1e-300
    dist = np.abs(cands - last_price)
    keep &= dist <= dist[keep].min() * (1.0 + _REL) + 1e-300
    k = int(np.flatnonzero(keep)[0])
    return float(cands[k]), float(demand[k]), float(supply[k])


def allocate(
    px: FloatArray, q: FloatArray, eligible: NDArray[np.bool_], volume: float, buy: bool
) -> FloatArray:
    """Fills of one side: price priority among `eligible` orders, pro rata within the marginal price level."""
    fill = np.zeros_like(q)
    idx = np.flatnonzero(eligible)
    if not idx.size or volume <= 0:
        return fill
    key = -px[idx] if buy else px[idx]
    order = np.argsort(key, kind="stable")
    new_level = np.concatenate([[True], np.diff(key[order]) != 0])
    inv = np.empty(idx.size, dtype=np.int64)
    inv[order] = np.cumsum(new_level) - 1
    level_q = np.bincount(inv, weights=q[idx])
    before = np.concatenate([[0.0], np.cumsum(level_q)[:-1]])
    ratio = np.clip((volume - before) / level_q, 0.0, 1.0)
    fill[idx] = q[idx] * ratio[inv]
    return fill


def quote_price(bid_px: FloatArray, ask_px: FloatArray, last_price: float) -> float:
    """Reference price after an auction without a cross: the best bid when it is above the last price, the best
    ask when it is below, else the last price (one-sided interest moves the quote, as on a screen)."""
    if bid_px.size and bid_px.max() > last_price:
        return float(bid_px.max())
    if ask_px.size and ask_px.min() < last_price:
        return float(ask_px.min())
    return last_price


def call_auction(bid_px: FloatArray, bid_q: FloatArray, ask_px: FloatArray, ask_q: FloatArray,
                 last_price: float) -> AuctionResult:  # fmt: skip
    """Clear one call auction (see the module docstring); raises ValueError on malformed arrays."""
    bid_px, bid_q, ask_px, ask_q = (np.asarray(a, dtype=float) for a in (bid_px, bid_q, ask_px, ask_q))
    _check(bid_px, bid_q, "bid")
    _check(ask_px, ask_q, "ask")
    if not (np.isfinite(last_price) and last_price > 0):
        raise ValueError(f"last_price must be finite and > 0, got {last_price!r}")
    price, demand, supply = clearing_price(bid_px, bid_q, ask_px, ask_q, last_price)
    volume = min(demand, supply)
    if volume <= 0:
        return AuctionResult(last_price, 0.0, np.zeros_like(bid_q), np.zeros_like(ask_q), 0.0, 0.0)
    bid_ok, ask_ok = bid_px >= price, ask_px <= price
    # the short side trades in full; only the long side needs priority and pro rata
    bid_fill = (
        allocate(bid_px, bid_q, bid_ok, volume, buy=True) if demand > volume else np.where(bid_ok, bid_q, 0.0)
    )
    ask_fill = (
        allocate(ask_px, ask_q, ask_ok, volume, buy=False)
        if supply > volume
        else np.where(ask_ok, ask_q, 0.0)
    )
    return AuctionResult(price, volume, bid_fill, ask_fill, demand, supply)
