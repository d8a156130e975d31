"""The `experience.` metrics on constructed run files whose right answers are known by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from psychoagent.eval.experience import crashes, disposition, risky_share, second_loss_ratio, shock_losses
from psychoagent.eval.metrics import compute_metrics
from psychoagent.eval.rundata import RunData

MONTHS = 60


def _write(folder: Path, shocks: list[dict], wealth: dict[int, list[float]], prices: dict[str, list[float]],
           fills: list[tuple[int, int, str, str, float, float]], price_level: list[float] | None = None) -> Path:  # fmt: skip
    """A run folder: config with `shocks`, macro with a price level, agents' wealth, monthly asset prices and fills
    (tick, agent, instrument, side, quantity, price)."""
    folder.mkdir(parents=True, exist_ok=True)
    months = len(next(iter(wealth.values())))
    (folder / "config.json").write_text(json.dumps({"agents": len(wealth), "scenario": {"shocks": shocks}}))
    level = price_level or [1.0] * months
    pd.DataFrame(
        {
            "tick": range(1, months + 1),
            "price_level": level,
            "unemployment": 0.05,
            "wage": 1.0,
            "real_gdp": 1.0,
        }
    ).to_csv(folder / "macro.csv", index=False)
    rows = [{"tick": t + 1, "agent_id": a, "wealth": w[t]} for a, w in wealth.items() for t in range(months)]
    pd.DataFrame(rows).to_csv(folder / "agents.csv", index=False)
    assets = [{"period": t + 1, "tick": t + 1, "round": 0, "asset": name, "price": p[t]} for name, p in prices.items()
              for t in range(months)]  # fmt: skip
    pd.DataFrame(assets).to_csv(folder / "assets.csv", index=False)
    with (folder / "events.jsonl").open("w") as f:
        for tick, agent, inst, side, qty, px in fills:
            payload = {"agent_id": agent, "instrument": inst, "side": side, "quantity": qty, "price": px}
            f.write(json.dumps({"type": "market.order_filled", "tick": tick, "payload": payload}) + "\n")
    return folder


def test_risky_share_change_after_a_crash(tmp_path: Path) -> None:
    # one household, wealth 100; holds 5 units at price 10 (share 0.5) until the crash at 20, then sells 3 (0.2)
    fills = [(1, 1, "stock:tech", "BUY", 5.0, 10.0), (20, 1, "stock:tech", "SELL", 3.0, 10.0),
             (2, 1, "bond", "BUY", 50.0, 1.0)]  # fmt: skip
    run = RunData.open(_write(tmp_path / "r", [{"kind": "demand_shock", "start": 20, "factor": 0.7}],
                              {1: [100.0] * MONTHS}, {"stock:tech": [10.0] * MONTHS, "bond": [1.0] * MONTHS}, fills))  # fmt: skip
    share = risky_share(run)
    assert share is not None
    # wealth is money: risky 50 of 150 before, 20 of 120 after
    assert share.loc[10, 1] == pytest.approx(1 / 3) and share.loc[40, 1] == pytest.approx(1 / 6)
    metrics = compute_metrics(run.path)["metrics"]
    assert metrics["experience.risky_share_change_after_crash"] == pytest.approx(-1 / 6)


def test_fills_name_households_by_index_and_the_agents_table_by_id(tmp_path: Path) -> None:
    """As the model writes them: agents-table ids 4 and 5 (after the firms'), fills by household index 0 and 1;
    household 1 (id 5) holds 50 in stocks beside 100 of money, household 0 (id 4) 100 beside 1000."""
    fills = [(1, 0, "stock:tech", "BUY", 10.0, 10.0), (1, 1, "stock:tech", "BUY", 5.0, 10.0)]
    run = RunData.open(_write(tmp_path / "r", [], {4: [1000.0] * MONTHS, 5: [100.0] * MONTHS},
                              {"stock:tech": [10.0] * MONTHS}, fills))  # fmt: skip
    share = risky_share(run)
    assert share is not None
    assert share.loc[10, 4] == pytest.approx(100 / 1100) and share.loc[10, 5] == pytest.approx(50 / 150)


def test_the_agents_tables_risky_value_counts_what_was_held_from_the_opening(tmp_path: Path) -> None:
    """A run that records `risky_value` is read from it: the opening's holdings count though no fill bought them."""
    folder = _write(tmp_path / "r", [], {4: [100.0] * MONTHS}, {"stock:tech": [10.0] * MONTHS}, [])
    agents = pd.read_csv(folder / "agents.csv")
    agents["risky_value"] = 25.0
    agents.to_csv(folder / "agents.csv", index=False)
    share = risky_share(RunData.open(folder))
    assert share is not None and share.loc[10, 4] == pytest.approx(25 / 125)


def test_only_adverse_shocks_are_crashes(tmp_path: Path) -> None:
    shocks = [{"kind": "demand_shock", "start": 10, "factor": 1.2}, {"kind": "rate_shock", "start": 10, "delta": -0.01},
              {"kind": "rate_shock", "start": 30, "delta": 0.03}, {"kind": "policy_change", "start": 40, "tax_scale": 1.5},
              {"kind": "market_crash", "start": 50, "factor": 0.6}]  # fmt: skip
    run = RunData.open(_write(tmp_path / "r", shocks, {1: [1.0] * MONTHS}, {"stock:a": [1.0] * MONTHS}, []))
    assert crashes(run) == [(30, "rate_shock"), (40, "policy_change"), (50, "market_crash")]


def test_second_like_shock_loss_over_the_first(tmp_path: Path) -> None:
    wealth = [100.0] * MONTHS
    for t in range(9, 15):
        wealth[t] = 80.0  # first shock at month 10: 20 % down
    for t in range(39, 45):
        wealth[t] = 90.0  # second at month 40: 10 % down
    shocks = [
        {"kind": "demand_shock", "start": 10, "factor": 0.7},
        {"kind": "demand_shock", "start": 40, "factor": 0.7},
    ]
    run = RunData.open(
        _write(tmp_path / "r", shocks, {1: wealth, 2: wealth}, {"stock:a": [1.0] * MONTHS}, [])
    )
    assert [round(loss, 6) for _, loss in shock_losses(run)] == [0.2, 0.1]
    assert second_loss_ratio(run) == pytest.approx(0.5)
    one = RunData.open(_write(tmp_path / "one", shocks[:1], {1: wealth}, {"stock:a": [1.0] * MONTHS}, []))
    assert math.isnan(second_loss_ratio(one))


def test_a_crash_loses_in_the_risky_holdings(tmp_path: Path) -> None:
    # money stays at 100; stocks worth 100 fall to 50 in the first crash (month 10) and to 75 in the second (40)
    risky = [100.0] * MONTHS
    for t in range(9, 15):
        risky[t] = 50.0
    for t in range(39, 45):
        risky[t] = 75.0
    shocks = [
        {"kind": "market_crash", "start": 10, "factor": 0.6},
        {"kind": "market_crash", "start": 40, "factor": 0.6},
    ]
    folder = _write(tmp_path / "r", shocks, {1: [100.0] * MONTHS}, {"stock:a": [1.0] * MONTHS}, [])
    agents = pd.read_csv(folder / "agents.csv")
    agents["risky_value"] = risky
    agents.to_csv(folder / "agents.csv", index=False)
    run = RunData.open(folder)
    assert [round(loss, 6) for _, loss in shock_losses(run)] == [0.25, 0.125]  # of 200 in all
    assert second_loss_ratio(run) == pytest.approx(0.5)


def test_disposition_effect_counts_realised_and_paper_gains_and_losses(tmp_path: Path) -> None:
    # month 1: buy A and B at 10; month 5: A at 12 (gain), B at 8 (loss); the household sells A only
    prices = {"stock:a": [10.0] * 4 + [12.0] * (MONTHS - 4), "stock:b": [10.0] * 4 + [8.0] * (MONTHS - 4)}
    fills = [(1, 1, "stock:a", "BUY", 1.0, 10.0), (1, 1, "stock:b", "BUY", 1.0, 10.0),
             (5, 1, "stock:a", "SELL", 1.0, 12.0)]  # fmt: skip
    run = RunData.open(_write(tmp_path / "sold-winner", [], {1: [100.0] * MONTHS}, prices, fills))
    assert disposition(run) == pytest.approx(1.0)  # PGR 1/1, PLR 0/1
    fills[-1] = (5, 1, "stock:b", "SELL", 1.0, 8.0)  # sells the loser instead
    run = RunData.open(_write(tmp_path / "sold-loser", [], {1: [100.0] * MONTHS}, prices, fills))
    assert disposition(run) == pytest.approx(-1.0)
    none = RunData.open(_write(tmp_path / "none", [], {1: [100.0] * MONTHS}, prices, fills[:2]))
    assert math.isnan(disposition(none))
