"""What the households lived through: the months in which a household's holdings moved enough to draw attention
(`persona.evolved` with side `HELD`, econ/cognitive/reflect.py) and how its risk appetite moved in the months
after, for losses and for gains: the experience effect of a run, as a plot and one sentence."""

from __future__ import annotations

import numpy as np
import pandas as pd

from psychoagent.eval.rundata import RunData
from psychoagent.events import EventType
from psychoagent.report.figures import COLOURS, figure, label, legend_outside, png_base64, styled

HORIZON = 36
"""Months after a lived month the plot follows (three years: the years-long effect, Malmendier & Nagel 2011)."""
YEAR = 12
"""The sentence compares risk appetite a year after a lived month with the month before it."""


def lived_months(run: RunData) -> pd.DataFrame:
    """One row per lived month: tick, household (agents-table id) and the holdings' return (empty when none)."""
    ids = {i: a for a, i in run.household_index().items()}
    rows = []
    for e in run.events(EventType.PERSONA_EVOLVED):
        p = e.get("payload") or {}
        source = str(e.get("source", ""))
        if p.get("side") != "HELD" or not source.startswith("household:"):
            continue
        index = int(source.split(":", 1)[1])
        rows.append(
            {"tick": int(e.get("tick", 0)), "agent": ids.get(index, index), "actual": float(p["actual"])}
        )
    return pd.DataFrame(rows, columns=["tick", "agent", "actual"])


def risk_after(run: RunData, lived: pd.DataFrame) -> dict[str, np.ndarray]:
    """Mean change of risk preference h = 0..HORIZON months after each of the `lived` months (`lived_months`)
    against the month before, for 'losses' and 'gains' (NaN where no lived month has that many months after it);
    {} without lived months."""
    risk = run.panel("risk_preference")
    if lived.empty or risk is None:
        return {}
    out = {}
    for name, part in (("losses", lived[lived["actual"] < 0]), ("gains", lived[lived["actual"] > 0])):
        paths = []
        for row in part.itertuples():
            if row.agent not in risk.columns or row.tick - 1 not in risk.index:
                continue
            series = risk[row.agent]
            before = float(series.loc[row.tick - 1])
            ahead = series.reindex(range(row.tick, row.tick + HORIZON + 1)).to_numpy(dtype=float)
            paths.append(ahead - before)
        if paths:
            stacked = np.vstack(paths)
            seen = np.isfinite(stacked).sum(axis=0)
            total = np.nansum(stacked, axis=0)
            out[name] = np.where(seen > 0, total / np.maximum(seen, 1), np.nan)
    return out


@styled
def experience(run: RunData) -> str | None:
    """Risk appetite in the three years after a lived loss and after a lived gain (None without lived months)."""
    lived = lived_months(run)
    paths = risk_after(run, lived)
    if not paths:
        return None
    fig, axes = figure(1, 1, height=4.0)
    ax = axes[0]
    months = np.arange(HORIZON + 1)
    for (name, path), colour in zip(paths.items(), COLOURS, strict=False):
        n = int((lived["actual"] < 0).sum() if name == "losses" else (lived["actual"] > 0).sum())
        verb = "lost" if name == "losses" else "gained"
        ax.plot(
            months,
            path,
            color=colour,
            linewidth=2,
            label=f"after a month the holdings {verb} 10 % or more ({n})",
        )
    ax.axhline(0.0, color="grey", linewidth=0.8)
    label(ax, "Risk appetite after a month lived through, against the month before", "months after",
          "risk preference, change")  # fmt: skip
    legend_outside(ax)
    return png_base64(fig)


def sentence(run: RunData) -> list[str]:
    """The run's experience effect in one sentence ([] for a policy whose personas do not evolve)."""
    if run.panel("risk_preference") is None or not run.events(EventType.PERSONA_EVOLVED):
        return []  # a policy whose personas never evolve lives nothing through
    lived = lived_months(run)
    if lived.empty:
        return ["No household's holdings moved 10 % in a month, so no month was lived through and experience "
                "moved no persona."]  # fmt: skip
    paths = risk_after(run, lived)
    losses, gains = int((lived["actual"] < 0).sum()), int((lived["actual"] > 0).sum())
    parts = []
    for name, key in (("loss", "losses"), ("gain", "gains")):
        path = paths.get(key)
        if path is not None and np.isfinite(path[YEAR]):
            parts.append(
                f"a year after a {name} its risk appetite stood {path[YEAR]:+.3f} from the month before"
            )
    said = ", ".join(parts) if parts else "no lived month has a year after it in this run"
    return [f"In {losses + gains:,} household-months a household's holdings moved 10 % or more ({losses:,} "
            f"losses, {gains:,} gains): {said}."]  # fmt: skip
