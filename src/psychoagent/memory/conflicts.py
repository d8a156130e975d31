"""Conflict records: detecting contradictions between a new unit and stored units or goals, and keeping both.

A slot conflict (same entity and attribute, different value) supersedes the older unit: it gets `invalid_at`, a
`supersedes` and a `contradicts` edge, and stays retrievable. A goal conflict is recorded against the goal. Nothing
is ever deleted by conflict handling.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from psychoagent.affect.changes import is_change_of, may_change, signature
from psychoagent.affect.config import AffectiveMemoryConfig, HeuristicConfig
from psychoagent.affect.slots import Slot, extract_slots
from psychoagent.memory.monitor import AffectMonitor
from psychoagent.memory.store import SQLiteStore
from psychoagent.types import ConflictRecord, ConflictStatus, Edge, MemoryUnit, to_datetime, to_epoch, utcnow

_COLUMNS = (
    "namespace, id, kind, side_a, side_b, description_a, description_b, intensity, status, resolution, "
    "created_at, resolved_at, metadata_json"
)


def _row_to_record(row: tuple[Any, ...]) -> ConflictRecord:
    ns, cid, kind, a, b, da, db, intensity, status, resolution, created, resolved, meta = row
    return ConflictRecord(
        id=cid, namespace=ns, kind=kind, side_a=a, side_b=b, description_a=da, description_b=db,
        intensity=intensity, status=ConflictStatus(status), resolution=resolution, created_at=to_datetime(created),
        resolved_at=to_datetime(resolved), metadata=json.loads(meta),
    )  # fmt: skip


class ConflictLog:
    """The `conflicts` table of a store (schema migration 2)."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def add(self, records: Sequence[ConflictRecord]) -> None:
        if not records:
            return
        with self.store.transaction() as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO conflicts ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (r.namespace, r.id, r.kind, r.side_a, r.side_b, r.description_a, r.description_b,
                     r.intensity, r.status.value, r.resolution, r.created_at.timestamp(), to_epoch(r.resolved_at),
                     json.dumps(r.metadata, ensure_ascii=False, default=str))
                    for r in records
                ],
            )  # fmt: skip

    def list(
        self, namespace: str, ids: Sequence[str] | None = None, status: str | None = None
    ) -> list[ConflictRecord]:
        """Records of a namespace (oldest first), optionally only those touching `ids` or with a status."""
        sql = f"SELECT {_COLUMNS} FROM conflicts WHERE namespace = ?"
        params: list[Any] = [namespace]
        if status is not None:
            sql += " AND status = ?"
            params.append(ConflictStatus(status).value)
        if ids is not None:
            if not ids:
                return []
            marks = ",".join("?" * len(ids))
            sql += f" AND (side_a IN ({marks}) OR side_b IN ({marks}))"
            params += [*ids, *ids]
        rows = self.store.execute(sql + " ORDER BY created_at, id", params).fetchall()
        return [_row_to_record(tuple(r)) for r in rows]

    def resolve(self, namespace: str, conflict_id: str, resolution: str, when: datetime) -> ConflictRecord:
        """Mark a record resolved with the text of how; both sides stay stored."""
        cur = self.store.execute(
            "UPDATE conflicts SET status = 'resolved', resolution = ?, resolved_at = ? WHERE namespace = ? AND id = ?",
            (resolution, when.timestamp(), namespace, conflict_id),
        )
        if cur.rowcount != 1:
            raise KeyError(f"no conflict {conflict_id!r} in namespace {namespace!r}")
        row = self.store.execute(f"SELECT {_COLUMNS} FROM conflicts WHERE namespace = ? AND id = ?",
                                 (namespace, conflict_id)).fetchone()  # fmt: skip
        return _row_to_record(tuple(row))


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
    """Per-namespace affect state kept in process: slot index, subjects and later successes, monitor, tracker."""

    slots: dict[str, list[SlotEntry]] = field(default_factory=dict)
    subject_of: dict[str, str] = field(default_factory=dict)
    positives: dict[str, list[float]] = field(default_factory=dict)
    recent_negative: list[float] = field(default_factory=list)
    monitor: AffectMonitor | None = None
    rng: np.random.Generator | None = None
    loaded: bool = False
    paused: int = 0
    recent: list[tuple[str, float, str, str]] = field(default_factory=list)
    superseded: set[str] = field(default_factory=set)

    def index_unit(self, unit: MemoryUnit, slots: Sequence[Slot]) -> None:
        """Remember a stored unit's slots, subject and (if positive) its time as a success on that subject."""
        created = unit.created_at.timestamp()
        self.recent.append((unit.id, created, unit.content, unit.kind))
        if unit.invalid_at is not None:
            self.superseded.add(unit.id)
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
    if unit.kind in ("summary", "reflection"):
        return []
    return extract_slots(unit.content)


