"""How fast the command line answers: `psychoagent --version`, `--help` and a command's help, each as a fresh
process, against `python -c pass` run alternately in the same loop (the interpreter's own start is the baseline).

Run from the repository root: ``python -m benchmarks.bench_cli`` (``--runs N``, default 15; ``--no-write``).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._report import publish

CASES: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "psychoagent --version": ["psychoagent", "--version"],
    "psychoagent --help": ["psychoagent", "--help"],
    "psychoagent simulate --help": ["psychoagent", "simulate", "--help"],
    "psychoagent memory recall --help": ["psychoagent", "memory", "recall", "--help"],
}
"""What is timed; each psychoagent line runs the installed console script, as a user types it."""

TARGETS = {"psychoagent --version": 0.3, "psychoagent --help": 0.5}
"""Seconds on a quiet machine."""


def script() -> str:
    """The console script next to this interpreter (the virtual environment's), else the one on PATH."""
    beside = Path(sys.executable).parent / "psychoagent"
    found = str(beside) if beside.exists() else shutil.which("psychoagent")
    if found is None:
        raise SystemExit("error: the psychoagent console script is not installed (pip install -e .)")
    return found


def timed(argv: list[str]) -> float:
    """Wall seconds of one run of `argv` (output discarded; a failure stops the benchmark)."""
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    """Time every case `--runs` times in interleaved rounds and publish medians, p90 and the ratio to python."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    exe = script()
    cases = {name: [exe, *argv[1:]] if argv[0] == "psychoagent" else argv for name, argv in CASES.items()}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for argv in cases.values():  # one warm-up each (file cache)
        timed(argv)
    for _ in range(args.runs):
        for name, argv in cases.items():
            times[name].append(timed(argv))
    base = statistics.median(times["python -c pass"])
    lines = [
        f"Each command as a fresh process, {args.runs} interleaved rounds after one warm-up; the ratio is to the median",
        "of `python -c pass` in the same rounds. Targets are for a quiet machine.",
        "",
        "| command | median s | p90 s | / python -c pass | target s |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, values in times.items():
        values.sort()
        p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
        target = f"{TARGETS[name]:.1f}" if name in TARGETS else ""
        med = statistics.median(values)
        lines.append(f"| `{name}` | {med:.3f} | {p90:.3f} | {med / base:.1f} | {target} |")
    lines += [
        "",
        "`--help` lists the commands from a table without importing them; a command's own help imports that",
        "command's module (the economy for `simulate`), so it costs what the command's imports cost.",
    ]
    publish("bench_cli", "Command-line start-up", lines, write=not args.no_write)


if __name__ == "__main__":
    main()
