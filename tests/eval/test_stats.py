"""Statistics against values computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from psychoagent.eval.macro import correlation
from psychoagent.eval.stats import (
    acf,
    aggregate,
    entropy_bits,
    equality,
    excess_kurtosis,
    gini,
    max_drawdown,
    mean_ci,
    paired_difference,
    sharpe,
    volatility,
)


def test_gini_of_equal_wealth_is_zero() -> None:
    assert gini([5.0, 5.0, 5.0, 5.0]) == pytest.approx(0.0, abs=1e-12)


def test_gini_of_one_holder() -> None:
    # n = 4, one holds everything: G = (n - 1) / n = 0.75; AI Economist equality = 1 - n/(n-1) G = 0
    assert gini([0, 0, 0, 10]) == pytest.approx(0.75)
    assert equality([0, 0, 0, 10]) == pytest.approx(0.0)
    assert equality([3, 3, 3]) == pytest.approx(1.0)


def test_gini_by_hand() -> None:
    # x = 1, 2, 3: sum |xi - xj| over ordered pairs = 8, G = 8 / (2 * 9 * 2) = 2/9
    assert gini([3, 1, 2]) == pytest.approx(2.0 / 9.0)


def test_sharpe_of_known_series() -> None:
    r = [0.01, 0.03, 0.02, 0.04]  # mean 0.025, sample sd sqrt(0.0005/3)
    sd = math.sqrt(0.0005 / 3.0)
    assert sharpe(r, 0.0, periods_per_year=1) == pytest.approx(0.025 / sd)
    assert sharpe(r, 0.005, periods_per_year=12) == pytest.approx(0.02 / sd * math.sqrt(12))
    assert volatility(r, periods_per_year=1) == pytest.approx(sd)
    assert math.isnan(sharpe([0.01, 0.01, 0.01]))  # no spread


def test_max_drawdown() -> None:
    assert max_drawdown([100, 120, 90, 130, 65]) == pytest.approx(0.5)
    assert max_drawdown([1, 2, 3]) == 0.0


def test_acf_of_alternating_series() -> None:
    x = np.array([1.0, -1.0] * 50)
    rho = acf(x, 2)
    # biased estimator: rho_k = (n - k) / n x (-1)^k for a +-1 alternation
    assert rho[0] == pytest.approx(-99 / 100)
    assert rho[1] == pytest.approx(98 / 100)


def test_acf_by_hand() -> None:
    x = [1.0, 2.0, 3.0, 4.0]  # mean 2.5, d = -1.5 -0.5 0.5 1.5, sum d^2 = 5
    assert acf(x, 1)[0] == pytest.approx((0.75 - 0.25 + 0.75) / 5.0)
    assert math.isnan(acf(x, [5])[0])


def test_kurtosis_and_aggregation() -> None:
    rng = np.random.default_rng(3)
    heavy = rng.standard_t(3, size=20000)
    assert excess_kurtosis(heavy) > 2.0
    assert abs(excess_kurtosis(rng.normal(size=20000))) < 0.2
    assert aggregate([1, 2, 3, 4, 5], 2).tolist() == [3.0, 7.0]


def test_entropy_bits() -> None:
    assert entropy_bits([5, 5]) == pytest.approx(1.0)
    assert entropy_bits([1, 1, 1, 1]) == pytest.approx(2.0)
    assert entropy_bits([7]) == 0.0


def test_confidence_interval_of_known_samples() -> None:
    ci = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    # mean 3, s = sqrt(2.5), t_{0.975, 4} = 2.7764451
    half = 2.7764451051977987 * math.sqrt(2.5) / math.sqrt(5)
    assert ci.mean == pytest.approx(3.0)
    assert (ci.low, ci.high) == pytest.approx((3.0 - half, 3.0 + half))
    assert ci.n == 5 and ci.excludes(0.0) and not ci.excludes(3.0)
    one = mean_ci([2.0])
    assert one.mean == 2.0 and math.isnan(one.low)


def test_paired_difference() -> None:
    d = paired_difference([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])
    assert d.mean == pytest.approx(1.0) and d.low == pytest.approx(1.0) and d.high == pytest.approx(1.0)


def test_phillips_r_on_constructed_series() -> None:
    u = np.array([0.04, 0.05, 0.06, 0.07, 0.08])
    w = 0.1 - 1.0 * u
    c = correlation(u, w)
    assert c.r == pytest.approx(-1.0) and c.n == 5
