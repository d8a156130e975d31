"""A calibration sweep on many cores: every policy with rule and with cognitive firms over a list of seeds (baseline,
100 households x 240 months), and the rate hike against its baseline on the same seeds. Prints and writes one row
per run and the per-condition counts the calibration bands ask for.

    python scripts/sweep.py --seeds 101-110 --jobs 16 --out sweep.csv
    python scripts/sweep.py --seeds 101-110 --jobs 16 --hike-only --out hike.csv
    python scripts/sweep.py --seeds 21-30 --firms cognitive --no-hike --set firms.monthly_rule=false

Bands (months 61-240): unemployment 3-8 %, inflation -1..+5 %, Phillips r <= -0.3, Okun r <= -0.5; every month of
1-36 at or below 10 % unemployment; the government's balance never below -2 months of nominal GDP. The hike (+4
points held 36 months from month 97) against the baseline over months 97-144: inflation and money lower,
unemployment not lower.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibration_table import settled
from market_facts import overrides

from psychoagent.eval.experiment import seed_list
from psychoagent.eval.macro import okun_law, phillips_curve

POLICIES = ("persona", "composite", "cognitive", "econagent")
FIRMS = ("rule", "cognitive")
HIKE_WINDOW = (97, 145)
MONEY = ("money", "money_stock", "broad_money", "deposits")
"""History columns tried, in order, for the money stock (the first one present is used)."""


def history(
    policy: str,
    firms: str,
    seed: int,
    months: int,
    scenario: str = "baseline",
    economy: dict[str, Any] | None = None,
    households: int = 100,
) -> pd.DataFrame:
    """The model's monthly rows for one run (months from 1); `economy`: config overrides on the scenario's."""
    from psychoagent.econ.model import EconomyModel
    from psychoagent.econ.scenario import deep_merge, load_scenario

    kwargs: dict[str, Any] = {"firms": firms} if firms != "rule" else {}
    scen = load_scenario(scenario)
    if economy:
        scen = scen.model_copy(update={"economy": deep_merge(scen.economy, economy)})
    m = EconomyModel(seed=seed, policy=policy, households=households, scenario=scen, **kwargs)
    m.run(months)
    m.close()
    return pd.DataFrame(m.history[1:])


def calibration_row(
    policy: str, firms: str, seed: int, months: int, economy: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One baseline run's calibration numbers."""
    start = time.perf_counter()
    h = history(policy, firms, seed, months, economy=economy)
    u, pi = settled(h)
    early = float(h.loc[h["tick"] <= 36, "unemployment"].max())
    row = {"policy": policy, "firms": firms, "seed": seed, "unemployment": u, "inflation": pi,
           "phillips_r": phillips_curve(h).r, "okun_r": okun_law(h).r, "max_u_1_36": early,
           "seconds": time.perf_counter() - start}  # fmt: skip
    for col in ("gov_balance_months", "government_balance_months"):
        if col in h.columns:
            row["gov_balance_min"] = float(h[col].min())
    return row


