"""Durability under ``kill -9``: a writer process is killed at a random moment while it stores batches in a
SQLite file; a trial fails if a batch it had acknowledged is missing or incomplete, or if part of a batch is
visible. Half the trials run a background checkpoint after every batch, so many kills land inside one.

Run from the repository root: ``python -m benchmarks.bench_kill`` (``--trials N``, default 40).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks._report import publish
from psychoagent import Memory

PER_BATCH = 200
_WRITER = """
import sys
from psychoagent import Memory
from psychoagent.memory.config import MemoryConfig, StoreConfig
rows = int(sys.argv[2])
config = MemoryConfig(store=StoreConfig(background_checkpoint_rows=rows)) if rows else None
mem = Memory(sys.argv[1], namespace="w", embedder="hash", appraiser=None, config=config)
batch = 0
while True:
    mem.observe_many({"text": f"batch {batch} item {i} " + "x" * 200, "id": f"{batch}-{i}"} for i in range(200))
    print(batch, flush=True)
    batch += 1
"""


def trial(db: Path, rows: int, seconds: float) -> tuple[int, list[str]]:
    """Kill a writer after `seconds`; (units it acknowledged, problems found in the file)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(db), str(rows)], stdout=subprocess.PIPE, text=True
    )
    acked = [-1]

    def read() -> None:  # to the end of the pipe: every line printed before the kill counts
        assert proc.stdout is not None
        for line in proc.stdout:
            acked[0] = int(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(seconds)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    reader.join()
    problems: list[str] = []
    with Memory(db, namespace="w", embedder="hash", appraiser=None) as mem:
        counts: dict[int, int] = {}
        for unit in mem.units():
            counts[int(unit.id.split("-")[0])] = counts.get(int(unit.id.split("-")[0]), 0) + 1
        problems += [f"acknowledged batch {b} has {counts.get(b, 0)} units" for b in range(acked[0] + 1)
                     if counts.get(b) != PER_BATCH]  # fmt: skip
        problems += [f"batch {b} is half-written ({n} units)" for b, n in counts.items() if n != PER_BATCH]
        fts = mem.store.execute("SELECT COUNT(*) FROM units_fts").fetchone()[0]  # type: ignore[attr-defined]
        vecs = mem.store.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]  # type: ignore[attr-defined]
        if not fts == vecs == len(mem):
            problems.append(f"{len(mem)} units, {fts} keyword rows, {vecs} vectors")
        check = mem.store.execute("PRAGMA integrity_check").fetchone()[0]  # type: ignore[attr-defined]
        if check != "ok":
            problems.append(f"integrity_check: {check}")
    return (acked[0] + 1) * PER_BATCH, problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=40)
    args = parser.parse_args()
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    folder = Path(tempfile.mkdtemp(prefix="bench_kill_"))
    rng = random.Random(13)
    load = os.getloadavg()[0]
    results: dict[str, list[tuple[int, list[str]]]] = {
        "default (every 12,000 rows)": [],
        "after every batch": [],
    }
    for t in range(args.trials):
        label, rows = ("after every batch", 3 * PER_BATCH) if t % 2 else ("default (every 12,000 rows)", 0)
        results[label].append(trial(folder / f"k{t}.db", rows, rng.uniform(1.5, 6.0)))
    lines = ["| background checkpoints | trials | acknowledged units | lost | trials with a problem |",
             "|---|---:|---:|---:|---:|"]  # fmt: skip
    problems: list[str] = []
    for label, runs in results.items():
        bad = [p for _, ps in runs for p in ps]
        lost = sum(1 for p in bad if p.startswith("acknowledged"))
        lines.append(f"| {label} | {len(runs)} | {sum(a for a, _ in runs):,} | {lost} | "
                     f"{sum(1 for _, ps in runs if ps)} |")  # fmt: skip
        problems += bad
    lines += ["", f"Each trial: a writer stores batches of {PER_BATCH} units (one transaction each) and prints each "
              "batch's number once `observe_many` returned; it is killed with SIGKILL after 1.5-6 s (a seeded random "
              "draw), then the file is reopened and checked: every acknowledged batch complete, no partial batch, "
              "as many keyword rows and vectors as units, `PRAGMA integrity_check` ok. "
              f"Load average {load:.1f} at the start.", ""]  # fmt: skip
    if problems:
        lines += ["Problems:", "", *(f"- {p}" for p in problems[:20]), ""]
    publish("bench_kill", "Durability: writers killed with SIGKILL", lines, after="bench_processes")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
