"""Consolidating one namespace (seed 5.3): re-tier its units into a bounded working memory and summarise routine
ones, keeping and linking the originals (`tiers` says which units go where)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from psychoagent.memory.consolidate.tiers import (
    ConsolidationReport,
    routine_groups,
    summary_unit,
    working_set,
)
from psychoagent.memory.state.namespace import Namespace
from psychoagent.types import MemoryUnit, Tier, to_datetime, utcnow

Store = Callable[[Sequence[MemoryUnit]], list[MemoryUnit]]
"""Stores built units of the namespace in one transaction (the write path)."""


def consolidate(ns: Namespace, now: datetime | str | float | None, store: Store) -> ConsolidationReport:
    """Re-tier units (bounded working memory) and summarise routine ones with `store`, linking originals."""
    cfg = ns.affect_config.consolidation
    when = to_datetime(now) or utcnow()
    t = when.timestamp()
    units = ns.units()
    report = ConsolidationReport()
    working = working_set(units, t, cfg)
    for unit in units:
        tier: Tier = "working" if unit.id in working else "long_term"
        if unit.tier != tier:
            unit.tier = tier
            ns.update(unit)
            (report.promoted if tier == "working" else report.demoted).append(unit.id)
    if units:
        _, vectors = ns.embed_documents([u.content for u in units])
        summaries = []
        for group in routine_groups(units, vectors, t, cfg):
            members = [units[i] for i in group]
            summary = summary_unit(members, ns.name, when)
            if ns.get(summary.id) is not None:
                continue
            summaries.append((summary, members))
        if summaries:
            store([s for s, _ in summaries])
            for summary, members in summaries:
                report.summaries.append(summary.id)
                for member in members:
                    member.metadata["summarised_by"] = summary.id
                    ns.update(member)
                    report.summarised.append(member.id)
    tiers = [u.tier for u in ns.units()]
    report.working, report.long_term = tiers.count("working"), tiers.count("long_term")
    return report
