"""A tiny experiment: 2 seeds x 2 variants, 20 households, 24 months; tables and the report are written."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.eval.experiment import collect_experiment, conditions, run_experiment
from psychoagent.eval.variants import resolve


def test_experiment_writes_tables(tmp_path: Path) -> None:
    out = tmp_path / "exp"
    seen: list[tuple[str, int]] = []
    runs = run_experiment(out, variants=["persona", "composite"], seeds=[1, 2], agents=20, ticks=24, jobs=1,
                          progress=lambda label, s: seen.append((label, s)))  # fmt: skip
    assert sorted(seen) == [("composite", 1), ("composite", 2), ("persona", 1), ("persona", 2)]
    assert runs["condition"].tolist() == ["persona", "persona", "composite", "composite"]
    for name in ("experiment.json", "runs.csv", "summary.csv", "comparison.csv", "comparison.md"):
        assert (out / name).is_file(), name
    assert (out / "runs" / "persona" / "seed-2" / "metrics.json").is_file()
    summary = pd.read_csv(out / "summary.csv")
    gini = summary[(summary["metric"] == "welfare.gini") & (summary["condition"] == "persona")].iloc[0]
    values = runs[runs["condition"] == "persona"]["welfare.gini"]
    assert gini["mean"] == pytest.approx(values.mean()) and gini["n"] == 2
    assert gini["ci_low"] <= gini["mean"] <= gini["ci_high"]
    md = (out / "comparison.md").read_text()
    assert "| metric | better | persona | composite |" in md and "Paired difference" in md
    # same seeds give the same run: the composite's seed-1 metrics are reproducible
    again = run_experiment(tmp_path / "again", variants=["composite"], seeds=[1], agents=20, ticks=24, jobs=1)
    a = again.iloc[0]["welfare.gini"]
    assert a == pytest.approx(
        runs[(runs["condition"] == "composite") & (runs["seed"] == 1)]["welfare.gini"].iloc[0]
    )
    macro = out / "runs" / "persona" / "seed-1" / "macro.parquet"
    stamp = macro.stat().st_mtime_ns
    resumed = run_experiment(out, variants=["persona", "composite"], seeds=[1, 2], agents=20, ticks=24, jobs=1,
                             resume=True)  # fmt: skip
    assert macro.stat().st_mtime_ns == stamp  # reused, not rerun
    pd.testing.assert_frame_equal(resumed.reset_index(drop=True), runs.reset_index(drop=True))
    (out / "runs" / "composite" / "seed-2" / "metrics.json").unlink()  # as if interrupted before this run
    collected = collect_experiment(out)
    assert len(collected) == 3
    assert "1-2 (see summary.csv)" in (out / "comparison.md").read_text()
    from psychoagent.report.html import write_report

    html = write_report(out).read_text()
    import matplotlib.image as mpimg

    images = re.findall(r'base64,([A-Za-z0-9+/=]+)"', html)
    assert images and all(mpimg.imread(io.BytesIO(base64.b64decode(b)), format="png").size for b in images)


def test_unknown_variant_and_sweep_fail_clearly() -> None:
    with pytest.raises(ValueError, match="unknown variant 'nope'"):
        resolve("nope")
    with pytest.raises(ValueError, match="no such setting"):
        conditions(["composite"], ["not_a_setting=1,2"])


def test_sweep_over_an_economy_setting() -> None:
    conds = conditions(["persona", "composite"], ["consume_base=0.3,0.4"])
    assert [c.label for c in conds] == ["persona [consume_base=0.3]", "persona [consume_base=0.4]",
                                        "composite [consume_base=0.3]", "composite [consume_base=0.4]"]  # fmt: skip
    how = resolve("persona", [("consume_base", 0.3)])
    assert how.policy == "persona" and how.economy == {"policy": {"consume_base": 0.3}}


def test_experiment_command_rejects_unknown_variant(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app, ["experiment", "--variants", "nope", "--out", str(tmp_path)], env={"COLUMNS": "300"}
    )
    assert res.exit_code != 0 and "unknown variant" in res.output


def test_sweeps_and_switches_become_the_scenario_tables_of_one_settings_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from psychoagent.econ.policies import policy_names
    from psychoagent.econ.scenario import load_scenario
    from psychoagent.persona.config import EvolutionConfig

    if "cognitive" not in policy_names():
        pytest.skip("no cognitive policy in this build")
    how = resolve("full", [("loss_aversion", 1.5)])
    assert (how.policy, how.economy, how.cognitive, how.evolution) == (
        "cognitive",
        {},
        {},
        {"loss_aversion": 1.5},
    )
    assert how.scenario(load_scenario("baseline")).settings().evolution.loss_aversion == 1.5
    how = resolve("no-memory", [("evolution", "volatile"), ("consume_base", 0.3)])
    assert how.cognitive == {"ablation": {"memory": False}} and how.evolution == {"preset": "volatile"}
    settings = how.scenario(load_scenario("demand_slump")).settings()
    assert settings.cognitive.ablation.memory is False and settings.economy.policy.consume_base == 0.3
    assert settings.evolution == EvolutionConfig.preset("volatile")
    how = resolve("full", [("superseded_factor", 0.5)])  # the households' memories are the tree's last part
    assert how.memory == {"recall": {"superseded_factor": 0.5}} and how.cognitive == {}
    assert how.scenario(load_scenario("baseline")).settings().memory.recall.superseded_factor == 0.5
    from psychoagent.eval.variants import VARIANTS, Variant

    monkeypatch.setitem(
        VARIANTS, "persona-no-memory", Variant("persona-no-memory", "persona", "", ("memory",))
    )
    with pytest.raises(ValueError, match="no ablation switches"):  # a rule policy has no cognitive households
        resolve("persona-no-memory")
    assert [c.label for c in conditions(["full", "composite"], ["loss_aversion=1.3,2.25"])] == [
        "full [loss_aversion=1.3]", "full [loss_aversion=2.25]", "composite"]  # fmt: skip


def test_seed_list_reads_ranges_and_lists_and_names_a_bad_part() -> None:
    from psychoagent.eval.experiment import seed_list

    assert seed_list("101-103,7") == [101, 102, 103, 7]
    assert seed_list("5") == [5]
    for bad, said in (("1-x", "'1-x'"), ("9-3", "backwards"), ("", "''")):
        with pytest.raises(ValueError, match=said):
            seed_list(bad)


def test_table_numbers_never_use_exponents_below_a_trillion() -> None:
    from psychoagent.eval.tables import fmt

    assert fmt(4.17e-05) == "0.0000417" and fmt(336_512.0) == "337,000" and fmt(0.0123) == "0.012"
    assert fmt(1e-12) == "0" and fmt(float("nan")) == "n/a"
