"""The affect side of `Memory`: conflict bookkeeping around writes, briefings and consolidation."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from psychoagent.affect.config import AffectConfig
from psychoagent.memory.answers import answer_conflicts
from psychoagent.memory.conflicts import ConflictLog, NamespaceAffect, Plan
from psychoagent.memory.consolidate import ConsolidationReport, routine_groups, summary_unit, working_set
from psychoagent.memory.fusion import render, slot_conflicts, summarise
from psychoagent.memory.index import NamespaceIndex
from psychoagent.memory.monitor import AffectMonitor
from psychoagent.memory.updates import prepare
from psychoagent.types import (
    Affect,
    Briefing,
    ConflictRecord,
    Edge,
    MemoryUnit,
    Recall,
    Tier,
    to_datetime,
    utcnow,
)

if TYPE_CHECKING:
    from psychoagent.memory.core import Memory


@contextmanager
def detection_off(memory: Memory) -> Iterator[None]:
    """Store without conflict detection inside the block (explicit supersede already links the two units)."""
    state = namespace_state(memory)
    state.paused += 1
    try:
        yield
    finally:
        state.paused -= 1


def namespace_state(memory: Memory) -> NamespaceAffect:
    """The namespace's affect state, built from the stored units on first use."""
    states: dict[str, NamespaceAffect] = memory._shared.affect
    state = states.get(memory.namespace)
    if state is None:
        state = NamespaceAffect(monitor=AffectMonitor(memory.namespace, memory.affect_config.monitor))
        states[memory.namespace] = state
    if not state.loaded:
        state.loaded = True
        units = memory.units()
        for unit in units:
            state.index_unit(unit)
        assert state.monitor is not None
        if not state.monitor_primed:
            state.monitor.observe(units)
    return state


def before_store(
    memory: Memory, units: Sequence[MemoryUnit], vectors: np.ndarray, index: NamespaceIndex
) -> Plan | None:
    """Detect conflicts of a batch about to be stored (mutates the units' affect and validity)."""
    state = namespace_state(memory)
    if not memory.affect_config.conflicts.detect or state.paused:
        return None
    goal_units: dict[str, str] = {}
    if any(p.startswith("goal: ") for u in units for p in u.affect.conflict_parties):
        rows = memory.store.iter_units(memory.namespace, kind="goal")
        goal_units = {u.content.strip().rstrip(".。"): u.id for u in rows}
    own = getattr(memory.appraiser, "config", None)
    config = own.heuristic if isinstance(own, AffectConfig) else AffectConfig().heuristic
    return prepare(
        state, units, vectors, index, memory.affect_config, config, goal_units, memory.similarity_floor,
        memory.pair_judge, memory.embedder,
    )  # fmt: skip


def after_store(memory: Memory, units: Sequence[MemoryUnit], plan: Plan | None) -> None:
    """Write records and edges, mark superseded units, update the slot index and the monitor."""
    state = namespace_state(memory)
    if plan is not None:
        ConflictLog(memory.store).add(plan.records)
        for old_id, (when, new_id) in plan.superseded.items():
            old = memory.get(old_id)
            if old is not None and old.invalid_at is None:
                old.invalid_at = when
                old.metadata["superseded_by"] = new_id
                memory.update(old)
        for unit, slots in plan.slots:
            state.index_unit(unit, slots)
    else:
        for unit in units:
            state.index_unit(unit)
    edges = [*(plan.edges if plan else []),
             *(Edge(src=u.id, dst=s, type="summarises") for u in units if u.kind == "summary" for s in u.sources)]  # fmt: skip
    if edges:
        memory.add_edges(edges)
    assert state.monitor is not None
    state.monitor.observe(list(units))


