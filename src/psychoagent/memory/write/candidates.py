"""Candidates of a new unit for conflict detection: the units it is compared with (nearest stored and earlier in
its batch by embedding, latest sharing a subject key, giving a clashing slot), current ones only, in the order they
are met. A candidate the gate's item rule rules out is dropped before its vector is read (`current`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from psychoagent.affect.slots import Slot
from psychoagent.memory.config import ConflictConfig
from psychoagent.memory.conflicts.detect import Candidate
from psychoagent.memory.conflicts.facts import subjects
from psychoagent.memory.conflicts.gate import items_apart, rule_side
from psychoagent.memory.conflicts.records import UNCHECKED_KINDS
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.state.affect import NamespaceAffect, SlotEntry
from psychoagent.types import MemoryUnit

__all__ = [
    "Batch",
    "Found",
    "Stored",
    "candidate",
    "current",
    "gather",
    "lookup_keys",
    "nearest_stored",
    "similarity",
]


class Stored(NamedTuple):
    """The batch's negated similarities to the stored units (nearest first in ascending order), stored x batch: a
    column per new unit, +inf where a stored unit is no candidate (superseded, or of a kind never checked), and how
    many are candidates."""

    rows: np.ndarray
    candidates: np.ndarray
    """The rows of the stored units that are candidates, ascending."""
    near: list[tuple[np.ndarray, np.ndarray]] | None = None
    """Instead of `rows`, in a namespace with an IVF index: per new unit, the candidate rows its search found and
    their cosines, nearest first (`updates.near_stored`)."""


def nearest_stored(stored: Stored, i: int, n: int) -> np.ndarray:
    """Rows of the `n` stored candidates nearest to new unit `i`, nearest first, as the partition of its whole
    column orders them (`top[argsort(distance[top])]`). Read from the candidates' rows alone when that answer is
    unique (the `n` smallest distances all differ and the next one is larger): a store whose units were mostly
    superseded has few; with a tie, from the whole column (its order of equal distances)."""
    distance = stored.rows[:, i]
    near = distance[stored.candidates]
    if len(near) > n:
        part = np.argpartition(near, n)
        top, following = part[:n], float(near[part[n]])
    else:
        top, following = np.arange(len(near)), np.inf
    values = near[top]
    order = np.argsort(values)
    ranked = values[order].tolist()
    if all(a < b for a, b in pairwise(ranked)) and ranked[-1] < following:
        return stored.candidates[top[order]]
    full = np.argpartition(distance, n - 1)[:n]
    return full[np.argsort(distance[full])]


class Batch(NamedTuple):
    """The batch being planned: its units and vectors, each unit's position, and the slot entries and subject keys
    of the units planned so far."""

    units: Sequence[MemoryUnit]
    vectors: np.ndarray
    position: dict[str, int]
    slots: dict[str, list[SlotEntry]]
    subjects: dict[str, list[str]]


class Found(NamedTuple):
    """A unit met as a candidate, before its vector and similarity are read: most are ruled out by their texts."""

    unit_id: str
    content: str
    created: float
    slot_key: str | None
    vectors: np.ndarray
    """The batch's vectors or the index's, where row `row` is this unit's."""
    row: int


