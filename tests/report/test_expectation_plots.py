"""The report's inflation expectations: each cohort's mean expectation month by month, and one or two sentences."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from psychoagent.eval.rundata import RunData
from psychoagent.report import expectation_plots
from psychoagent.report.html import write_report
from psychoagent.report.summary import run_summary


def test_a_cognitive_run_shows_what_its_households_expect(cognitive_run: Path) -> None:
    run = RunData.open(cognitive_run)
    means = expectation_plots.by_cohort(run)
    assert (
        means is not None and list(means.columns) == [0] and means.index.min() == 12
    )  # the first anniversary
    lines = run_summary(run, {})["Expectations"]
    assert len(lines) == 1 and lines[0].startswith(
        "In the last year households expected"
    )  # one cohort: no slope
    html = write_report(cognitive_run).read_text(encoding="utf-8")
    assert 'id="expectations"' in html and 'alt="expected inflation"' in html


def test_cohorts_get_the_slope_and_the_gap(tmp_path: Path) -> None:
    # inflation 10 % in months 1-12, 2 % after; founders expect 6 % from month 13, newcomers of month 12 expect 2 %
    # from month 24: in months 24-35 they lived 6 % (10 and 2) and 2 %, so a point lived is a point expected
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"agents": 2, "scenario": {"shocks": []}}))
    months = range(1, 36)
    pd.DataFrame({"tick": months, "inflation": [0.10 if t <= 12 else 0.02 for t in months], "price_level": 1.0,
                  "unemployment": 0.05, "wage": 1.0, "real_gdp": 1.0}).to_csv(folder / "macro.csv", index=False)  # fmt: skip
    rows = [{"tick": t, "agent_id": 1, "wealth": 1.0, "joined": 0, "expected_inflation": 0.06 if t >= 24 else None}
            for t in months] + [{"tick": t, "agent_id": 2, "wealth": 1.0, "joined": 12,
                                 "expected_inflation": 0.02 if t >= 24 else None} for t in months]  # fmt: skip
    pd.DataFrame(rows).to_csv(folder / "agents.csv", index=False)
    (folder / "events.jsonl").write_text("")
    lines = expectation_plots.sentence(RunData.open(folder))
    assert (
        lines[0] == "In the last year households expected 4.0% inflation on average, against 2.0% published."
    )
    assert "went with 1.00 points more expected" in lines[1] and "+4.00 points against the last" in lines[1]


def test_a_rule_run_expects_nothing(tiny_run: Path) -> None:
    run = RunData.open(tiny_run)
    assert expectation_plots.by_cohort(run) is None and expectation_plots.expectations(run) is None
    assert expectation_plots.sentence(run) == []
