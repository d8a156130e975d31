"""scripts/calibration_table.py's shock comparison: each shock of a scenario alone, seed counts, variant names."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "calibration_table.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("calibration_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_parts_run_each_shock_of_the_black_swan_alone(capsys: pytest.CaptureFixture[str]) -> None:
    table = load()
    out = table.shocks("persona", [1, 2], households=20, ticks=133, names=["policy_black_swan"], parts=True)
    cases = list(dict.fromkeys(out["scenario"]))
    assert cases == ["policy_black_swan", "policy_black_swan[policy_change]", "policy_black_swan[rate_shock]"]
    assert len(out) == 2 * 3 * 4  # seeds x cases x (window + three years)
    year1 = out["window"].str.startswith("year 1")
    alone = out[year1 & (out["scenario"] == "policy_black_swan[policy_change]")]
    assert alone["interest_rate"].to_list() == [0.0, 0.0]  # the tax rise alone: no hike
    hike = out[year1 & (out["scenario"] == "policy_black_swan[rate_shock]")]
    assert hike["interest_rate"].to_list() == pytest.approx([0.04, 0.04])  # held off the rule all year
    assert "unemployment up" in capsys.readouterr().out


def test_a_variant_without_ablations_names_its_policy() -> None:
    table = load()
    assert table.policy_of("full") == "cognitive"
    assert table.policy_of("persona") == "persona"
    assert table.policy_of("no-memory") == "no-memory"  # an ablation is not a plain policy