def prepare(
    state: NamespaceAffect,
    units: Sequence[MemoryUnit],
    config: AffectiveMemoryConfig,
    heuristic: HeuristicConfig,
    goal_units: dict[str, str],
) -> Plan:
    """Find slot and goal conflicts of new units (against stored ones and each other); mutate the new units'
    affect, conflict context and validity; return the records, edges and superseded ids to write."""
    plan = Plan()
    cfg = config.conflicts
    pending: dict[str, list[SlotEntry]] = {}
    batch: list[tuple[str, float, str, str]] = []
    by_id = {u.id: u for u in units}
    for unit in units:
        slots = slots_of(unit)
        plan.slots.append((unit, slots))
        clashed = False
        created = unit.created_at.timestamp()
        for slot in slots:
            entries = [e for e in (*state.slots.get(slot.key, ()), *pending.get(slot.key, ())) if e.current]
            clash = [e for e in entries if e.unit_id != unit.id and slot.contradicts(e.slot)]
            if not clash:
                continue
            clashed = True
            other = max(clash, key=lambda e: e.created)
            older_is_new = created < other.created
            old_id, new_id = (unit.id, other.unit_id) if older_is_new else (other.unit_id, unit.id)
            old_text, new_text = (
                (unit.content, other.content) if older_is_new else (other.content, unit.content)
            )
            when = to_datetime(max(created, other.created)) or utcnow()
            record = ConflictRecord(
                id=conflict_id(old_id, new_id, "slot"), namespace=unit.namespace, kind="slot", side_a=old_id,
                side_b=new_id, description_a=old_text, description_b=new_text, intensity=heuristic.slot_intensity,
                created_at=when, metadata={"slot": slot.key, "values": [other.slot.value, slot.value]},
            )  # fmt: skip
            if older_is_new:
                record.metadata["values"] = [slot.value, other.slot.value]
            plan.records.append(record)
            plan.edges.append(Edge(src=new_id, dst=old_id, type="contradicts", created_at=when))
            supersede = cfg.supersede_slots and "goal" not in (unit.kind, other.kind)
            if supersede:
                plan.edges.append(Edge(src=new_id, dst=old_id, type="supersedes", created_at=when))
                state.superseded.add(old_id)
                if old_id in by_id:
                    old_unit = by_id[old_id]
                    old_unit.invalid_at = when
                    old_unit.metadata["superseded_by"] = new_id
                else:
                    plan.superseded[old_id] = (when, new_id)
                if (
                    not older_is_new
                ):  # (a new unit that is older got invalid_at above: indexed as not current)
                    other.current = False
            parties = [f"memory: {old_text.strip()}", f"new: {new_text.strip()}"]
            if unit.affect.conflict_intensity < heuristic.slot_intensity or not unit.affect.conflict_parties:
                reason = (
                    f"It gives {slot.attribute} = {slot.value} where {other.unit_id} says {other.slot.value}."
                )
                unit.affect = unit.affect.model_copy(
                    update={
                        "conflict_intensity": max(unit.affect.conflict_intensity, heuristic.slot_intensity),
                        "conflict_parties": parties,
                        "reason": reason,
                    }
                )
            unit.conflict_context = " vs ".join(unit.affect.conflict_parties)
        for slot in slots:
            pending.setdefault(slot.key, []).append(
                SlotEntry(unit.id, slot, created, unit.content, unit.kind, unit.invalid_at is None)
            )
        if not clashed and cfg.detect_changes:
            _change_conflict(state, unit, batch, by_id, plan, config)
        batch.append((unit.id, created, unit.content, unit.kind))
        if cfg.record_goal_conflicts and unit.affect.conflict_intensity >= cfg.min_goal_intensity:
            goal_sides = [p for p in unit.affect.conflict_parties if p.startswith("goal: ")]
            for side in goal_sides[:1]:
                goal = side.removeprefix("goal: ")
                gid = goal_units.get(goal) or goal_id(goal)
                plan.records.append(
                    ConflictRecord(
                        id=conflict_id(gid, unit.id, "goal"), namespace=unit.namespace, kind="goal", side_a=gid,
                        side_b=unit.id, description_a=goal, description_b=unit.content,
                        intensity=unit.affect.conflict_intensity, created_at=unit.created_at,
                        metadata={"reason": unit.affect.reason},
                    )
                )  # fmt: skip
                if gid in goal_units.values():
                    plan.edges.append(
                        Edge(src=unit.id, dst=gid, type="contradicts", created_at=unit.created_at)
                    )
    return plan


