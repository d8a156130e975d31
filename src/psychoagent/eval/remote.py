"""Experiment runs as Ray tasks: each (condition, seed) simulates in a scratch folder on whichever node runs it
and sends its files back, so the experiment directory on the driver ends up as `--backend local` leaves it
(no shared filesystem needed)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from psychoagent.eval.tasks import RunTask, run_task

Outcome = tuple[str, int, dict[str, Any]]


def run_remote(task: RunTask) -> tuple[Outcome, dict[str, bytes]]:
    """Run one task in a scratch folder; (label, seed, metrics) and the run's files by path inside it."""
    with tempfile.TemporaryDirectory(prefix="psychoagent-run-") as tmp:
        folder = Path(tmp) / "run"
        outcome = run_task(replace(task, out=str(folder)))
        files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    return outcome, files


def run_on_ray(tasks: Sequence[RunTask], address: str | None = None,
               cpus: int | None = None) -> Iterator[tuple[RunTask, Outcome | BaseException]]:  # fmt: skip
    """Submit every task to Ray (a local cluster of `cpus` CPUs when `address` is None) and yield each task
    with its outcome, or the exception it raised, as they finish; its files are written into `task.out`."""
    from psychoagent.econ.distributed.cluster import connect

    ray, started = connect(address, cpus)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(run_remote)
        pending = {remote.remote(t): t for t in tasks}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            task = pending.pop(done[0])
            try:
                outcome, files = ray.get(done[0])
            except Exception as exc:  # the run's own error (RayTaskError wraps it)
                yield task, getattr(exc, "cause", None) or exc
                continue
            folder = Path(task.out)
            folder.mkdir(parents=True, exist_ok=True)
            # event datasets live in subfolders (events/<type>/part-*.parquet)
            for name, data in files.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)
            yield task, outcome
    finally:
        if started:
            ray.shutdown()
