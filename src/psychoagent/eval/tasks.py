"""One run of an experiment: the condition it belongs to, the task a worker gets, and how a worker runs it
(locally in a process pool or as a Ray task, `psychoagent.eval.remote`)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from psychoagent.eval.metrics import write_metrics
from psychoagent.eval.variants import applies, parse_sweep, resolve


@dataclass(frozen=True)
class Condition:
    """One column of the comparison: a variant with fixed values of the swept settings."""

    variant: str
    sweep: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        """'full' or 'full [trade_share=0.1]' (the setting as given to --sweep)."""
        if not self.sweep:
            return self.variant
        settings = ", ".join(f"{key}={value}" for key, value in self.sweep)
        return f"{self.variant} [{settings}]"

    @property
    def slug(self) -> str:
        """A folder name for the condition."""
        return re.sub(r"[^A-Za-z0-9_.=-]+", "_", self.label.replace(" [", "__").rstrip("]"))


@dataclass(frozen=True)
class RunTask:
    """Everything one worker needs to run and score one (condition, seed)."""

    out: str
    condition: Condition
    seed: int
    agents: int
    ticks: int | None
    scenario: str
    llm: str | None = None


def conditions(variants: Sequence[str], sweeps: Sequence[str] = ()) -> list[Condition]:
    """Every variant crossed with every combination of the swept values that exist for it (in the order given);
    a variant none of the swept settings applies to (e.g. a rule baseline) runs once."""
    parsed = [parse_sweep(s) for s in sweeps]
    for key, _ in parsed:
        if not any(applies(v, key) for v in variants):
            raise ValueError(
                f"--sweep {key!r}: no such setting for any of the variants {', '.join(variants)}"
            )
    out = []
    for v in variants:
        mine = [[(key, x) for x in values] for key, values in parsed if applies(v, key)]
        out += [Condition(v, tuple(c)) for c in itertools.product(*mine)]
    return out


def _identity(task: RunTask) -> dict[str, Any]:
    """What makes a finished run reusable: the same condition, seed, size and scenario."""
    return {"condition": task.condition.label, "seed": task.seed, "agents": task.agents, "ticks": task.ticks,
            "scenario": task.scenario, "llm": task.llm}  # fmt: skip


def finished(task: RunTask) -> dict[str, Any] | None:
    """The metrics of an earlier identical run in `task.out` (variant.json and metrics.json), else None."""
    folder = Path(task.out)
    try:
        info = json.loads((folder / "variant.json").read_text(encoding="utf-8"))
        metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    except (OSError, ValueError, KeyError):
        return None
    same = all(info.get(k) == v for k, v in _identity(task).items())
    return metrics if same and isinstance(metrics, dict) else None


def run_task(task: RunTask) -> tuple[str, int, dict[str, Any]]:
    """Simulate one condition and seed, write metrics.json; returns (label, seed, metrics)."""
    from psychoagent.econ.run import simulate
    from psychoagent.econ.scenario import load_scenario

    how = resolve(task.condition.variant, task.condition.sweep)
    scen = how.scenario(load_scenario(task.scenario))
    simulate(task.out, agents=task.agents, ticks=task.ticks, seed=task.seed, policy=how.policy, scenario=scen,
             llm=task.llm)  # fmt: skip
    info = {**_identity(task), "variant": task.condition.variant, "policy": how.policy,
            "sweep": dict(task.condition.sweep), "economy_overrides": how.economy,
            "cognitive_overrides": how.cognitive, "evolution_overrides": how.evolution,
            "memory_overrides": how.memory}  # fmt: skip
    metrics = write_metrics(task.out)["metrics"]
    Path(task.out, "variant.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return task.condition.label, task.seed, metrics
