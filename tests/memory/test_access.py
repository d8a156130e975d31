"""Write-behind access counts: never lost, read back by this process at once, written before anything else."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from psychoagent import Memory
from psychoagent.memory.config import MemoryConfig, RecallConfig
from psychoagent.memory.stores.access import AccessBuffer

LATER = 3600.0
"""A flush delay no test reaches: only the other triggers write."""


def open_memory(path: Path, flush: float = LATER) -> Memory:
    config = MemoryConfig(recall=RecallConfig(access_flush_seconds=flush))
    return Memory(path=path, embedder="hash", appraiser=None, config=config)


def stored_count(path: Path, uid: str) -> int:
    """The access count another process reads from the file."""
    other = open_memory(path, flush=0.0)
    unit = other.get(uid)
    other.close()
    assert unit is not None
    return unit.access_count


def seed(mem: Memory) -> list[str]:
    return [u.id for u in mem.observe_many(["the harbour crane lifted containers", "the bakery sold bread"])]


def recalled(path: Path, times: int = 1, flush: float = LATER) -> tuple[Memory, str, str]:
    """A memory at `path` with a crane and a bakery unit, the crane recalled `times` times: (memory, ids)."""
    mem = open_memory(path, flush=flush)
    crane, bakery = seed(mem)
    for _ in range(times):
        mem.recall("harbour crane", k=1)
    return mem, crane, bakery


def test_counts_are_written_on_close(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem, crane, _ = recalled(path, times=3)
    assert isinstance(mem.store, AccessBuffer)
    assert stored_count(path, crane) == 0  # not written yet
    mem.close()
    assert stored_count(path, crane) == 3


def test_own_reads_carry_the_unwritten_counts(tmp_path: Path) -> None:
    mem = open_memory(tmp_path / "m.db")
    crane, bakery = seed(mem)
    when = datetime(2025, 5, 1, 12, tzinfo=UTC)
    mem.recall("harbour crane", k=1, now=when)
    hits = mem.recall("harbour crane", k=1, now=when.timestamp() + 60)
    assert hits[0].unit.access_count == 1  # as read before this recall counted it, like a written count
    unit = mem.get(crane)
    assert unit is not None and unit.access_count == 2
    assert unit.last_accessed_at == datetime.fromtimestamp(when.timestamp() + 60, tz=UTC)
    assert mem.get(bakery).access_count == 0  # type: ignore[union-attr]
    mem.close()


def test_the_next_write_writes_them_first(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem, crane, _ = recalled(path)
    mem.observe("the ferry left at noon")
    assert stored_count(path, crane) == 1
    mem.close()
    assert stored_count(path, crane) == 1  # written once, not again on close


def test_supersede_and_forget_keep_every_count(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem, crane, bakery = recalled(path)
    mem.recall("bakery bread", k=1)
    mem.supersede(crane, "the harbour crane was replaced by a new one")  # reads and rewrites the unit
    mem.recall("harbour crane", k=2)
    mem.forget(bakery)
    mem.close()
    reopened = open_memory(path, flush=0.0)
    old = reopened.get(crane)
    assert old is not None and old.invalid_at is not None
    assert old.access_count == 2  # not counted twice by the rewrite, not lost by it
    reopened.close()


def interleaved(path: Path, reader_flush: float) -> tuple[float, int]:
    """A reader recalls, another open memory (as another process) recalls and writes, the reader recalls again:
    the reader's in-memory count of the first unit, and the stored count once both are closed."""
    reader = open_memory(path, flush=reader_flush)
    crane, _ = seed(reader)
    writer = open_memory(path, flush=0.0)
    reader.recall("harbour crane", k=2)
    writer.recall("harbour crane", k=2)
    writer.observe("the harbour crane broke down")
    reader.recall("harbour crane", k=2)  # catches up with the writer first
    reader.recall("harbour crane containers", k=2)
    index = reader._index()
    in_memory = float(index.column("access_count")[index.row_of[crane]])
    reader.close()
    writer.close()
    return in_memory, stored_count(path, crane)


def test_another_process_writing_in_between(tmp_path: Path) -> None:
    buffered = interleaved(tmp_path / "a.db", LATER)
    assert buffered == interleaved(tmp_path / "b.db", 0.0)  # as written through
    assert buffered[1] >= 3  # the reader's and the writer's recalls all counted


def test_counts_are_written_soon_without_other_calls(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem, crane, _ = recalled(path, flush=0.05)
    deadline = time.monotonic() + 30.0
    while stored_count(path, crane) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stored_count(path, crane) == 1
    mem.close()


def test_zero_writes_each_recall_through(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem, crane, _ = recalled(path, flush=0.0)
    assert not isinstance(mem.store, AccessBuffer)
    assert stored_count(path, crane) == 1
    mem.close()


def test_a_forked_child_leaves_its_parents_counts_to_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.db"
    mem, crane, _ = recalled(path)
    parent = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: parent + 1)  # as in a child after fork
    mem.observe("the ferry left at noon")  # the child's write: the inherited count is not written
    assert stored_count(path, crane) == 0
    monkeypatch.undo()
    mem.close()


def test_a_unit_counted_many_times_is_written_in_one_statement(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem, crane, bakery = recalled(path, times=5)
    mem.recall("bakery bread", k=1)
    assert isinstance(mem.store, AccessBuffer)
    calls: list[tuple[list[str], int]] = []
    inner = mem.store.inner
    real = inner.record_access

    def counted(namespace: str, ids: list[str], when: float, times: int = 1) -> None:
        calls.append((list(ids), times))
        real(namespace, ids, when, times)

    inner.record_access = counted  # type: ignore[method-assign]
    mem.store.flush()
    assert sorted(calls, key=lambda c: c[1]) == [([bakery], 1), ([crane], 5)]
    mem.close()
    assert stored_count(path, crane) == 5 and stored_count(path, bakery) == 1


def test_a_write_after_recalls_commits_once_and_a_failed_one_keeps_the_counts(tmp_path: Path) -> None:
    """The buffered counts go into the write's own transaction (one commit, not two); when that transaction rolls
    back, the counts stay buffered and the next flush writes them."""
    path = tmp_path / "m.db"
    mem, crane, _ = recalled(path, times=2)
    inner = mem.store.inner
    commits = []
    real = inner.transaction

    def counted():  # type: ignore[no-untyped-def]
        if not inner._in_transaction():  # an outermost transaction: one commit
            commits.append(1)
        return real()

    inner.transaction = counted  # type: ignore[method-assign]
    mem.observe("the ferry left the harbour at noon")
    assert len(commits) == 1 and stored_count(path, crane) == 2
    mem.recall("harbour crane", k=1)
    with pytest.raises(RuntimeError), mem.store.transaction():
        raise RuntimeError("the write failed")
    assert stored_count(path, crane) == 2
    mem.store.flush()
    assert stored_count(path, crane) == 3
    mem.close()


def test_one_flush_timer_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Recalls and writes in turn start one timer thread, not one per recall (a write no longer cancels it)."""
    import threading

    started = []

    class Counted(threading.Timer):
        def start(self) -> None:
            started.append(1)
            super().start()

    monkeypatch.setattr("psychoagent.memory.stores.access.threading.Timer", Counted)
    mem, _, _ = recalled(tmp_path / "m.db", times=1, flush=LATER)
    for i in range(20):
        mem.recall("harbour crane", k=1)
        mem.observe(f"the tug {i} pushed the barge")
    assert len(started) == 1
    mem.close()
