"""How large the economy's cycles are, beyond its first three years: per seed, the highest unemployment in months
1-36 and in each later 36-month window, the share of the 36-month windows of months 61-240 that stay at or under
10 % (a smoother reading of the months-1-36 criterion than one window per seed), the share of months above 10 % and
the s.d. of monthly unemployment; with the bands over months 61-240 for the same runs.

    python scripts/cycles.py persona rule 11-20 --jobs 2
    python scripts/cycles.py persona cognitive 11-20 --set firms.rnd_scale=0 --jobs 2
    python scripts/cycles.py persona rule 11-20 --households 1000 --set burn_in=120

A months-1-36 maximum well above the later windows' says the start is not at rest; later windows as high as the
first say the cycle itself is (docs/results.md, "How large the cycles are").
"""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from early_months import LIMIT, condition_parser
from market_facts import overrides
from sweep import history

from psychoagent.eval.macro import okun_law, phillips_curve

WINDOW = 36
STARTS = (1, 61, 121, 181)
"""First months of the 36-month windows reported one by one."""


def cycle_row(args: tuple[str, str, int, int, int, dict[str, Any]]) -> dict[str, float]:
    """One run's cycle statistics: window maxima, quiet-window share, months above the limit, bands."""
    policy, firms, seed, months, households, economy = args
    h = history(policy, firms, seed, months, economy=economy, households=households)
    u = h.set_index("tick").unemployment
    row: dict[str, float] = {"seed": seed}
    for lo in STARTS:
        if lo + WINDOW - 1 <= months:
            row[f"max_{lo}"] = float(u.loc[lo : lo + WINDOW - 1].max())
    late = u.loc[61:].to_numpy()
    spans = [late[i : i + WINDOW].max() for i in range(max(len(late) - WINDOW + 1, 0))]
    row["quiet_windows"] = float(np.mean([m <= LIMIT for m in spans])) if spans else float("nan")
    row["months_over"] = float((late > LIMIT).mean()) if late.size else float("nan")
    row["sd"] = float(late.std()) if late.size else float("nan")
    w = h[h.tick > 60]
    row.update(u=float(w.unemployment.mean()), pi=float(w.inflation.mean()),
               phillips=phillips_curve(w).r, okun=okun_law(w).r)  # fmt: skip
    return row


def main() -> None:
    ap = condition_parser(__doc__, 240)
    ap.add_argument("--households", type=int, default=100)
    args = ap.parse_args()
    economy = overrides(args.set)
    tasks = [(args.policy, args.firms, s, args.months, args.households, economy) for s in args.seeds]
    with ProcessPoolExecutor(max_workers=args.jobs) as ex:
        df = pd.DataFrame(list(ex.map(cycle_row, tasks)))
    pd.set_option("display.width", 200)
    print(df.round(3).to_string(index=False))
    first = (df[f"max_{STARTS[0]}"] <= LIMIT).sum() if f"max_{STARTS[0]}" in df else 0
    print(f"{args.policy}, {args.firms}, {args.households} households {economy or ''}: months 1-36 <= 10 % on "
          f"{first} of {len(df)}; quiet 36-month windows {df.quiet_windows.mean():.3f}; months over 10 % "
          f"{df.months_over.mean():.4f}; s.d. {df.sd.mean():.4f}; mean u {df.u.mean():.4f}; u in band "
          f"{df.u.between(0.03, 0.08).sum()}, pi {df.pi.between(-0.01, 0.05).sum()}, Phillips "
          f"{(df.phillips <= -0.3).sum()}, Okun {(df.okun <= -0.5).sum()} (months 61-240)")  # fmt: skip


if __name__ == "__main__":
    main()
