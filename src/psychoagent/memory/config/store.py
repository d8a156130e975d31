"""How a store trades durability for speed: SQLite's journal, sync and checkpoint settings, PostgreSQL's pool."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from psychoagent.config import ConfigModel, Count, NonNegativeInt


class StoreConfig(ConfigModel):
    """How the SQLite store trades durability for speed."""

    synchronous: Literal["OFF", "NORMAL", "FULL", "EXTRA"] = "NORMAL"
    """SQLite synchronous level with WAL. NORMAL: a committed batch survives a crash or kill of the process
    (the WAL is in the OS page cache) but the last commits may be lost on power failure or OS crash; the
    file is never corrupted. FULL also survives power failure at the cost of an fsync per commit."""
    busy_timeout_ms: NonNegativeInt = 5000
    """how long a writer waits for another connection's lock"""
    cache_size_kib: int = Field(65536, ge=1024)
    """SQLite page cache per connection (KiB)"""
    page_size: Literal[4096, 8192, 16384, 32768, 65536] = 16384
    """SQLite page size in bytes of a NEW file (an existing file keeps its own). A 1.5 KB vector row fits
    twice in SQLite's default 4 KiB page and ten times in 16 KiB: fewer pages to write to the WAL and to
    checkpoint; the file store's write cost fell to about that of the in-memory store (docs/benchmarks.md)"""
    wal_autocheckpoint_pages: NonNegativeInt = 2500
    """WAL pages after which a commit copies the WAL into the file (SQLite's default is 1000; 2500 pages of 16
    KiB is a 40 MB WAL): fewer, larger checkpoints, each with its fsyncs. It does not change what a commit
    guarantees; 0 turns automatic checkpoints off"""
    background_checkpoint_rows: NonNegativeInt = 12_000
    """SQLite file: rows written (units, keyword rows and vectors count one each) after which a thread of the
    store copies the WAL into the file, off the write path: a commit then never waits for a checkpoint's
    writes and fsyncs (the writing thread's fsync waits fell from 66-77 to 9-20 ms per 20,000 units,
    docs/benchmarks.md). 12,000 rows are about 4,000 units, a WAL of some 15 MB with 384-d vectors;
    `wal_autocheckpoint_pages` stays the backstop in the committing connection. 0: checkpoints only there"""
    index_snapshot_rows: NonNegativeInt = 50_000
    """SQLite file: closing a memory writes the in-memory index of each loaded namespace of at least this many
    units beside the file (``<file>.index/``), its IVF index trained, and the next open reads it instead of
    rebuilding it (1,000,000 units: 79 s built from the file, seconds from a snapshot, docs/benchmarks.md).
    Below 50,000 units a build takes a few seconds at most. 0: no snapshots"""
    pool_size: Count = 4
    """PostgreSQL store: most connections one process keeps open (one per busy thread)"""
    hnsw: Literal["on_search", "on_write"] = "on_search"
    """PostgreSQL store: when the pgvector HNSW index of an embedding model is created. on_search: by the
    first in-database vector search (recall reads the in-memory index, and keeping HNSW up to date made
    writes about 5x slower here); on_write: with the model's first vectors."""
