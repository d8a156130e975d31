"""Multi-seed experiments: every condition (variant x sweep values) runs on the same seeds; metrics are summarised
as mean and 95 % t interval per condition, and compared with the first variant by paired differences.

Layout of an experiment directory:
  experiment.json              parameters, conditions, seeds, the command
  runs/<condition>/seed-<s>/   one run directory each (with metrics.json and variant.json)
  summary.csv                  long table: condition, variant, sweep, metric, mean, ci_low, ci_high, sd, n
  comparison.csv / .md         one row per metric, one column per condition; paired differences vs reference
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import pandas as pd

from psychoagent.eval.metrics import write_metrics
from psychoagent.eval.remote import run_on_ray
from psychoagent.eval.stats import mean_ci, paired_difference
from psychoagent.eval.tasks import Condition, RunTask, conditions, finished, run_task
from psychoagent.eval.variants import resolve

EXPERIMENT_FILE = "experiment.json"


def seed_list(text: str) -> list[int]:
    """'101-110' or '1,3,5' (or both: '1-3,7') -> seeds; ValueError naming the part that is not one."""
    out: list[int] = []
    for part in text.split(","):
        a, dash, b = part.strip().partition("-")
        try:
            first, last = int(a), int(b) if dash else int(a)
        except ValueError:
            raise ValueError(f"seeds: {part.strip()!r} is not a seed or a range like 101-110") from None
        if last < first:
            raise ValueError(f"seeds: the range {part.strip()!r} runs backwards")
        out += range(first, last + 1)
    return out


__all__ = [
    "EXPERIMENT_FILE",
    "Condition",
    "RunTask",
    "collect_experiment",
    "conditions",
    "is_experiment",
    "load_experiment",
    "paired",
    "run_experiment",
    "run_task",
    "seed_list",
    "summarise",
    "write_tables",
]


def run_experiment(
    out: str | Path,
    *,
    variants: Sequence[str],
    seeds: Sequence[int],
    scenario: str = "baseline",
    agents: int = 100,
    ticks: int | None = None,
    sweeps: Sequence[str] = (),
    jobs: int = 2,
    llm: str | None = None,
    command: str = "",
    resume: bool = False,
    progress: Callable[[str, int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> pd.DataFrame:
    """Run every condition on every seed (in a process pool of `jobs`, or as Ray tasks with `backend` 'ray': on
    the cluster at `address`, else on a local cluster of `jobs` CPUs), then write the summary and comparison
    tables; returns the long per-run frame (condition, variant, seed, metric columns...). Both backends write
    the same files.

    All variants are resolved before anything runs, so a variant this build cannot run fails at once. A run that
    raises is recorded under `failures` in experiment.json and left out of the tables; the others still run.
    With `resume`, runs already finished in `out` with the same condition, seed, size and scenario are reused.
    """
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    conds = conditions(variants, sweeps)
    for c in conds:
        resolve(c.variant, c.sweep)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    tasks = [  # seed-major: after k seeds every condition has k runs
        RunTask(str(folder / "runs" / c.slug / f"seed-{s}"), c, s, agents, ticks, scenario, llm)
        for s in seeds
        for c in conds
    ]
    meta: dict[str, Any] = {"variants": list(variants), "seeds": list(seeds), "scenario": scenario, "agents": agents,
            "ticks": ticks, "sweeps": list(sweeps), "command": command,
            "conditions": [{"label": c.label, "variant": c.variant, "sweep": dict(c.sweep), "folder": c.slug}
                           for c in conds]}  # fmt: skip
    (folder / EXPERIMENT_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    rows: list[dict[str, Any]] = []
    variant_of = {c.label: c.variant for c in conds}

    def keep(label: str, seed: int, metrics: dict[str, Any]) -> None:
        rows.append({"condition": label, "variant": variant_of[label], "seed": seed, **metrics})
        if progress is not None:
            progress(label, seed)

    failures: list[dict[str, Any]] = []
    if resume:
        todo = []
        for t in tasks:
            done = finished(t)
            if done is None:
                todo.append(t)
            else:
                keep(t.condition.label, t.seed, done)
        tasks = todo

    def failed(task: RunTask, exc: BaseException) -> None:
        failures.append({"condition": task.condition.label, "seed": task.seed, "error": repr(exc)})
        if progress is not None:
            progress(f"{task.condition.label} FAILED", task.seed)

    if backend == "ray":
        for t, result in run_on_ray(tasks, address, jobs):
            if isinstance(result, BaseException):
                failed(t, result)
            else:
                keep(*result)
    elif jobs <= 1:
        for t in tasks:
            try:
                keep(*run_task(t))
            except Exception as exc:  # one failed run is recorded; the others still run
                failed(t, exc)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(run_task, t): t for t in tasks}
            for fut in as_completed(futures):
                try:
                    keep(*fut.result())
                except Exception as exc:
                    failed(futures[fut], exc)
    meta["failures"] = failures
    (folder / EXPERIMENT_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    if not rows:
        raise RuntimeError(f"every run failed; first error: {failures[0]['error']}")
    return _finish(folder, rows, [c.label for c in conds])


def _finish(folder: Path, rows: list[dict[str, Any]], labels: Sequence[str]) -> pd.DataFrame:
    """Sort the per-run rows by condition then seed, write runs.csv and the tables; returns the frame. The rows
    are sorted before the frame is built, so its columns (the metrics in order of first appearance; variants
    have different ones) do not depend on which run finished first."""
    order = {label: i for i, label in enumerate(labels)}
    runs = pd.DataFrame(sorted(rows, key=lambda r: (order[r["condition"]], r["seed"])))
    runs.to_csv(folder / "runs.csv", index=False, float_format="%.10g")
    write_tables(folder, runs, [label for label in labels if label in set(runs["condition"])])
    return runs


def collect_experiment(out: str | Path, rescore: bool = False) -> pd.DataFrame:
    """Rebuild runs.csv and the tables from the runs finished so far in an experiment directory (e.g. after it
    was interrupted): every runs/<condition>/seed-*/ with variant.json and metrics.json counts. Conditions may
    then have different numbers of seeds; paired differences use the seeds both have. `rescore` recomputes each
    run's metrics.json from its files first (after the metric definitions changed)."""
    folder = Path(out)
    meta = json.loads((folder / EXPERIMENT_FILE).read_text(encoding="utf-8"))
    rows = []
    for c in meta["conditions"]:
        for run in sorted((folder / "runs" / c["folder"]).glob("seed-*")):
            try:
                info = json.loads((run / "variant.json").read_text(encoding="utf-8"))
                if rescore:
                    write_metrics(run)
                metrics = json.loads((run / "metrics.json").read_text(encoding="utf-8"))["metrics"]
            except (OSError, ValueError, KeyError):
                continue
            rows.append({"condition": c["label"], "variant": c["variant"], "seed": info["seed"], **metrics})
    if not rows:
        raise ValueError(f"{folder}: no finished runs (runs/<condition>/seed-*/metrics.json)")
    meta["collected"] = sorted({(r["condition"], r["seed"]) for r in rows}, key=str)
    (folder / EXPERIMENT_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return _finish(folder, rows, [c["label"] for c in meta["conditions"]])


def summarise(runs: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """Long table: one row per condition and metric with mean, 95 % t interval, sd and n over seeds."""
    metrics = [c for c in runs.columns if c not in ("condition", "variant", "seed")]
    out = []
    for label in labels:
        sub = runs[runs["condition"] == label]
        for m in metrics:
            ci = mean_ci(pd.to_numeric(sub[m], errors="coerce").to_numpy(dtype=float))
            out.append({"condition": label, "metric": m, "mean": ci.mean, "ci_low": ci.low, "ci_high": ci.high,
                        "sd": ci.sd, "n": ci.n})  # fmt: skip
    return pd.DataFrame(out)


def paired(runs: pd.DataFrame, labels: Sequence[str], reference: str) -> pd.DataFrame:
    """Per metric and condition: mean difference to `reference` over shared seeds, with its 95 % interval."""
    metrics = [c for c in runs.columns if c not in ("condition", "variant", "seed")]
    ref = runs[runs["condition"] == reference].set_index("seed")
    out = []
    for label in labels:
        if label == reference:
            continue
        sub = runs[runs["condition"] == label].set_index("seed")
        seeds = sub.index.intersection(ref.index)
        for m in metrics:
            a = pd.to_numeric(sub.loc[seeds, m], errors="coerce").to_numpy(dtype=float)
            b = pd.to_numeric(ref.loc[seeds, m], errors="coerce").to_numpy(dtype=float)
            d = paired_difference(a, b)
            out.append({"condition": label, "metric": m, "diff": d.mean, "ci_low": d.low, "ci_high": d.high,
                        "n": d.n})  # fmt: skip
    return pd.DataFrame(out)


def write_tables(folder: Path, runs: pd.DataFrame, labels: Sequence[str]) -> None:
    """summary.csv, comparison.csv, differences.csv and comparison.md in `folder`."""
    from psychoagent.eval.tables import comparison_frame, comparison_markdown

    summary = summarise(runs, labels)
    summary.to_csv(folder / "summary.csv", index=False, float_format="%.10g")
    diffs = paired(runs, labels, labels[0])
    diffs.to_csv(folder / "differences.csv", index=False, float_format="%.10g")
    comparison_frame(summary, labels).to_csv(folder / "comparison.csv", index=False, float_format="%.10g")
    (folder / "comparison.md").write_text(comparison_markdown(summary, diffs, labels), encoding="utf-8")


def load_experiment(path: str | Path) -> tuple[dict[str, Any], pd.DataFrame]:
    """(experiment.json, runs.csv) of an experiment directory."""
    folder = Path(path)
    meta = json.loads((folder / EXPERIMENT_FILE).read_text(encoding="utf-8"))
    return meta, pd.read_csv(folder / "runs.csv")


def is_experiment(path: str | Path) -> bool:
    """Whether `path` holds an experiment (experiment.json) rather than a single run."""
    return (Path(path) / EXPERIMENT_FILE).is_file()
