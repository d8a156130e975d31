"""Metrics over hand-made run directories and frames, checked against values worked out by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from psychoagent.eval.behaviour import (
    adaptability,
    explained_share,
    persona_consistency,
    recovery_ticks,
    robustness,
    strategy_diversity,
    strategy_labels,
)
from psychoagent.eval.metrics import compute_metrics, write_metrics
from psychoagent.eval.social import reputations, social_metrics
from psychoagent.eval.stylized import facts, stylized_facts

YEARS = 5
U = [0.04, 0.06, 0.05, 0.08, 0.03]


def _macro() -> pd.DataFrame:
    """Five years of months: unemployment constant within a year, annual mean wage growth 0.1 - u (Phillips
    r = -1), real GDP falling when unemployment grows (Okun r < 0), prices rising 2 % a year."""
    rows, wage = [], 20.0
    for y in range(YEARS):
        if y:
            wage *= 1.0 + 0.1 - U[y]
        for m in range(12):
            t = 12 * y + m + 1
            rows.append({"tick": t, "price_level": 10.0 * 1.02 ** (t / 12), "wage": wage, "unemployment": U[y],
                         "real_gdp": 1000.0 * (1.0 - U[y]), "interest_rate": 0.03, "gini": 0.2})  # fmt: skip
    return pd.DataFrame(rows)


def _run_dir(tmp: Path, equal: bool = True) -> Path:
    macro = _macro()
    macro.to_csv(tmp / "macro.csv", index=False)
    shocks = [{"kind": "demand_shock", "start": 25, "duration": 6, "factor": 0.8}]
    config = {"seed": 1, "agents": 4, "policy": "persona", "scenario": {"name": "t", "shocks": shocks}}
    (tmp / "config.json").write_text(json.dumps(config))
    rows = []
    for t in macro["tick"]:
        for a in range(4):
            price = float(macro["price_level"].iloc[t - 1])
            wealth = 10.0 * price * (1.0 if equal else a + 1.0)  # real wealth 10: keeps pace with prices
            rows.append({"tick": t, "agent_id": a, "wealth": wealth * (0.9 if 25 <= t < 30 else 1.0),
                         "consume_share": 0.2 + 0.1 * a, "alloc_consume": 0.3 + 0.05 * a, "worked": int(a % 2),
                         "optimism": 0.1 * ((a * 7) % 3), "risk_preference": 0.5})  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp / "agents.csv", index=False)
    events = [{"tick": 3, "type": "negotiation.offer", "payload": {"buyer": 1, "seller": 2}}]
    events += [{"tick": 3, "type": "negotiation.accepted", "payload": {"buyer": 1, "seller": 2}}] * 3
    events += [{"tick": 4, "type": "negotiation.broken", "payload": {"buyer": 1, "seller": 3}}]
    (tmp / "events.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    return tmp


def test_run_directory_metrics(tmp_path: Path) -> None:
    result = compute_metrics(_run_dir(tmp_path))
    m = result["metrics"]
    assert m["welfare.gini"] == pytest.approx(0.0, abs=1e-12)
    assert m["welfare.equality"] == pytest.approx(1.0)
    assert m["welfare.productivity"] == pytest.approx(10.0)  # mean real wealth at the last tick
    assert m["macro.phillips_r"] == pytest.approx(-1.0) and m["macro.phillips_n"] == YEARS - 1
    assert m["macro.okun_r"] < 0
    # real wealth falls 10 % at month 25 and is back at month 30: 5 months to recover, every agent recovers
    assert m["adaptability.recovery_ticks"] == 5.0
    assert m["adaptability.agent_recovered_share"] == 1.0
    assert m["social.cooperation_rate"] == pytest.approx(0.75)
    assert m["social.broken_rate"] == pytest.approx(0.25)
    # spending share is an exact linear function of alloc_consume
    assert m["persona_consistency.consume_share_r2"] == pytest.approx(1.0)
    assert "stylized" in result["not_available"] and "stylized.kurtosis" not in m  # no assets.csv


def test_metrics_json_marks_missing_groups(tmp_path: Path) -> None:
    _run_dir(tmp_path)
    (tmp_path / "agents.csv").unlink()
    (tmp_path / "events.jsonl").unlink()
    result = write_metrics(tmp_path)
    data = json.loads((tmp_path / "metrics.json").read_text())
    assert data["metrics"] == result["metrics"]
    for group in ("stylized", "social", "robustness", "adaptability", "cognition"):
        assert group in data["not_available"]
    assert data["metrics"]["macro.phillips_r"] == pytest.approx(-1.0)


def test_not_a_run_directory(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"config\.json"):
        compute_metrics(tmp_path)


def test_recovery_ticks() -> None:
    s = pd.Series([10, 10, 8, 7, 9, 10, 11], index=range(1, 8))
    assert recovery_ticks(s, 3) == (3.0, True)  # back to 10 at tick 6
    assert recovery_ticks(s, 6) == (0.0, True)  # never below 10 after tick 6
    assert recovery_ticks(pd.Series([5, 4, 3], index=[1, 2, 3]), 2) == (2.0, False)  # censored


def test_adaptability_without_shocks_is_nan() -> None:
    w = pd.DataFrame({0: [1.0, 2.0]}, index=[1, 2])
    out = adaptability(w, pd.Series([1.0, 1.0], index=[1, 2]), [])
    assert all(math.isnan(v) for v in out.values())


def test_robustness_of_constant_growth() -> None:
    w = pd.DataFrame({0: 100 * 1.01 ** np.arange(13), 1: 100 * 1.01 ** np.arange(13)}, index=range(1, 14))
    out = robustness(w)
    assert out["volatility_median_agent"] == pytest.approx(0.0, abs=1e-9)
    assert math.isnan(out["sharpe_median_agent"])  # no spread, Sharpe undefined
    assert out["max_drawdown_mean_wealth"] == 0.0


def test_explained_share() -> None:
    rng = np.random.default_rng(0)
    traits = rng.random((200, 3))
    assert explained_share(traits, 2 * traits[:, 0] - traits[:, 2]) == pytest.approx(1.0)
    assert abs(explained_share(traits, rng.random(200))) < 0.05
    panel = pd.DataFrame(traits[:, :1].T)
    assert persona_consistency({"alloc_consume": panel}, {"consume_share": panel * 3})[
        "score"
    ] == pytest.approx(1.0)


def test_strategy_diversity() -> None:
    # 2 windows of 2 ticks, 4 agents; window 1: all 'work, spend little' ; window 2: two new strategies
    worked = pd.DataFrame([[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 0, 0], [1, 1, 0, 0]], index=[1, 2, 3, 4])
    spend = pd.DataFrame(
        [[0.1] * 4, [0.1] * 4, [0.1, 0.1, 0.9, 0.5], [0.1, 0.1, 0.9, 0.5]], index=[1, 2, 3, 4]
    )
    labels = strategy_labels({"worked": worked, "consume_share": spend}, window=2)
    assert labels.iloc[0].tolist() == ["0-4"] * 4
    out = strategy_diversity(labels)
    assert out["entropy_bits"] == pytest.approx((0.0 + 1.5) / 2)  # window 2: counts 2, 1, 1 -> 1.5 bits
    assert out["novel_share"] == pytest.approx(0.5) and out["new_strategies"] == 2.0


def test_social_without_negotiations_is_empty() -> None:
    assert social_metrics([{"type": "news.published"}]) == {}
    reps = reputations([{"type": "negotiation.accepted", "payload": {"buyer": 1, "seller": 2}},
                        {"type": "negotiation.broken", "payload": {"buyer": 1, "seller": 3}}])  # fmt: skip
    assert reps == {"1": 0.5, "2": 1.0, "3": 0.0}


@pytest.mark.filterwarnings("ignore::scipy.stats.NearConstantInputWarning")  # |r| is constant by construction
def test_stylized_facts_of_constructed_returns(tmp_path: Path) -> None:
    r = np.array([0.01, -0.01] * 100)
    f = facts(r)
    assert f["acf_r1"] == pytest.approx(-199 / 200)
    assert f["n"] == 200 and f["acf_band"] == pytest.approx(2 / math.sqrt(200))
    prices = 100 * np.exp(np.cumsum(np.concatenate([[0.0], r])))
    assets = pd.DataFrame({"period": np.arange(len(prices)), "tick": 1, "asset": "A", "price": prices,
                           "volume": 5.0})  # fmt: skip
    flat, per = stylized_facts(assets)
    assert flat["stylized.acf_r1"] == pytest.approx(-199 / 200)
    assert per["A"]["n"] == 200
    assert stylized_facts(None) == ({}, {})


def test_adaptability_skips_booms() -> None:
    # a boom at tick 3 (wealth rises: nothing to recover) and a slump at tick 6 recovered at tick 8
    w = pd.DataFrame({0: [10, 10, 12, 12, 12, 9, 10, 12, 12]}, index=range(1, 10), dtype=float)
    out = adaptability(w, pd.Series(1.0, index=w.index), [3, 6])
    assert out["recovery_ticks"] == 2.0 and out["agent_recovered_share"] == 1.0
