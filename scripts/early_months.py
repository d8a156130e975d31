"""The first three years of a quiet economy: the highest monthly unemployment in months 1-36 per seed, for one
policy and firm kind, with optional economy overrides; prints one line and the count of seeds at or below 10 %.

    python scripts/early_months.py composite rule 801-810
    python scripts/early_months.py persona cognitive 11-20 --set firms.monthly_rule=true --jobs 2
    python scripts/early_months.py econagent rule 11-20 --econagent consume_risk_slope=0.5
    python scripts/early_months.py cognitive rule 21-30 --cognitive ablation.persona_evolution=false
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from market_facts import overrides, seeds_arg

LIMIT = 0.10
"""Acceptance: unemployment at or below 10 % in every month of 1-36."""


def worst_month(
    args: tuple[str, str, int, int, dict[str, Any]],
    econagent: dict[str, Any] | None = None,
    cognitive: dict[str, Any] | None = None,
) -> float:
    """Highest unemployment in months 1..months of one run; `econagent`: `EconAgentConfig` fields for that policy;
    `cognitive`: the scenario's `cognitive` table (the cognitive households' loop) for the policies that have one."""
    from psychoagent.econ.cognitive.config import EconAgentConfig
    from psychoagent.econ.cognitive.econagent import EconAgentPolicy
    from psychoagent.econ.model import EconomyModel
    from psychoagent.econ.policies import make_policy
    from psychoagent.econ.scenario import Scenario

    name, firms, seed, months, economy = args
    policy: Any = (
        EconAgentPolicy(econ=EconAgentConfig(**econagent)) if name == "econagent" and econagent else name
    )
    if cognitive:
        policy = make_policy(policy) if isinstance(policy, str) else policy
        policy.configure(Scenario(cognitive=cognitive).settings())
    config = Scenario(economy=economy).apply() if economy else None
    kwargs: dict[str, Any] = {"firms": firms} if firms != "rule" else {}
    model = EconomyModel(config, seed=seed, policy=policy, households=100, **kwargs)
    model.run(months)
    model.close()
    return max(float(row["unemployment"]) for row in model.history[1:])


def condition_parser(doc: str, months: int) -> argparse.ArgumentParser:
    """Arguments of a script run per condition: policy, firm kind, seeds, --months, --jobs and --set overrides."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("policy")
    ap.add_argument("firms", choices=("rule", "cognitive"))
    ap.add_argument("seeds", type=seeds_arg)
    ap.add_argument("--months", type=int, default=months)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--set", action="append", default=[], help="economy override, e.g. firms.monthly_rule=true"
    )
    return ap


def main() -> None:
    ap = condition_parser(__doc__, 36)
    ap.add_argument(
        "--econagent", action="append", default=[], help="EconAgentConfig field, e.g. max_change=0.2"
    )
    ap.add_argument(
        "--cognitive", action="append", default=[], help="cognitive-loop override, e.g. ablation.memory=false"
    )
    a = ap.parse_args()
    economy, econagent, cognitive = overrides(a.set), overrides(a.econagent), overrides(a.cognitive)
    runs = [(a.policy, a.firms, s, a.months, economy) for s in a.seeds]
    with ProcessPoolExecutor(a.jobs) as pool:
        worst = list(pool.map(worst_month, runs, [econagent] * len(runs), [cognitive] * len(runs)))
    ok = sum(u <= LIMIT + 1e-9 for u in worst)
    extra = "".join(f" {json.dumps(d)}" for d in (economy, econagent, cognitive) if d)
    print(
        f"{a.policy}, {a.firms}{extra}: {' '.join(f'{u:.2f}' for u in worst)} - {ok} of {len(worst)} seeds <= 10 %"
    )


if __name__ == "__main__":
    main()