def _change_conflict(
    state: NamespaceAffect,
    unit: MemoryUnit,
    batch: list[tuple[str, float, str, str]],
    by_id: dict[str, MemoryUnit],
    plan: Plan,
    config: AffectiveMemoryConfig,
) -> None:
    """Link a change statement to the most recent unit about the same person and topic (see affect.changes)."""
    cfg = config.conflicts
    if unit.kind in ("summary", "reflection", "goal") or not may_change(unit.content):
        return
    sig = signature(unit.content)
    if not sig.entity:
        return
    created = unit.created_at.timestamp()
    candidates = [*state.recent[-cfg.change_window :], *batch]
    for uid, when, content, kind in reversed(candidates):
        if (
            uid == unit.id
            or uid in state.superseded
            or kind in ("summary", "reflection", "goal")
            or when > created
        ):
            continue
        if sig.entity not in content.lower() and sig.entity not in content:
            continue
        if not is_change_of(sig, signature(content)):
            continue
        at = unit.created_at
        plan.records.append(
            ConflictRecord(
                id=conflict_id(uid, unit.id, "change"), namespace=unit.namespace, kind="change", side_a=uid,
                side_b=unit.id, description_a=content, description_b=unit.content, intensity=cfg.change_intensity,
                created_at=at, metadata={"marker": sig.marker, "topics": sorted(sig.topics & signature(content).topics)},
            )
        )  # fmt: skip
        plan.edges.append(Edge(src=unit.id, dst=uid, type="contradicts", created_at=at))
        if cfg.supersede_changes:
            plan.edges.append(Edge(src=unit.id, dst=uid, type="supersedes", created_at=at))
            state.superseded.add(uid)
            if uid in by_id:
                by_id[uid].invalid_at = at
                by_id[uid].metadata["superseded_by"] = unit.id
            else:
                plan.superseded[uid] = (at, unit.id)
        if unit.affect.conflict_intensity < cfg.change_intensity or not unit.affect.conflict_parties:
            unit.affect = unit.affect.model_copy(
                update={
                    "conflict_intensity": max(unit.affect.conflict_intensity, cfg.change_intensity),
                    "conflict_parties": [f"memory: {content.strip()}", f"new: {unit.content.strip()}"],
                    "reason": f"It announces a change ('{sig.marker}') of what {uid} says.",
                }
            )
            unit.conflict_context = " vs ".join(unit.affect.conflict_parties)
        return
