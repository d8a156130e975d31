"""Macro regularities of a simulated economy as pure functions over macro-table frames.

EconAgent (Li et al., ACL 2024) checks two: the Phillips curve (annual wage inflation falls as unemployment
rises: corr(unemployment, wage inflation) < 0) and Okun's law (corr(unemployment growth, real GDP growth) < 0).
With 240 months there are 19 annual points; r <= -0.456 is significant at p < 0.05.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

REQUIRED = ("tick", "price_level", "wage", "unemployment", "real_gdp")


@dataclass(frozen=True)
class Correlation:
    """Pearson correlation with its two-sided p-value and the number of points."""

    r: float
    p: float
    n: int

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether p < alpha (False when undefined)."""
        return bool(np.isfinite(self.p) and self.p < alpha)

    def __str__(self) -> str:
        return f"r={self.r:+.3f}, p={self.p:.3g}, n={self.n}"


def correlation(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> Correlation:
    """Pearson r over the pairs where both values are finite; r = p = NaN with fewer than 3 pairs or no spread."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"x and y need the same length, got {a.shape} and {b.shape}")
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    n = int(a.size)
    if n < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return Correlation(float("nan"), float("nan"), n)
    res = stats.pearsonr(a, b)
    return Correlation(float(res[0]), float(res[1]), n)


def annual(macro: pd.DataFrame, months: int = 12) -> pd.DataFrame:
    """Yearly aggregates of a monthly macro frame (full years only).

    Columns: year, unemployment (mean), price_level (mean), wage (mean), real_gdp (sum), and growth rates
    against the previous year: inflation, wage_inflation, real_gdp_growth, unemployment_growth (relative) and
    unemployment_change (points). The first year has NaN growth rates.
    """
    missing = [c for c in REQUIRED if c not in macro.columns]
    if missing:
        raise ValueError(f"macro frame lacks columns {missing}; needs {list(REQUIRED)}")
    df = macro[macro["tick"] >= 1].sort_values("tick")
    years = (df["tick"].to_numpy() - 1) // months
    df = df.assign(year=years)
    counts = df.groupby("year")["tick"].count()
    full = counts[counts == months].index
    g = df[df["year"].isin(full)].groupby("year")
    out = pd.DataFrame({
        "unemployment": g["unemployment"].mean(), "price_level": g["price_level"].mean(),
        "wage": g["wage"].mean(), "real_gdp": g["real_gdp"].sum(),
    })  # fmt: skip
    prev = out.shift(1)
    out["inflation"] = out["price_level"] / prev["price_level"] - 1.0
    out["wage_inflation"] = out["wage"] / prev["wage"] - 1.0
    out["real_gdp_growth"] = out["real_gdp"] / prev["real_gdp"] - 1.0
    out["unemployment_change"] = out["unemployment"] - prev["unemployment"]
    with np.errstate(divide="ignore", invalid="ignore"):
        growth = out["unemployment"] / prev["unemployment"].where(prev["unemployment"] > 0) - 1.0
    out["unemployment_growth"] = growth
    return out.reset_index()


def phillips_points(macro: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(annual unemployment, annual wage inflation) for every year that has a previous year."""
    a = annual(macro).dropna(subset=["wage_inflation"])
    return a["unemployment"].to_numpy(), a["wage_inflation"].to_numpy()


def okun_points(
    macro: pd.DataFrame, unemployment: Literal["growth", "change"] = "growth"
) -> tuple[np.ndarray, np.ndarray]:
    """(unemployment growth or change, real GDP growth) per year; 'growth' is EconAgent's relative form."""
    a = annual(macro)
    col = "unemployment_growth" if unemployment == "growth" else "unemployment_change"
    a = a.dropna(subset=[col, "real_gdp_growth"])
    return a[col].to_numpy(), a["real_gdp_growth"].to_numpy()


def phillips_curve(macro: pd.DataFrame) -> Correlation:
    """Correlation of annual unemployment with annual wage inflation (negative = a Phillips curve)."""
    return correlation(*phillips_points(macro))


def okun_law(macro: pd.DataFrame, unemployment: Literal["growth", "change"] = "growth") -> Correlation:
    """Correlation of annual unemployment growth with real GDP growth (negative = Okun's law)."""
    return correlation(*okun_points(macro, unemployment))


def pooled(runs: Iterable[tuple[np.ndarray, np.ndarray]]) -> Correlation:
    """Correlation over the annual points of several runs taken together (e.g. several seeds)."""
    pairs = list(runs)
    if not pairs:
        return Correlation(float("nan"), float("nan"), 0)
    return correlation(np.concatenate([x for x, _ in pairs]), np.concatenate([y for _, y in pairs]))
