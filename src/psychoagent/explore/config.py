"""Settings of the explorer: where its cache lives, how much it keeps in memory and what the memory browser asks."""

from __future__ import annotations

from pydantic import Field

from psychoagent.config import ConfigModel, Count, NonNegative


class ExploreConfig(ConfigModel):
    """Tuning of `psychoagent explore`, each with its reason."""

    cache_folder: str = ".explore"
    """indexes are cached in this folder inside the run folder (rebuilt when a run file changes)"""
    pages_in_memory: Count = 256
    """agent pages kept in memory once made (about 50 KB each at 240 months): going back to one is free"""
    group_rows: Count = 1024
    """at most this many rows per row group of the per-agent copies: an agent's page decodes one or two groups of
    each copy, and smaller groups cost footer size and compression"""
    group_bytes: Count = 256 << 10
    """and about this many bytes decoded per row group (a traced decision with its briefing takes about 1.6 KB)"""
    compression: str = "lz4"
    """Parquet codec of the per-agent copies: lz4 writes and reads them with about 40 % less CPU than zstd, for a
    third more bytes"""
    memory_pool: str = "jemalloc"
    """pyarrow's allocator in the explorer's process (`psychoagent explore`; "" keeps pyarrow's default): mimalloc,
    the default of Linux wheels, gives freed decode buffers back to the system and faults them in again, which
    doubled the CPU of a big run's first open (most of it in the kernel); jemalloc keeps them for reuse"""
    texts_wait: NonNegative = 30.0
    """seconds a month's request waits, on first open, for the decisions' long texts (read just after what pages
    need, about a second) before a 503: the page's retry would redraw the agent it is on"""
    min_delta: NonNegative = 1e-6
    """persona changes smaller than this are rounding noise and not listed among an event's moves"""
    search_k: int = Field(10, ge=1, le=100)
    """recall hits the memory browser shows by default"""
    graph_depth: int = Field(2, ge=1, le=4)
    """hops of a unit's neighbourhood drawn by default (2: the unit, its links and theirs)"""
    graph_nodes: Count = 60
    """at most this many nodes in a drawn neighbourhood (a hub unit stays readable)"""
