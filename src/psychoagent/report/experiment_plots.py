"""Plots of an experiment directory: metric means with 95 % intervals per condition, and per-condition macro
series and Phillips/Okun points pooled over seeds."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from psychoagent.eval.glossary import term
from psychoagent.eval.macro import okun_points, phillips_points, pooled
from psychoagent.eval.rundata import RunData
from psychoagent.report.figures import (
    COLOURS,
    LINESTYLES,
    band,
    figure,
    hide_unused,
    label,
    legend_outside,
    percent_axis,
    png_base64,
    scatter_fit,
    styled,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

KEY_METRICS = (
    "adaptability.recovery_ticks", "adaptability.agent_recovered_share", "robustness.sharpe_median_agent",
    "robustness.volatility_median_agent", "robustness.max_drawdown_mean_wealth", "persona_consistency.score",
    "diversity.entropy_bits", "diversity.novel_share", "social.cooperation_rate", "social.reputation_dispersion",
    "macro.phillips_r", "macro.okun_r", "macro.mean_unemployment", "stylized.kurtosis",
    "stylized.acf_abs_mean_1_10", "welfare.gini", "welfare.productivity", "welfare.social_welfare",
)  # fmt: skip
SERIES = (("unemployment", "unemployment rate", "share of households"),
          ("inflation", "inflation (change over 12 months)", "price change"),
          ("real_gdp", "real GDP", "goods per month"), ("price_level", "price level (CPI)", "money per unit"),
          ("gini", "inequality of wealth (Gini)", "Gini 0-1"), ("interest_rate", "central bank rate", "per year"))  # fmt: skip
PERCENT = ("unemployment", "inflation", "interest_rate")


@styled
def metric_intervals(summary: pd.DataFrame, labels: Sequence[str]) -> str | None:
    """One small panel per key metric: each condition's mean with its 95 % t interval."""
    present = [m for m in KEY_METRICS if summary[(summary["metric"] == m)]["mean"].notna().any()]
    if not present:
        return None
    cols = 3
    fig, axes = figure((len(present) + cols - 1) // cols, cols, height=2.2 + 0.35 * len(labels))
    y = np.arange(len(labels))
    for ax, m in zip(axes, present, strict=False):
        s = summary[summary["metric"] == m].set_index("condition").reindex(list(labels))
        mean = s["mean"].to_numpy(dtype=float)
        lo = np.nan_to_num(mean - s["ci_low"].to_numpy(dtype=float), nan=0.0)
        hi = np.nan_to_num(s["ci_high"].to_numpy(dtype=float) - mean, nan=0.0)
        for k in range(len(labels)):
            ax.errorbar(mean[k], y[k], xerr=[[max(lo[k], 0.0)], [max(hi[k], 0.0)]], fmt="o",
                        color=COLOURS[k % len(COLOURS)], capsize=4, markersize=6)  # fmt: skip
        first_col = list(axes).index(ax) % cols == 0
        ax.set_yticks(y, list(labels) if first_col else [""] * len(labels))
        ax.set_ylim(-0.6, len(labels) - 0.4)
        ax.invert_yaxis()
        t = term(m)
        better = t.better(m)
        ax.set_title(f"{t.name}\n({better} is better)" if better else f"{t.name}\n(no better direction)")
        ax.set_xlabel(t.unit)
    hide_unused(axes, len(present))
    return png_base64(fig)


def _seed_runs(folder: Path, slug: str) -> list[RunData]:
    """The finished seeds (run folders with their macro table) of one condition, in seed-folder order."""
    runs = []
    for p in sorted((folder / "runs" / slug).glob("seed-*")):
        with contextlib.suppress(FileNotFoundError):
            runs.append(RunData.open(p))
    return runs


def _macro_frames(folder: Path, slug: str) -> list[pd.DataFrame]:
    return [run.macro for run in _seed_runs(folder, slug)]


def _seed_bands(
    ax: Axes,
    runs: Mapping[str, list[pd.DataFrame]],
    column: str,
    months: Callable[[pd.DataFrame], np.ndarray],
) -> None:
    """One line a condition: the median of `column` over its seeds, the range of seeds shaded, each seed cut to
    the shortest; `months` reads a frame's month axis. A condition whose frames lack the column is left out."""
    for k, (name, fs) in enumerate(runs.items()):
        if column not in fs[0].columns:
            continue
        n = min(len(f) for f in fs)
        panel = np.column_stack([f[column].to_numpy(dtype=float)[:n] for f in fs])
        colour, style = COLOURS[k % len(COLOURS)], LINESTYLES[k % len(LINESTYLES)]
        band(ax, months(fs[0])[:n], panel, colour, name, 0, 100, style)


def _frames_by_condition(folder: Path, conditions: Sequence[dict]) -> dict[str, list[pd.DataFrame]]:
    """Each condition's macro frames by label, conditions without a finished seed left out."""
    frames = {c["label"]: _macro_frames(folder, c["folder"]) for c in conditions}
    return {k: v for k, v in frames.items() if v}


@styled
def macro_by_condition(folder: Path, conditions: Sequence[dict]) -> str | None:
    """Macro series per condition: median over seeds with the range of seeds shaded."""
    frames = _frames_by_condition(folder, conditions)
    if not frames:
        return None
    cols = 3
    fig, axes = figure(2, cols, height=3.8)
    for ax, (col, title, unit) in zip(axes, SERIES, strict=False):
        _seed_bands(ax, frames, col, lambda f: f["tick"].to_numpy())
        label(ax, title, "month", unit)
        if col in PERCENT:
            percent_axis(ax)
    legend_outside(axes[0])
    hide_unused(axes, len(SERIES))
    return png_base64(fig)


PERSONA_TRAITS = ("risk_preference", "optimism", "alloc_invest", "alloc_consume")


@styled
def personas_by_condition(folder: Path, conditions: Sequence[dict]) -> str | None:
    """Mean persona traits over households per month, per condition (median over seeds, range shaded): shows
    whether and how personas evolve under each variant."""
    data: dict[str, list[pd.DataFrame]] = {}
    for c in conditions:
        for run in _seed_runs(folder, c["folder"]):
            traits = run.agent_frame(*PERSONA_TRAITS)
            if traits is not None:
                data.setdefault(c["label"], []).append(traits.drop(columns="agent_id").groupby("tick").mean())
    if not data:
        return None
    fig, axes = figure(2, 2, height=3.8)
    for ax, trait in zip(axes, PERSONA_TRAITS, strict=True):
        _seed_bands(ax, data, trait, lambda f: f.index.to_numpy())
        scale = "-1 .. +1" if trait == "optimism" else "0 .. 1"
        label(ax, f"mean {trait.replace('alloc_', 'budget share: ').replace('_', ' ')}", "month", scale)
    legend_outside(axes[0])
    return png_base64(fig)


@styled
def phillips_okun_by_condition(folder: Path, conditions: Sequence[dict]) -> str | None:
    """Annual Phillips and Okun points of all seeds, one colour per condition, with pooled r in the legend."""
    frames = _frames_by_condition(folder, conditions)
    if not frames:
        return None
    fig, axes = figure(1, 2, height=5.0)
    for k, (name, fs) in enumerate(frames.items()):
        c = COLOURS[k % len(COLOURS)]
        for ax, fn in ((axes[0], phillips_points), (axes[1], okun_points)):
            pts = [fn(f) for f in fs]
            if not pts:
                continue
            x = np.concatenate([p[0] for p in pts])
            y = np.concatenate([p[1] for p in pts])
            r = pooled(pts)
            rtext = f"r = {r.r:+.2f}" if np.isfinite(r.r) else "r n/a"
            scatter_fit(ax, x, y, c, f"{name}: {rtext} ({r.n} years)")
    label(axes[0], "Phillips curve (yearly points of all seeds)", "unemployment rate (yearly mean)",
          "wage inflation (yearly)")  # fmt: skip
    label(axes[1], "Okun's law (yearly points of all seeds)", "relative change of the unemployment rate",
          "real GDP growth (yearly)")  # fmt: skip
    for ax in axes:
        legend_outside(ax)
        percent_axis(ax, "x")
        percent_axis(ax, "y")
    return png_base64(fig)
