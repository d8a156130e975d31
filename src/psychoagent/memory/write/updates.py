"""Conflict planning for a batch of new units: updates and contradictions by meaning, goal conflicts.

For each new unit: gather candidates (`write.candidates`: nearest earlier units by embedding, latest units sharing a
subject, a number or a time, units giving the same rule-based slot, earlier units of the same batch), let the learned pair
scorer judge them (`memory.conflicts.detect`), and plan records, edges and validity changes. Nothing is written
here: the write path applies the plan inside the batch's transaction (`memory.write.observe.after_store`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from psychoagent.affect.config import HeuristicConfig
from psychoagent.affect.slots import Slot
from psychoagent.embed import Embedder
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig
from psychoagent.memory.conflicts.detect import (
    Embed,
    Judgement,
    PairScorer,
    gate_for,
    judge,
    kept,
    reader_for,
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
from psychoagent.memory.write.candidates import Batch, Found, Stored, candidate, gather
from psychoagent.types import ConflictRecord, Edge, MemoryUnit, to_datetime, utcnow


@dataclass
class Plan:
    """What `prepare` decided for a batch, applied by `commit` once the units are stored."""

    records: list[ConflictRecord] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    superseded: dict[str, tuple[datetime, str]] = field(default_factory=dict)
    slots: list[tuple[MemoryUnit, list[Slot]]] = field(default_factory=list)


NEAR_FETCHED = 16
"""`near_stored` fetches this many rows from the IVF index per nearest candidate wanted (96 for the default 6)."""


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
    reader = reader_for(cfg, name, scorer) if embed is not None and scorer is not None else None
    n_stored = len(index)
    stored: Stored | None = None
    if (
        n_stored
        and cfg.dense_candidates
        and scorer is not None
        and index.ann is not None
        and not index.windowed
    ):
        stored = near_stored(index, vectors, cfg.dense_candidates)
    elif n_stored and cfg.dense_candidates and scorer is not None:
        sims = index.similarities(vectors)  # stored x batch: one product for the whole batch
        kinds = index.column("kind")
        eligible = np.isnan(index.column("invalid_at")) & ~np.isin(kinds, list(UNCHECKED_KINDS))
        # negated in place, non-candidates at +inf: no second matrix of this size (it grows with the store)
        np.negative(sims, out=sims)
        sims[~eligible] = np.inf
        stored = Stored(sims, np.flatnonzero(eligible))
    batch = Batch(units, vectors, {u.id: j for j, u in enumerate(units)}, {}, {})
    by_id = {u.id: u for u in units}
    for i, unit in enumerate(units):
        slots = slots_of(unit)
        plan.slots.append((unit, slots))
        if unit.kind not in UNCHECKED_KINDS:
            cands = gather(state, index, stored, batch, i, slots, cfg, floor)
            verdicts = _verdicts(
                scorer, unit, cands, cfg, referee, vectors[i], embed, floor, second, name, reader
            )
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


def near_stored(index: NamespaceIndex, vectors: np.ndarray, wanted: int) -> Stored:
    """Each new unit's nearest stored candidates by the namespace's IVF index (`NEAR_FETCHED` x `wanted` rows
    fetched, re-scored by exact cosine) plus the rows added since it was last extended: at a million units the
    product of a new vector with every stored one cost 0.13 s a write (1.3 s with float16 vectors) and, for a
    batch, a stored x batch matrix."""
    ann = index.ann
    assert ann is not None
    n = len(index)
    recent = np.arange(min(len(ann), n), n, dtype=np.int64)
    invalid, kinds = index.column("invalid_at"), index.column("kind")
    near = []
    for vector in vectors:
        found = np.union1d(ann.search(vector, NEAR_FETCHED * wanted, ann.probes), recent)
        found = found[found < n]
        found = found[np.isnan(invalid[found]) & ~np.isin(kinds[found], list(UNCHECKED_KINDS))]
        cosines = index.vector_rows(found) @ vector.astype(np.float32)
        order = np.argsort(-cosines, kind="stable")
        near.append((found[order], cosines[order].astype(np.float64)))
    return Stored(np.zeros((0, len(vectors)), np.float32), np.zeros(0, np.int64), near)


def _verdicts(
    scorer: PairScorer | None,
    unit: MemoryUnit,
    found: list[Found],
    cfg: ConflictConfig,
    referee: PairJudge | None,
    vector: np.ndarray,
    embed: Embed | None = None,
    floor: float | None = None,
    second: SecondStage | None = None,
    name: str = "",
    reader: PairScorer | None = None,
) -> list[Judgement]:
    """At most one update (`nearest_update`) plus contradictions; rules alone when the scorer is off (a slot clash
    the gate's rules do not rule out: `gate.blocked_by_rules`). The pairs `judge` would not score (`detect.kept`)
    are left out before any similarity is read."""
    created, content = unit.created_at.timestamp(), unit.content
    if scorer is None:
        return [
            Judgement(candidate(c, vector, floor), "update", (1.0, 0.0, 0.0, 0.0), created < c.created)
            for c in found
            if c.slot_key and not (cfg.gate and _ruled_out(content, c, created))
        ][:1]
    gate = gate_for(cfg, name)
    cands = [
        candidate(c, vector, floor)
        for c in found
        if kept(content, created, c.content, c.created, gate is not None)
    ]
    if not cands:
        return []
    verdicts = judge(
        scorer,
        content,
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
        gate=gate,
        embedder=name,
        reader=reader,
    )
    return nearest_update(verdicts) + [v for v in verdicts if v.label == "contradiction"]


def _ruled_out(content: str, cand: Found, created: float) -> bool:
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
