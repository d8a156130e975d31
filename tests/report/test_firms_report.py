"""The report's Firms part: present with cognitive firms (decisions by kind, plants with dates, capacity),
absent with rule firms."""

from __future__ import annotations

from pathlib import Path

from psychoagent.econ.run import simulate
from psychoagent.eval.rundata import RunData
from psychoagent.report.firms import capacities, decisions_table
from psychoagent.report.html import write_report
from psychoagent.report.summary import run_summary


def test_report_lists_the_firms_decisions(tmp_path: Path) -> None:
    # seed 13: a plant completed and plans refused in the first 24 months
    simulate(tmp_path, agents=20, ticks=24, seed=13, policy="persona", firms="cognitive")
    run = RunData.open(tmp_path)
    story = run_summary(run, {})
    firms = story["Firms"]
    assert firms[0].startswith("Firms decided each quarter") and "decisions" in firms[0]
    assert any(line.startswith(("Plants were started by", "No firm started a plant")) for line in firms)
    caps = capacities(run)
    assert set(caps) == {"consumer goods", "steel", "tech"}
    assert any(first != last for first, last, _, _ in caps.values())
    rows = decisions_table(run)
    assert rows and {r[2] for r in rows} <= {
        "plants started",
        "plants completed",
        "closures",
        "plans refused",
    }
    started = [r for r in rows if r[2] == "plants started"]
    assert not started or any(line.startswith("Plants were started by") and f"month {started[0][1]}" in line
                              for line in firms)  # fmt: skip
    html = write_report(tmp_path).read_text(encoding="utf-8")
    assert "Firms&#x27; decisions and capacity" in html and 'alt="firm capacity"' in html


def test_rule_firms_have_no_firms_part(tiny_run: Path) -> None:
    assert "Firms" not in run_summary(RunData.open(tiny_run), {})
