"""Process safety: rounds of 4 processes opening one new memory file at once (each migrates or waits, then
writes); a failure is any process that exits non-zero or a file that does not hold all four namespaces.

Run from the repository root: ``python -m benchmarks.bench_processes`` (``--rounds N``, default 100).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._report import write_section
from psychoagent import Memory

PROCESSES = 4
_OPEN = """
import sys
from psychoagent import Memory
with Memory(sys.argv[1], namespace=sys.argv[2], embedder="hash", appraiser=None) as mem:
    mem.observe("opened by " + sys.argv[2])
"""


def round_fails(db: Path) -> list[str]:
    """Errors of one round (empty when all processes succeeded and all four namespaces are stored)."""
    procs = [
        subprocess.Popen([sys.executable, "-c", _OPEN, str(db), f"p{i}"], stderr=subprocess.PIPE, text=True)
        for i in range(PROCESSES)
    ]
    errors = [
        err.strip().splitlines()[-1] for p in procs if (err := p.communicate(timeout=300)[1]) and p.returncode
    ]
    if not errors:
        with Memory(db, embedder="hash", appraiser=None) as mem:
            if sorted(mem.namespaces()) != [f"p{i}" for i in range(PROCESSES)]:
                errors.append(f"namespaces {mem.namespaces()}")
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench_processes_"))
    load = os.getloadavg()[0]
    start = time.perf_counter()
    failed: list[str] = []
    for r in range(args.rounds):
        failed += [f"round {r}: {e}" for e in round_fails(folder / f"new{r}.db")]
    seconds = time.perf_counter() - start
    body = "\n".join([
        "| rounds | processes per round | failures | seconds |",
        "|---:|---:|---:|---:|",
        f"| {args.rounds} | {PROCESSES} | {len(failed)} | {seconds:.0f} |",
        "",
        "Each round: 4 processes start together on one path that does not exist yet; each opens a `Memory` "
        "(migrating the new file under the write lock, or waiting for the one that does) and stores one unit. "
        f"Load average {load:.1f} at the start.",
        *(["", "Failures:", "", *(f"- {f}" for f in failed[:20])] if failed else []),
        "",
    ])  # fmt: skip
    print(body)
    write_section(
        "bench_processes", "Process safety: new file opened by 4 processes at once", body, after="bench_store"
    )


if __name__ == "__main__":
    main()
