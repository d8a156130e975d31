"""The report's experience effect: lived months read from the run files, risk appetite after them, one sentence."""

from __future__ import annotations

from pathlib import Path

from psychoagent.eval.rundata import RunData
from psychoagent.report import experience_plots
from psychoagent.report.html import write_report
from psychoagent.report.summary import run_summary


def test_lived_months_and_the_risk_appetite_after_them(cognitive_run: Path) -> None:
    run = RunData.open(cognitive_run)
    lived = experience_plots.lived_months(run)
    assert len(lived) and set(lived["tick"]) >= {13}  # the crash month is lived
    assert set(lived["agent"]) <= set(run.panel("risk_preference").columns)  # keyed by the agents table's id
    after = experience_plots.risk_after(run, lived)
    assert after["losses"][0] < 0 < after["gains"][0]  # a loss lowers risk appetite at once, a gain raises it
    line = " ".join(run_summary(run, {})["Experience"])
    assert f"In {len(lived):,} household-months" in line and "a year after a loss its risk appetite" in line
    html = write_report(cognitive_run).read_text(encoding="utf-8")
    assert 'id="experience"' in html and 'alt="experience"' in html


def test_a_rule_run_has_no_lived_months(tiny_run: Path) -> None:
    run = RunData.open(tiny_run)
    assert experience_plots.lived_months(run).empty and experience_plots.experience(run) is None
    assert experience_plots.sentence(run) == []
