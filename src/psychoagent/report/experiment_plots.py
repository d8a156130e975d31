"""Plots of an experiment directory: metric means with 95 % intervals per condition, and per-condition macro
series and Phillips/Okun points pooled over seeds."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from psychoagent.eval.macro import okun_points, phillips_points, pooled
from psychoagent.report.figures import COLOURS, band, figure, hide_unused, png_base64, scatter_fit

KEY_METRICS = (
    "adaptability.recovery_ticks", "adaptability.agent_recovered_share", "robustness.sharpe_median_agent",
    "robustness.volatility_median_agent", "robustness.max_drawdown_mean_wealth", "persona_consistency.score",
    "diversity.entropy_bits", "diversity.novel_share", "social.cooperation_rate", "social.reputation_dispersion",
    "macro.phillips_r", "macro.okun_r", "macro.mean_unemployment", "stylized.kurtosis",
    "stylized.acf_abs_mean_1_10", "welfare.gini", "welfare.productivity", "welfare.social_welfare",
)  # fmt: skip
SERIES = (("unemployment", "unemployment"), ("inflation", "inflation (monthly)"), ("real_gdp", "real GDP"),
          ("price_level", "price level"), ("gini", "Gini of wealth"), ("interest_rate", "policy rate"))  # fmt: skip


def metric_intervals(summary: pd.DataFrame, labels: Sequence[str]) -> str | None:
    """One small panel per key metric: each condition's mean with its 95 % t interval."""
    present = [m for m in KEY_METRICS if summary[(summary["metric"] == m)]["mean"].notna().any()]
    if not present:
        return None
    cols = 4
    fig, axes = figure((len(present) + cols - 1) // cols, cols, width=12, height=2.3)
    y = np.arange(len(labels))
    for ax, m in zip(axes, present, strict=False):
        s = summary[summary["metric"] == m].set_index("condition").reindex(list(labels))
        mean = s["mean"].to_numpy(dtype=float)
        lo = np.nan_to_num(mean - s["ci_low"].to_numpy(dtype=float), nan=0.0)
        hi = np.nan_to_num(s["ci_high"].to_numpy(dtype=float) - mean, nan=0.0)
        for k in range(len(labels)):
            ax.errorbar(mean[k], y[k], xerr=[[lo[k]], [hi[k]]], fmt="o", color=COLOURS[k % len(COLOURS)],
                        capsize=3, markersize=4)  # fmt: skip
        ax.set_yticks(
            y, list(labels) if ax is axes[0] or len(labels) <= 3 else [""] * len(labels), fontsize=8
        )
        ax.set_ylim(-0.6, len(labels) - 0.4)
        ax.invert_yaxis()
        ax.set_title(m, fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
    for k, ax in enumerate(axes[: len(present)]):
        if k % cols == 0:
            ax.set_yticks(y, list(labels), fontsize=8)
    hide_unused(axes, len(present))
    return png_base64(fig)


def _macro_frames(folder: Path, slug: str) -> list[pd.DataFrame]:
    return [pd.read_csv(p) for p in sorted((folder / "runs" / slug).glob("seed-*/macro.csv"))]


def macro_by_condition(folder: Path, conditions: Sequence[dict]) -> str | None:
    """Macro series per condition: median over seeds with the range of seeds shaded."""
    frames = {c["label"]: _macro_frames(folder, c["folder"]) for c in conditions}
    frames = {k: v for k, v in frames.items() if v}
    if not frames:
        return None
    cols = 3
    fig, axes = figure(2, cols, width=12, height=2.6)
    for ax, (col, title) in zip(axes, SERIES, strict=False):
        for k, (label, fs) in enumerate(frames.items()):
            if col not in fs[0].columns:
                continue
            n = min(len(f) for f in fs)
            panel = np.column_stack([f[col].to_numpy(dtype=float)[:n] for f in fs])
            band(ax, fs[0]["tick"].to_numpy()[:n], panel, COLOURS[k % len(COLOURS)], label, 0, 100)
        ax.set_title(title, fontsize=10)
    axes[0].legend(fontsize=7)
    hide_unused(axes, len(SERIES))
    return png_base64(fig)


PERSONA_TRAITS = ("risk_preference", "optimism", "alloc_invest", "alloc_consume")


def personas_by_condition(folder: Path, conditions: Sequence[dict]) -> str | None:
    """Mean persona traits over households per month, per condition (median over seeds, range shaded): shows
    whether and how personas evolve under each variant."""
    data: dict[str, list[pd.DataFrame]] = {}
    for c in conditions:
        for p in sorted((folder / "runs" / c["folder"]).glob("seed-*/agents.csv")):
            head = pd.read_csv(p, nrows=0).columns
            cols = ["tick", *[t for t in PERSONA_TRAITS if t in head]]
            data.setdefault(c["label"], []).append(pd.read_csv(p, usecols=cols).groupby("tick").mean())
    if not data:
        return None
    fig, axes = figure(1, len(PERSONA_TRAITS), width=12, height=2.8)
    for ax, trait in zip(axes, PERSONA_TRAITS, strict=True):
        for k, (label, fs) in enumerate(data.items()):
            if trait not in fs[0].columns:
                continue
            n = min(len(f) for f in fs)
            panel = np.column_stack([f[trait].to_numpy(dtype=float)[:n] for f in fs])
            band(ax, fs[0].index.to_numpy()[:n], panel, COLOURS[k % len(COLOURS)], label, 0, 100)
        ax.set_title(f"mean {trait.replace('_', ' ')}", fontsize=10)
    axes[0].legend(fontsize=7)
    return png_base64(fig)


def phillips_okun_by_condition(folder: Path, conditions: Sequence[dict]) -> str | None:
    """Annual Phillips and Okun points of all seeds, one colour per condition, with pooled r in the legend."""
    frames = {c["label"]: _macro_frames(folder, c["folder"]) for c in conditions}
    frames = {k: v for k, v in frames.items() if v}
    if not frames:
        return None
    fig, axes = figure(1, 2, width=12, height=3.6)
    for k, (label, fs) in enumerate(frames.items()):
        c = COLOURS[k % len(COLOURS)]
        for ax, fn in ((axes[0], phillips_points), (axes[1], okun_points)):
            pts = [fn(f) for f in fs]
            if not pts:
                continue
            x = np.concatenate([p[0] for p in pts])
            y = np.concatenate([p[1] for p in pts])
            r = pooled(pts)
            scatter_fit(ax, x, y, c, f"{label}: r={r.r:+.2f} (n={r.n})")
    axes[0].set_title("Phillips curve (annual, all seeds)", fontsize=10)
    axes[0].set_xlabel("unemployment rate")
    axes[0].set_ylabel("wage inflation")
    axes[1].set_title("Okun's law (annual, all seeds)", fontsize=10)
    axes[1].set_xlabel("unemployment growth")
    axes[1].set_ylabel("real GDP growth")
    for ax in axes:
        ax.legend(fontsize=7)
    return png_base64(fig)
