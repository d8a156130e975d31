"""Stylized-facts functions on series whose answers are known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from psychoagent.econ.markets.stats import acf, excess_kurtosis, facts_table, stylized_facts


def test_gaussian_noise_has_no_memory_and_no_fat_tails() -> None:
    r = np.random.default_rng(0).normal(0, 0.01, 20_000)
    facts = stylized_facts(r, np.ones_like(r))
    assert abs(facts["acf_r1"]) < facts["acf_band"] and abs(facts["acf_abs1"]) < 0.03
    assert abs(facts["kurtosis"]) < 0.15 and np.isnan(facts["corr_volume_abs"])


def test_volatility_regimes_show_up_as_clustering_and_fat_tails() -> None:
    rng = np.random.default_rng(1)
    sigma = np.repeat(rng.choice([0.005, 0.03], size=200), 50)
    r = rng.normal(0, 1, sigma.size) * sigma
    facts = stylized_facts(r, np.abs(r) * 100 + 1)
    assert facts["acf_abs1"] > 0.2 and facts["acf_abs10"] > 0.2 and facts["kurtosis"] > 1
    assert facts["corr_volume_abs"] == pytest.approx(1.0)


def test_helpers_on_small_cases() -> None:
    assert acf([1.0, -1.0, 1.0, -1.0, 1.0, -1.0], 1) == pytest.approx(-5 / 6)
    assert np.isnan(acf([1.0, 1.0, 1.0], 1)) and np.isnan(acf([1.0], 1))
    assert excess_kurtosis([1.0, -1.0] * 10) == pytest.approx(-2.0)
    frame = pd.DataFrame(
        {"asset": ["a"] * 40 + ["b"] * 40, "return": np.tile([0.01, -0.01], 40), "volume": 1.0}
    )
    assert list(facts_table(frame).index) == ["a", "b"]