def hike_row(
    seed: int, months: int = HIKE_WINDOW[1], economy: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The rate hike minus the baseline (persona, rule firms) on one seed over months 97-144."""
    base, hike = (
        history("persona", "rule", seed, months, economy=economy),
        history("persona", "rule", seed, months, "rate_hike", economy),
    )
    lo, hi = HIKE_WINDOW
    w_b, w_h = (base["tick"] >= lo) & (base["tick"] < hi), (hike["tick"] >= lo) & (hike["tick"] < hi)
    row: dict[str, Any] = {"seed": seed}
    for col in ("interest_rate", "inflation", "unemployment"):
        row[col] = float(hike.loc[w_h, col].mean() - base.loc[w_b, col].mean())
    money = next((c for c in MONEY if c in base.columns), None)
    if money is not None:
        row["money"] = float(hike.loc[w_h, money].mean() / base.loc[w_b, money].mean() - 1.0)
        row["money_column"] = money
    return row


def bands(runs: pd.DataFrame) -> pd.DataFrame:
    """Per policy and firms: seeds in each band (of the seeds run)."""
    g = runs.groupby(["policy", "firms"], sort=False)
    out = pd.DataFrame({
        "seeds": g.size(),
        "unemployment 3-8 %": g["unemployment"].agg(lambda s: int(((s >= 0.03) & (s <= 0.08)).sum())),
        "inflation -1..5 %": g["inflation"].agg(lambda s: int(((s >= -0.01) & (s <= 0.05)).sum())),
        "Phillips r <= -0.3": g["phillips_r"].agg(lambda s: int((s <= -0.3).sum())),
        "Okun r <= -0.5": g["okun_r"].agg(lambda s: int((s <= -0.5).sum())),
        "months 1-36 <= 10 %": g["max_u_1_36"].agg(lambda s: int((s <= 0.10).sum())),
        "u mean": g["unemployment"].mean(), "pi mean": g["inflation"].mean(),
    })  # fmt: skip
    if "gov_balance_min" in runs.columns:
        out["balance >= -2"] = g["gov_balance_min"].agg(lambda s: int((s >= -2).sum()))
    return out


def main() -> None:
    """Run the sweep in a process pool and print the per-run table and the band counts."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="101-110")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--firms", default=",".join(FIRMS))
    ap.add_argument("--months", type=int, default=240)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--hike-only", action="store_true", help="only the rate hike against its baseline")
    ap.add_argument("--no-hike", action="store_true", help="skip the rate hike")
    ap.add_argument("--out", type=Path, default=Path("sweep.csv"))
    ap.add_argument(
        "--set", action="append", default=[], help="economy override, e.g. firms.monthly_rule=false"
    )
    args = ap.parse_args()
    economy = overrides(args.set) or None
    seeds = seed_list(args.seeds)
    pd.set_option("display.width", 220)
    with ProcessPoolExecutor(args.jobs) as pool:
        hikes = [] if args.no_hike else [pool.submit(hike_row, s, HIKE_WINDOW[1], economy) for s in seeds]
        calib = [] if args.hike_only else [
            pool.submit(calibration_row, p, f, s, args.months, economy)
            for p in args.policies.split(",") for f in args.firms.split(",") for s in seeds
        ]  # fmt: skip
        rows = []
        for fut in as_completed(calib):
            rows.append(fut.result())
            r = rows[-1]
            print(f"{r['policy']:>10} {r['firms']:>9} seed {r['seed']}: u {r['unemployment']:.3f} "
                  f"pi {r['inflation']:+.3f} phillips {r['phillips_r']:+.2f} okun {r['okun_r']:+.2f} "
                  f"max u 1-36 {r['max_u_1_36']:.2f} ({r['seconds']:.0f} s)", flush=True)  # fmt: skip
        hike = pd.DataFrame([f.result() for f in hikes]).sort_values("seed") if hikes else pd.DataFrame()
    if rows:
        runs = pd.DataFrame(rows).sort_values(["policy", "firms", "seed"])
        runs.to_csv(args.out, index=False)
        print(runs.round(4).to_string(index=False))
        print(bands(runs).round(4).to_string())
    if not hike.empty:
        hike.to_csv(args.out.with_name(args.out.stem + "-hike.csv"), index=False)
        print(hike.round(4).to_string(index=False))
        ok = (hike["inflation"] < 0) & (hike["unemployment"] >= 0)
        if "money" in hike.columns:
            ok &= hike["money"] < 0
        print(f"hike: inflation lower on {int((hike['inflation'] < 0).sum())}, money lower on "
              f"{int((hike.get('money', pd.Series(dtype=float)) < 0).sum())}, unemployment not lower on "
              f"{int((hike['unemployment'] >= 0).sum())}, all three on {int(ok.sum())} of {len(hike)} seeds")  # fmt: skip
    np.seterr(all="ignore")


if __name__ == "__main__":
    main()