def brief(
    memory: Memory,
    query: str,
    *,
    k: int = 5,
    context: str | None = None,
    affect_state: Affect | None = None,
    policy: str | None = None,
    now: datetime | str | float | None = None,
    rng: np.random.Generator | None = None,
    model: Any = None,
    max_words: int | None = None,
    **extras: Any,
) -> Briefing:
    """Recall, find conflicts among what was recalled (stored records + slot comparison), add missing sides,
    and render the briefing (template; optional model summary)."""
    cfg = memory.affect_config.fusion
    if affect_state is None and context is None and policy is None:
        policy = "conflict-first"
        affect_state = Affect(
            valence=0, arousal=2, conflict_intensity=3, reason="briefing: look for conflicts"
        )
    hits = memory.recall(query, k=k, context=context, affect_state=affect_state, policy=policy, now=now,
                         rng=rng, **extras)  # fmt: skip
    units = {h.unit.id: h.unit for h in hits}
    records = ConflictLog(memory.store).list(memory.namespace, ids=list(units))
    if cfg.include_partners:
        missing = [
            s for r in records for s in (r.side_a, r.side_b) if s not in units and not s.startswith("goal_")
        ]
        for unit in memory.get_many(list(dict.fromkeys(missing))):
            units[unit.id] = unit
    goal_ids = [s for r in records for s in (r.side_a, r.side_b) if s.startswith("goal_") or s not in units]
    for unit in memory.get_many(goal_ids):
        units[unit.id] = unit
    known = {frozenset((r.side_a, r.side_b)) for r in records}
    records += slot_conflicts([units[uid] for uid in dict.fromkeys(units)], known)
    records += answer_conflicts(memory, hits, known, query)
    records = _dedupe(records)
    text, details = render(query, hits, records, units, cfg)
    meta: dict[str, Any] = {
        "conflicts": details,
        "state": affect_state.model_dump() if affect_state else None,
    }
    if model is not None:
        summary = summarise(model, text, max_words or cfg.summary_words)
        if summary is not None:
            meta["template_text"] = text
            text = summary
        else:
            meta["summary_fallback"] = True
    recalled = {h.unit.id for h in hits}
    extra = [_partner_recall(u) for uid, u in units.items() if uid not in recalled]
    return Briefing(query=query, text=text, memories=[*hits, *extra], conflicts=records, metadata=meta)


def _partner_recall(unit: MemoryUnit) -> Recall:
    """A zero-score Recall for a unit pulled in as the other side of a conflict."""
    return Recall(unit=unit, score=0.0, parts={"conflict_partner": 1.0})


def _dedupe(records: list[ConflictRecord]) -> list[ConflictRecord]:
    seen: dict[frozenset[str], ConflictRecord] = {}
    for r in records:
        key = frozenset((r.side_a, r.side_b))
        if key not in seen or r.intensity > seen[key].intensity:
            seen[key] = r
    return sorted(seen.values(), key=lambda r: r.created_at)


def consolidate(memory: Memory, now: datetime | str | float | None = None) -> ConsolidationReport:
    """Re-tier units (bounded working memory) and summarise routine ones, linking originals."""
    cfg = memory.affect_config.consolidation
    when = to_datetime(now) or utcnow()
    t = when.timestamp()
    units = memory.units()
    report = ConsolidationReport()
    working = working_set(units, t, cfg)
    for unit in units:
        tier: Tier = "working" if unit.id in working else "long_term"
        if unit.tier != tier:
            unit.tier = tier
            memory.update(unit)
            (report.promoted if tier == "working" else report.demoted).append(unit.id)
    if units:
        _, vectors = memory.embed_documents([u.content for u in units])
        summaries = []
        for group in routine_groups(units, vectors, t, cfg):
            members = [units[i] for i in group]
            summary = summary_unit(members, memory.namespace, when)
            if memory.get(summary.id) is not None:
                continue
            summaries.append((summary, members))
        if summaries:
            memory.add_units([s for s, _ in summaries])
            for summary, members in summaries:
                report.summaries.append(summary.id)
                for member in members:
                    member.metadata["summarised_by"] = summary.id
                    memory.update(member)
                    report.summarised.append(member.id)
    tiers = [u.tier for u in memory.units()]
    report.working, report.long_term = tiers.count("working"), tiers.count("long_term")
    return report
