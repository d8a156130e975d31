"""Stylized facts of asset returns (Cont 2001, "Empirical properties of asset returns") over assets.csv.

Per asset: ACF of returns (near 0), ACF of |returns| at lags 1-10 (positive, slowly decaying: volatility
clustering), excess kurtosis (> 0: heavy tails) and how it falls as returns are aggregated, the correlation of
volume with |return|, and the leverage effect corr(r_t, |r_{t+1}|) (< 0 for equities). Values are averaged over
assets; the per-asset numbers are kept for the report.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from psychoagent.eval.macro import correlation
from psychoagent.eval.stats import NAN, acf, aggregate, excess_kurtosis, log_returns

AGGREGATION = (1, 5, 20)
"""Horizons (trading periods) at which kurtosis is measured; 20 periods are about a month of trading days."""
ACF_LAGS = 10


def asset_returns(assets: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per asset, its rows sorted by period with a `log_return` column (from `price` when the file's `return`
    column is missing or not a log return)."""
    order = "period" if "period" in assets.columns else "tick"
    out: dict[str, pd.DataFrame] = {}
    for name, df in assets.groupby("asset", sort=True):
        df = df.sort_values(order).reset_index(drop=True)
        lr = np.concatenate([[np.nan], log_returns(df["price"].to_numpy())])
        out[str(name)] = df.assign(log_return=lr)
    return out


def facts(returns: np.ndarray, volume: np.ndarray | None = None) -> dict[str, Any]:
    """Stylized facts of one return series (NaNs dropped; volume aligned with returns when given)."""
    r = np.asarray(returns, dtype=float)
    keep = np.isfinite(r)
    vol = None if volume is None else np.asarray(volume, dtype=float)[keep]
    r = r[keep]
    n = int(r.size)
    abs_acf = acf(np.abs(r), ACF_LAGS)
    kurt = {h: excess_kurtosis(aggregate(r, h)) if r.size >= 4 * h else NAN for h in AGGREGATION}
    out: dict[str, Any] = {
        "n": n,
        "acf_r1": float(acf(r, 1)[0]),
        "acf_band": 2.0 / np.sqrt(n) if n else NAN,
        "acf_abs_lags": abs_acf.tolist(),
        "acf_abs_mean_1_10": float(np.nanmean(abs_acf)) if np.isfinite(abs_acf).any() else NAN,
        "acf_r_lags": acf(r, ACF_LAGS).tolist(),
        "kurtosis": kurt[1],
        **{f"kurtosis_agg{h}": kurt[h] for h in AGGREGATION if h > 1},
        "kurtosis_change": kurt[AGGREGATION[-1]] - kurt[1],
        "volume_abs_return_corr": correlation(vol, np.abs(r)).r if vol is not None else NAN,
        "leverage": correlation(r[:-1], np.abs(r[1:])).r if n > 3 else NAN,
        "volatility": float(np.std(r, ddof=1)) if n > 1 else NAN,
    }
    return out


SCALARS = (
    "acf_r1", "acf_abs_mean_1_10", "kurtosis", "kurtosis_agg5", "kurtosis_agg20", "kurtosis_change",
    "volume_abs_return_corr", "leverage", "volatility",
)  # fmt: skip


def stylized_facts(assets: pd.DataFrame | None) -> tuple[dict[str, float], dict[str, Any]]:
    """(scalar facts averaged over assets with keys 'stylized.*', per-asset details) ; ({}, {}) without data."""
    if assets is None or assets.empty or not {"asset", "price"} <= set(assets.columns):
        return {}, {}
    per: dict[str, Any] = {}
    for name, df in asset_returns(assets).items():
        vol = df["volume"].to_numpy(dtype=float) if "volume" in df.columns else None
        per[name] = facts(df["log_return"].to_numpy(), vol)
    flat: dict[str, float] = {}
    for key in SCALARS:
        vals = np.array([p[key] for p in per.values()], dtype=float)
        flat[f"stylized.{key}"] = float(np.nanmean(vals)) if np.isfinite(vals).any() else NAN
    flat["stylized.acf_r1_inside_band"] = float(
        np.mean(
            [abs(p["acf_r1"]) <= p["acf_band"] for p in per.values() if np.isfinite(p["acf_r1"])] or [NAN]
        )
    )
    return flat, per
