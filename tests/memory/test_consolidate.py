"""Consolidation: bounded working tier; routine memories summarised with affect statistics, originals kept."""

from __future__ import annotations

from psychoagent import Affect, Memory
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig, ConsolidationConfig


def test_consolidate_summarises_routine_and_keeps_originals() -> None:
    cfg = AffectiveMemoryConfig(
        consolidation=ConsolidationConfig(working_capacity=2, similarity=0.3),
        conflicts=ConflictConfig(
            detect_changes=False
        ),  # numbered runs are events, not facts replacing each other
    )
    mem = Memory(embedder="hash", appraiser=None, affect_config=cfg)
    routine = [
        mem.observe(
            f"Backed up the database to storage, run {i}.",
            affect=Affect(valence=v, arousal=1),
            timestamp=f"2024-04-0{i + 1}T00:00:00Z",
        )
        for i, v in enumerate([1, 2, 2, 1, 2])
    ]
    hot = [
        mem.observe(
            f"Payment outage {i}: customers double charged!",
            affect=Affect(valence=-2, arousal=3, conflict_intensity=c),
            timestamp="2024-05-30T00:00:00Z",
        )
        for i, c in enumerate([4, 2, 3])
    ]
    report = mem.consolidate(now="2024-06-01T00:00:00Z")
    assert len(report.summaries) == 1 and sorted(report.summarised) == sorted(u.id for u in routine)
    summary = mem.get(report.summaries[0])
    assert summary is not None and summary.kind == "summary"
    assert summary.metadata["count"] == 5 and summary.metadata["mean_valence"] == 1.6
    assert "mean valence +1.6" in summary.content
    assert len(mem) == 9  # 8 originals + 1 summary: nothing dropped
    for unit in routine:
        kept = mem.get(unit.id)
        assert kept is not None and kept.metadata["summarised_by"] == summary.id
    assert {e.dst for e in mem.edges(summary.id) if e.type == "summarises"} == {u.id for u in routine}
    working = [u.id for u in mem.units() if u.tier == "working"]
    assert report.working == 2 and set(working) == {hot[0].id, hot[2].id}  # capacity 2, most conflicted kept
    again = mem.consolidate(now="2024-06-01T00:00:00Z")
    assert again.summaries == []  # idempotent


def test_working_memory_is_ranked_first_among_equals() -> None:
    mem = Memory(embedder="hash", appraiser=None)
    a = mem.observe(
        "Server room temperature alarm.", affect=Affect(arousal=3), timestamp="2024-05-31T00:00:00Z"
    )
    b = mem.observe("Server room temperature alarm.", timestamp="2024-05-31T00:00:00Z")
    mem.consolidate(now="2024-06-30T00:00:00Z")
    hits = mem.recall("server room temperature alarm", k=2, now="2024-06-30T00:00:00Z")
    assert hits[0].unit.id == a.id and hits[0].parts["working"] > 1.0 and hits[1].unit.id == b.id
