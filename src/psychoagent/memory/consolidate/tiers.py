"""Tiers and consolidation (seed 5.3): a bounded working memory and summaries of routine memories.

Working memory holds high-conflict, high-arousal and recent units, at most `working_capacity` of them (the most
salient kept). Routine units (low arousal, no conflict, old enough) that resemble each other are summarised into a
`summary` unit carrying their affect statistics; the originals stay stored, linked by `summarises` edges and
marked `summarised_by` — never silently dropped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

import numpy as np
from pydantic import BaseModel, Field

from psychoagent.memory.config import ConsolidationConfig
from psychoagent.types import Affect, MemoryUnit


class ConsolidationReport(BaseModel):
    """What `consolidate()` did."""

    promoted: list[str] = Field(default_factory=list, description="units moved to the working tier")
    demoted: list[str] = Field(default_factory=list, description="units moved to the long-term tier")
    summaries: list[str] = Field(default_factory=list, description="summary units created")
    summarised: list[str] = Field(default_factory=list, description="originals now linked to a summary")
    working: int = 0
    long_term: int = 0


def salience(unit: MemoryUnit, now: float) -> float:
    """Order of keeping in working memory: conflict first, then arousal, then recency."""
    age_days = max(0.0, now - unit.created_at.timestamp()) / 86400.0
    return unit.affect.conflict_intensity * 10.0 + unit.affect.arousal * 3.0 - min(age_days, 30.0) / 10.0


def working_set(units: Sequence[MemoryUnit], now: float, cfg: ConsolidationConfig) -> set[str]:
    """Ids that belong in working memory: current and salient or recent, capped at capacity by salience."""
    recent = cfg.working_recent_days * 86400.0
    eligible = [
        u
        for u in units
        if u.is_current
        and u.kind != "summary"
        and (
            u.affect.conflict_intensity >= cfg.working_min_conflict
            or u.affect.arousal >= cfg.working_min_arousal
            or now - u.created_at.timestamp() <= recent
        )
    ]
    eligible.sort(key=lambda u: salience(u, now), reverse=True)
    return {u.id for u in eligible[: cfg.working_capacity]}


def routine_groups(
    units: Sequence[MemoryUnit], vectors: np.ndarray, now: float, cfg: ConsolidationConfig
) -> list[list[int]]:
    """Greedy groups (positions into `units`) of similar routine units old enough to summarise."""
    min_age = cfg.min_age_days * 86400.0
    routine = [
        i
        for i, u in enumerate(units)
        if u.kind == "episodic"
        and u.tier == "long_term"
        and "summarised_by" not in u.metadata
        and u.affect.arousal <= cfg.routine_max_arousal
        and u.affect.conflict_intensity <= cfg.routine_max_conflict
        and now - u.created_at.timestamp() >= min_age
    ]
    groups: list[list[int]] = []
    for i in routine:
        for group in groups:
            if float(vectors[i] @ vectors[group[0]]) >= cfg.similarity:
                group.append(i)
                break
        else:
            groups.append([i])
    return [g for g in groups if len(g) >= cfg.min_group]


def summary_unit(members: Sequence[MemoryUnit], namespace: str, created: datetime) -> MemoryUnit:
    """A summary of routine units with their affect statistics (seed 5.3: '10 similar operations, mean +1.5')."""
    valences = np.array([m.affect.valence for m in members], dtype=float)
    arousals = np.array([m.affect.arousal for m in members], dtype=float)
    first, last = min(m.created_at for m in members), max(m.created_at for m in members)
    content = (
        f"{len(members)} similar routine memories from {first:%Y-%m-%d} to {last:%Y-%m-%d}, mean valence "
        f"{valences.mean():+.1f}, mean arousal {arousals.mean():.1f}. Example: {members[0].content}"
    )
    digest = hashlib.blake2b("|".join(m.id for m in members).encode(), digest_size=8).hexdigest()
    affect = Affect(
        valence=int(np.clip(round(float(valences.mean())), -2, 2)),
        arousal=int(np.clip(round(float(arousals.mean())), 1, 3)),
        reason=f"Mean of {len(members)} summarised memories.",
    )
    return MemoryUnit(
        id=f"sum_{digest}",
        namespace=namespace,
        content=content,
        kind="summary",
        affect=affect,
        sources=[m.id for m in members],
        created_at=created,
        valid_at=created,
        metadata={
            "count": len(members),
            "mean_valence": round(float(valences.mean()), 3),
            "std_valence": round(float(valences.std()), 3),
            "mean_arousal": round(float(arousals.mean()), 3),
            "first": first.isoformat(),
            "last": last.isoformat(),
            "members": [m.id for m in members],
        },
    )
