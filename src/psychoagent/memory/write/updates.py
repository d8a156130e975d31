"""Conflict planning for a batch of new units: updates and contradictions by meaning, goal conflicts.

For each new unit: gather candidates (nearest earlier units by embedding, latest units sharing a subject, a
number or a time, units giving the same rule-based slot, earlier units of the same batch), let the learned pair
scorer judge them (`memory.conflicts.detect`), and plan records, edges and validity changes. Nothing is written
here: the write path applies the plan inside the batch's transaction (`memory.write.observe.after_store`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from psychoagent.affect.config import HeuristicConfig
from psychoagent.affect.slots import Slot
from psychoagent.embed import Embedder
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig
from psychoagent.memory.conflicts.detect import (
    Candidate,
    Embed,
    Judgement,
    PairScorer,
    gate_for,
    judge,
    scorer_for,
    second_for,
)
from psychoagent.memory.conflicts.facts import subjects
from psychoagent.memory.conflicts.gate import blocked_by_rules
from psychoagent.memory.conflicts.pairs import slot_clash
from psychoagent.memory.conflicts.records import UNCHECKED_KINDS, conflict_id, goal_id, slots_of
from psychoagent.memory.conflicts.second_stage import SecondStage
from psychoagent.memory.contracts import PairJudge
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.state.affect import NamespaceAffect, SlotEntry
from psychoagent.types import ConflictRecord, Edge, MemoryUnit, to_datetime, utcnow


@dataclass
class Plan:
    """What `prepare` decided for a batch, applied by `commit` once the units are stored."""

    records: list[ConflictRecord] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    superseded: dict[str, tuple[datetime, str]] = field(default_factory=dict)
    slots: list[tuple[MemoryUnit, list[Slot]]] = field(default_factory=list)


def prepare(
    state: NamespaceAffect,
    units: Sequence[MemoryUnit],
    vectors: np.ndarray,
    index: NamespaceIndex,
    config: AffectiveMemoryConfig,
    heuristic: HeuristicConfig,
    goal_units: dict[str, str],
    floor: float | None,
    referee: PairJudge | None = None,
    embedder: str | Embedder = "",
) -> Plan:
    """Find updates, contradictions and goal conflicts of new units (against stored ones and each other); mutate
    the new units' affect, conflict context and validity; return the records, edges and superseded ids. Given the
    embedder itself (not only its name), a value-only correction is judged by the sentence it stands for."""
    plan = Plan()
    cfg = config.conflicts
    name = embedder if isinstance(embedder, str) else embedder.name
    embed: Embed | None = None if isinstance(embedder, str) else embedder.embed_documents
    scorer = scorer_for(cfg, name) if cfg.detect_changes else None
    second = second_for(cfg, name) if embed is not None else None
    n_stored = len(index)
    stored: _Stored | None = None
    if n_stored and cfg.dense_candidates and scorer is not None:
        sims = index.vectors @ vectors.T  # stored x batch: one product for the whole batch
        kinds = index.column("kind")
        eligible = np.isnan(index.column("invalid_at")) & ~np.isin(kinds, list(UNCHECKED_KINDS))
        # negated in place, non-candidates at +inf: no second matrix of this size (it grows with the store)
        np.negative(sims, out=sims)
        sims[~eligible] = np.inf
        stored = _Stored(sims, np.flatnonzero(eligible))
    batch = _Batch(units, vectors, {u.id: j for j, u in enumerate(units)}, {}, {})
    by_id = {u.id: u for u in units}
    for i, unit in enumerate(units):
        slots = slots_of(unit)
        plan.slots.append((unit, slots))
        if unit.kind not in UNCHECKED_KINDS:
            cands = _candidates(state, index, stored, batch, i, slots, cfg, floor)
            verdicts = _verdicts(scorer, unit, cands, cfg, referee, vectors[i], embed, floor, second, name)
            for verdict in verdicts:
                _apply(plan, state, unit, verdict, by_id, cfg, heuristic)
        if slots:
            created = unit.created_at.timestamp()
            for slot in slots:
                batch.slots.setdefault(slot.key, []).append(
                    SlotEntry(unit.id, slot, created, unit.content, unit.kind, unit.invalid_at is None)
                )
        if unit.kind not in UNCHECKED_KINDS and cfg.detect_changes:
            for key in subjects(unit.content):
                batch.subjects.setdefault(key, []).append(unit.id)
        _goal_conflicts(plan, unit, goal_units, config)
    return plan


class _Stored(NamedTuple):
    """The batch's negated similarities to the stored units (nearest first in ascending order), stored x batch: a
    column per new unit, +inf where a stored unit is no candidate (superseded, or of a kind never checked), and how
    many are candidates."""

    rows: np.ndarray
    candidates: np.ndarray
    """The rows of the stored units that are candidates, ascending."""


def _nearest_stored(stored: _Stored, i: int, n: int) -> np.ndarray:
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


class _Batch(NamedTuple):
    """The batch being planned: its units and vectors, each unit's position, and the slot entries and subject keys
    of the units planned so far."""

    units: Sequence[MemoryUnit]
    vectors: np.ndarray
    position: dict[str, int]
    slots: dict[str, list[SlotEntry]]
    subjects: dict[str, list[str]]


def _candidates(
    state: NamespaceAffect,
    index: NamespaceIndex,
    stored: _Stored | None,
    batch: _Batch,
    i: int,
    slots: Sequence[Slot],
    cfg: ConflictConfig,
    floor: float | None,
) -> list[Candidate]:
    """Stored and same-batch units to compare unit `i` with (deduplicated, current ones only), in the order they
    are met: nearest stored, nearest earlier in the batch, latest sharing a subject key, giving the same slot."""
    units, vectors, position = batch.units, batch.vectors, batch.position
    unit, vec = units[i], vectors[i]
    unit_id, superseded, facts, row_of = unit.id, state.superseded, state.facts, index.row_of
    found: dict[str, Candidate] = {}
    base = 0.0 if floor is None else float(floor)
    span = max(1.0 - base, 1e-9)
    least = cfg.min_similarity

    def similarity(cosine: float) -> float:
        return min(1.0, max(0.0, (cosine - base) / span))

    def add(uid: str, slot_key: str | None = None) -> None:
        if uid == unit_id or uid in superseded or uid in found:
            return
        j = position.get(uid)
        if j is not None and j < i:
            other = units[j]
            if other.kind in UNCHECKED_KINDS or other.invalid_at is not None:
                return
            other_vec = vectors[j]
            dense = similarity(float(other_vec @ vec))
            found[uid] = Candidate(
                uid, other.content, other.created_at.timestamp(), dense, slot_key, other_vec
            )
            return
        fact = facts.get(uid)
        row = row_of.get(uid)
        if fact is None or fact[2] in UNCHECKED_KINDS or row is None:
            return
        stored_vec = index.vectors[row]
        dense = similarity(float(stored_vec @ vec))
        found[uid] = Candidate(uid, fact[1], fact[0], dense, slot_key, stored_vec)

    if stored is not None:
        n = min(cfg.dense_candidates, len(stored.candidates))
        if n:
            distance, ids = stored.rows[:, i], index.ids
            for row in _nearest_stored(stored, i, n):
                if similarity(-float(distance[row])) >= least:
                    add(ids[int(row)])
    if i and cfg.dense_candidates and cfg.detect_changes:
        near = vectors[:i] @ vec
        for j in np.argsort(-near)[: cfg.dense_candidates]:
            if similarity(float(near[j])) >= least:
                add(units[int(j)].id)
    if cfg.detect_changes:
        by_subject, last = state.by_subject, cfg.subject_candidates
        for key in _lookup_keys(unit.content):
            for uid in reversed(by_subject.get(key, [])[-last:] if last else []):
                add(uid)
            for uid in reversed(batch.subjects.get(key, [])[-last:]):
                add(uid)
    if slots:
        stored_slots = state.slots
        for slot in slots:
            for entry in (*stored_slots.get(slot.key, ()), *batch.slots.get(slot.key, ())):
                if entry.current and slot.contradicts(entry.slot):
                    add(entry.unit_id, slot.key)
    return list(found.values())


def _lookup_keys(text: str) -> frozenset[str]:
    """The index keys a new unit looks up: its subjects, and its numbers and times only when it names nobody
    ("Sorry, I meant 4200, not 5000"), so that a fact full of numbers does not pull in every fact sharing one."""
    keys = subjects(text)
    named = frozenset(k for k in keys if k[:1] not in "#@<")
    return keys if not named else frozenset(k for k in keys if k[:1] not in "#@")


def _verdicts(
    scorer: PairScorer | None,
    unit: MemoryUnit,
    cands: list[Candidate],
    cfg: ConflictConfig,
    referee: PairJudge | None,
    vector: np.ndarray,
    embed: Embed | None = None,
    floor: float | None = None,
    second: SecondStage | None = None,
    name: str = "",
) -> list[Judgement]:
    """At most one update (`nearest_update`) plus contradictions; rules alone when the scorer is off (a slot clash
    the gate's rules do not rule out: `gate.blocked_by_rules`)."""
    created = unit.created_at.timestamp()
    if scorer is None:
        return [
            Judgement(c, "update", (1.0, 0.0, 0.0, 0.0), created < c.created)
            for c in cands
            if c.slot_key and not (cfg.gate and _ruled_out(unit.content, c, created))
        ][:1]
    verdicts = judge(
        scorer,
        unit.content,
        created,
        cands,
        scorer.update_threshold if cfg.update_threshold is None else cfg.update_threshold,
        scorer.contradiction_threshold
        if cfg.contradiction_threshold is None
        else cfg.contradiction_threshold,
        referee,
        vector,
        conflict_mass=cfg.conflict_mass,
        embed=embed,
        floor=floor,
        second=second,
        gate=gate_for(cfg, name),
        embedder=name,
    )
    return nearest_update(verdicts) + [v for v in verdicts if v.label == "contradiction"]


def _ruled_out(content: str, cand: Candidate, created: float) -> bool:
    """Whether the gate's rules rule out a conflict between a new unit and a candidate (older text first)."""
    old, new = (content, cand.content) if created < cand.created else (cand.content, content)
    return blocked_by_rules(old, new) is not None


def nearest_update(verdicts: list[Judgement]) -> list[Judgement]:
    """Of several facts read as updated by one new fact, the one that is both probable and near in meaning (update
    probability x dense similarity; on the dev scenarios this chose better than either alone): the same attribute
    ("Ines switched to the Sharks" updates her football team, not her hotel, though both name her and a changed
    value). An empty list when none is an update."""
    return sorted(
        (v for v in verdicts if v.label == "update"), key=lambda v: -v.candidate.dense * v.probabilities[0]
    )[:1]


def _apply(
    plan: Plan,
    state: NamespaceAffect,
    unit: MemoryUnit,
    verdict: Judgement,
    units: dict[str, MemoryUnit],
    cfg: ConflictConfig,
    heuristic: HeuristicConfig,
) -> None:
    """Plan the record, edges and validity change of one judged pair; raise the new unit's conflict."""
    cand = verdict.candidate
    old_id, new_id = (unit.id, cand.unit_id) if verdict.new_is_older else (cand.unit_id, unit.id)
    old_text, new_text = (
        (unit.content, cand.content) if verdict.new_is_older else (cand.content, unit.content)
    )
    created = unit.created_at.timestamp()
    when = to_datetime(max(created, cand.created)) or utcnow()
    by_slot = bool(cand.slot_key) or slot_clash(old_text, new_text) > 0
    if verdict.label == "update":
        kind = "slot" if by_slot else "update"
        intensity = heuristic.slot_intensity if by_slot else cfg.change_intensity
    else:
        kind, intensity = "contradiction", cfg.contradiction_intensity
    meta: dict[str, object] = {"probabilities": dict(zip(("update", "contradiction", "elaboration", "unrelated"),
                                                         (round(p, 3) for p in verdict.probabilities), strict=True))}  # fmt: skip
    if cand.slot_key:
        meta["slot"] = cand.slot_key
    plan.records.append(
        ConflictRecord(
            id=conflict_id(old_id, new_id, kind), namespace=unit.namespace, kind=kind, side_a=old_id, side_b=new_id,
            description_a=old_text, description_b=new_text, intensity=intensity, created_at=when, metadata=meta,
        )
    )  # fmt: skip
    plan.edges.append(Edge(src=new_id, dst=old_id, type="contradicts", created_at=when))
    if verdict.label == "update" and cfg.supersede_slots:
        _supersede(plan, state, units, old_id, new_id, when)
    if unit.affect.conflict_intensity < intensity or not unit.affect.conflict_parties:
        verb = "updates" if verdict.label == "update" else "contradicts"
        unit.affect = unit.affect.model_copy(
            update={
                "conflict_intensity": max(unit.affect.conflict_intensity, intensity),
                "conflict_parties": [f"memory: {old_text.strip()}", f"new: {new_text.strip()}"],
                "reason": f"It {verb} what {cand.unit_id if not verdict.new_is_older else unit.id} says "
                f"(p = {verdict.confidence:.2f}).",
            }
        )
    unit.conflict_context = " vs ".join(unit.affect.conflict_parties)


def _supersede(
    plan: Plan, state: NamespaceAffect, units: dict[str, MemoryUnit], old_id: str, new_id: str, when: datetime
) -> None:
    """Mark the older unit as no longer valid from `when` (in the batch, or stored: applied after the write)."""
    plan.edges.append(Edge(src=new_id, dst=old_id, type="supersedes", created_at=when))
    state.superseded.add(old_id)
    state.successor[old_id] = new_id
    batch = units
    if old_id in batch:
        batch[old_id].invalid_at = when
        batch[old_id].metadata["superseded_by"] = new_id
    else:
        plan.superseded[old_id] = (when, new_id)


def _goal_conflicts(
    plan: Plan, unit: MemoryUnit, goal_units: dict[str, str], config: AffectiveMemoryConfig
) -> None:
    """Record the appraiser's goal conflict of a unit against the goal (a stored goal unit or a stable id)."""
    cfg = config.conflicts
    if not cfg.record_goal_conflicts or unit.affect.conflict_intensity < cfg.min_goal_intensity:
        return
    for side in [p for p in unit.affect.conflict_parties if p.startswith("goal: ")][:1]:
        goal = side.removeprefix("goal: ")
        gid = goal_units.get(goal) or goal_id(goal)
        plan.records.append(
            ConflictRecord(
                id=conflict_id(gid, unit.id, "goal"), namespace=unit.namespace, kind="goal", side_a=gid,
                side_b=unit.id, description_a=goal, description_b=unit.content, intensity=unit.affect.conflict_intensity,
                created_at=unit.created_at, metadata={"reason": unit.affect.reason},
            )
        )  # fmt: skip
        if gid in goal_units.values():
            plan.edges.append(Edge(src=unit.id, dst=gid, type="contradicts", created_at=unit.created_at))
