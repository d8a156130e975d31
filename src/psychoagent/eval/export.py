"""A run folder's tables and events written as the CSV files and events.jsonl of earlier versions, for tools that
read those: the same columns, floats with the same 10 significant digits, the same journal lines."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from psychoagent.agent.bus import journal_line
from psychoagent.econ.collect import CSV_FLOATS
from psychoagent.eval.rundata import TABLES, RunData


def export_csv(run_folder: str | Path, out: str | Path | None = None) -> list[Path]:
    """Write macro.csv, agents.csv, assets.csv and events.jsonl of the run at `run_folder` into `out` (the run
    folder when None); returns the files written. Each file is written under a temporary name, then renamed."""
    run = RunData.open(run_folder)
    target = Path(out) if out is not None else run.path
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in TABLES:
        df = run.table(name)
        if df is None:
            df = pd.DataFrame(columns=run.columns(name))
        path = target / f"{name}.csv"
        tmp = path.with_name(f".{path.name}.tmp")
        df.to_csv(tmp, index=False, float_format=CSV_FLOATS)
        tmp.replace(path)
        written.append(path)
    path = target / "events.jsonl"
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for event in run.iter_events():
            fh.write(journal_line(event) + "\n")
    tmp.replace(path)
    return [*written, path]
