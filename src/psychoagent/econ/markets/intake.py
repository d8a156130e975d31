"""Checking agents' orders against cash, holdings and limits (at submission and again when they execute)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from psychoagent.econ.orders import Order, Rejection, RejectReason, Side


@dataclass(frozen=True)
class Ticket:
    """An accepted order with its size in units and its effective limit price."""

    order: Order
    order_id: str
    quantity: float
    limit: float


@dataclass
class Book:
    """What a household has already committed in queued orders: cash for buys, units for sales and buys."""

    cash: dict[int, float]
    sell: dict[tuple[int, str], float]
    buy: dict[tuple[int, str], float]

    @classmethod
    def empty(cls) -> Book:
        return cls({}, {}, {})


def parse(raw: Order | Mapping[str, Any], order_id: str) -> Order | Rejection:
    """An Order, or an `invalid` rejection naming the field when `raw` does not validate."""
    if isinstance(raw, Order):
        return raw
    try:
        return Order.model_validate(raw)
    except ValidationError as exc:
        agent = raw.get("agent_id", -1) if isinstance(raw, Mapping) else -1
        agent = agent if isinstance(agent, int) and agent >= 0 else -1
        first = exc.errors()[0]
        field = ".".join(str(x) for x in first["loc"]) or "order"
        return Rejection(
            order_id=order_id, agent_id=agent, reason="invalid", detail=f"{field}: {first['msg']}"
        )


def check(
    order: Order,
    order_id: str,
    *,
    instruments: tuple[str, ...],
    prices: Mapping[str, float],
    cash: np.ndarray,
    units: Mapping[str, np.ndarray],
    caps: Mapping[str, float],
    fee_rate: float,
    collar: float,
    book: Book,
) -> Ticket | Rejection:
    """Size the order and test it; on success its commitments are added to `book`."""

    def no(reason: RejectReason, detail: str) -> Rejection:
        return Rejection(order_id=order_id, agent_id=order.agent_id, reason=reason, detail=detail)

    i, inst = order.agent_id, order.instrument
    if inst not in instruments:
        return no("unknown_instrument", f"{inst!r} is not listed; listed: {list(instruments)}")
    if i >= cash.size:
        return no("unknown_agent", f"agent_id must be a household index in [0, {cash.size}), got {i}")
    last = prices[inst]
    buy = order.side is Side.BUY
    limit = order.limit_price or last * (1.0 + collar if buy else 1.0 - collar)
    held = float(units[inst][i])
    key = (i, inst)
    if buy:
        free = float(cash[i]) - book.cash.get(i, 0.0)
        qty = order.quantity or (order.budget_share or 0.0) * max(free, 0.0) / (limit * (1.0 + fee_rate))
        cost = qty * limit * (1.0 + fee_rate)
        if qty <= 0 or cost > free * (1.0 + 1e-12):
            return no(
                "insufficient_cash",
                f"needs {cost:.2f} for {qty:.4g} at limit {limit:.4g}; free cash {free:.2f}",
            )
        after = held + book.buy.get(key, 0.0) + qty
        if after > caps[inst] * (1.0 + 1e-12):
            return no("position_limit", f"holding would reach {after:.4g} units; limit {caps[inst]:.4g}")
        book.cash[i] = book.cash.get(i, 0.0) + cost
        book.buy[key] = book.buy.get(key, 0.0) + qty
    else:
        free_units = held - book.sell.get(key, 0.0)
        qty = order.quantity or (order.budget_share or 0.0) * max(free_units, 0.0)
        if qty <= 0 or qty > free_units * (1.0 + 1e-12):
            return no("short_sale", f"sells {qty:.4g} units but holds {free_units:.4g} not already offered")
        qty = min(qty, free_units)
        book.sell[key] = book.sell.get(key, 0.0) + qty
    return Ticket(order.model_copy(update={"order_id": order_id}), order_id, float(qty), float(limit))


@dataclass
class Resting:
    """An agent's order in the session's book with the units still to trade."""

    ticket: Ticket
    remaining: float


def live_orders(book: list[Resting], inst: str, cash: np.ndarray, units: np.ndarray, spent: dict[int, float],
                fee: float) -> tuple[list[Resting], list[Resting]]:  # fmt: skip
    """The agents' live orders for one auction of `inst`, trimmed to what their cash (less what earlier auctions
    of the round committed, `spent`, updated here) and holdings (`units` of this instrument) allow now."""
    sold: dict[int, float] = {}
    buys: list[Resting] = []
    sells: list[Resting] = []
    per_unit = 1.0 + fee
    for rest in book:
        ticket = rest.ticket
        o = ticket.order
        if o.instrument != inst or rest.remaining <= 1e-12:
            continue
        i = o.agent_id
        if o.side is Side.BUY:
            limit = ticket.limit
            free = max(float(cash[i]) - spent.get(i, 0.0), 0.0)
            remaining = rest.remaining = min(rest.remaining, free / (limit * per_unit))
            spent[i] = spent.get(i, 0.0) + remaining * limit * per_unit
            if remaining > 1e-12:
                buys.append(rest)
        else:
            free = max(float(units[i]) - sold.get(i, 0.0), 0.0)
            remaining = rest.remaining = min(rest.remaining, free)
            sold[i] = sold.get(i, 0.0) + remaining
            if remaining > 1e-12:
                sells.append(rest)
    return buys, sells
