"""Experiment tables do not depend on the order in which runs finish (Ray and a process pool finish in any order)."""

from __future__ import annotations

from pathlib import Path

import pytest

from psychoagent.eval.experiment import _finish, run_experiment


def test_tables_are_the_same_whatever_run_finished_first(tmp_path: Path) -> None:
    rows = [
        {"condition": "persona", "variant": "persona", "seed": 1, "macro.x": 1.0},
        {"condition": "full", "variant": "full", "seed": 2, "cognition.y": 3.0, "macro.x": 2.0},
        {"condition": "full", "variant": "full", "seed": 1, "cognition.y": 2.0, "macro.x": 1.5},
        {"condition": "persona", "variant": "persona", "seed": 2, "macro.x": 0.5},
    ]
    written = []
    for k, order in enumerate((rows, rows[::-1], rows[1:] + rows[:1])):
        folder = tmp_path / str(k)
        folder.mkdir()
        runs = _finish(folder, order, ["full", "persona"])
        assert list(runs.columns) == ["condition", "variant", "seed", "cognition.y", "macro.x"]
        written.append(
            {name: (folder / name).read_bytes() for name in ("runs.csv", "summary.csv", "differences.csv")}
        )
    assert written[0] == written[1] == written[2]


def test_unknown_backend_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="backend must be 'local' or 'ray'"):
        run_experiment(tmp_path / "exp", variants=["persona"], seeds=[1], backend="dask")
    assert not (tmp_path / "exp").exists()
