"""Calibration table of an experiment folder: per variant and seed, mean unemployment and annual inflation over
months 61-240 (the issue's window) and the annual Phillips and Okun correlations over the whole run; with --shocks,
each built-in shock scenario minus the baseline on the same seed over the shock's window.

    python scripts/calibration_table.py runs/calib-final
    python scripts/calibration_table.py --shocks persona 1,2 [--scenarios policy_black_swan] [--ticks 150] [--parts]

With --parts each shock of a scenario that has several also runs on its own (`policy_black_swan[rate_shock]`).
POLICY is a policy name or an experiment variant naming one (`full` is the cognitive policy).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from psychoagent.eval.macro import okun_law, phillips_curve
from psychoagent.eval.rundata import RunData

START = 61
"""First month of the window the calibration ranges are checked on (the first five years are the run-in)."""
SIGNIFICANT = -0.456
"""r at or below this is significant at p < 0.05 with 19 annual points."""


def settled(macro: pd.DataFrame, start: int = START) -> tuple[float, float]:
    """(mean unemployment, mean year-on-year inflation of yearly mean prices) over months >= start."""
    m = macro[macro["tick"] >= 1].sort_values("tick")
    u = float(m.loc[m["tick"] >= start, "unemployment"].mean())
    years = (m["tick"].to_numpy() - 1) // 12
    p = m.groupby(years)["price_level"].mean()
    inflation = (p / p.shift(1) - 1.0)[p.index >= (start - 1) // 12]
    return u, float(inflation.mean())


def table(folder: Path) -> pd.DataFrame:
    """One row per run: variant, seed, unemployment, inflation, phillips_r, okun_r."""
    rows = []
    for path in sorted(p.parent for p in folder.glob("runs/*/seed-*/config.json")):
        try:
            macro = RunData.open(path).macro
        except FileNotFoundError:  # a seed that did not finish
            continue
        u, pi = settled(macro)
        rows.append({"variant": path.parent.name, "seed": int(path.name.split("-")[1]),
                     "unemployment": u, "inflation": pi, "phillips_r": phillips_curve(macro).r,
                     "okun_r": okun_law(macro).r})  # fmt: skip
    return pd.DataFrame(rows)


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per variant: mean and range over seeds, and how many seeds meet each criterion."""
    g = runs.groupby("variant")
    return pd.DataFrame({
        "seeds": g.size(),
        "unemployment": g["unemployment"].mean(), "u_min": g["unemployment"].min(), "u_max": g["unemployment"].max(),
        "inflation": g["inflation"].mean(), "pi_min": g["inflation"].min(), "pi_max": g["inflation"].max(),
        "phillips_r": g["phillips_r"].mean(),
        "phillips_ok": g["phillips_r"].apply(lambda r: int(np.sum(r <= SIGNIFICANT))),
        "okun_r": g["okun_r"].mean(), "okun_ok": g["okun_r"].apply(lambda r: int(np.sum(r <= SIGNIFICANT))),
    })  # fmt: skip


