"""Several processes on one file: a new file opened by many at once is migrated exactly once, and an open
`Memory` sees what another process (or connection) wrote on its next call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from psychoagent import Memory

_OPEN = """
import sys
from psychoagent import Memory
with Memory(sys.argv[1], namespace=sys.argv[2], embedder="hash", appraiser=None) as mem:
    mem.observe("opened by " + sys.argv[2])
"""


def test_processes_opening_a_new_file_at_once_all_succeed(tmp_path: Path) -> None:
    for round_ in range(3):
        db = tmp_path / f"new{round_}.db"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _OPEN, str(db), f"p{i}"], stderr=subprocess.PIPE, text=True
            )
            for i in range(4)
        ]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
        with Memory(db, embedder="hash", appraiser=None) as mem:
            assert sorted(mem.namespaces()) == ["p0", "p1", "p2", "p3"]
            assert mem.store.schema_version >= 1


def test_an_open_memory_sees_units_written_by_another_connection(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    a = Memory(db, namespace="n", embedder="hash")
    a.observe("order 1 filled")
    assert [h.unit.content for h in a.recall("order", k=5)] == ["order 1 filled"]
    b = Memory(db, namespace="n", embedder="hash")
    b.observe("unrelated new fact")
    b.close()
    assert a.recall("unrelated new fact", k=1)[0].unit.content == "unrelated new fact"
    assert len(a) == 2
    monitor = a.monitor  # with its subscribers, it survives a reload
    subprocess.run([sys.executable, "-c", _OPEN, str(db), "n"], check=True, timeout=120)
    assert any(h.unit.content == "opened by n" for h in a.recall("opened by", k=3))
    assert a.monitor is monitor and len(a) == 3
    a.close()


def test_non_finite_metadata_is_refused_and_filters_keep_working(tmp_path: Path) -> None:
    import math

    import pytest

    mem = Memory(tmp_path / "m.db", namespace="n", embedder="hash")
    mem.observe("price noted", metadata={"r": 1.5})
    for bad in (float("nan"), float("inf"), [1.0, -math.inf], {"deep": float("nan")}):
        with pytest.raises(ValueError, match="finite"):
            mem.observe("bad value", metadata={"r": bad})
    assert [h.unit.content for h in mem.recall("price", k=3, where={"metadata.r": {">": 1}})] == [
        "price noted"
    ]
    assert len(mem) == 1


def test_update_refuses_a_unit_of_another_namespace(tmp_path: Path) -> None:
    import pytest

    a = Memory(tmp_path / "m.db", namespace="A", embedder="hash")
    unit = a.observe("A's fact")
    b = a.for_namespace("B")
    with pytest.raises(ValueError, match="belongs to namespace 'A'"):
        b.update(unit.model_copy(update={"content": "changed"}))
    assert a.get(unit.id).content == "A's fact"  # type: ignore[union-attr]


def test_writes_of_another_connection_are_applied_to_the_open_index_not_reloaded(tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    a = Memory(db, namespace="n", embedder="hash")
    a.observe_many([f"routine entry number {i}" for i in range(50)])
    a.observe("The user's budget is 2000 yuan", id="old")
    index = a._index()
    b = Memory(db, namespace="n", embedder="hash")
    new = b.supersede("old", "The user's budget is 3000 yuan", timestamp="2030-01-01T00:00:00Z")
    got = a.store.poll_changes()
    assert got is not None
    assert [c.unit.id for c in a.store.changes(*got, a.embedder.name, ["n"])] == ["old", new.id]
    current = a.recall("What is the user's budget?", k=3, where={"current": True})
    assert current[0].unit.id == new.id and "old" not in {h.unit.id for h in current}
    assert a._index() is index and len(index) == 52  # the same index object, one row added
    state = a.affect_state_of_namespace()
    assert "old" in state.superseded and state.successor["old"] == new.id
    assert a.store.poll_changes() is None  # nothing new since: the next call reads one counter only
    b.close()
    a.close()
