"""What travels between the driver and a shard each tick: plain picklable dataclasses of numbers, strings and
numpy arrays (the snapshot's read-only mappings become dicts)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from psychoagent.econ.mind.schema import ApprovedOrder
from psychoagent.econ.snapshot import NewsItem, PublicAction, Snapshot
from psychoagent.persona import Persona
from psychoagent.types import Affect

Event = tuple[int, str, dict[str, Any], str]
"""(tick, type, payload, source) of a bus event a shard's households published."""

Note = tuple[int, str, Affect | None, dict[str, Any]]
"""(tick, text, affect, metadata) of an event the driver queued for a household's memory."""


def pack_snapshot(snapshot: Snapshot) -> dict[str, Any]:
    """The snapshot as a plain dict (its read-only mappings do not pickle)."""
    return snapshot.to_dict()


def unpack_snapshot(data: dict[str, Any]) -> Snapshot:
    """The snapshot `pack_snapshot` packed."""
    d = dict(data)
    d["news"] = tuple(NewsItem(**n) for n in d["news"])
    d["public_actions"] = tuple(PublicAction(**a) for a in d["public_actions"])
    return Snapshot(**d)


@dataclass
class Market:
    """The public market data and the shard's households' accounts at one moment of the tick."""

    instruments: tuple[str, ...]
    quotes: dict[str, tuple[float, float]]
    """Instrument -> (last price, net flow) for the instruments whose quote succeeded."""
    caps: dict[str, float]
    fee_rate: float
    holdings: np.ndarray
    """Units held: one row per household of the shard (its order), one column per instrument."""
    cash: np.ndarray
    deposits: np.ndarray


@dataclass
class DecideRequest:
    """Start of a tick: the snapshot, the market, and the households' income and spending view."""

    tick: int
    snapshot: dict[str, Any]
    market: Market
    potential_income: np.ndarray
    consume_share: np.ndarray


@dataclass
class DecideReply:
    """The shard's part of a tick: memory events, guardrail events, approved orders and deal seekers."""

    formed: list[Event]
    guarded: list[Event]
    orders: list[ApprovedOrder]
    negotiators: list[int]
    counts: dict[str, int]
    logs: list[tuple[int, str, str]] = field(default_factory=list)


@dataclass
class Central:
    """What the driver's central steps (steel deals, order intake) left for one household."""

    notes: list[Note] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)
    reputation: list[tuple[int, float]] = field(default_factory=list)
    negotiated: list[ApprovedOrder] = field(default_factory=list)


@dataclass
class FeedbackRequest:
    """End of a tick: the central steps' results, fills of the session and the households' new accounts."""

    tick: int
    market: Market
    central: dict[int, Central]
    fills: dict[int, list[tuple[str, str, float, float]]]
    """Household -> (instrument, side, quantity, price) of each fill of the session."""


@dataclass
class FeedbackReply:
    """Persona updates and the events of scoring and reflection."""

    personas: dict[int, Persona]
    events: list[Event]
    counts: dict[str, int]
    logs: list[tuple[int, str, str]] = field(default_factory=list)
    expected: dict[int, float] = field(default_factory=dict)
    """Expected inflation the shard's households formed this month."""


def nbytes(obj: Any) -> int:
    """Size of `obj` pickled as Ray sends it (pickle protocol 5)."""
    import pickle

    return len(pickle.dumps(obj, protocol=5))
