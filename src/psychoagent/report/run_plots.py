"""Plots of one run directory; each returns a base64 PNG, or None when the run lacks the data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from psychoagent.eval.behaviour import TRAITS
from psychoagent.eval.macro import correlation, okun_points, phillips_points
from psychoagent.eval.rundata import RunData
from psychoagent.eval.stylized import asset_returns, facts
from psychoagent.report.figures import COLOURS, band, figure, hide_unused, mark_ticks, png_base64, scatter_fit

MACRO_SERIES = (
    ("price_level", "price level"), ("inflation", "inflation (monthly)"), ("wage", "wage"),
    ("unemployment", "unemployment"), ("real_gdp", "real GDP"), ("interest_rate", "policy rate"),
    ("gini", "Gini of wealth"), ("tax_revenue", "tax revenue"), ("consumption", "consumption"),
)  # fmt: skip
SAMPLE_AGENTS = 5


def macro_series(run: RunData) -> str | None:
    """Grid of the macro series in macro.csv, with regime changes marked."""
    m = run.macro
    present = [(c, t) for c, t in MACRO_SERIES if c in m.columns]
    if not present:
        return None
    cols = 3
    fig, axes = figure((len(present) + cols - 1) // cols, cols, height=2.4)
    for ax, (col, title) in zip(axes, present, strict=False):
        ax.plot(m["tick"], m[col], color=COLOURS[0], linewidth=1)
        ax.set_title(title, fontsize=10)
        mark_ticks(ax, run.shock_ticks())
    hide_unused(axes, len(present))
    axes[0].figure.supxlabel("month")
    return png_base64(fig)


def phillips_okun(macro: pd.DataFrame) -> str | None:
    """Annual Phillips curve and Okun's law scatter plots with fitted lines and r, p, n."""
    try:
        px, py = phillips_points(macro)
        ox, oy = okun_points(macro)
    except ValueError:
        return None
    if px.size == 0 and ox.size == 0:
        return None
    fig, axes = figure(1, 2, height=3.4)
    for ax, (x, y), title, xl, yl in (
        (axes[0], (px, py), "Phillips curve", "unemployment rate", "wage inflation"),
        (axes[1], (ox, oy), "Okun's law", "unemployment growth", "real GDP growth"),
    ):
        scatter_fit(ax, x, y)
        ax.set_title(f"{title}: {correlation(x, y)}", fontsize=10)
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
    return png_base64(fig)


def wealth(run: RunData) -> str | None:
    """Real wealth (median and 10-90 % band) over time, and the Lorenz curve at the last tick."""
    col = run.wealth_column
    if col is None:
        return None
    w = run.panel(col)
    assert w is not None
    price = run.macro.set_index("tick")["price_level"].reindex(w.index) if "price_level" in run.macro else 1.0
    real = w.div(price, axis=0)
    fig, axes = figure(1, 2, height=3.2)
    band(axes[0], real.index, real.to_numpy(), COLOURS[0], "median")
    mark_ticks(axes[0], run.shock_ticks())
    axes[0].set_title("real wealth per household (10-90 % band)", fontsize=10)
    last = np.sort(np.clip(w.iloc[-1].dropna().to_numpy(), 0, None))
    if last.sum() > 0:
        cum = np.concatenate([[0], np.cumsum(last) / last.sum()])
        share = np.linspace(0, 1, cum.size)
        axes[1].plot(share, cum, color=COLOURS[1])
        axes[1].plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle=":")
    axes[1].set_title("Lorenz curve of wealth (last month)", fontsize=10)
    axes[1].set_xlabel("share of households")
    return png_base64(fig)


