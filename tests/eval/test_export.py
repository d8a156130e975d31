"""`psychoagent export RUN --csv`: a Parquet run exported carries the data the CSV and JSONL writer writes."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.econ.run import simulate
from psychoagent.eval.rundata import RunData


def test_exported_files_carry_the_data_of_the_csv_writer(tmp_path: Path) -> None:
    kw = {"agents": 12, "ticks": 6, "seed": 11, "policy": "cognitive"}
    simulate(tmp_path / "csv", csv=True, **kw)  # type: ignore[arg-type]
    simulate(tmp_path / "parquet", **kw)  # type: ignore[arg-type]
    assert not (tmp_path / "parquet" / "events.jsonl").exists()
    res = CliRunner().invoke(
        app, ["export", str(tmp_path / "parquet"), "--csv", "--out", str(tmp_path / "out")]
    )
    assert res.exit_code == 0, res.output
    for name in ("macro.csv", "agents.csv", "assets.csv"):
        old, new = pd.read_csv(tmp_path / "csv" / name), pd.read_csv(tmp_path / "out" / name)
        assert len(old) > 0 and list(old.columns) == list(new.columns), name
        if name == "agents.csv":  # the per-household table keeps float32's 7 significant digits
            pd.testing.assert_frame_equal(old, new, check_exact=False, rtol=2e-7, atol=1e-30)
        else:
            pd.testing.assert_frame_equal(old, new, check_exact=True)  # the same 10 significant digits
    old_lines = (tmp_path / "csv" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    new_lines = (tmp_path / "out" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(old_lines) == len(new_lines) > 100
    assert [json.loads(x) for x in old_lines] == [json.loads(x) for x in new_lines]
    kinds = {json.loads(x)["type"] for x in new_lines}
    assert {"memory.formed", "mind.decision", "market.order_filled"} <= kinds  # nested and typed payloads


def test_both_formats_read_the_same_through_the_reader(tmp_path: Path) -> None:
    kw = {"agents": 8, "ticks": 4, "seed": 2, "policy": "cognitive"}
    simulate(tmp_path / "csv", csv=True, **kw)  # type: ignore[arg-type]
    simulate(tmp_path / "parquet", **kw)  # type: ignore[arg-type]
    old, new = RunData.open(tmp_path / "csv"), RunData.open(tmp_path / "parquet")
    assert not old.columnar and new.columnar
    assert old.event_counts == new.event_counts
    assert old.events("memory.formed", "persona.evolved") == new.events("memory.formed", "persona.evolved")
    assert new.events("memory.formed", keys=["count"])[0]["payload"].keys() == {"count"}
    unordered = list(new.iter_events("memory.formed", "env.updated", ordered=False))
    assert unordered != new.events("memory.formed", "env.updated")  # type after type
    assert sorted(unordered, key=lambda e: e["seq"]) == new.events("memory.formed", "env.updated")
    for run in (old, new):
        frame = run.event_frame("env.updated", ["tick", "price_level", "payload.tick", "source"])
        assert frame is not None and list(frame.columns) == ["tick", "price_level", "payload.tick", "source"]
        assert frame["price_level"].dtype == float and frame["tick"].tolist() == [1, 2, 3, 4]
    assert old.wealth_column == new.wealth_column == "wealth"
    pd.testing.assert_frame_equal(old.panel("wealth"), new.panel("wealth"), check_exact=False, rtol=2e-7)
    assert new.agents is not None and new.agents["wealth"].dtype == "float64"  # stored float32, read float64


def test_export_refuses_a_folder_that_is_not_a_run_and_a_missing_format(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["export", str(tmp_path), "--csv"])
    assert res.exit_code == 2 and "is not a run directory" in res.output
    res = CliRunner().invoke(app, ["export", str(tmp_path)])
    assert res.exit_code == 2 and "--csv" in res.output
