"""Run folders in CSV and JSONL (the writer of earlier versions) against Parquet: folder size, simulate time, and
the time and memory peak of `metrics` and `report` reading each, for the default cognitive economy.

Each step runs in a fresh interpreter, so its memory peak is its own. Run from the repository root:
``python -m benchmarks.bench_runfiles`` (``--sizes 100x240,1000x240``; ``--quick``: 30 x 24, not recorded).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._report import publish

STEP = """
import json, resource, sys, time
start = time.perf_counter()
step, folder, n, t, csv = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
if step == "simulate":
    from psychoagent.econ.run import simulate
    simulate(folder, agents=n, ticks=t, seed=42, policy="cognitive", csv=csv)
elif step == "metrics":
    from psychoagent.eval.metrics import write_metrics
    write_metrics(folder)
else:
    from psychoagent.report.html import write_report
    write_report(folder)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"s": time.perf_counter() - start, "mib": peak}))
"""
"""One step (simulate, metrics or report) timed inside its own interpreter."""


def step(name: str, folder: Path, households: int, months: int, csv: bool) -> dict[str, float]:
    """Seconds and peak MiB of one step."""
    args = [sys.executable, "-c", STEP, name, str(folder), str(households), str(months), "1" if csv else "0"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def folder_mb(folder: Path, csv: bool) -> tuple[float, float]:
    """Run files' size in MB (config, tables, events) and the events' share of it."""
    names = ("macro", "agents", "assets")
    tables = [folder / f"{n}.{'csv' if csv else 'parquet'}" for n in names] + [folder / "config.json"]
    events = [folder / "events.jsonl"] if csv else list((folder / "events").rglob("*.parquet"))
    ev = sum(p.stat().st_size for p in events)
    return (sum(p.stat().st_size for p in tables if p.is_file()) + ev) / 1e6, ev / 1e6


def measure(households: int, months: int, root: Path) -> list[dict[str, float | str]]:
    """Both formats of one size: folder size, simulate, metrics and report."""
    rows: list[dict[str, float | str]] = []
    for csv in (True, False):
        folder = root / f"{households}x{months}-{'csv' if csv else 'parquet'}"
        sim = step("simulate", folder, households, months, csv)
        size, events = folder_mb(folder, csv)
        met = step("metrics", folder, households, months, csv)
        rep = step("report", folder, households, months, csv)
        rows.append({"size": f"{households:,} x {months}", "format": "CSV + JSONL" if csv else "Parquet",
                     "mb": size, "events_mb": events, "simulate_s": sim["s"], "metrics_s": met["s"],
                     "metrics_mib": met["mib"], "report_s": rep["s"], "report_mib": rep["mib"]})  # fmt: skip
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100x240,1000x240", help="comma-separated HOUSEHOLDSxMONTHS")
    parser.add_argument("--quick", action="store_true", help="30 x 24 only; not recorded")
    args = parser.parse_args()
    sizes = [(30, 24)] if args.quick else [tuple(map(int, s.split("x"))) for s in args.sizes.split(",")]
    rows: list[dict[str, float | str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, t in sizes:
            rows += measure(n, t, Path(tmp))
    lines = [
        "The default economy (cognitive households, seed 42) written by `simulate` in the CSV and JSONL files of",
        "earlier versions (`simulate(..., csv=True)`) and in Parquet; `metrics` and `report` then read each folder",
        "(time and memory peak of a fresh interpreter each).",
        "",
        "| run | files | folder | of it events | simulate | metrics | metrics peak | report | report peak |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        *(f"| {r['size']} | {r['format']} | {r['mb']:.1f} MB | {r['events_mb']:.1f} MB | {r['simulate_s']:.1f} s "
          f"| {r['metrics_s']:.1f} s | {r['metrics_mib']:.0f} MiB | {r['report_s']:.1f} s | {r['report_mib']:.0f} MiB |"
          for r in rows),
    ]  # fmt: skip
    publish(
        "bench_runfiles",
        "Run files: CSV and JSONL against Parquet",
        lines,
        write=not args.quick,
        after="bench_explore",
    )


if __name__ == "__main__":
    main()