def gather(
    state: NamespaceAffect,
    index: NamespaceIndex,
    stored: Stored | None,
    batch: Batch,
    i: int,
    slots: Sequence[Slot],
    cfg: ConflictConfig,
    floor: float | None,
) -> list[Found]:
    """Stored and same-batch units to compare unit `i` with (deduplicated, current ones only), in the order they
    are met: nearest stored, nearest earlier in the batch, latest sharing a subject key, giving the same slot (a
    unit met twice keeps the slot key of its first mention)."""
    units, vectors = batch.units, batch.vectors
    unit, vec = units[i], vectors[i]
    least = cfg.min_similarity
    met: list[str] = []
    if stored is not None and stored.near is not None:
        rows, cosines = stored.near[i]
        met += [
            index.ids[int(row)]
            for row, cosine in zip(rows[: cfg.dense_candidates].tolist(), cosines.tolist(), strict=False)
            if similarity(cosine, floor) >= least
        ]
    elif stored is not None:
        n = min(cfg.dense_candidates, len(stored.candidates))
        if n:
            distance, ids = stored.rows[:, i], index.ids
            met += [
                ids[int(row)]
                for row in nearest_stored(stored, i, n)
                if similarity(-float(distance[row]), floor) >= least
            ]
    if i and cfg.dense_candidates and cfg.detect_changes:
        near = vectors[:i] @ vec
        met += [
            units[int(j)].id
            for j in np.argsort(-near)[: cfg.dense_candidates]
            if similarity(float(near[j]), floor) >= least
        ]
    if cfg.detect_changes:
        by_subject, last, in_batch = state.by_subject, cfg.subject_candidates, batch.subjects
        for key in lookup_keys(unit.content):
            if last:
                met.extend(reversed(by_subject.get(key, [])[-last:]))
            met.extend(reversed(in_batch.get(key, [])[-last:]))
    order: dict[str, str | None] = dict.fromkeys(met)
    if slots:
        stored_slots = state.slots
        for slot in slots:
            for entry in (*stored_slots.get(slot.key, ()), *batch.slots.get(slot.key, ())):
                if entry.current and slot.contradicts(entry.slot):
                    order.setdefault(entry.unit_id, slot.key)
    order.pop(unit.id, None)
    return current(order, state, index, batch, i, cfg.gate)


def current(
    order: dict[str, str | None],
    state: NamespaceAffect,
    index: NamespaceIndex,
    batch: Batch,
    i: int,
    gated: bool,
) -> list[Found]:
    """The met units that are candidates: current, of a checked kind, stored or earlier in the batch; with the gate,
    not an older one its item rule rules out (`gate.items_apart`: two items told apart by their identifiers, no
    conflict whatever else is judged; on a store of distinct items, most of those met)."""
    units, position, superseded, row_of = batch.units, batch.position, state.superseded, index.row_of
    facts = state.facts.many(
        uid for uid in order if uid not in superseded and (position.get(uid) is None or position[uid] >= i)
    )
    stored_vectors, unit = index.vectors, units[i]
    created, new = unit.created_at.timestamp(), rule_side(unit.content) if gated else None
    found: list[Found] = []
    for uid, slot_key in order.items():
        if uid in superseded:
            continue
        j = position.get(uid)
        if j is not None and j < i:
            other = units[j]
            if other.kind in UNCHECKED_KINDS or other.invalid_at is not None:
                continue
            text, when, vectors, row = other.content, other.created_at.timestamp(), batch.vectors, j
        else:
            fact, at = facts.get(uid), row_of.get(uid)
            if fact is None or fact[2] in UNCHECKED_KINDS or at is None:
                continue
            when, text, vectors, row = fact[0], fact[1], stored_vectors, at
        if new is not None and when <= created and items_apart(rule_side(text), new):
            continue
        found.append(Found(uid, text, when, slot_key, vectors, row))
    return found


def similarity(cosine: float, floor: float | None) -> float:
    """A cosine normalised by the embedder's floor (the similarity of unrelated texts), clipped to [0, 1]."""
    base = 0.0 if floor is None else float(floor)
    return min(1.0, max(0.0, (cosine - base) / max(1.0 - base, 1e-9)))


def candidate(found: Found, vector: np.ndarray, floor: float | None) -> Candidate:
    """The candidate a found unit stands for, with its normalised similarity to the new unit's `vector`."""
    own = found.vectors[found.row]
    return Candidate(
        found.unit_id,
        found.content,
        found.created,
        similarity(float(own @ vector), floor),
        found.slot_key,
        own,
    )


def lookup_keys(text: str) -> frozenset[str]:
    """The index keys a new unit looks up: its subjects, and its numbers and times only when it names nobody
    ("Sorry, I meant 4200, not 5000"), so that a fact full of numbers does not pull in every fact sharing one."""
    keys = subjects(text)
    named = frozenset(k for k in keys if k[:1] not in "#@<")
    return keys if not named else frozenset(k for k in keys if k[:1] not in "#@")
