"""The conflict-aware briefing behind `Memory.brief`: recall, the conflicts among what was recalled (stored
records, slot comparison, answers that differ), the missing other sides, rendered as text (`conflicts.fusion`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np

from psychoagent.memory.conflicts.answers import answer_conflicts
from psychoagent.memory.conflicts.fusion import render, slot_conflicts, summarise
from psychoagent.memory.conflicts.records import ConflictLog
from psychoagent.memory.state.namespace import Namespace
from psychoagent.types import Affect, Briefing, ConflictRecord, MemoryUnit, Recall

Recaller = Callable[..., list[Recall]]
"""Recall of the namespace as `Memory.recall` runs it (arguments checked, the view's pipeline and selector)."""


def brief(
    ns: Namespace,
    recall: Recaller,
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
    cfg = ns.affect_config.fusion
    if affect_state is None and context is None and policy is None:
        policy = "conflict-first"
        affect_state = Affect(
            valence=0, arousal=2, conflict_intensity=3, reason="briefing: look for conflicts"
        )
    hits = recall(query, k=k, context=context, affect_state=affect_state, policy=policy, now=now, rng=rng,
                  **extras)  # fmt: skip
    units = {h.unit.id: h.unit for h in hits}
    records = ConflictLog(ns.store).list(ns.name, ids=list(units))
    if cfg.include_partners:
        missing = [
            s for r in records for s in (r.side_a, r.side_b) if s not in units and not s.startswith("goal_")
        ]
        for unit in ns.get_many(list(dict.fromkeys(missing))):
            units[unit.id] = unit
    goal_ids = [s for r in records for s in (r.side_a, r.side_b) if s.startswith("goal_") or s not in units]
    for unit in ns.get_many(goal_ids):
        units[unit.id] = unit
    known = {frozenset((r.side_a, r.side_b)) for r in records}
    records += slot_conflicts([units[uid] for uid in dict.fromkeys(units)], known)
    records += answer_conflicts(
        hits, known, query, ns.affect_config.conflicts, ns.index, ns.embedder, ns.similarity_floor
    )
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
