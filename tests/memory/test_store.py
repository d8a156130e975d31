"""Store behaviour: namespaces, filters, persistence, atomic batches, superseding, bad input."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from psychoagent import Memory
from psychoagent.memory import FilterError
from psychoagent.memory.stores import SQLiteStore
from psychoagent.memory.stores.sqlite_schema import MIGRATIONS
from psychoagent.memory.write import units as write
from psychoagent.types import Affect


def test_namespaces_never_leak(tmp_path: Path) -> None:
    alice = Memory(tmp_path / "m.db", namespace="alice", embedder="hash")
    bob = alice.for_namespace("bob")
    alice.observe("Alice keeps her savings in gold coins")
    bob.observe("Bob keeps his savings in gold coins", id="b1")
    hits = alice.recall("who keeps savings in gold coins?", k=10)
    assert [h.unit.namespace for h in hits] == ["alice"]
    assert alice.get("b1") is None and bob.get("b1") is not None
    assert alice.for_namespace("nobody").recall("gold coins", k=5) == []
    assert sorted(alice.namespaces()) == ["alice", "bob"]


def test_filters_on_affect_tier_time_and_metadata() -> None:
    mem = Memory(embedder="hash")
    mem.observe("budget doubled against the plan", affect=Affect(valence=-2, arousal=3, conflict_intensity=4),
                timestamp="2024-01-05T00:00:00Z", metadata={"topic": "budget"}, id="neg")  # fmt: skip
    mem.observe("budget approved as planned", affect=Affect(valence=1, arousal=1, conflict_intensity=0),
                timestamp="2024-03-01T00:00:00Z", metadata={"topic": "budget"}, id="pos")  # fmt: skip
    mem.observe("lunch with the team about the budget", timestamp="2024-03-02T00:00:00Z",
                metadata={"topic": "social"}, id="soc")  # fmt: skip

    def ids(where: object) -> set[str]:
        return {h.unit.id for h in mem.recall("budget", k=10, where=where)}  # type: ignore[arg-type]

    assert ids({"conflict_intensity": {">": 2}, "valence": {"<": 0}}) == {"neg"}
    assert ids("conflict_intensity > 2 AND valence < 0") == {"neg"}
    assert ids({"created_after": "2024-02-01"}) == {"pos", "soc"}
    assert ids("created_at < 2024-02-01T00:00:00Z") == {"neg"}
    assert ids({"metadata.topic": "social"}) == {"soc"}
    assert ids({"metadata.topic": ["budget", "social"], "valence": {">=": 0}}) == {"pos", "soc"}
    assert ids({"tier": "working"}) == set()
    with pytest.raises(FilterError, match="unknown filter field 'mood'"):
        mem.recall("budget", where={"mood": 1})
    with pytest.raises(FilterError, match="needs a number"):
        mem.recall("budget", where={"valence": {"<": "low"}})


def test_persistence_across_close_and_reopen(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    with Memory(db, namespace="n", embedder="hash") as mem:
        unit = mem.observe("The warehouse in Lyon stores steel beams", metadata={"k": 1})
        mem.link(unit.id, "goal:steel", "about")
    with Memory(db, namespace="n", embedder="hash") as again:
        assert again.get(unit.id) == unit
        assert again.recall("steel beams in Lyon", k=1)[0].unit.id == unit.id
        assert again.neighbours(unit.id, depth=1) == {unit.id: 0, "goal:steel": 1}
        assert again.store.schema_version == len(MIGRATIONS)


def test_a_failing_batch_writes_nothing() -> None:
    mem = Memory(embedder="hash")
    mem.observe("first fact", id="dup")
    with pytest.raises(ValueError, match="already exists"):
        mem.observe_many([{"text": "second fact", "id": "new"}, {"text": "third", "id": "dup"}])
    assert mem.get("new") is None
    assert len(mem) == 1
    assert [h.unit.id for h in mem.recall("second fact", k=5)] == ["dup"]


def test_nan_vectors_and_empty_text_are_rejected() -> None:
    store = SQLiteStore()
    mem = Memory(embedder="hash")
    unit = write.build_unit(mem._ns, "a fact")
    with pytest.raises(ValueError, match="NaN"):
        store.add_units([unit], ["h"], "m", np.array([[np.nan, 1.0]], dtype=np.float32))
    with pytest.raises(ValueError, match="non-empty"):
        mem.observe("   ")
    with pytest.raises(ValueError, match="ISO 8601"):
        mem.observe("x", timestamp="yesterday-ish")


def test_supersede_keeps_both_with_valid_and_invalid_times() -> None:
    mem = Memory(embedder="hash")
    old = mem.observe("The user's budget is 2000 yuan", timestamp="2024-05-01T09:00:00Z")
    new = mem.supersede(old.id, "The user's budget is 3000 yuan", timestamp="2024-05-05T09:00:00Z")
    old_now = mem.get(old.id)
    assert old_now is not None and old_now.invalid_at == new.created_at
    assert new.valid_at == new.created_at and new.invalid_at is None
    assert [e.type for e in mem.edges(old.id)] == ["supersedes"]
    hits = mem.recall("What is the user's budget?", k=5, now="2024-05-06T00:00:00Z")
    assert [h.unit.id for h in hits[:2]] == [new.id, old.id]
    assert hits[1].parts["validity"] < 1.0
    current = mem.recall("budget", k=5, where={"current": True})
    assert [h.unit.id for h in current] == [new.id]


WRITER = textwrap.dedent(
    """
    import sys
    from psychoagent import Memory
    mem = Memory(sys.argv[1], namespace="w", embedder="hash")
    batch = 0
    while True:
        mem.observe_many({"text": f"batch {batch} item {i} " + "x" * 200, "id": f"{batch}-{i}"} for i in range(200))
        print(batch, flush=True)
        batch += 1
    """
)


def test_sigkill_mid_batch_loses_no_acknowledged_unit(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    acked = -1
    deadline = time.monotonic() + 60
    while acked < 5 and time.monotonic() < deadline:
        acked = int(proc.stdout.readline())
    time.sleep(0.013)  # land somewhere inside a later batch
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert acked >= 5
    with Memory(db, namespace="w", embedder="hash") as mem:
        counts: dict[int, int] = {}
        for unit in mem.units():
            batch = int(unit.id.split("-")[0])
            counts[batch] = counts.get(batch, 0) + 1
        assert all(counts.get(b) == 200 for b in range(acked + 1)), "an acknowledged batch lost units"
        assert all(n == 200 for n in counts.values()), "a half-written batch is visible"
        fts = mem.store.execute("SELECT COUNT(*) FROM units_fts").fetchone()[0]
        vecs = mem.store.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        assert fts == len(mem) == vecs


def test_a_batch_and_its_conflict_records_commit_together(monkeypatch: pytest.MonkeyPatch) -> None:
    mem = Memory(embedder="hash")
    mem.observe("The user's budget is 2000 yuan", id="old")
    from psychoagent.memory.write import observe as affective

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(affective, "after_store", boom)
    with pytest.raises(RuntimeError):
        mem.observe("The user's budget is 3000 yuan", id="new")
    monkeypatch.undo()
    assert mem.get("new") is None and len(mem) == 1
    assert [h.unit.id for h in mem.recall("budget", k=5)] == ["old"]
    mem.observe("The user's budget is 3000 yuan", id="new")
    assert {h.unit.id for h in mem.recall("budget", k=5)} == {"old", "new"}


def test_a_version_4_file_migrates_and_keeps_its_units(tmp_path: Path) -> None:
    """Opening a file of schema 4 applies the later migrations once: its units stay, the unread index goes."""
    import sqlite3

    from psychoagent.memory.stores.sqlite_schema import split_sql

    db = tmp_path / "v4.db"
    conn = sqlite3.connect(db, isolation_level=None)
    for script in MIGRATIONS[:4]:
        for statement in split_sql(script):
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 4")
    conn.close()
    with Memory(db, embedder="hash") as mem:
        mem.observe_many(["Alice moved to Berlin", "Bob likes tea"])
    conn = sqlite3.connect(db)
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) >= 5
    assert "units_ns_created" not in indexes and "units_changed" in indexes
    conn.close()
    with Memory(db, embedder="hash") as again:
        assert [h.unit.content for h in again.recall("Where does Alice live?", k=1)] == [
            "Alice moved to Berlin"
        ]
        assert len(again) == 2
