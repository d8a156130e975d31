"""Inflation the households expect, against the inflation published: the mean expectation of each cohort (the month
its households joined) month by month, as a plot and one sentence (econ/cognitive/inflation.py; Malmendier &
Nagel 2016)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from psychoagent.eval.lived_inflation import cohort_gap, expectations_and_lived, experience_slope
from psychoagent.eval.rundata import RunData
from psychoagent.report.figures import COLOURS, figure, label, legend_outside, png_base64, styled


def by_cohort(run: RunData) -> pd.DataFrame | None:
    """Month x cohort (the month its households joined): their mean expected inflation (None without any)."""
    frame = run.agent_frame("expected_inflation", "joined")
    if frame is None or not {"expected_inflation", "joined"} <= set(frame.columns):
        return None
    held = frame[np.isfinite(frame["expected_inflation"])]
    if held.empty:
        return None
    return held.groupby(["tick", "joined"])["expected_inflation"].mean().unstack().sort_index()


@styled
def expectations(run: RunData) -> str | None:
    """Each cohort's mean expected inflation and the published 12-month inflation (None without expectations)."""
    means = by_cohort(run)
    if means is None:
        return None
    fig, axes = figure(1, 1, height=4.0)
    ax = axes[0]
    macro = run.macro
    ax.plot(macro["tick"], 100 * macro["inflation"], color="grey", linewidth=1, label="published, 12 months")
    for joined, colour in zip(means.columns, COLOURS, strict=False):
        series = means[joined].dropna()
        name = "households there from the start" if joined == 0 else f"joined in month {int(joined)}"
        ax.plot(series.index, 100 * series.to_numpy(), color=colour, linewidth=2, label=name)
    label(ax, "Inflation expected over the next 12 months, by when the households joined", "month", "%")
    legend_outside(ax)
    return png_base64(fig)


def sentence(run: RunData) -> list[str]:
    """The households' expectations in one or two sentences ([] without expectations)."""
    means = by_cohort(run)
    if means is None:
        return []
    last = means.index.max()
    year = means.loc[means.index > last - 12]
    expected = float(np.nanmean(year.to_numpy()))
    published = run.macro.set_index("tick")["inflation"].reindex(year.index).mean()
    lines = [f"In the last year households expected {expected:.1%} inflation on average, against "
             f"{published:.1%} published."]  # fmt: skip
    if len(means.columns) > 1:
        rows = expectations_and_lived(run)
        slope, gap = experience_slope(rows), cohort_gap(rows)
        if np.isfinite(slope):
            lines.append(
                f"Across cohorts, a point more of inflation lived through went with {slope:.2f} points more "
                f"expected, and the first cohort expected {gap * 100:+.2f} points against the last."
            )
    return lines
