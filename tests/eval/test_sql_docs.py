"""The DuckDB query of docs/economy.md runs on a run folder and counts what the reader counts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from psychoagent.econ.run import simulate
from psychoagent.eval.rundata import RunData

DOC = Path(__file__).resolve().parents[2] / "docs" / "economy.md"


def test_the_documented_duckdb_query_reads_a_run_folder(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    blocks = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 1
    simulate(tmp_path / "demo", agents=10, ticks=5, seed=3, policy="cognitive")
    query = blocks[0].replace("runs/demo", str(tmp_path / "demo"))
    rows = duckdb.sql(query).fetchall()
    run = RunData.open(tmp_path / "demo")
    formed = run.events("memory.formed")
    per_month: dict[int, int] = {}
    for e in formed:
        per_month[e["tick"]] = per_month.get(e["tick"], 0) + e["payload"]["count"]
    assert formed and [(t, n) for t, n, _ in rows] == sorted(per_month.items())
    assert all(-2.0 <= v <= 2.0 for *_, v in rows)  # valence is on the appraisal scale -2..2 (affect/llm.py)