def personas(run: RunData) -> str | None:
    """Each persona trait: a few sample agents' trajectories over the population's median and 10-90 % band."""
    panels = {t: p for t in TRAITS if (p := run.panel(t)) is not None}
    if not panels:
        return None
    cols = 4
    fig, axes = figure((len(panels) + cols - 1) // cols, cols, height=2.4)
    first = next(iter(panels.values()))
    rng = np.random.default_rng(0)
    sample = rng.choice(first.columns.to_numpy(), size=min(SAMPLE_AGENTS, first.shape[1]), replace=False)
    for ax, (trait, p) in zip(axes, panels.items(), strict=False):
        band(ax, p.index, p.to_numpy(), "#999999")
        for k, a in enumerate(sample):
            ax.plot(p.index, p[a], color=COLOURS[k % len(COLOURS)], linewidth=0.9, alpha=0.9)
        ax.set_title(trait.replace("_", " "), fontsize=10)
    hide_unused(axes, len(panels))
    return png_base64(fig)


def assets(run: RunData) -> str | None:
    """Price (log scale) and returns of every asset in assets.csv."""
    if run.assets is None or "price" not in run.assets.columns:
        return None
    series = asset_returns(run.assets)
    fig, axes = figure(1, 2, height=3.2)
    for k, (name, df) in enumerate(series.items()):
        c = COLOURS[k % len(COLOURS)]
        x = df.get("period", df.index)
        axes[0].plot(x, df["price"], color=c, linewidth=0.9, label=name)
        axes[1].plot(x, df["log_return"], color=c, linewidth=0.5, alpha=0.8)
    axes[0].set_yscale("log")
    axes[0].set_title("asset prices", fontsize=10)
    axes[0].legend(fontsize=8)
    axes[1].set_title("log returns per trading period", fontsize=10)
    return png_base64(fig)


def stylized(run: RunData) -> str | None:
    """Stylized-facts panel over all assets: ACF of r and |r| with the +-2/sqrt(T) band, return distribution
    against a normal, kurtosis against aggregation, volume against |r|."""
    if run.assets is None or "price" not in run.assets.columns:
        return None
    from scipy import stats

    series = asset_returns(run.assets)
    fig, axes = figure(1, 4, width=12, height=3.0)
    lags = np.arange(1, 11)
    for k, (name, df) in enumerate(series.items()):
        c = COLOURS[k % len(COLOURS)]
        r = df["log_return"].to_numpy(dtype=float)
        vol = df["volume"].to_numpy(dtype=float) if "volume" in df else None
        f: Mapping[str, Any] = facts(r, vol)
        axes[0].plot(lags, f["acf_r_lags"], color=c, marker="o", markersize=3, linestyle=":")
        axes[0].plot(lags, f["acf_abs_lags"], color=c, marker="s", markersize=3, label=name)
        if np.isfinite(f["acf_band"]):
            axes[0].axhspan(-f["acf_band"], f["acf_band"], color="grey", alpha=0.1)
        fin = r[np.isfinite(r)]
        if fin.size > 5 and fin.std() > 0:
            z = (fin - fin.mean()) / fin.std()
            axes[1].hist(z, bins=40, density=True, histtype="step", color=c, log=True)
        ks = [f["kurtosis"], f.get("kurtosis_agg5"), f.get("kurtosis_agg20")]
        axes[2].plot([1, 5, 20], ks, color=c, marker="o")
        if vol is not None:
            keep = np.isfinite(r)
            axes[3].scatter(np.abs(r[keep]), vol[keep], s=4, color=c, alpha=0.4)
    xs = np.linspace(-5, 5, 100)
    axes[1].plot(xs, stats.norm.pdf(xs), color="black", linewidth=0.8)
    axes[0].set_title("ACF: r (dotted), |r| (solid)", fontsize=10)
    axes[0].legend(fontsize=7)
    axes[1].set_title("standardised returns vs normal", fontsize=10)
    axes[2].set_title("excess kurtosis vs aggregation", fontsize=10)
    axes[2].set_xscale("log")
    axes[3].set_title("volume vs |return|", fontsize=10)
    return png_base64(fig)
