"""Conflict records: detecting contradictions between a new unit and stored units or goals, and keeping both.

An update (same subject and attribute, the value changed; found by `memory.updates`) supersedes the older unit:
it gets `invalid_at`, a `supersedes` and a `contradicts` edge, and stays retrievable. A contradiction with no time
order is recorded with both sides current. A goal conflict is recorded against the goal. Nothing is ever deleted
by conflict handling.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from psychoagent.affect.slots import Slot, extract_slots
from psychoagent.memory.monitor import AffectMonitor
from psychoagent.memory.pairs import subjects
from psychoagent.memory.stores.base import MemoryStore
from psychoagent.types import ConflictRecord, Edge, MemoryUnit

UNCHECKED_KINDS = frozenset({"summary", "reflection", "goal"})
"""Kinds of unit that state no fact of their own and are never superseded by detection."""


class ConflictLog:
    """The conflict records of a store (kept as a name for callers; the SQL lives in the store)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def add(self, records: Sequence[ConflictRecord]) -> None:
        self.store.add_conflicts(records)

    def list(
        self, namespace: str, ids: Sequence[str] | None = None, status: str | None = None
    ) -> list[ConflictRecord]:
        """Records of a namespace (oldest first), optionally only those touching `ids` or with a status."""
        return self.store.conflicts(namespace, ids=ids, status=status)

    def resolve(self, namespace: str, conflict_id: str, resolution: str, when: datetime) -> ConflictRecord:
        """Mark a record resolved with the text of how; both sides stay stored."""
        return self.store.resolve_conflict(namespace, conflict_id, resolution, when)


def goal_id(goal: str) -> str:
    """Stable id of a goal that is not stored as a unit."""
    return "goal_" + hashlib.blake2b(goal.strip().encode(), digest_size=6).hexdigest()


def conflict_id(side_a: str, side_b: str, kind: str) -> str:
    return "cf_" + hashlib.blake2b(f"{kind}|{side_a}|{side_b}".encode(), digest_size=8).hexdigest()


@dataclass
class SlotEntry:
    unit_id: str
    slot: Slot
    created: float
    content: str
    kind: str
    current: bool = True


@dataclass
class NamespaceAffect:
    """Per-namespace affect state kept in process: slot and subject indexes, later successes, monitor, tracker."""

    slots: dict[str, list[SlotEntry]] = field(default_factory=dict)
    subject_of: dict[str, str] = field(default_factory=dict)
    positives: dict[str, list[float]] = field(default_factory=dict)
    recent_negative: list[float] = field(default_factory=list)
    monitor: AffectMonitor | None = None
    rng: np.random.Generator | None = None
    loaded: bool = False
    paused: int = 0
    facts: dict[str, tuple[float, str, str]] = field(default_factory=dict)
    subject_pending: list[tuple[str, str]] = field(default_factory=list)
    """(id, content) of units indexed since `by_subject` was last read: their subjects are parsed on demand."""
    subject_ids: dict[str, list[str]] = field(default_factory=dict)
    successor: dict[str, str] = field(default_factory=dict)
    monitor_primed: bool = False

    def reset(self) -> NamespaceAffect:
        """A state to rebuild from the file (another process wrote to it), keeping the monitor, its subscribers,
        the exploration generator and the recent recall tracker of this process."""
        return NamespaceAffect(
            monitor=self.monitor, rng=self.rng, recent_negative=self.recent_negative,
            monitor_primed=self.monitor is not None,
        )  # fmt: skip

    superseded: set[str] = field(default_factory=set)

    def index_unit(self, unit: MemoryUnit, slots: Sequence[Slot]) -> None:
        """Remember a stored unit's slots, subject and (if positive) its time as a success on that subject."""
        created = unit.created_at.timestamp()
        self.facts[unit.id] = (created, unit.content, unit.kind)
        if unit.invalid_at is not None:
            self.superseded.add(unit.id)
            after = unit.metadata.get("superseded_by")
            if isinstance(after, str):
                self.successor[unit.id] = after
        if unit.kind not in UNCHECKED_KINDS:
            self.subject_pending.append((unit.id, unit.content))
        for slot in slots:
            self.slots.setdefault(slot.key, []).append(
                SlotEntry(unit.id, slot, created, unit.content, unit.kind, unit.invalid_at is None)
            )
        subject = unit.metadata.get("subject") if isinstance(unit.metadata.get("subject"), str) else None
        subject = subject or (slots[0].key if slots else None)
        if subject:
            self.subject_of[unit.id] = subject
            if unit.affect.valence > 0:
                bisect.insort(self.positives.setdefault(subject, []), created)

    @property
    def by_subject(self) -> dict[str, list[str]]:
        """Ids of units by subject key (conflict detection's candidates); subjects of units stored since the last
        read are parsed now, so writes with detection off never pay for parsing."""
        for uid, content in self.subject_pending:
            for key in subjects(content):
                self.subject_ids.setdefault(key, []).append(uid)
        self.subject_pending.clear()
        return self.subject_ids

    def successes_after(self, unit_id: str, created: float) -> int:
        """Positive units on the same subject stored after `created`."""
        subject = self.subject_of.get(unit_id)
        if subject is None:
            return 0
        times = self.positives.get(subject, [])
        return len(times) - bisect.bisect_right(times, created)


@dataclass
class Plan:
    """What `prepare` decided for a batch, applied by `commit` once the units are stored."""

    records: list[ConflictRecord] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    superseded: dict[str, tuple[datetime, str]] = field(default_factory=dict)
    slots: list[tuple[MemoryUnit, list[Slot]]] = field(default_factory=list)


def slots_of(unit: MemoryUnit) -> list[Slot]:
    """Slots of a unit (summaries and reflections state none)."""
    if unit.kind in UNCHECKED_KINDS - {"goal"}:
        return []
    return extract_slots(unit.content)
