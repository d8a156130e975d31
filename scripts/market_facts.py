"""Market facts per asset and seed: lag-1 autocorrelation of monthly returns, share of auctions that trade, excess
kurtosis, clustering (mean ACF of |r| at lags 1-10) and the volume-|return| correlation of per-auction returns;
and the monthly ACF(1) of the stock market as a whole (the sum of the stocks' prices).

    python scripts/market_facts.py runs/facts --seeds 1-10 --simulate [--policy cognitive] [--set trading.x=1]
    python scripts/market_facts.py runs/facts --seeds 1-10          # read the run folders only

Run folders are DIR/seed-N (made with --simulate: 100 households x 240 months, the baseline scenario with the
`--set` overrides of the economy config). A monthly return is the log change of the last auction price of a month
over the previous month's (close to close, so steel's monthly reset to the producer's price counts).
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from psychoagent.eval.rundata import RunData
from psychoagent.eval.stylized import MONTHLY_ACF_BAND, TRADED_SHARE, asset_returns, facts, monthly_acf1


def seeds_arg(text: str) -> list[int]:
    """'1-10' or '1,3,5' as a list of seeds."""
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def overrides(items: list[str]) -> dict[str, Any]:
    """['trading.rounds=10', ...] as a nested dict of economy-config overrides (values parsed as JSON if they can)."""
    out: dict[str, Any] = {}
    for item in items:
        key, raw = item.split("=", 1)
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        node = out
        *path, last = key.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def run_one(folder: str, seed: int, policy: str, economy: dict[str, Any], agents: int, ticks: int) -> str:
    """Simulate one seed into `folder` (baseline scenario plus `economy` overrides)."""
    from psychoagent.econ.run import simulate
    from psychoagent.econ.scenario import load_scenario

    scen = load_scenario("baseline")
    scen = scen.model_copy(update={"economy": {**scen.economy, **economy}})
    simulate(folder, agents=agents, ticks=ticks, seed=seed, policy=policy, scenario=scen)
    return folder


def asset_rows(assets: pd.DataFrame, seed: int) -> list[dict[str, Any]]:
    """One row per asset of a run's assets.csv."""
    rows = []
    for name, df in asset_returns(assets).items():
        f = facts(df["log_return"].to_numpy(), df["volume"].to_numpy(dtype=float))
        rows.append({"seed": seed, "asset": name, "acf_month": monthly_acf1(df),
                     "traded": float((df["volume"] > 0).mean()), "kurtosis": f["kurtosis"],
                     "clustering": f["acf_abs_mean_1_10"], "vol_abs_r": f["volume_abs_return_corr"],
                     "acf_round": f["acf_r1"]})  # fmt: skip
    return rows


def market_acf(assets: pd.DataFrame) -> float:
    """Lag-1 ACF of the monthly log change of the sum of the stocks' month-end prices (the market's own return,
    apart from each stock's return relative to it); NaN without stocks."""
    stocks = assets[assets["asset"].astype(str).str.startswith("stock:")]
    if stocks.empty or "tick" not in stocks.columns:
        return float("nan")
    level = stocks.sort_values("period").groupby(["tick", "asset"])["price"].last().unstack().sum(axis=1)
    return monthly_acf1(pd.DataFrame({"tick": level.index, "price": level.to_numpy()}))


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per asset: means over seeds, and whether each target holds (bond: reported, not a risky asset)."""
    g = runs.groupby("asset")
    s = g[["acf_month", "traded", "kurtosis", "clustering", "vol_abs_r", "acf_round"]].mean()
    s["acf_month_min"], s["acf_month_max"] = g["acf_month"].min(), g["acf_month"].max()
    s["traded_min"] = g["traded"].min()
    s["acf_ok"] = s["acf_month"].abs() <= MONTHLY_ACF_BAND
    s["trade_ok"] = s["traded"] >= TRADED_SHARE
    s["tails_ok"] = s["kurtosis"] > 0
    s["cluster_ok"] = s["clustering"] > 0
    s["vol_ok"] = s["vol_abs_r"] > 0
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path)
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--simulate", action="store_true", help="run the seeds first (replacing their folders)")
    ap.add_argument("--policy", default="cognitive")
    ap.add_argument("--agents", type=int, default=100)
    ap.add_argument("--ticks", type=int, default=240)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], help="economy override, e.g. trading.rounds=10")
    ap.add_argument("--per-seed", action="store_true", help="print every asset of every seed too")
    a = ap.parse_args()
    seeds = seeds_arg(a.seeds)
    if a.simulate:
        econ = overrides(a.set)
        with ProcessPoolExecutor(a.jobs) as pool:
            jobs = [pool.submit(run_one, str(a.folder / f"seed-{s}"), s, a.policy, econ, a.agents, a.ticks)
                    for s in seeds]  # fmt: skip
            for job in jobs:
                job.result()
    rows, market = [], []
    for s in seeds:
        assets = RunData.open(a.folder / f"seed-{s}").assets
        rows += asset_rows(assets if assets is not None else pd.DataFrame(), s)
        market.append(market_acf(assets) if assets is not None else float("nan"))
    runs = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    pd.set_option("display.precision", 3)
    if a.per_seed:
        print(runs.to_string(index=False))
    print(summary(runs).to_string())
    print(
        f"stock market (sum of stock prices): monthly ACF(1) mean {np.nanmean(market):+.3f} "
        f"[{np.nanmin(market):+.2f}, {np.nanmax(market):+.2f}]"
    )


if __name__ == "__main__":
    main()
