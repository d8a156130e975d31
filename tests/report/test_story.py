"""The report tells the story: a summary generated from the run files (economy, shocks, memory, personas), a
glossary of every metric shown, 'n/a, because ...' instead of NaN plots, intervals clipped to possible values."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from psychoagent.eval.glossary import TERMS, clip
from psychoagent.eval.metrics import HIGHER_IS_BETTER
from psychoagent.eval.rundata import RunData
from psychoagent.report.experiment_html import clipped, conclusion
from psychoagent.report.html import write_report
from psychoagent.report.run_plots import phillips_okun
from psychoagent.report.summary import run_summary

TAG = re.compile(r"<[^>]+>")


def visible_text(html: str) -> str:
    """The page's text without tags (and so without the base64 images)."""
    return TAG.sub(" ", html)


def test_cognitive_run_summary_tells_memory_and_persona_story(cognitive_run: Path) -> None:
    run = RunData.open(cognitive_run)
    metrics = __import__("psychoagent.eval.metrics", fromlist=["x"]).write_metrics(cognitive_run)["metrics"]
    story = run_summary(run, metrics)
    assert {"Economy", "Shocks and recovery", "Memory", "Personas"} <= set(story)
    memory = " ".join(story["Memory"])
    assert "memories" in memory and "per household" in memory and "felt bad" in memory
    assert (
        "They were" in memory and "outcomes of earlier decisions" in memory
    )  # the kinds, from memory.formed
    personas = " ".join(story["Personas"])
    assert "Personas changed" in personas and "prediction errors" in personas
    assert re.search(r"Mean risk appetite went from \d\.\d\d in the first month to \d\.\d\d", personas)
    mover = re.search(r"The biggest mover, household (\d+), went from risk appetite", personas)
    assert mover is not None
    who = int(
        mover.group(1)
    )  # a household index, as the events name it (not the Mesa id, which counts firms)
    assert who < int(run.config["agents"])
    assert any(e.get("source") == f"household:{who}" for e in run.events("persona.evolved"))
    assert "after the shock of month 13" in personas or "after each shock" in personas
    assert "demand shock from month 13" in " ".join(story["Shocks and recovery"])


def test_rule_run_summary_says_there_is_no_memory(tiny_run: Path) -> None:
    story = run_summary(RunData.open(tiny_run), {})
    assert "formed no memories" in " ".join(story["Memory"])


def test_report_has_no_nan_and_a_glossary_for_every_metric_shown(cognitive_run: Path) -> None:
    html = write_report(cognitive_run).read_text(encoding="utf-8")
    text = visible_text(html)
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    glossary = html[html.index('id="glossary"') :]
    for key in re.findall(r"<td>([a-z_]+\.[a-z0-9_]+)</td>", glossary):
        assert key in TERMS, f"{key} has no definition"
    assert "Personas changed" in text and "How the memories felt" in text


def test_every_judged_metric_has_a_glossary_entry() -> None:
    assert set(HIGHER_IS_BETTER) <= set(TERMS)


def test_phillips_with_too_few_years_is_not_drawn(tiny_run: Path) -> None:
    macro = RunData.open(tiny_run).macro
    assert phillips_okun(macro) is None  # 36 months: two yearly changes, r would be meaningless
    html = write_report(tiny_run).read_text(encoding="utf-8")
    assert "Phillips and Okun: n/a, because it needs at least 3 yearly points" in html
    rng = np.random.default_rng(0)
    months = pd.DataFrame({"tick": np.arange(1, 61), "unemployment": rng.uniform(0.02, 0.2, 60),
                           "price_level": np.linspace(1, 1.3, 60), "wage": rng.uniform(90, 110, 60),
                           "real_gdp": rng.uniform(900, 1100, 60)})  # fmt: skip
    assert phillips_okun(months) is not None  # five years: four yearly points


def test_intervals_are_clipped_to_possible_values() -> None:
    summary = pd.DataFrame(
        [
            {
                "condition": "a",
                "metric": "welfare.gini",
                "mean": 0.02,
                "ci_low": -0.05,
                "ci_high": 0.09,
                "n": 3,
            },
            {"condition": "a", "metric": "macro.okun_r", "mean": 0.9, "ci_low": 0.5, "ci_high": 1.4, "n": 3},
        ]
    )
    out = clipped(summary)
    assert out["ci_low"].tolist() == [0.0, 0.5] and out["ci_high"].tolist() == [0.09, 1.0]
    assert clip("welfare.gini", math.nan) != clip("welfare.gini", math.nan)  # NaN stays NaN


def test_conclusion_names_resolved_and_unresolved_differences() -> None:
    rows, diffs = [], []
    for label, mean in (("full", 0.10), ("composite", 0.20)):
        rows.append({"condition": label, "metric": "macro.mean_unemployment", "mean": mean, "ci_low": mean - 0.01,
                     "ci_high": mean + 0.01, "n": 5})  # fmt: skip
        rows.append(
            {"condition": label, "metric": "welfare.gini", "mean": 0.3, "ci_low": 0.2, "ci_high": 0.4, "n": 5}
        )
    diffs.append({"condition": "composite", "metric": "macro.mean_unemployment", "diff": 0.1, "ci_low": 0.08,
                  "ci_high": 0.12, "n": 5})  # fmt: skip
    diffs.append({"condition": "composite", "metric": "welfare.gini", "diff": 0.0, "ci_low": -0.05, "ci_high": 0.05,
                  "n": 5})  # fmt: skip
    text = conclusion(pd.DataFrame(rows), pd.DataFrame(diffs), ["full", "composite"])
    assert "worse on mean unemployment" in " ".join(text["What differs"])
    assert "wealth inequality (Gini)" in " ".join(text["Not resolved"])
    assert "full: mean unemployment" in " ".join(text["Best mean where a difference is resolved"])


def test_experiment_report_concludes_and_names_the_model(tmp_path: Path) -> None:
    from psychoagent.eval.experiment import run_experiment

    out = tmp_path / "exp"
    run_experiment(out, variants=["llm", "composite"], seeds=[1, 2], agents=4, ticks=14, jobs=1)
    html = write_report(out).read_text(encoding="utf-8")
    text = visible_text(html)
    assert "model: offline stand-in" in text
    assert 'id="summary"' in html and 'id="glossary"' in html and "Setup" in text
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    assert "adaptability.agent_recovered_share |" not in html  # metric rows use readable names


def test_comparison_markdown_clips_intervals_to_possible_values() -> None:
    from psychoagent.eval.tables import comparison_markdown

    summary = pd.DataFrame(
        [{"metric": "macro.mean_unemployment", "condition": "a", "mean": 0.01, "ci_low": -0.02, "ci_high": 0.04,
          "n": 3}]
    )  # fmt: skip
    text = comparison_markdown(summary, pd.DataFrame(), ["a"])
    assert "[0, 0.04]" in text and "-0.02" not in text
