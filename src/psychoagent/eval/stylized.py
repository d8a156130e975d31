"""Stylized facts of asset returns (Cont 2001, "Empirical properties of asset returns") over the assets table.

Per asset: ACF of returns (near 0), ACF of |returns| at lags 1-10 (positive, slowly decaying: volatility
clustering), excess kurtosis (> 0: heavy tails) and how it falls as returns are aggregated, the correlation of
volume with |return|, and the leverage effect corr(r_t, |r_{t+1}|) (< 0 for equities); over months, the lag-1
ACF of close-to-close monthly returns (near 0), and the share of auctions that traded. Values are averaged over
assets; the per-asset numbers are kept for the report, whose table says which facts hold (`CHECKS`).
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


def monthly_acf1(df: pd.DataFrame) -> float:
    """Lag-1 ACF of close-to-close monthly log returns of one asset's rows (the last auction price of each tick);
    NaN without a `tick` column or with fewer than 4 months."""
    if "tick" not in df.columns:
        return NAN
    close = df.groupby("tick", sort=True)["price"].last().to_numpy(dtype=float)
    r = log_returns(close)
    return float(acf(r, 1)[0]) if r.size >= 3 else NAN


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
    "volume_abs_return_corr", "leverage", "volatility", "acf_month1", "traded_share",
)  # fmt: skip

MONTHLY_ACF_BAND = 0.1
"""|lag-1 ACF of monthly returns| at or below this counts as no linear autocorrelation (240 months: 2/sqrt(T) is
0.13, so a single run's value is noisy; the band is for means over seeds, and one run is judged by it too)."""
TRADED_SHARE = 0.8
"""At least this share of auctions should trade (a market that clears)."""
CHECKS: tuple[tuple[str, str, str, Any], ...] = (
    ("returns unpredictable (monthly)", "acf_month1", f"|ACF(1)| <= {MONTHLY_ACF_BAND}",
     lambda v: abs(v) <= MONTHLY_ACF_BAND),
    ("auctions that trade", "traded_share", f">= {TRADED_SHARE:.0%}", lambda v: v >= TRADED_SHARE),
    ("fat tails", "kurtosis", "excess kurtosis > 0", lambda v: v > 0),
    ("volatility clustering", "acf_abs_mean_1_10", "mean ACF |r| lags 1-10 > 0", lambda v: v > 0),
    ("volume follows |return|", "volume_abs_return_corr", "corr > 0", lambda v: v > 0),
    ("leverage effect", "leverage", "corr(r, |r next|) < 0", lambda v: v < 0),
)  # fmt: skip
"""(fact, per-asset key, what holding means, test) for the report's per-asset table."""


def fact_checks(per: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the per-asset table: each fact's value and whether it holds (n/a when not measured)."""
    header = ["asset", *(f"{name} ({rule})" for name, _, rule, _ in CHECKS)]
    rows = []
    for asset, p in per.items():
        row = [asset]
        for _, key, _, test in CHECKS:
            v = p.get(key)
            ok = v is not None and np.isfinite(v)
            row.append(f"{v:.3g} {'holds' if test(v) else 'not met'}" if ok else "n/a")
        rows.append(row)
    return header, rows


def stylized_facts(assets: pd.DataFrame | None) -> tuple[dict[str, float], dict[str, Any]]:
    """(scalar facts averaged over assets with keys 'stylized.*', per-asset details) ; ({}, {}) without data."""
    if assets is None or assets.empty or not {"asset", "price"} <= set(assets.columns):
        return {}, {}
    per: dict[str, Any] = {}
    for name, df in asset_returns(assets).items():
        vol = df["volume"].to_numpy(dtype=float) if "volume" in df.columns else None
        per[name] = facts(df["log_return"].to_numpy(), vol)
        per[name]["acf_month1"] = monthly_acf1(df)
        per[name]["traded_share"] = float((vol > 0).mean()) if vol is not None and vol.size else NAN
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
