"""Pre-registered ablation expectations, run on seeds given on the command line: for each expectation (a variant
against the full cognitive agent, on a scenario, a metric and a side), the paired difference over the same seeds
with its 95 % interval, and whether it held (the interval excludes 0 on the declared side).

The expectations are written in `benchmarks/data/ablation_expectations.json` before they are run on new seeds; one
that a run contradicted is never edited (a new one is added, and both are reported).

    python -m benchmarks.bench_ablations --seeds 101-106            # 100 households, each scenario's months
    python -m benchmarks.bench_ablations --seeds 1-2 --agents 10 --months 24 --no-write   # a smoke run
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from benchmarks._report import write_section
from psychoagent.eval.experiment import paired, run_experiment, seed_list
from psychoagent.eval.variants import VARIANTS

EXPECTATIONS = Path(__file__).resolve().parent / "data" / "ablation_expectations.json"
RESULTS = Path(__file__).resolve().parent.parent / "docs" / "results.md"
OUTCOMES = ("adaptability.", "robustness.", "welfare.", "experience.")
"""Metric families a primary expectation may name (outcomes, not counters such as memories per month)."""
ABLATIONS = ("no-memory", "static-persona", "no-affect")
"""Each needs at least one primary expectation."""


class Expectation(BaseModel):
    """One pre-registered expectation: the variant minus the full agent moves `metric` in `direction`."""

    model_config = ConfigDict(extra="forbid")

    variant: str
    scenario: str
    metric: str = Field(pattern=r"^[a-z_]+\.[a-z0-9_]+$")
    direction: Literal["higher", "lower"]
    primary: bool = False
    why: str = Field(min_length=10)

    @field_validator("variant")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in VARIANTS or value == "full":
            raise ValueError(f"unknown ablation variant {value!r}")
        return value


class Registry(BaseModel):
    """The file: expectations, with the rules of the pre-registration checked."""

    model_config = ConfigDict(extra="forbid")

    expectations: list[Expectation] = Field(min_length=1)

    @model_validator(mode="after")
    def _rules(self) -> Registry:
        primary = [e for e in self.expectations if e.primary]
        bad = [e.metric for e in primary if not e.metric.startswith(OUTCOMES)]
        if bad:
            raise ValueError(
                f"a primary expectation must name an outcome metric ({', '.join(OUTCOMES)}): {bad}"
            )
        if len({e.scenario for e in primary}) > 2:
            raise ValueError("primary expectations may use at most two scenarios")
        missing = [v for v in ABLATIONS if not any(e.variant == v for e in primary)]
        if missing:
            raise ValueError(f"no primary expectation for {', '.join(missing)}")
        return self


def load(path: Path) -> Registry:
    """The expectations file, validated (ValueError naming the field when it breaks a rule)."""
    return Registry.model_validate(json.loads(path.read_text(encoding="utf-8")))


def judge(registry: Registry, runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per expectation: the paired difference (variant - full), its interval, n and whether it held."""
    rows = []
    for e in registry.expectations:
        frame = runs[e.scenario]
        labels = ["full", *sorted(set(frame["condition"]) - {"full"})]
        diffs = paired(frame, labels, "full")
        hit = diffs[(diffs["condition"] == e.variant) & (diffs["metric"] == e.metric)]
        diff, low, high, n = (hit.iloc[0][c] for c in ("diff", "ci_low", "ci_high", "n")) if len(hit) else (
            float("nan"), float("nan"), float("nan"), 0)  # fmt: skip
        held = bool(low > 0) if e.direction == "higher" else bool(high < 0)
        rows.append({"variant": e.variant, "scenario": e.scenario, "metric": e.metric, "expected": e.direction,
                     "primary": e.primary, "diff": diff, "ci_low": low, "ci_high": high, "n": int(n),
                     "held": held and pd.notna(diff)})  # fmt: skip
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame, seeds: list[int], agents: int) -> str:
    """The results table as Markdown, primary expectations first."""
    lines = [f"Seeds {seeds[0]}-{seeds[-1]} ({len(seeds)}), {agents} households, each scenario's months; the "
             "difference is the variant minus the full agent over the same seeds, with its paired 95 % t interval.",
             "", "| variant | scenario | metric | expected | primary | difference [95 % interval] | held |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in table.sort_values("primary", ascending=False).itertuples():
        lines.append(f"| {r.variant} | {r.scenario} | `{r.metric}` | {r.expected} | {'yes' if r.primary else ''} | "
                     f"{r.diff:+.4g} [{r.ci_low:+.4g}, {r.ci_high:+.4g}] | {'yes' if r.held else '**no**'} |")  # fmt: skip
    held = table[table["primary"]]["held"]
    lines += ["", f"Primary expectations held: {int(held.sum())} of {len(held)}."]
    return "\n".join(lines)


def main() -> None:
    """Run every scenario the expectations name with the variants they need, then judge and report."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", required=True, help="e.g. 101-106")
    ap.add_argument("--agents", type=int, default=100)
    ap.add_argument("--months", type=int, default=0, help="0: each scenario's own")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--expectations", type=Path, default=EXPECTATIONS)
    ap.add_argument("--out", type=Path, default=Path("runs/ablations"))
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/results.md as it is")
    args = ap.parse_args()
    registry, seeds = load(args.expectations), seed_list(args.seeds)
    runs = {}
    for scenario in dict.fromkeys(e.scenario for e in registry.expectations):
        variants = ["full", *sorted({e.variant for e in registry.expectations if e.scenario == scenario})]
        runs[scenario] = run_experiment(args.out / scenario, variants=variants, seeds=seeds, scenario=scenario,
                                        agents=args.agents, ticks=args.months or None, jobs=args.jobs,
                                        resume=True)  # fmt: skip
    table = judge(registry, runs)
    text = markdown(table, seeds, args.agents)
    print(text)
    if not args.no_write:
        write_section("bench_ablations", "Pre-registered ablation expectations", text, doc=RESULTS)


if __name__ == "__main__":
    main()
