"""The simulate command and the macro-regularity functions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.eval.macro import annual, correlation, okun_law, phillips_curve, pooled
from psychoagent.eval.rundata import RunData


def test_simulate_command_writes_run_files(tmp_path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["simulate", "--agents", "10", "--ticks", "3", "--seed", "2", "--out", str(out),
                                   "--policy", "composite", "--scenario", "demand_slump", "--llm", "local"])  # fmt: skip
    assert res.exit_code == 0, res.output
    for name in ("config.json", "macro.parquet", "agents.parquet", "events/env.updated/part-000000.parquet"):
        assert (out / name).exists()
    assert len(RunData.open(out).macro) == 3


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [("--policy", "oracle", "unknown policy"), ("--scenario", "atlantis", "unknown scenario"),
     ("--llm", "ftp://x", "--llm must be")],
)  # fmt: skip
def test_simulate_rejects_bad_input(tmp_path, flag: str, value: str, message: str) -> None:
    res = CliRunner().invoke(
        app, ["simulate", "--agents", "5", "--ticks", "1", "--out", str(tmp_path), flag, value]
    )
    assert res.exit_code == 2 and message in res.output
    assert not (tmp_path / "macro.parquet").exists()


def macro(unemployment: np.ndarray, wage: np.ndarray, gdp: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"tick": np.arange(1, unemployment.size + 1), "price_level": 1.0, "wage": wage,
                         "unemployment": unemployment, "real_gdp": gdp})  # fmt: skip


def test_phillips_and_okun_on_constructed_data() -> None:
    rng = np.random.default_rng(0)
    years = 20
    u_year = rng.uniform(0.03, 0.15, years)
    u = np.repeat(u_year, 12)
    # wage growth falls with unemployment: a Phillips curve by construction
    growth = 0.08 - 0.5 * u_year
    wage_year = np.cumprod(1 + growth)
    wage = np.repeat(wage_year, 12)
    gdp = np.repeat(100 * (1 - u_year), 12)  # output falls when unemployment rises: Okun by construction
    df = macro(u, wage, gdp)
    a = annual(df)
    assert len(a) == years and np.isnan(a["wage_inflation"].iloc[0])
    ph, ok = phillips_curve(df), okun_law(df)
    assert ph.n == years - 1 and ph.r < -0.9 and ph.significant()
    assert ok.n == years - 1 and ok.r < -0.8
    assert okun_law(df, "change").r < -0.9
    assert pooled([(a["unemployment"].to_numpy(), a["wage"].to_numpy())] * 2).n == 2 * years


def test_correlation_edge_cases() -> None:
    c = correlation([1, 2], [2, 1])
    assert c.n == 2 and np.isnan(c.r)
    assert np.isnan(correlation([1, 1, 1], [1, 2, 3]).r)
    assert correlation([1, 2, 3, np.nan], [1, 2, 3, 4]).n == 3
    with pytest.raises(ValueError, match="lacks columns"):
        annual(pd.DataFrame({"tick": [1]}))
    with pytest.raises(ValueError, match="same length"):
        correlation([1, 2, 3], [1, 2])


def test_simulate_runs_the_cognitive_policy_by_default(tmp_path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["simulate", "--agents", "6", "--ticks", "2", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "policy cognitive" in res.output
    assert RunData.open(out).event_counts["memory.formed"] > 0


@pytest.mark.parametrize(
    ("shock", "field"),
    [('kind = "policy_change"\nstart = 5\ntax_scale = 0', "shocks.0.policy_change.tax_scale"),
     ('kind = "policy_change"\nstart = 5\ntax_scale = -1.5', "shocks.0.policy_change.tax_scale"),
     ('kind = "rate_shock"\nstart = 5\nfloor = -0.01', "shocks.0.rate_shock.floor")],
)  # fmt: skip
def test_a_shock_out_of_range_is_refused_before_the_run(tmp_path, shock: str, field: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(f'name = "bad"\n[[shocks]]\n{shock}\n')
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["simulate", "--agents", "5", "--ticks", "1", "--out", str(out),
                                   "--scenario", str(bad)])  # fmt: skip
    assert res.exit_code == 2 and field in res.output
    assert len(res.output.strip().splitlines()) == 1 and not out.exists()
