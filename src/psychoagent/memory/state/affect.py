"""The affect state of one namespace, kept in process: slot and subject indexes of its units, later successes on a
subject, the successor of each superseded unit, the affect monitor and the recent-recall tracker.

Conflict detection at write time reads it for candidates (`memory.write.updates`); recall reads it for decay,
successors and feedback-loop safety. It is rebuilt from the store on first use.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from psychoagent.affect.slots import Slot
from psychoagent.memory.conflicts.facts import subjects
from psychoagent.memory.conflicts.records import UNCHECKED_KINDS, unit_slots
from psychoagent.memory.contracts import UnitFact
from psychoagent.memory.state.facts import Facts
from psychoagent.memory.state.monitor import AffectMonitor
from psychoagent.types import MemoryUnit


@dataclass
class SlotEntry:
    unit_id: str
    slot: Slot
    created: float
    content: str
    kind: str
    current: bool = True


class _Pending(NamedTuple):
    """A unit waiting for its slots to be indexed: what `index_unit` saw when it was stored."""

    unit_id: str
    created: float
    content: str
    kind: str
    current: bool
    subject: str | None
    positive: bool
    slots: Sequence[Slot] | None


@dataclass
class NamespaceAffect:
    """Per-namespace affect state kept in process: slot and subject indexes, later successes, monitor, tracker."""

    _slots: dict[str, list[SlotEntry]] = field(default_factory=dict)
    _subject_of: dict[str, str] = field(default_factory=dict)
    _positives: dict[str, list[float]] = field(default_factory=dict)
    slot_pending: list[_Pending] = field(default_factory=list)
    """Units indexed since the slot index was last read; their slots are parsed (where not given) on that read,
    so writes with detection off never pay for parsing."""
    _slot_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    any_positive: bool = False
    """Whether a unit with positive valence was indexed (only those count as later successes)."""
    recent_negative: list[float] = field(default_factory=list)
    monitor: AffectMonitor | None = None
    rng: np.random.Generator | None = None
    loaded: bool = False
    paused: int = 0
    facts: Facts = field(default_factory=Facts)
    loaded_upto: int = -1
    """pk of the newest unit the load took from the store: units up to it are known without being held."""
    load_rest: Callable[[], Sequence[UnitFact]] | None = None
    """Reads the loaded units (live ones up to `loaded_upto`) for the slot and subject indexes, on the first read
    of either: a namespace that is only recalled from never reads its texts."""
    _load_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
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

    def index_unit(self, unit: MemoryUnit, slots: Sequence[Slot] | None = None) -> None:
        """Remember a stored unit's slots (parsed from it when not given), subject and (if positive) its time as a
        success on that subject; the slot part waits for the next read of `slots`, `subject_of` or `positives`."""
        self._index(unit.id, unit.created_at.timestamp(), unit.content, unit.kind, unit.invalid_at is not None,
                    unit.affect.valence, unit.metadata, slots)  # fmt: skip

    def knows(self, unit_id: str, pk: int) -> bool:
        """Whether a stored unit (of this pk) is already in the state: loaded, or indexed since."""
        return pk <= self.loaded_upto or unit_id in self.facts.own

    def _take_loaded(self) -> None:
        """Queue the loaded units for the slot and subject indexes, ahead of those indexed since (storage order);
        once, on the first read of either index."""
        if self.load_rest is None:
            return
        with self._load_lock:
            if self.load_rest is None:
                return
            rows, self.load_rest = self.load_rest(), None
            with self._slot_lock:
                self.slot_pending[:0] = [_pending(f) for f in rows]
            self.subject_pending[:0] = [(f.id, f.content) for f in rows if f.kind not in UNCHECKED_KINDS]

    def _index(
        self, uid: str, created: float, content: str, kind: str, invalid: bool, valence: int,
        metadata: dict[str, object], slots: Sequence[Slot] | None,
    ) -> None:  # fmt: skip
        self.facts[uid] = (created, content, kind)
        if invalid:
            self.superseded.add(uid)
            after = metadata.get("superseded_by")
            if isinstance(after, str):
                self.successor[uid] = after
        if kind not in UNCHECKED_KINDS:
            self.subject_pending.append((uid, content))
        subject = metadata.get("subject")
        self.any_positive = self.any_positive or valence > 0
        self.slot_pending.append(
            _Pending(uid, created, content, kind, not invalid, subject if isinstance(subject, str) else None,
                     valence > 0, slots)
        )  # fmt: skip

    def forget(self, unit_id: str) -> None:
        """Drop a forgotten unit's fact, slot, subject and success entries (its supersession links stay, as the
        tombstone keeps them)."""
        fact = self.facts.pop(unit_id)
        with self._slot_lock:
            self.slot_pending[:] = [p for p in self.slot_pending if p.unit_id != unit_id]
        self.subject_pending[:] = [p for p in self.subject_pending if p[0] != unit_id]
        for key in [k for k, entries in self._slots.items() if any(e.unit_id == unit_id for e in entries)]:
            kept = [e for e in self._slots[key] if e.unit_id != unit_id]
            if kept:
                self._slots[key] = kept
            else:
                del self._slots[key]
        subject = self._subject_of.pop(unit_id, None)
        times = self._positives.get(subject or "")
        if fact is not None and times:
            at = bisect.bisect_left(times, fact[0])
            if at < len(times) and times[at] == fact[0]:
                del times[at]
        for key in [k for k, ids in self.subject_ids.items() if unit_id in ids]:
            ids = [i for i in self.subject_ids[key] if i != unit_id]
            if ids:
                self.subject_ids[key] = ids
            else:
                del self.subject_ids[key]

    def _index_slots(self) -> None:
        """Parse and index the slots of the units indexed since the last read, in the order they were stored."""
        self._take_loaded()
        if not self.slot_pending:
            return
        with self._slot_lock:
            done = len(self.slot_pending)
            for p in self.slot_pending[:done]:
                slots = p.slots if p.slots is not None else unit_slots(p.kind, p.content)
                for slot in slots:
                    self._slots.setdefault(slot.key, []).append(
                        SlotEntry(p.unit_id, slot, p.created, p.content, p.kind, p.current)
                    )
                subject = p.subject or (slots[0].key if slots else None)
                if subject:
                    self._subject_of[p.unit_id] = subject
                    if p.positive:
                        bisect.insort(self._positives.setdefault(subject, []), p.created)
            del self.slot_pending[:done]

    @property
    def slots(self) -> dict[str, list[SlotEntry]]:
        """Slot entries of the stored units by slot key (conflict detection's candidates), in storage order."""
        self._index_slots()
        return self._slots

    @property
    def subject_of(self) -> dict[str, str]:
        """Subject key of each unit that has one (its metadata's, else its first slot's)."""
        self._index_slots()
        return self._subject_of

    @property
    def positives(self) -> dict[str, list[float]]:
        """Sorted creation times of positive units by subject."""
        self._index_slots()
        return self._positives

    @property
    def by_subject(self) -> dict[str, list[str]]:
        """Ids of units by subject key (conflict detection's candidates); subjects of units stored since the last
        read are parsed now, so writes with detection off never pay for parsing."""
        self._take_loaded()
        for uid, content in self.subject_pending:
            for key in subjects(content):
                self.subject_ids.setdefault(key, []).append(uid)
        self.subject_pending.clear()
        return self.subject_ids

    def successes_after(self, unit_id: str, created: float) -> int:
        """Positive units on the same subject stored after `created` (none before any positive unit was stored:
        then no slot needs parsing)."""
        if not self.any_positive:
            return 0
        subject = self.subject_of.get(unit_id)
        if subject is None:
            return 0
        times = self.positives.get(subject, [])
        return len(times) - bisect.bisect_right(times, created)


def _pending(fact: UnitFact) -> _Pending:
    """A loaded unit waiting for its slots, as `index_unit` would have queued it."""
    subject = fact.metadata.get("subject")
    return _Pending(fact.id, fact.created_at, fact.content, fact.kind, fact.invalid_at is None,
                    subject if isinstance(subject, str) else None, fact.valence > 0, None)  # fmt: skip
