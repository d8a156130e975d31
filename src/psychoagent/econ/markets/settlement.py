"""Settling one auction's fills between households (and the dealers, booked by the caller), and the steel
firm's dealer quotes: pure functions of arrays, so money and units can be checked in isolation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from psychoagent.econ.investors import FloatArray, IntArray, OrderArrays
from psychoagent.econ.markets.intake import Resting

_DEALER = np.array([-1], dtype=np.int64)
"""Owner index of a dealer's quote (households are 0 .. n-1)."""


@dataclass(frozen=True)
class Settled:
    """Money households paid (fees included) and received (fees deducted), and units the dealer (owner -1: the
    steel firm or the treasury) and the market maker (owner -2) sold and bought."""

    paid: float
    received: float
    dealer_sold: float
    dealer_bought: float
    maker_sold: float = 0.0
    maker_bought: float = 0.0


def settle_households(units: FloatArray, cash: FloatArray, deposits: FloatArray, price: float, fee: float,
                      b_own: IntArray, b_fill: FloatArray, a_own: IntArray, a_fill: FloatArray) -> Settled:  # fmt: skip
    """Move units (`units`: the instrument's column, updated in place) and money of households for one auction:
    buyers pay price x (1 + fee) from cash, then deposits; sellers receive price x (1 - fee) in cash. Owners < 0
    are the dealer (-1) and the market maker (-2); their sides are returned for the caller to book."""
    n = cash.size
    hb, ha = b_own >= 0, a_own >= 0
    bought = np.bincount(b_own[hb], weights=b_fill[hb], minlength=n)
    sold = np.bincount(a_own[ha], weights=a_fill[ha], minlength=n)
    units += bought - sold
    pay = bought * price * (1.0 + fee)
    from_cash = np.minimum(np.maximum(cash, 0.0), pay)
    cash -= from_cash
    deposits -= pay - from_cash
    cash += sold * price * (1.0 - fee)
    return Settled(float(pay.sum()), float(sold.sum()) * price * (1.0 - fee), float(a_fill[a_own == -1].sum()),
                   float(b_fill[b_own == -1].sum()), float(a_fill[a_own == -2].sum()),
                   float(b_fill[b_own == -2].sum()))  # fmt: skip


def dealer_quotes(price: float, produced: float, inventory: float, spread: float,
                  share: float) -> tuple[OrderArrays, OrderArrays]:  # fmt: skip
    """The steel firm's bid and ask for one auction: `share` of last month's output (at least 1 unit) at `price`
    (its quote centre) x (1 -+ spread); the ask is limited to its inventory (none when it has none)."""
    if share <= 0:
        return OrderArrays.empty(), OrderArrays.empty()
    size = share * max(produced, 1.0)
    bid = OrderArrays(_DEALER, np.array([size]), np.array([price * (1.0 - spread)]))
    ask_q = min(size, inventory)
    ask = OrderArrays(_DEALER, np.array([ask_q]), np.array([price * (1.0 + spread)]))
    return bid, (ask if ask_q > 1e-9 else OrderArrays.empty())


def book_side(orders: OrderArrays, resting: list[Resting], dealer: OrderArrays) -> tuple[IntArray, FloatArray,
                                                                                        FloatArray]:  # fmt: skip
    """One side of an auction's book as (owners, limits, quantities): the investors' orders, then the agents'
    resting orders, then the dealer's quote (fills come back in this order)."""
    own = np.concatenate([orders.agent, [q.ticket.order.agent_id for q in resting], dealer.agent])
    px = np.concatenate([orders.limit, [q.ticket.limit for q in resting], dealer.limit])
    qty = np.concatenate([orders.quantity, [q.remaining for q in resting], dealer.quantity])
    return own.astype(np.int64), px, qty
