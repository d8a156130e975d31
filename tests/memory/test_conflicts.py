"""Conflict records: the seed's budget example end to end, slot superseding, goal records, nothing deleted."""

from __future__ import annotations

import pytest

from psychoagent import Memory


@pytest.mark.parametrize(
    ("goal", "old", "new", "query"),
    [
        ("Keep the total budget under 2000 yuan", "The user set the total equipment budget to 2000 yuan.",
         "The user raised the budget from 1000 to 3000 yuan.", "Which budget should I plan with?"),
        ("严格控制总预算在2000元内", "用户把设备预算定为2000元。", "用户明确要求将设备预算从1000元提升至3000元。",
         "用户的预算是多少？"),
    ],
)  # fmt: skip
def test_seed_budget_example_end_to_end(goal: str, old: str, new: str, query: str) -> None:
    mem = Memory(embedder="hash")
    goal_unit = mem.observe(goal, kind="goal", timestamp="2024-05-01T08:00:00Z")
    first = mem.observe(old, timestamp="2024-05-01T09:00:00Z")
    mem.observe("The user prefers short, concise answers.", timestamp="2024-05-02T10:00:00Z")
    second = mem.observe(new, goals=[goal], timestamp="2024-05-05T08:00:00Z")
    assert second.affect.conflict_intensity >= 3 and len(second.affect.conflict_parties) == 2
    kinds = {(c.kind, c.side_a, c.side_b) for c in mem.conflicts()}
    assert ("slot", first.id, second.id) in kinds and ("goal", goal_unit.id, second.id) in kinds
    stale = mem.get(first.id)
    assert stale is not None and stale.invalid_at == second.created_at
    assert {e.type for e in mem.edges(first.id)} >= {"supersedes", "contradicts"}
    brief = mem.brief(query, k=5, now="2024-05-06T00:00:00Z")
    ids = [r.unit.id for r in brief.memories]
    assert first.id in ids and second.id in ids
    slot = next(d for d in brief.metadata["conflicts"] if set(d["sides"]) == {first.id, second.id})
    assert slot["sides"] == [first.id, second.id] and slot["current"] == second.id
    assert "[CURRENT]" in brief.text and old in brief.text and new in brief.text
    assert "step by step" in brief.text
    assert len(mem) == 4  # nothing deleted


def test_older_fact_arriving_late_is_the_superseded_one() -> None:
    mem = Memory(embedder="hash")
    new = mem.observe("The meeting is on Friday.", timestamp="2024-05-03T00:00:00Z")
    old = mem.observe("The meeting is on Monday.", timestamp="2024-05-01T00:00:00Z")
    assert mem.get(old.id).invalid_at is not None and mem.get(new.id).invalid_at is None  # type: ignore[union-attr]
    (record,) = mem.conflicts()
    assert (record.side_a, record.side_b) == (old.id, new.id)


def test_different_entities_or_same_value_do_not_conflict() -> None:
    mem = Memory(embedder="hash")
    mem.observe("Alice moved to Berlin.")
    mem.observe("Bob moved to Paris.")
    mem.observe("Alice moved to Berlin.")
    assert mem.conflicts() == []


def test_batch_conflicts_and_resolution() -> None:
    mem = Memory(embedder="hash")
    a, b = mem.observe_many([
        {"text": "The deadline is 2024-06-01.", "timestamp": "2024-05-01T00:00:00Z"},
        {"text": "Actually, the deadline was moved to 2024-07-15.", "timestamp": "2024-05-02T00:00:00Z"},
    ])  # fmt: skip
    (record,) = mem.conflicts(status="unresolved")
    assert (record.side_a, record.side_b) == (a.id, b.id)
    assert mem.get(a.id).invalid_at == b.created_at  # type: ignore[union-attr]
    assert b.affect.conflict_intensity >= 3
    done = mem.resolve_conflict(record.id, "Confirmed with the user: July.")
    assert done.status == "resolved" and mem.conflicts(status="unresolved") == []
    assert len(mem) == 2


def test_detection_can_be_switched_off_and_records_persist(tmp_path) -> None:
    from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig

    off = Memory(embedder="hash", affect_config=AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False)))
    off.observe("The budget is 100 yuan.")
    off.observe("The budget is 200 yuan.")
    assert off.conflicts() == [] and all(u.is_current for u in off.units())
    path = tmp_path / "m.db"
    with Memory(path, embedder="hash") as mem:
        mem.observe("The budget is 100 yuan.")
        mem.observe("The budget is 200 yuan.")
    with Memory(path, embedder="hash") as again:
        assert len(again.conflicts()) == 1
        again.observe("The budget is 300 yuan.")  # slot index rebuilt from the file
        assert len(again.conflicts()) == 2


@pytest.mark.parametrize(
    ("old", "new", "other"),
    [("Alice works in the Berlin office.", "Alice transferred to the Paris office.", "Bob transferred to the Oslo office."),
     ("李娜在北京办公室上班。", "李娜调到西安办公室了。", "王芳调到成都办公室了。")],
)  # fmt: skip
def test_change_statements_without_a_slot_supersede(old: str, new: str, other: str) -> None:
    mem = Memory(embedder="hash")
    first = mem.observe(old, timestamp="2024-05-01T00:00:00Z")
    mem.observe(other, timestamp="2024-05-02T00:00:00Z")  # another person: no conflict with `old`
    assert mem.conflicts() == []
    second = mem.observe(new, timestamp="2024-05-03T00:00:00Z")
    (record,) = mem.conflicts()
    assert (record.kind, record.side_a, record.side_b) == ("update", first.id, second.id)
    assert second.affect.conflict_intensity == 2 and mem.get(first.id).invalid_at is not None  # type: ignore[union-attr]
