"""Stylized facts of a return series (Cont 2001) as pure functions: what assets.csv is checked against."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike


def acf(x: ArrayLike, lag: int) -> float:
    """Sample autocorrelation at `lag` (NaN when the series is constant or too short)."""
    a = np.asarray(x, dtype=float)
    if lag < 1 or a.size <= lag:
        return float("nan")
    a = a - a.mean()
    denom = float((a * a).sum())
    return float((a[:-lag] * a[lag:]).sum() / denom) if denom > 0 else float("nan")


def excess_kurtosis(x: ArrayLike) -> float:
    """Fourth standardised moment minus 3 (0 for a normal distribution; NaN for a constant series)."""
    a = np.asarray(x, dtype=float)
    a = a - a.mean()
    var = float((a * a).mean())
    return float((a**4).mean() / var**2 - 3.0) if var > 0 else float("nan")


def corr(x: ArrayLike, y: ArrayLike) -> float:
    """Pearson correlation (NaN when either side is constant)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size < 2 or a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def stylized_facts(returns: ArrayLike, volume: ArrayLike, aggregate: int = 20) -> dict[str, float]:
    """Cont's checks on one series: ACF(r) at lag 1 with its +-2/sqrt(T) band, ACF(|r|) at lags 1-10,
    excess kurtosis at the base and an aggregated horizon, corr(volume, |r|) and leverage corr(r, |r_next|)."""
    r = np.asarray(returns, dtype=float)
    v = np.asarray(volume, dtype=float)
    out: dict[str, float] = {
        "periods": float(r.size),
        "sd": float(r.std()),
        "zero_share": float((r == 0).mean()),
    }
    out["acf_r1"] = acf(r, 1)
    out["acf_band"] = 2.0 / np.sqrt(max(r.size, 1))
    for lag in range(1, 11):
        out[f"acf_abs{lag}"] = acf(np.abs(r), lag)
    out["kurtosis"] = excess_kurtosis(r)
    m = r.size // aggregate
    out[f"kurtosis_{aggregate}"] = (
        excess_kurtosis(r[: m * aggregate].reshape(m, aggregate).sum(axis=1)) if m > 3 else float("nan")
    )
    out["corr_volume_abs"] = corr(v, np.abs(r))
    out["leverage"] = corr(r[:-1], np.abs(r[1:])) if r.size > 2 else float("nan")
    return out


def facts_table(assets: pd.DataFrame, aggregate: int = 20) -> pd.DataFrame:
    """stylized_facts for every asset of an assets.csv frame (one row per asset)."""
    rows = {name: stylized_facts(g["return"], g["volume"], aggregate) for name, g in assets.groupby("asset")}
    return pd.DataFrame.from_dict(rows, orient="index")
