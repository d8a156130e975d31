"""A million memories in one namespace: open time, recall latency, IVF recall@10 against exact, resident memory.

Run from the repository root: ``python -m benchmarks.bench_million`` (``--units 100000`` for a smaller run). The
file is built once (hash embedder, 384 dimensions, conflict detection off) and kept at ``--file``; each measurement
opens it in a fresh process, so open time and resident memory are those of a process that starts with the file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._report import publish
from benchmarks.bench_memory import ivf_agreement, latency, queries, rss_mib, sentences

DEFAULT_FILE = Path(os.environ.get("TMPDIR", "/tmp")) / "psychoagent-million-{units}.db"
BATCH = 5000


def _peak_mib() -> float:
    """Peak resident set size of this process in MiB (Linux VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def build(path: Path, units: int) -> dict[str, float]:
    """Write `units` synthetic events into a new file (detection off: it would only slow the set-up)."""
    from psychoagent import Memory
    from psychoagent.embed import HashingEmbedder
    from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig

    store_only = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
    mem = Memory(path, embedder=HashingEmbedder(384), appraiser=None, affect_config=store_only)
    texts = sentences(units, seed=3)
    start = time.perf_counter()
    for pos in range(0, units, BATCH):
        mem.observe_many(texts[pos : pos + BATCH])
    seconds = time.perf_counter() - start
    mem.close()
    return {"write_s": seconds, "units_per_s": units / seconds, "file_mib": path.stat().st_size / 2**20}


def measure(path: Path, n_queries: int, exact: bool, dtype: str = "float32") -> dict[str, float]:
    """Open the file in this (fresh) process and measure; run through `--measure` in a child process."""
    from psychoagent import Memory
    from psychoagent.embed import HashingEmbedder
    from psychoagent.memory.config import MemoryConfig, RecallConfig

    base = rss_mib()
    start = time.perf_counter()
    config = MemoryConfig(recall=RecallConfig(vector_dtype=dtype))
    mem = Memory(path, embedder=HashingEmbedder(384), config=config)
    mem.recall("warm up", k=10)  # the first recall loads the namespace (index, affect state, IVF)
    opened = time.perf_counter() - start
    after_open = rss_mib() - base
    qs = queries(n_queries)
    p50, p95, cpu50, cpu95 = latency(mem, qs)
    out = {"open_s": opened, "p50_ms": p50, "p95_ms": p95, "cpu_p50_ms": cpu50, "cpu_p95_ms": cpu95,
           "rss_open_mib": after_open, "rss_mib": rss_mib(), "peak_mib": _peak_mib()}  # fmt: skip
    if exact:
        out["recall_at_10"] = ivf_agreement(mem, qs[:100])
    start = time.perf_counter()
    mem.close()  # writes the index snapshot when the index was built from the file
    out["close_s"] = time.perf_counter() - start
    return out


def run(units: int, path: Path, n_queries: int, exact: bool, dtype: str = "float32") -> list[dict[str, Any]]:
    """Build the file when missing, then open it in a fresh process twice: without an index snapshot (the index
    is built from the file and snapshot at close), then from that snapshot."""
    made: dict[str, float] = (
        {"file_mib": path.stat().st_size / 2**20} if path.exists() else build(path, units)
    )
    shutil.rmtree(str(path) + ".index", ignore_errors=True)
    rows = []
    for source in ("the file", "its snapshot"):
        child = subprocess.run(
            [sys.executable, "-m", "benchmarks.bench_million", "--measure", str(path), "--queries",
             str(n_queries), "--vector-dtype", dtype, *(["--exact"] if exact else [])],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        rows.append(
            {
                **made,
                **json.loads(child.stdout.strip().splitlines()[-1]),
                "units": units,
                "from": source,
                "dtype": dtype,
            }
        )
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown table of the measurements."""
    lines = [
        "| units | vectors | file MiB | index from | open + first recall s | recall p50 / p95 ms | CPU p95 ms | "
        "recall@10 vs exact | resident after open MiB | peak MiB | close s |",
        "|---:|---|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {int(r['units']):,} | {r['dtype']} | {r.get('file_mib', float('nan')):,.0f} | {r['from']} | {r['open_s']:.1f} | "
            f"{r['p50_ms']:.1f} / {r['p95_ms']:.1f} | {r['cpu_p95_ms']:.1f} | {r.get('recall_at_10', float('nan')):.3f} | "
            f"{r['rss_open_mib']:,.0f} | {r['peak_mib']:,.0f} | {r['close_s']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--units", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--file", help="file to build or reuse ({units} is replaced by the size)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--no-exact", action="store_true", help="skip recall@10 against the exact scan")
    parser.add_argument(
        "--vector-dtype",
        nargs="+",
        choices=["float32", "float16"],
        default=["float32", "float16"],
        help="how the index holds the vectors (RecallConfig.vector_dtype); each is measured",
    )
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--exact", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--no-write", action="store_true", help="print only; docs/benchmarks.md is not written"
    )
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure), args.queries, args.exact, args.vector_dtype[0])))
        return
    rows = []
    for n in args.units:
        path = Path((args.file or str(DEFAULT_FILE)).format(units=n))
        for dtype in args.vector_dtype:
            for row in run(n, path, args.queries, not args.no_exact, dtype):
                rows.append(row)
                print(json.dumps(row), flush=True)
    publish(
        "bench_million",
        "A million memories: open, recall and resident memory",
        [table(rows)],
        write=not args.no_write,
        after="bench_memory",
    )


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
