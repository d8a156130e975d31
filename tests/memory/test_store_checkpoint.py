"""Background WAL checkpoints of the SQLite file store: they keep the WAL small without the committing
connection's automatic checkpoints, lose nothing, and their thread ends with the store."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from psychoagent import Memory
from psychoagent.embed import HashingEmbedder
from psychoagent.memory.config import MemoryConfig, StoreConfig
from psychoagent.memory.stores.sqlite_checkpoint import BackgroundCheckpointer

BATCHES, PER_BATCH = 12, 100


def _memory(path: Path, rows: int) -> Memory:
    """A file memory whose WAL only background checkpoints (every `rows` rows; 0: none) copy into the file."""
    config = MemoryConfig(store=StoreConfig(background_checkpoint_rows=rows, wal_autocheckpoint_pages=0))
    return Memory(path, embedder=HashingEmbedder(64), appraiser=None, config=config)


def _write(mem: Memory, checkpointer: BackgroundCheckpointer | None) -> None:
    for b in range(BATCHES):
        mem.observe_many([f"batch {b} note {i} about item{i * 7 % 13}" for i in range(PER_BATCH)])
        if checkpointer is not None:
            assert checkpointer.drain(timeout=60)


def _threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "psychoagent-wal-checkpoint"]


def test_background_checkpoints_keep_the_wal_small_and_lose_nothing(tmp_path: Path) -> None:
    without = _memory(tmp_path / "off.db", 0)
    _write(without, None)
    grown = (tmp_path / "off.db-wal").stat().st_size
    with_bg = _memory(tmp_path / "on.db", PER_BATCH)  # due after every batch (3 rows a unit)
    checkpointer = with_bg.store._checkpointer  # type: ignore[attr-defined]
    assert isinstance(checkpointer, BackgroundCheckpointer)
    _write(with_bg, checkpointer)
    assert checkpointer.checkpoints >= BATCHES
    # each copied WAL starts over at the next write: it holds about one batch, not all of them
    assert (tmp_path / "on.db-wal").stat().st_size < grown / 3
    without.close()
    with_bg.close()
    conn = sqlite3.connect(tmp_path / "on.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT COUNT(*) FROM units").fetchone()[0] == BATCHES * PER_BATCH
    assert conn.execute("SELECT COUNT(*) FROM units_fts").fetchone()[0] == BATCHES * PER_BATCH
    conn.close()
    with _memory(tmp_path / "on.db", PER_BATCH) as again:
        assert len(again) == BATCHES * PER_BATCH
        assert again.recall("batch 11 note 99", k=1)[0].unit.content == "batch 11 note 99 about item4"


def test_the_thread_starts_with_the_first_due_checkpoint_and_ends_with_the_store(tmp_path: Path) -> None:
    before = len(_threads())
    mem = _memory(tmp_path / "t.db", 10 * PER_BATCH)
    mem.observe_many([f"only {i}" for i in range(PER_BATCH)])  # 300 rows: no checkpoint due yet
    assert len(_threads()) == before
    _write(mem, mem.store._checkpointer)  # type: ignore[attr-defined]
    assert len(_threads()) == before + 1
    mem.close()
    assert len(_threads()) == before


def test_a_store_dropped_without_close_stops_its_thread(tmp_path: Path) -> None:
    import gc

    before = len(_threads())
    mem = _memory(tmp_path / "d.db", PER_BATCH)
    _write(mem, mem.store._checkpointer)  # type: ignore[attr-defined]
    assert len(_threads()) == before + 1
    del mem
    gc.collect()
    assert len(_threads()) == before
    with _memory(tmp_path / "d.db", PER_BATCH) as again:
        assert len(again) == BATCHES * PER_BATCH


def test_no_background_checkpoints_in_memory_or_when_turned_off(tmp_path: Path) -> None:
    assert Memory(embedder="hash").store._checkpointer is None  # type: ignore[attr-defined]
    off = _memory(tmp_path / "off.db", 0)
    assert off.store._checkpointer is None  # type: ignore[attr-defined]
    off.close()
