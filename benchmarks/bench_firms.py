"""Rule firms against cognitive firms: macro outcomes and run time of 100 households x 240 months.

Run from the repository root: `python -m benchmarks.bench_firms` (`--quick`: 30 households x 36 months, one seed;
`--heldout`: seeds 4 and 5, which the firms' coefficients were not set on, in the baseline and the steel shock).
Each household policy (the persona rule; the cognitive households, the CLI's default) runs with `firms = rule`
and `firms = cognitive` alternately in one process, same seeds, so the time ratio shares the machine's load.
Macro figures are means over months 61-240 (the first five years are the start-up), as in docs/results.md.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

import numpy as np

from benchmarks._report import write_section

POLICIES = {"persona": (1, 2, 3), "cognitive": (1,)}


def one(
    policy: str, firms: str, seed: int, households: int, ticks: int, scenario: str = "baseline"
) -> dict[str, Any]:
    """One run: seconds, macro means after the start-up, and the firms' actions by kind."""
    from psychoagent.econ.collect import macro_frame
    from psychoagent.econ.model import EconomyModel
    from psychoagent.econ.scenario import load_scenario

    t0 = time.perf_counter()
    model = EconomyModel(seed=seed, households=households, policy=policy, firms=firms,
                         scenario=load_scenario(scenario))  # fmt: skip
    kinds: Counter[str] = Counter()
    model.bus.subscribe("firm", lambda e: kinds.update([e.type]))
    model.run(ticks)
    seconds = time.perf_counter() - t0
    df = macro_frame(model)
    late = df[df["tick"] > min(60, ticks // 2)]
    caps = [c for c in df.columns if c.startswith("capacity_")]
    return {
        "policy": policy, "firms": firms, "seed": seed, "seconds": seconds,
        "unemployment": float(late["unemployment"].mean()), "inflation": float(late["inflation"].mean()),
        "real_gdp": float(late["real_gdp"].mean()), "gini": float(df["gini"].iloc[-1]),
        "capacity_change": float(np.mean([df[c].iloc[-1] / df[c].iloc[0] - 1 for c in caps])) if caps else 0.0,
        "started": kinds["firm.expansion_started"], "closed": kinds["firm.closed_capacity"],
        "refused": kinds["firm.guardrail_rejected"], "firm_events": sum(kinds.values()),
    }  # fmt: skip


def heldout() -> None:
    """Seeds 4 and 5 (the coefficients were set looking at seeds 1-3 of the baseline), baseline and steel shock."""
    lines = [
        "`python -m benchmarks.bench_firms --heldout` (persona households, 100 x 240, means over months 61-240; "
        "seeds 4 and 5 were not looked at while the firms' coefficients were set).",
        "",
        "| scenario | seed | unemployment rule / cognitive | inflation rule / cognitive | real GDP rule / cognitive | "
        "plants | closures |",
        "|---|---|---|---|---|---|---|",
    ]
    for scenario in ("baseline", "steel_shock"):
        for seed in (4, 5):
            a, b = (one("persona", firms, seed, 100, 240, scenario) for firms in ("rule", "cognitive"))
            lines.append(f"| {scenario} | {seed} | {a['unemployment']:.1%} / {b['unemployment']:.1%} | "
                         f"{a['inflation']:+.1%} / {b['inflation']:+.1%} | {a['real_gdp']:,.0f} / {b['real_gdp']:,.0f} | "
                         f"{b['started']} | {b['closed']} |")  # fmt: skip
            print(lines[-1], flush=True)
    write_section(
        "bench_firms_heldout", "Cognitive firms on held-out seeds", "\n".join(lines), after="bench_firms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--heldout", action="store_true")
    args = ap.parse_args()
    if args.heldout:
        heldout()
        return
    households, ticks = (30, 36) if args.quick else (100, 240)
    for policy in POLICIES:  # warm-up: imports and first-use caches stay out of the timed runs
        for firms in ("rule", "cognitive"):
            one(policy, firms, 0, 10, 3)
    rows = []
    for policy, seeds in POLICIES.items():
        for seed in seeds[:1] if args.quick else seeds:
            for firms in ("rule", "cognitive"):
                rows.append(one(policy, firms, seed, households, ticks))
                r = rows[-1]
                print(f"{policy:9} {firms:9} seed {seed}: {r['seconds']:.1f} s, u {r['unemployment']:.1%}, "
                      f"pi {r['inflation']:+.1%}, plants {r['started']}, closures {r['closed']}", flush=True)  # fmt: skip
    lines = [
        f"`python -m benchmarks.bench_firms` ({households} households x {ticks} months; macro means over months "
        f"{min(60, ticks // 2) + 1}-{ticks}; time = model construction and all months, in one process, rule and "
        "cognitive firms alternating).",
        "",
        "| household policy | firms | seeds | unemployment | inflation (12-month) | real GDP / month | Gini (end) | "
        "capacity change | plants started | closures | plans refused | time ratio (cognitive / rule) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for policy, seeds in POLICIES.items():
        chosen = seeds[:1] if args.quick else seeds
        rule_s = sum(r["seconds"] for r in rows if r["policy"] == policy and r["firms"] == "rule")
        for firms in ("rule", "cognitive"):
            sel = [r for r in rows if r["policy"] == policy and r["firms"] == firms]
            if not sel:
                continue
            mean = {
                k: float(np.mean([r[k] for r in sel])) for k in sel[0] if isinstance(sel[0][k], int | float)
            }
            ratio = sum(r["seconds"] for r in sel) / rule_s if rule_s else float("nan")
            lines.append(
                f"| {policy} | {firms} | {len(chosen)} | {mean['unemployment']:.1%} | {mean['inflation']:+.1%} | "
                f"{mean['real_gdp']:,.0f} | {mean['gini']:.3f} | {mean['capacity_change']:+.1%} | "
                f"{mean['started']:.1f} | {mean['closed']:.1f} | {mean['refused']:.1f} | "
                + ("1 (baseline)" if firms == "rule" else f"x{ratio:.2f}")
                + " |"
            )
    if not args.quick:
        write_section("bench_firms", "Cognitive firms against rule firms", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
