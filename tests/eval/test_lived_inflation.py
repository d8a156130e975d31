"""Inflation expectations against lived inflation (`experience.inflation_*`) on constructed run files whose right
answers are known by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from psychoagent.eval.lived_inflation import expectations_and_lived, lived_inflation_metrics
from psychoagent.eval.metrics import compute_metrics
from psychoagent.eval.rundata import RunData

MONTHS = 48
HIGH, LOW = 0.10, 0.02
"""12-month inflation published in the first year, and in every later one."""


def _write(folder: Path, households: dict[int, tuple[int, list[float]]]) -> Path:
    """A run folder: macro inflation HIGH in months 1-12 and LOW after; each household's (joined, expected
    inflation per month, NaN where it holds none)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"agents": len(households), "scenario": {"shocks": []}}))
    inflation = [HIGH if t <= 12 else LOW for t in range(1, MONTHS + 1)]
    pd.DataFrame({"tick": range(1, MONTHS + 1), "inflation": inflation, "price_level": 1.0, "unemployment": 0.05,
                  "wage": 1.0, "real_gdp": 1.0}).to_csv(folder / "macro.csv", index=False)  # fmt: skip
    rows = [{"tick": t + 1, "agent_id": a, "wealth": 1.0, "joined": joined, "expected_inflation": e[t]}
            for a, (joined, e) in households.items() for t in range(MONTHS)]  # fmt: skip
    pd.DataFrame(rows).to_csv(folder / "agents.csv", index=False)
    (folder / "events.jsonl").write_text("")
    return folder


def _lived(joined: int, tick: int) -> float:
    """Mean inflation published before each anniversary of `joined` up to `tick` (the definition, by hand)."""
    told = [HIGH if a - 1 <= 12 else LOW for a in range(joined + 12, tick + 1, 12)]
    return sum(told) / len(told) if told else math.nan


def _expected(joined: int, rule: str) -> list[float]:
    """Per month: NaN before the first anniversary, then the lived inflation ('lived'), half of it plus half of the
    published ('half'), or the published figure ('published')."""
    out = []
    for t in range(1, MONTHS + 1):
        lived = _lived(joined, t)
        published = HIGH if t <= 12 else LOW
        value = {"lived": lived, "half": 0.5 * lived + 0.5 * published, "published": published}[rule]
        out.append(math.nan if math.isnan(lived) else value)
    return out


@pytest.mark.parametrize(("rule", "slope"), [("lived", 1.0), ("half", 0.5), ("published", 0.0)])
def test_the_slope_of_expectations_on_lived_inflation(tmp_path: Path, rule: str, slope: float) -> None:
    # founders lived through the 10 % year (their lived mean is 10 % at 13, then 6 %, 4.67 %), newcomers of month 12
    # only through 2 % years; within each month the published figure is the same for both
    run = RunData.open(_write(tmp_path / "r", {1: (0, _expected(0, rule)), 2: (12, _expected(12, rule))}))
    rows = expectations_and_lived(run)
    assert rows is not None
    assert rows.loc[(rows.agent_id == 1) & (rows.tick == 30), "lived"].item() == pytest.approx(
        (HIGH + LOW) / 2
    )
    assert rows.loc[(rows.agent_id == 2) & (rows.tick == 30), "lived"].item() == pytest.approx(LOW)
    metrics = lived_inflation_metrics(run)
    assert metrics["experience.inflation_experience_slope"] == pytest.approx(slope)
    # both hold expectations from month 24; the gap is founders' minus newcomers', month by month
    gaps = [a - b for a, b in zip(_expected(0, rule)[23:], _expected(12, rule)[23:], strict=True)]
    assert metrics["experience.inflation_cohort_gap"] == pytest.approx(sum(gaps) / len(gaps))
    assert compute_metrics(run.path)["metrics"]["experience.inflation_experience_slope"] == pytest.approx(
        slope
    )


def test_one_cohort_or_no_expectations_give_nan(tmp_path: Path) -> None:
    one = RunData.open(
        _write(tmp_path / "one", {1: (0, _expected(0, "lived")), 2: (0, _expected(0, "lived"))})
    )
    assert math.isnan(lived_inflation_metrics(one)["experience.inflation_experience_slope"])
    assert math.isnan(lived_inflation_metrics(one)["experience.inflation_cohort_gap"])
    none = RunData.open(_write(tmp_path / "none", {1: (0, [math.nan] * MONTHS)}))
    assert expectations_and_lived(none) is None
    assert math.isnan(lived_inflation_metrics(none)["experience.inflation_experience_slope"])
