"""Where the money stock's change comes from: one seed's months, phase by phase, baseline against a scenario.

The money stock (households' cash and deposits plus firms' positive balances) changes only against its
counterparts, because the economy's total is conserved: money = total - government balance - bank equity - bank
reserves - market maker's cash + firms' overdrafts. Each phase of a month (labour and production, incomes, goods,
the asset markets, bills at the bank, interest accrual, firms' adjustment) is timed by the change of each
counterpart across it, and the sums over a window are printed for the baseline, the scenario and their difference.

    python scripts/money_flows.py --seed 1 --scenario rate_hike --window 97-144
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import pandas as pd

import psychoagent.econ.model as model_module
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.scenario import load_scenario

COUNTERPARTS = ("loans", "gov", "equity", "reserves", "maker")
"""Money = loans - gov - equity - reserves - maker + constant: a rise of each column's signed entry adds money."""


def state(m: EconomyModel) -> dict[str, float]:
    """The money stock and its counterparts now (each signed so that money's change is their sum)."""
    return {
        "money": m.money(),
        "loans": float(sum(max(-f.cash, 0.0) for f in m.firms)),
        "gov": -float(m.gov_balance),
        "equity": -float(m.bank.equity),
        "reserves": -float(m.bills.reserves),
        "maker": -float(m.markets.maker.cash),
    }


class Recorder:
    """Wraps the phases of the model's month and records the counterparts' change across each."""

    def __init__(self, m: EconomyModel) -> None:
        self.m = m
        self.rows: list[dict[str, Any]] = []

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def inner(*args: Any, **kwargs: Any) -> Any:
            before = state(self.m)
            out = fn(*args, **kwargs)
            after = state(self.m)
            row: dict[str, Any] = {"tick": self.m.tick, "phase": name}
            row.update({k: after[k] - before[k] for k in before})
            self.rows.append(row)
            return out

        return inner


def run(seed: int, scenario: str, months: int, policy: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run one seed with every phase recorded; returns one row per month and phase, and the monthly history."""
    m = EconomyModel(seed=seed, policy=policy, households=100, scenario=load_scenario(scenario))
    rec = Recorder(m)
    saved = {n: getattr(model_module, n) for n in ("labour_and_production", "incomes", "goods_market")}
    try:
        for n, fn in saved.items():
            setattr(model_module, n, rec.wrap(n, fn))
        m.markets.session = rec.wrap("markets", m.markets.session)  # type: ignore[method-assign]
        m.bills.trade = rec.wrap("bills", m.bills.trade)  # type: ignore[method-assign]
        m.bank.accrue = rec.wrap("accrue", m.bank.accrue)  # type: ignore[method-assign]
        m._adjust_firms = rec.wrap("adjust", m._adjust_firms)  # type: ignore[method-assign]
        m.run(months)
    finally:
        for n, fn in saved.items():
            setattr(model_module, n, fn)
    hist = pd.DataFrame(m.history[1:])[
        ["tick", "interest_rate", "inflation", "unemployment", "money", "loans"]
    ]
    return pd.DataFrame(rec.rows), hist


def window_sums(frame: pd.DataFrame, lo: int, hi: int) -> pd.DataFrame:
    """Each phase's counterpart changes summed over months lo..hi."""
    w = frame[(frame["tick"] >= lo) & (frame["tick"] <= hi)]
    table = w.groupby("phase")[["money", *COUNTERPARTS]].sum()
    table.loc["total"] = table.sum()
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", default="rate_hike")
    ap.add_argument("--policy", default="persona")
    ap.add_argument("--window", default="97-144")
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.window.split("-"))
    base, hb = run(a.seed, "baseline", hi, a.policy)
    shock, hs = run(a.seed, a.scenario, hi, a.policy)
    pd.set_option("display.width", 160)
    sums = {"baseline": window_sums(base, lo, hi), a.scenario: window_sums(shock, lo, hi)}
    for name, table in sums.items():
        print(f"\n{name}, months {lo}-{hi} (thousands)\n{(table / 1e3).round(1)}")
    print(f"\n{a.scenario} - baseline (thousands)\n{((sums[a.scenario] - sums['baseline']) / 1e3).round(1)}")
    for name, h in (("baseline", hb), (a.scenario, hs)):
        w = h[(h["tick"] >= lo) & (h["tick"] <= hi)]
        print(f"{name}: rate {w['interest_rate'].mean():.3f} inflation {w['inflation'].mean():+.4f} "
              f"u {w['unemployment'].mean():.4f} money {w['money'].mean() / 1e3:.1f}k "
              f"loans {w['loans'].mean() / 1e3:.1f}k")  # fmt: skip


if __name__ == "__main__":
    main()
