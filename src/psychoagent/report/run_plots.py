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
from psychoagent.report.figures import (
    COLOURS,
    band,
    figure,
    hide_unused,
    label,
    legend_outside,
    mark_ticks,
    note,
    percent_axis,
    png_base64,
    scatter_fit,
    styled,
)
from psychoagent.report.page import image_html

MACRO_SERIES = (
    ("unemployment", "unemployment rate", "share of households", True),
    ("inflation", "inflation (change over 12 months)", "price change", True),
    ("real_gdp", "real GDP", "goods per month", False),
    ("price_level", "price level (CPI)", "money per unit", False),
    ("wage", "mean wage", "money per month", False),
    ("interest_rate", "central bank rate", "per year", True),
    ("gini", "inequality of wealth (Gini)", "Gini (0 equal, 1 unequal)", False),
    ("tax_revenue", "tax revenue", "money per month", False),
    ("consumption", "consumption", "money per month", False),
)  # fmt: skip
"""(macro-table column, title, y-axis unit, shown as a percentage)."""
SAMPLE_AGENTS = 5
MIN_YEARS = 3
"""A correlation over fewer annual points than this is not drawn (r would be meaningless)."""


@styled
def macro_series(run: RunData) -> str | None:
    """Grid of the macro series in the macro table, each with its unit, with the shocks' starts marked."""
    m = run.macro
    present = [row for row in MACRO_SERIES if row[0] in m.columns]
    if not present:
        return None
    cols = 3
    fig, axes = figure((len(present) + cols - 1) // cols, cols, height=3.6)
    for ax, (col, title, unit, share) in zip(axes, present, strict=False):
        ax.plot(m["tick"], m[col], color=COLOURS[0], linewidth=1.6)
        label(ax, title, "month", unit)
        if share:
            percent_axis(ax)
        mark_ticks(ax, run.shock_ticks())
    hide_unused(axes, len(present))
    return png_base64(fig)


def phillips_okun_html(macro: pd.DataFrame) -> str:
    """The Phillips/Okun figure, or an 'n/a, because ...' note when the run has too few years."""
    try:
        years = phillips_points(macro)[0].size
    except ValueError:
        years = 0
    return image_html(lambda: phillips_okun(macro), "Phillips and Okun",
                f"needs at least {MIN_YEARS} yearly points (a full year after the first) and this run has {years}")  # fmt: skip


@styled
def phillips_okun(macro: pd.DataFrame) -> str | None:
    """Annual Phillips curve and Okun's law scatter plots with fitted lines and r, p, n; None with fewer than
    MIN_YEARS annual points."""
    try:
        px, py = phillips_points(macro)
        ox, oy = okun_points(macro)
    except ValueError:
        return None
    if px.size < MIN_YEARS and ox.size < MIN_YEARS:
        return None
    fig, axes = figure(1, 2, height=4.6)
    for ax, (x, y), title, xl, yl in (
        (axes[0], (px, py), "Phillips curve", "unemployment rate (yearly mean)", "wage inflation (yearly)"),
        (
            axes[1],
            (ox, oy),
            "Okun's law",
            "relative change of the unemployment rate",
            "real GDP growth (yearly)",
        ),
    ):
        c = correlation(x, y)
        if c.n < MIN_YEARS or not np.isfinite(c.r):
            note(ax, f"{title}: n/a, because {c.n} yearly points\n(need {MIN_YEARS} with some spread)")
            continue
        scatter_fit(ax, x, y)
        label(ax, f"{title}: r = {c.r:+.2f}, p = {c.p:.2g}, {c.n} years", xl, yl)
        percent_axis(ax, "x")
        percent_axis(ax, "y")
    return png_base64(fig)


@styled
def wealth(run: RunData) -> str | None:
    """Real wealth (median and 10-90 % band) over time, and the Lorenz curve at the last tick."""
    col = run.wealth_column
    if col is None:
        return None
    w = run.panel(col)
    assert w is not None
    price = run.macro.set_index("tick")["price_level"].reindex(w.index) if "price_level" in run.macro else 1.0
    real = w.div(price, axis=0)
    fig, axes = figure(1, 2, height=4.6)
    band(axes[0], real.index, real.to_numpy(), COLOURS[0], "median household")
    axes[0].fill_between([], [], [], color=COLOURS[0], alpha=0.2, label="10-90 % of households")
    mark_ticks(axes[0], run.shock_ticks())
    label(axes[0], "real wealth per household", "month", "wealth / price level")
    legend_outside(axes[0])
    last = np.sort(np.clip(w.iloc[-1].dropna().to_numpy(), 0, None))
    if last.sum() > 0:
        cum = np.concatenate([[0], np.cumsum(last) / last.sum()])
        share = np.linspace(0, 1, cum.size)
        axes[1].plot(share, cum, color=COLOURS[1], linewidth=2, label="this run")
        axes[1].plot([0, 1], [0, 1], color="grey", linewidth=1, linestyle=":", label="perfect equality")
        legend_outside(axes[1])
        percent_axis(axes[1], "x")
        percent_axis(axes[1], "y")
    label(axes[1], "Lorenz curve of wealth, last month", "poorest share of households", "share of all wealth")
    return png_base64(fig)


@styled
def personas(run: RunData) -> str | None:
    """Each persona trait: a few sample agents' trajectories over the population's median and 10-90 % band."""
    panels = {t: p for t in TRAITS if (p := run.panel(t)) is not None}
    if not panels:
        return None
    cols = 4
    fig, axes = figure((len(panels) + cols - 1) // cols, cols, height=3.8)
    first = next(iter(panels.values()))
    rng = np.random.default_rng(0)
    sample = rng.choice(first.columns.to_numpy(), size=min(SAMPLE_AGENTS, first.shape[1]), replace=False)
    kinds = _archetypes(run)
    for ax, (trait, p) in zip(axes, panels.items(), strict=False):
        band(ax, p.index, p.to_numpy(), "#999999", "all households (median, 10-90 %)")
        for k, a in enumerate(sample):
            ax.plot(
                p.index,
                p[a],
                color=COLOURS[k % len(COLOURS)],
                linewidth=1.2,
                alpha=0.9,
                label=f"household {a}" + (f" ({kinds[a]})" if a in kinds else ""),
            )
        mark_ticks(ax, run.shock_ticks())
        label(
            ax,
            trait.replace("alloc_", "budget share: ").replace("_", " "),
            "month",
            TRAIT_SCALES.get(trait, "0 .. 1"),
        )
    hide_unused(axes, len(panels))
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=3)
    return png_base64(fig)


def _archetypes(run: RunData) -> dict[Any, str]:
    """Each household's persona archetype at the start (agents-table column `persona`), when recorded."""
    a = run.agent_frame("persona")
    if a is None or "persona" not in a.columns:
        return {}
    first = a[a["tick"] == a["tick"].min()]
    return dict(zip(first["agent_id"], first["persona"].astype(str), strict=True))


TRAIT_SCALES = {
    "optimism": "-1 gloomy .. +1 euphoric", "alloc_consume": "share of budget", "alloc_save": "share of budget",
    "alloc_invest": "share of budget", "alloc_rnd": "share of budget",
}  # fmt: skip


@styled
def assets(run: RunData) -> str | None:
    """Price (log scale) and returns of every asset in the assets table."""
    if run.assets is None or "price" not in run.assets.columns:
        return None
    series = asset_returns(run.assets)
    fig, axes = figure(1, 2, height=4.2)
    for k, (name, df) in enumerate(series.items()):
        c = COLOURS[k % len(COLOURS)]
        x = df.get("period", df.index)
        axes[0].plot(x, df["price"], color=c, linewidth=0.9, label=name)
        axes[1].plot(x, df["log_return"], color=c, linewidth=0.5, alpha=0.8)
    axes[0].set_yscale("log")
    label(axes[0], "asset prices (log scale)", "trading period", "price")
    legend_outside(axes[0])
    label(axes[1], "log returns", "trading period", "log return per period")
    return png_base64(fig)


@styled
def stylized(run: RunData) -> str | None:
    """Stylized-facts panel over all assets: ACF of r and |r| with the +-2/sqrt(T) band, return distribution
    against a normal, kurtosis against aggregation, volume against |r|."""
    if run.assets is None or "price" not in run.assets.columns:
        return None
    from scipy import stats

    series = asset_returns(run.assets)
    fig, axes = figure(2, 2, height=4.0)
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
    label(axes[0], "autocorrelation: r dotted, |r| solid", "lag (trading periods)", "autocorrelation")
    legend_outside(axes[0])
    label(
        axes[1],
        "standardised returns against a normal (black)",
        "return in standard deviations",
        "density (log)",
    )
    label(axes[2], "fat tails against aggregation", "periods summed", "excess kurtosis")
    axes[2].set_xscale("log")
    label(axes[3], "volume against size of return", "|log return|", "volume traded")
    return png_base64(fig)
