"""Small statistics used by every metric: Gini, Sharpe ratio, autocorrelation, kurtosis, entropy, t intervals.

Each function is pure, takes plain arrays and returns NaN (not an exception) when its input is too short or
has no spread, so a metric over a short or degenerate run is "not available" rather than a crash.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

NAN = float("nan")
ArrayLike = Sequence[float] | np.ndarray


def _finite(values: ArrayLike) -> np.ndarray:
    a = np.asarray(values, dtype=float).ravel()
    return a[np.isfinite(a)]


def gini(values: ArrayLike) -> float:
    """Gini coefficient of non-negative amounts (negative ones count as 0): 0 = equal, -> 1 = one holds all.

    Mean absolute difference form G = sum_ij |x_i - x_j| / (2 n^2 mean); NaN when empty or the total is 0.
    """
    x = np.clip(_finite(values), 0.0, None)
    n = x.size
    if n == 0 or x.sum() <= 0:
        return NAN
    x = np.sort(x)
    ranks = np.arange(1, n + 1)
    return float((2.0 * np.sum(ranks * x)) / (n * x.sum()) - (n + 1.0) / n)


def equality(values: ArrayLike) -> float:
    """AI Economist equality (Zheng et al. 2020): 1 - n/(n-1) x Gini, so one holder of everything gives 0."""
    x = _finite(values)
    n = x.size
    g = gini(x)
    if n < 2 or not np.isfinite(g):
        return NAN
    return float(1.0 - g * n / (n - 1.0))


def sharpe(returns: ArrayLike, risk_free: ArrayLike | float = 0.0, periods_per_year: int = 12) -> float:
    """Annualised Sharpe ratio: mean excess return / its standard deviation x sqrt(periods per year).

    `risk_free` is per period (a scalar or one value per return). NaN with fewer than 2 returns or no spread
    (a standard deviation under 1e-12, i.e. rounding noise).
    """
    r = np.asarray(returns, dtype=float).ravel()
    rf = np.broadcast_to(np.asarray(risk_free, dtype=float), r.shape)
    excess = _finite(r - rf)
    if excess.size < 2:
        return NAN
    sd = float(np.std(excess, ddof=1))
    if sd <= 1e-12:  # no spread beyond rounding noise: the ratio is undefined
        return NAN
    return float(np.mean(excess) / sd * np.sqrt(periods_per_year))


def volatility(returns: ArrayLike, periods_per_year: int = 12) -> float:
    """Annualised standard deviation of per-period returns (sample, ddof=1)."""
    r = _finite(returns)
    if r.size < 2:
        return NAN
    return float(np.std(r, ddof=1) * np.sqrt(periods_per_year))


def max_drawdown(levels: ArrayLike) -> float:
    """Largest fall from a running peak, as a fraction of that peak (0 = never fell)."""
    x = _finite(levels)
    if x.size < 2:
        return NAN
    peak = np.maximum.accumulate(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        dd = np.where(peak > 0, 1.0 - x / peak, 0.0)
    return float(np.max(dd))


def acf(values: ArrayLike, lags: int | Sequence[int] = 10) -> np.ndarray:
    """Sample autocorrelation at lags 1..lags (or the given lags): the usual biased estimator (Box-Jenkins).

    rho_k = sum_t (x_t - m)(x_{t+k} - m) / sum_t (x_t - m)^2; NaN where the lag is not shorter than the series.
    """
    x = _finite(values)
    wanted = list(range(1, lags + 1)) if isinstance(lags, int) else list(lags)
    out = np.full(len(wanted), NAN)
    if x.size < 3:
        return out
    d = x - x.mean()
    denom = float(np.dot(d, d))
    if denom <= 0:
        return out
    for i, k in enumerate(wanted):
        if 0 < k < x.size:
            out[i] = float(np.dot(d[:-k], d[k:]) / denom)
    return out


def excess_kurtosis(values: ArrayLike) -> float:
    """Excess kurtosis (Fisher, bias-uncorrected): 0 for a normal distribution, > 0 for heavy tails."""
    x = _finite(values)
    if x.size < 4 or np.ptp(x) == 0:
        return NAN
    return float(stats.kurtosis(x, fisher=True, bias=True))


def aggregate(returns: ArrayLike, horizon: int) -> np.ndarray:
    """Non-overlapping sums of `horizon` consecutive log returns (the return over the longer period)."""
    x = _finite(returns)
    if horizon < 1:
        raise ValueError(f"horizon must be >= 1, got {horizon}")
    n = x.size // horizon
    return x[: n * horizon].reshape(n, horizon).sum(axis=1)


def log_returns(prices: ArrayLike) -> np.ndarray:
    """ln(P_t / P_{t-1}); NaN where a price is not positive."""
    p = np.asarray(prices, dtype=float).ravel()
    if p.size < 2:
        return np.empty(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((p[1:] > 0) & (p[:-1] > 0), np.log(p[1:] / p[:-1]), np.nan)


def entropy_bits(counts: ArrayLike) -> float:
    """Shannon entropy in bits of a distribution given by counts (0 for one category, NaN when empty)."""
    c = _finite(counts)
    c = c[c > 0]
    if c.size == 0:
        return NAN
    p = c / c.sum()
    return float(-np.sum(p * np.log2(p)) + 0.0)


@dataclass(frozen=True)
class Interval:
    """Mean with a two-sided t confidence interval over independent samples (e.g. seeds)."""

    mean: float
    low: float
    high: float
    n: int
    sd: float

    @property
    def half_width(self) -> float:
        """Distance from the mean to either end."""
        return (self.high - self.low) / 2.0

    def excludes(self, value: float = 0.0) -> bool:
        """Whether `value` lies outside the interval (False when undefined)."""
        return bool(np.isfinite(self.low) and np.isfinite(self.high) and not self.low <= value <= self.high)


def mean_ci(samples: ArrayLike, level: float = 0.95) -> Interval:
    """Mean and t-distribution interval mean +- t_{(1+level)/2, n-1} s / sqrt(n); bounds NaN when n < 2."""
    x = _finite(samples)
    n = int(x.size)
    if n == 0:
        return Interval(NAN, NAN, NAN, 0, NAN)
    m = float(x.mean())
    if n < 2:
        return Interval(m, NAN, NAN, 1, NAN)
    sd = float(np.std(x, ddof=1))
    half = float(stats.t.ppf((1.0 + level) / 2.0, n - 1) * sd / np.sqrt(n))
    return Interval(m, m - half, m + half, n, sd)


def paired_difference(a: ArrayLike, b: ArrayLike, level: float = 0.95) -> Interval:
    """Interval of mean(a_i - b_i) over pairs where both are finite (same seeds for both conditions)."""
    x, y = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"paired samples need the same length, got {x.shape} and {y.shape}")
    return mean_ci(x - y, level)
