"""Inflation expectations against the inflation households lived through (Malmendier & Nagel 2016), from the run
files: the agents table's `expected_inflation` and `joined`, and the macro table's 12-month inflation.

A household's lived inflation in month t is the mean 12-month inflation published before each anniversary of its
joining up to t (the years it lived, as it was told of them). Within each month every household reads the same
published inflation, so what differs across households is their lived years: the slope of expectations on lived
inflation across households, month by month, is the experience effect (0 for households that read only the
published figure), and the gap between the earliest and the latest cohort is its size in points.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from psychoagent.eval.rundata import RunData

NAN = float("nan")
YEAR = 12


def expectations_and_lived(run: RunData) -> pd.DataFrame | None:
    """Rows (tick, agent_id, joined, expected, lived) of every household-month with an expectation; None when the
    run has no expectations (rule households, or a run folder written before they existed)."""
    expected, joined = run.panel("expected_inflation"), run.panel("joined")
    macro = run.macro
    if expected is None or joined is None or macro is None or "inflation" not in macro.columns:
        return None
    rows = expected.stack().rename("expected").reset_index()
    rows = rows[np.isfinite(rows["expected"])]
    if rows.empty:
        return None
    rows["joined"] = joined.stack().reindex(pd.MultiIndex.from_frame(rows[["tick", "agent_id"]])).to_numpy()
    inflation = macro.set_index("tick")["inflation"].astype(float)
    lived = np.full(len(rows), np.nan)
    for j in pd.unique(rows["joined"].dropna()):
        years = np.arange(int(j) + YEAR, int(rows["tick"].max()) + 1, YEAR)
        told = inflation.reindex(years - 1).to_numpy()  # the figure published before each anniversary
        mine = (rows["joined"] == j).to_numpy()
        counted = np.searchsorted(years, rows.loc[mine, "tick"].to_numpy(), side="right")
        sums = np.concatenate([[0.0], np.nancumsum(told)])
        lived[mine] = np.where(counted > 0, sums[counted] / np.maximum(counted, 1), np.nan)
    rows["lived"] = lived
    return rows[np.isfinite(rows["lived"])].reset_index(drop=True)


def experience_slope(rows: pd.DataFrame | None) -> float:
    """Slope of expected on lived inflation across households within a month, pooled over months (each month's
    means removed); NaN when lived inflation never differs within a month."""
    if rows is None or rows.empty:
        return NAN
    by = rows.groupby("tick")
    e = rows["expected"] - by["expected"].transform("mean")
    lived = rows["lived"] - by["lived"].transform("mean")
    spread = float((lived**2).sum())
    return float((e * lived).sum() / spread) if spread > 1e-12 else NAN


def cohort_gap(rows: pd.DataFrame | None) -> float:
    """Mean expected inflation of the earliest cohort minus the latest one, over the months both hold one (NaN
    with a single cohort)."""
    if rows is None or rows.empty:
        return NAN
    means = rows.groupby(["tick", "joined"])["expected"].mean().unstack().sort_index(axis=1)
    both = means.dropna(thresh=2)
    if both.empty:
        return NAN
    first = both.apply(lambda r: r.dropna().iloc[0], axis=1)
    last = both.apply(lambda r: r.dropna().iloc[-1], axis=1)
    return float((first - last).mean())


def lived_inflation_metrics(run: RunData) -> dict[str, float]:
    """`experience.inflation_experience_slope` and `experience.inflation_cohort_gap`."""
    rows = expectations_and_lived(run)
    return {
        "experience.inflation_experience_slope": experience_slope(rows),
        "experience.inflation_cohort_gap": cohort_gap(rows),
    }
