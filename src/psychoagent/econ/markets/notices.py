"""What the markets tell the event bus: each fill or expiry of an agent's order, and each session's prices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psychoagent.agent.bus import EventBus
from psychoagent.econ.markets.intake import Resting
from psychoagent.econ.markets.state import MarketState
from psychoagent.econ.orders import Fill, firm_of
from psychoagent.events import EventType


def report_fill(bus: EventBus, fills: dict[int, list[Fill]], fee_rate: float, t: int, r: int, rest: Resting,
                quantity: float, price: float) -> None:  # fmt: skip
    """A fill (quantity > 0) or the expiry of what is left at the session's end (quantity 0): kept in `fills` by
    agent and emitted."""
    ticket, o = rest.ticket, rest.ticket.order
    fill = Fill(order_id=ticket.order_id, agent_id=o.agent_id, instrument=o.instrument, side=o.side,
                quantity=quantity, price=price, fee=quantity * price * fee_rate, tick=t, round=r,
                requested=ticket.quantity)  # fmt: skip
    fills.setdefault(o.agent_id, []).append(fill)
    payload = dict(fill.__dict__)  # its fields in order, as validated: the JSON dump without building one
    payload["side"] = fill.side.value
    if quantity > 0:
        bus.emit(t, EventType.ORDER_FILLED, payload, f"household:{o.agent_id}")
    else:
        payload["unfilled"] = rest.remaining
        bus.emit(t, EventType.ORDER_EXPIRED, payload, f"household:{o.agent_id}")


def publish_session(bus: EventBus, state: MarketState, records: Sequence[tuple[Any, ...]],
                    ids: Sequence[str], rounds: int, t: int) -> None:  # fmt: skip
    """One `market.cleared` event per instrument: the session's open, close, high, low, volume and value."""
    recent = records[-rounds * len(ids) :]
    for k, inst in enumerate(ids):
        px = [row[4] for row in recent if row[3] == inst]
        bus.emit(t, EventType.MARKET_CLEARED, {
            "market": inst, "kind": "call_auction", "firm": firm_of(inst), "rounds": rounds,
            "open": px[0], "close": px[-1], "high": max(px), "low": min(px),
            "volume": float(state.session_volume[k]), "value": float(state.value[k]),
        }, "market")  # fmt: skip