def markdown(runs: pd.DataFrame) -> str:
    """The summary as a markdown table (unemployment and inflation: mean [min, max] over seeds)."""
    s = summary(runs)
    lines = ["| policy | unemployment | inflation | Phillips r | seeds r <= -0.456 | Okun r | seeds r <= -0.456 |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, r in s.iterrows():
        lines.append(
            f"| {name} | {r.unemployment:.3f} [{r.u_min:.3f}, {r.u_max:.3f}] | {r.inflation:+.3f} "
            f"[{r.pi_min:+.3f}, {r.pi_max:+.3f}] | {r.phillips_r:.2f} | {r.phillips_ok:.0f} of {r.seeds:.0f} | "
            f"{r.okun_r:.2f} | {r.okun_ok:.0f} of {r.seeds:.0f} |"
        )
    return "\n".join(lines)


SHOCK_WINDOWS = {"demand_slump": (73, 91), "steel_shock": (61, 85), "tech_regulation": (49, 73),
                 "bull_turning_bear": (85, 109), "policy_black_swan": (97, 133),
                 "rate_hike": (97, 145), "repeated_crash": (73, 157)}  # fmt: skip
"""Months [start, end) each scenario's shock is in force (the bear phase for bull_turning_bear; for rate_hike the
36-month hold and the year of decay after it, months 97-144)."""


def policy_of(name: str) -> str:
    """The policy an experiment variant without ablations stands for (`full` -> cognitive), else `name`."""
    from psychoagent.eval.variants import VARIANTS

    variant = VARIANTS.get(name)
    return variant.policy if variant is not None and not variant.off else name


def shocks(
    policy: str,
    seeds: list[int],
    households: int = 100,
    ticks: int = 150,
    names: list[str] | None = None,
    parts: bool = False,
) -> pd.DataFrame:
    """Print shock minus baseline (same seed) over each window and each of its years: unemployment,
    inflation (points), real GDP, consumption, steel price and the money stock (relative); with several seeds also the mean and
    s.d. over them and how many seeds moved unemployment up and inflation down. With `parts` each shock of a
    scenario with several also runs alone. Returns one row per scenario, seed and window."""
    from psychoagent.econ.model import EconomyModel
    from psychoagent.econ.scenario import Scenario, load_scenario

    def run(scenario: Scenario, seed: int) -> pd.DataFrame:
        m = EconomyModel(seed=seed, policy=policy_of(policy), scenario=scenario,
                         households=households)  # fmt: skip
        m.run(ticks)
        m.close()
        return pd.DataFrame(m.history[1:])

    def cases(name: str) -> list[tuple[str, Scenario]]:
        sc = load_scenario(name)
        alone = [(f"{name}[{s.kind}]", sc.model_copy(update={"shocks": [s]})) for s in sc.shocks]
        return [(name, sc), *(alone if parts and len(alone) > 1 else [])]

    def compare(
        d: pd.DataFrame, base: pd.DataFrame, case: str, seed: int, lo: int, end: int, label: str
    ) -> dict:
        """One row: the case minus the baseline over months [lo, end), printed as it comes."""
        w = (d["tick"] >= lo) & (d["tick"] < end)
        row: dict = {"scenario": case, "seed": seed, "window": f"{label} {lo}-{end - 1}"}
        for col in ("unemployment", "inflation", "interest_rate"):
            row[col] = float(d.loc[w, col].mean() - base.loc[w, col].mean())
        for col in ("real_gdp", "consumption", "price_steel", "money"):
            row[col] = float(d.loc[w, col].mean() / base.loc[w, col].mean() - 1.0)
        print(f"seed {seed} {case} ({row['window']}): unemployment {row['unemployment']:+.3f}, "
              f"inflation {row['inflation']:+.3f}, rate {row['interest_rate']:+.3f}, real GDP "
              f"{row['real_gdp']:+.1%}, consumption {row['consumption']:+.1%}, steel price "
              f"{row['price_steel']:+.1%}, money {row['money']:+.1%}", flush=True)  # fmt: skip
        return row

    rows = []
    for seed in seeds:
        base = run(load_scenario("baseline"), seed)
        for name, (a, b) in SHOCK_WINDOWS.items():
            if names and name not in names:
                continue
            years = [
                (f"year {k + 1}", a + 12 * k, min(a + 12 * (k + 1), b)) for k in range((b - a + 11) // 12)
            ]
            spans = [("window", a, b), *(years if len(years) > 1 else [])]
            for case, sc in cases(name):
                d = run(sc, seed)
                rows += [compare(d, base, case, seed, lo, end, label) for label, lo, end in spans]
    out = pd.DataFrame(rows)
    if len(seeds) > 1 and not out.empty:
        g = out.drop(columns="seed").groupby(["scenario", "window"], sort=False)
        moved = pd.DataFrame({"unemployment up": g["unemployment"].agg(lambda x: int((x > 0).sum())),
                              "inflation down": g["inflation"].agg(lambda x: int((x < 0).sum())),
                              "money down": g["money"].agg(lambda x: int((x < 0).sum()))})  # fmt: skip
        print(pd.concat({"mean": g.mean(), "sd": g.std(), "seeds": moved}, axis=1).round(4).to_string())
    return out


def main() -> None:
    """Command line: a folder's calibration table, or with --shocks the shock-minus-baseline lines."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", type=Path, help="experiment folder (psychoagent experiment --out)")
    ap.add_argument("--shocks", nargs=2, metavar=("POLICY", "SEEDS"), help="policy and comma-separated seeds")
    ap.add_argument("--scenarios", default="", help="comma-separated shock scenarios (default: all six)")
    ap.add_argument("--ticks", type=int, default=150, help="months per shock run (default 150)")
    ap.add_argument("--parts", action="store_true", help="also run each shock of a scenario alone")
    args = ap.parse_args()
    if args.shocks:
        policy, seeds = args.shocks
        try:
            seed_list = [int(s) for s in seeds.split(",")]
        except ValueError:
            ap.error(f"SEEDS must be comma-separated integers, got {seeds!r}")
        names = [n for n in args.scenarios.split(",") if n]
        unknown = sorted(set(names) - set(SHOCK_WINDOWS))
        if unknown:
            ap.error(f"--scenarios: unknown {', '.join(unknown)}; choose from {', '.join(SHOCK_WINDOWS)}")
        shocks(policy, seed_list, ticks=args.ticks, names=names or None, parts=args.parts)
        return
    if args.folder is None or not args.folder.is_dir():
        ap.error(f"folder: need an experiment folder, got {args.folder}")
    runs = table(args.folder)
    if runs.empty:
        ap.error(f"folder: no finished runs/*/seed-* under {args.folder}")
    pd.set_option("display.width", 200)
    print(runs.round(4).to_string(index=False))
    print()
    print(summary(runs).round(4).to_string())
    print()
    print(markdown(runs))


if __name__ == "__main__":
    main()
