"""Conflict records and what they are about: the record log of a store, stable ids of records and goals, and the
slots a unit states.

An update (same subject and attribute, the value changed; found at write time, `memory.write.updates`) supersedes
the older unit: it gets `invalid_at`, a `supersedes` and a `contradicts` edge, and stays retrievable. A
contradiction with no time order is recorded with both sides current. A goal conflict is recorded against the
goal. Nothing is ever deleted by conflict handling.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from psychoagent.affect.slots import Slot, extract_slots
from psychoagent.memory.contracts import MemoryStore
from psychoagent.types import ConflictRecord, MemoryUnit

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


def slots_of(unit: MemoryUnit) -> list[Slot]:
    """Slots of a unit (summaries and reflections state none)."""
    return unit_slots(unit.kind, unit.content)


def unit_slots(kind: str, content: str) -> list[Slot]:
    """Slots of a unit of `kind` with `content`."""
    return [] if kind in UNCHECKED_KINDS - {"goal"} else extract_slots(content)
