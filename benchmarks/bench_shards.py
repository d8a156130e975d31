"""Sharded cognitive households on Ray: one process vs 1 and 2 Ray shards on this machine, the bytes sent per
tick, where the time goes (driver vs shards), and a projection to 100,000 households from the per-household
costs measured here.

    python -m benchmarks.bench_shards [--agents 1000] [--ticks 24] [--repeats 1] [--no-write]

Each configuration runs the same seed in this process, one after the other (repeated alternately with
`--repeats`), on one local Ray cluster of 2 CPUs started once; the cluster start and the actors' creation are
not timed. The sharded runs are checked to write the same macro series as the one-process run. Results go to
the section of docs/scaling.md named after this script.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks._report import write_section
from psychoagent.econ.cognitive.policy import CognitivePolicy
from psychoagent.econ.distributed.driver import ShardedCognitivePolicy
from psychoagent.econ.model import EconomyModel

DOC = Path(__file__).resolve().parent.parent / "docs" / "scaling.md"
PROJECTED = 100_000


def run(shards: int, agents: int, ticks: int, seed: int) -> dict[str, Any]:
    """One run: seconds of `ticks` steps, the macro rows, and for sharded runs the traffic and shard memory."""
    policy: Any = CognitivePolicy()
    if shards:
        policy = ShardedCognitivePolicy(policy, shards, "ray")
        policy.measure = True
    model = EconomyModel(seed=seed, policy=policy, households=agents)
    if shards:  # wait until the actors are built (imports, memories), which is not what is timed
        policy.shards.call("stats", [None] * len(policy.parts))
    start = time.perf_counter()
    for _ in range(ticks):
        model.step()
    seconds = time.perf_counter() - start
    out: dict[str, Any] = {"seconds": seconds, "macro": [dict(m) for m in model.history]}
    if shards:
        out["traffic"] = list(policy.traffic)
        out["shards"] = policy.shards.call("stats", [None] * len(policy.parts))
        policy.close()
    model.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", type=int, default=1000)
    ap.add_argument("--ticks", type=int, default=24)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    import logging

    import ray

    logging.disable(logging.WARNING)
    load_start = os.getloadavg()[0]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=256 * 1024 * 1024)
    results: dict[int, list[dict[str, Any]]] = {0: [], 1: [], 2: []}
    for _ in range(args.repeats):
        for shards in (0, 1, 2):
            results[shards].append(run(shards, args.agents, args.ticks, args.seed))
            print(shards, round(results[shards][-1]["seconds"], 1), flush=True)
    ray.shutdown()
    load_end = os.getloadavg()[0]
    same = all(r["macro"] == results[0][0]["macro"] for rs in results.values() for r in rs)
    print(section(results, args, same, load_start, load_end, _stats(results)))
    if not args.no_write:
        write_section("bench_shards", "Measured: one process, 1 and 2 Ray shards", section(
            results, args, same, load_start, load_end, _stats(results)), doc=DOC)  # fmt: skip


def _stats(results: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    """Median seconds per configuration; traffic, shard time and shard memory per household."""
    med = {k: statistics.median(r["seconds"] for r in rs) for k, rs in results.items()}
    out: dict[str, Any] = {"seconds": med}
    for k in (1, 2):
        r = results[k][0]
        ticks = max(row["tick"] for row in r["traffic"])
        calls = r["traffic"]
        out[k] = {
            "sent": sum(c["sent"] for c in calls) / ticks, "received": sum(c["received"] for c in calls) / ticks,
            "decide_sent": statistics.mean(c["sent"] for c in calls if c["call"] == "decide"),
            "feedback_sent": statistics.mean(c["sent"] for c in calls if c["call"] == "feedback"),
            "decide_received": statistics.mean(c["received"] for c in calls if c["call"] == "decide"),
            "feedback_received": statistics.mean(c["received"] for c in calls if c["call"] == "feedback"),
            "in_shards": sum(c["seconds"] for c in calls),
            "rss_mb": [s["rss_mb"] for s in r["shards"]],
        }  # fmt: skip
    return out


def section(results: dict[int, list[dict[str, Any]]], args: argparse.Namespace, same: bool, load_start: float,
            load_end: float, s: dict[str, Any]) -> str:  # fmt: skip
    n, ticks = args.agents, args.ticks
    steps = n * ticks
    med = s["seconds"]
    rows = [
        f"| configuration | seconds (median of {args.repeats}) | agent-steps/s | speed vs one process |",
        "|---|---|---|---|",
    ]
    for k, label in ((0, "one process"), (1, "Ray, 1 shard"), (2, "Ray, 2 shards")):
        rows.append(f"| {label} | {med[k]:.1f} | {steps / med[k]:.0f} | x{med[0] / med[k]:.2f} |")
    one, two = s[1], s[2]
    driver = (med[1] - one["in_shards"]) / steps
    shard_step = one["in_shards"] / steps
    per_hh_mb = (one["rss_mb"][0] - statistics.mean(two["rss_mb"])) / (n / 2)
    base_mb = one["rss_mb"][0] - per_hh_mb * n
    per_hh_bytes = one["sent"] / n, one["received"] / n
    lines = [
        f"{n:,} cognitive households x {ticks} months, seed {args.seed}, heuristic cognitive policy, markets on; "
        f"load average {load_start:.1f} at the start and {load_end:.1f} at the end (2 cores shared with other "
        f"jobs, so absolute times are noisy; the ratios come from runs of the same process, one after the other). "
        f"Macro series of the sharded runs identical to the one-process run: {'yes' if same else 'NO'}.",
        "",
        *rows,
        "",
        "Bytes per tick (pickled as Ray sends them, all shards together):",
        "",
        "| | decide request | decide reply | feedback request | feedback reply | per tick | per household-tick |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, label in ((1, "1 shard"), (2, "2 shards")):
        t = s[k]
        lines.append(
            f"| {label} | {t['decide_sent'] / 1e3:.0f} kB | {t['decide_received'] / 1e3:.0f} kB | "
            f"{t['feedback_sent'] / 1e3:.0f} kB | {t['feedback_received'] / 1e3:.0f} kB | "
            f"{(t['sent'] + t['received']) / 1e3:.0f} kB | {(t['sent'] + t['received']) / n:.0f} B |"
        )
    lines += [
        "",
        f"Per household-month with 1 shard: {shard_step * 1e3:.2f} ms inside the shard calls (the households' "
        f"cognition plus pickling and transfer), {driver * 1e3:.2f} ms on the driver (the model, markets, deals, "
        f"journal); shard memory {one['rss_mb'][0]:.0f} MB for {n:,} households, {statistics.mean(two['rss_mb']):.0f} "
        f"MB each for {n // 2:,}: about {per_hh_mb * 1e3:.0f} kB per household after {ticks} months on a base of "
        f"{base_mb:.0f} MB per process; {per_hh_bytes[0]:.0f} B sent and {per_hh_bytes[1]:.0f} B received per "
        f"household-month.",
        "",
        f"Projection to {PROJECTED:,} households x 240 months from these per-household costs (shard time divided "
        "evenly over the shards, one core each; the driver's part does not shrink with more shards):",
        "",
        "| shards (cores) | shard part per month | driver part per month | month | 240 months | "
        "bytes per month |",
        "|---|---|---|---|---|---|",
    ]
    for k in (2, 16, 64):
        sp, dp = shard_step * PROJECTED / k, driver * PROJECTED
        lines.append(
            f"| {k} | {sp:.1f} s | {dp:.1f} s | {sp + dp:.1f} s | {(sp + dp) * 240 / 3600:.1f} h | "
            f"{(per_hh_bytes[0] + per_hh_bytes[1]) * PROJECTED / 1e6:.0f} MB |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
