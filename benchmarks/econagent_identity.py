"""Offline econagent identity check: dump a run's decisions and macro rows, then compare two dumps (before / after).

``python -m benchmarks.econagent_identity dump OUT.json [--agents 20 --ticks 12 --seed 42]`` runs
`simulate --policy econagent --llm offline` into a temporary folder and writes every `decision.made` payload (tick,
household, work, consumption, trade, fallback) and every row of macro.csv. ``compare BEFORE.json AFTER.json``
prints the share of identical decisions and macro rows and exits 1 unless both are identical: the offline model's
economy must not move when only the cost of a language model's calls changes.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from psychoagent.econ.run import simulate
from psychoagent.eval.export import export_csv


def dump(agents: int, ticks: int, seed: int) -> dict[str, Any]:
    """The decisions and macro rows of one offline econagent run."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        simulate(out, agents=agents, ticks=ticks, seed=seed, policy="econagent", llm="offline")
        export_csv(out)  # the files earlier dumps were read from
        decisions = []
        with (out / "events.jsonl").open(encoding="utf-8") as f:
            for line in f:
                event = json.loads(line)
                if event.get("type") == "decision.made":
                    p = event.get("payload") or {}
                    decisions.append([event.get("tick"), event.get("source"), p.get("work"),
                                      p.get("consumption"), p.get("trade"), p.get("fallback")])  # fmt: skip
        with (out / "macro.csv").open(encoding="utf-8") as f:
            macro = [dict(row) for row in csv.DictReader(f)]
    return {"agents": agents, "ticks": ticks, "seed": seed, "decisions": decisions, "macro": macro}


def compare(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Print the identical shares; True when decisions and macro rows are all identical."""
    same = True
    for key in ("decisions", "macro"):
        a, b = before[key], after[key]
        equal = sum(x == y for x, y in zip(a, b, strict=False))
        print(f"{key}: {equal} of {max(len(a), len(b))} identical ({len(a)} before, {len(b)} after)")
        same = same and len(a) == len(b) == equal
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out")
    d.add_argument("--agents", type=int, default=20)
    d.add_argument("--ticks", type=int, default=12)
    d.add_argument("--seed", type=int, default=42)
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    args = parser.parse_args(argv)
    if args.cmd == "dump":
        Path(args.out).write_text(json.dumps(dump(args.agents, args.ticks, args.seed)), encoding="utf-8")
        return 0
    load = [json.loads(Path(p).read_text(encoding="utf-8")) for p in (args.before, args.after)]
    return 0 if compare(*load) else 1


if __name__ == "__main__":
    sys.exit(main())
