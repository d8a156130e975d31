"""Cognitive agents: agent-steps/s and peak memory with the population memory and with one private `Memory` per
household (the earlier path), at 100, 1,000 and optionally 10,000 households; where the time goes (cProfile of
both); LLM calls and tokens per agent-step with and without grouping (offline model; optionally SmolLM2).

    python -m benchmarks.bench_cognitive [--ticks 24] [--large-ticks 24] [--huge-ticks 0] [--full] [--local]
                                         [--late-profile 0]

An agent-step is one household in one tick. The rule policy `persona` is measured in the same run as the
baseline. Each configuration runs in a fresh child process, so its peak RSS is its own. Long runs are
extrapolated to 240 ticks from the later half of the measured ticks (memory grows with time, so later ticks are
the slower ones); `--full` measures 1,000 x 240 instead.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import resource
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

from benchmarks._report import publish
from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.cognitive.llm_policy import LLMPolicy
from psychoagent.econ.cognitive.policy import CognitivePolicy
from psychoagent.econ.gc_pause import fewer_collections
from psychoagent.econ.model import EconomyModel


def _policy(kind: str) -> Any:
    if kind == "persona":
        return "persona"
    return CognitivePolicy(cognitive=CognitiveConfig(memory_backend=kind))


def _timed(kind: str, agents: int, ticks: int, seed: int) -> dict[str, Any]:
    """Runs in a child: seconds per tick, peak RSS (MB) and the policy's counters."""
    import logging

    logging.disable(logging.WARNING)
    policy = _policy(kind)
    model = EconomyModel(seed=seed, policy=policy, households=agents)
    per_tick, cpu = [], []
    with fewer_collections():  # as `simulate` runs
        for _ in range(ticks):
            t, c = time.perf_counter(), time.process_time()
            model.step()
            per_tick.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
    counts = dict(getattr(model.policy, "counts", {}))
    model.close()
    return {"per_tick": per_tick, "cpu": cpu, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "counts": counts}  # fmt: skip


def timed(kind: str, agents: int, ticks: int, seed: int = 1) -> dict[str, Any]:
    """`_timed` in a fresh process (its own peak RSS)."""
    with ProcessPoolExecutor(1, mp_context=get_context("fork")) as pool:
        return pool.submit(_timed, kind, agents, ticks, seed).result()


def rate(agents: int, seconds: list[float]) -> float:
    return agents * len(seconds) / max(sum(seconds), 1e-9)


def minutes_240(per_tick: list[float]) -> float:
    late = per_tick[len(per_tick) // 2 :]
    return sum(late) / len(late) * 240 / 60


def profile(kind: str, agents: int, ticks: int, skip: int = 0) -> str:
    """cProfile of a cognitive run after `skip` unprofiled ticks: top psychoagent functions by cumulative time."""
    import logging

    logging.disable(logging.WARNING)
    prof = cProfile.Profile()
    model = EconomyModel(seed=2, policy=_policy(kind), households=agents)
    with fewer_collections():
        model.run(skip)
        prof.enable()
        model.run(ticks)
        prof.disable()
    stats = pstats.Stats(prof, stream=io.StringIO()).sort_stats("cumulative")
    rows = []
    for (file, _line, func), (_, _, tt, ct, _) in sorted(stats.stats.items(), key=lambda kv: -kv[1][3]):  # type: ignore[attr-defined]
        if "psychoagent" not in file:
            continue
        rows.append(f"| `{file.split('src/psychoagent/')[-1]}:{func}` | {ct:.2f} | {tt:.2f} |")
        if len(rows) == 14:
            break
    return "| function | cumulative s | own s |\n|---|---:|---:|\n" + "\n".join(rows)


def llm_usage(agents: int, ticks: int, spec: str, group: bool) -> dict[str, Any]:
    cfg = CognitiveConfig()
    cfg.llm.group = group
    policy = LLMPolicy(cognitive=cfg)
    policy.use_llm(spec)
    t = time.perf_counter()
    EconomyModel(seed=1, policy=policy, households=agents).run(ticks)
    seconds = time.perf_counter() - t
    dec = policy.usage()["purposes"].get("decision", {})
    steps = agents * ticks
    calls = dec.get("calls", 0)
    return {
        "seconds": seconds, "calls_per_step": calls / steps,
        "tokens_per_step": (dec.get("prompt_tokens", 0) + dec.get("completion_tokens", 0)) / steps,
        "prompt_per_call": dec.get("prompt_tokens", 0) / max(calls, 1), "outcomes": dec.get("outcomes", {}),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--ticks", type=int, default=24, help="ticks of the 100-household runs")
    ap.add_argument("--large-ticks", type=int, default=24, help="ticks of the 1,000-household runs")
    ap.add_argument("--huge-ticks", type=int, default=0, help="ticks of a 10,000-household run (0: none)")
    ap.add_argument("--full", action="store_true", help="also run 1,000 x 240 with the population memory")
    ap.add_argument("--local", action="store_true", help="also a short LLM run on the bundled SmolLM2")
    ap.add_argument("--late-profile", type=int, default=0,
                    help="also profile 1,000 households over 10 ticks after this many (0: none)")  # fmt: skip
    args = ap.parse_args()
    sizes = [(100, args.ticks), (1000, args.large_ticks)] + (
        [(10_000, args.huge_ticks)] if args.huge_ticks else []
    )
    rows, counts = [], {}
    for agents, ticks in sizes:
        kinds = ["persona", "population"] + (["private"] if agents <= 100 else [])
        base = None
        for kind in kinds:
            r = timed(kind, agents, ticks)
            secs = sum(r["per_tick"])
            base = secs if kind == "persona" else base
            ratio = f"x{secs / base:.1f}" if base and kind != "persona" else "1"
            rows.append(f"| {kind} | {agents} | {ticks} | {rate(agents, r['per_tick']):.0f} | {secs:.1f} | "
                        f"{sum(r['cpu']):.1f} | {ratio} | {minutes_240(r['per_tick']):.1f} | "
                        f"{minutes_240(r['cpu']):.1f} | {r['rss_mb']:.0f} |")  # fmt: skip
            if kind == "population" and agents == 100:
                counts = r["counts"]
    full = []
    if args.full:
        r = timed("population", 1000, 240)
        marks = ", ".join(f"{m}: {sum(r['per_tick'][:m]):.0f} s" for m in (60, 120, 180, 240))
        full = [f"Measured over the full 240 ticks with 1,000 households (population memory): "
                f"{sum(r['per_tick']) / 60:.1f} minutes wall ({marks}), {sum(r['cpu']) / 60:.1f} minutes CPU, "
                f"peak RSS {r['rss_mb']:.0f} MB.", ""]  # fmt: skip
    built = counts.get("briefing.built", 0)
    reused = counts.get("briefing.reused", 0)
    lines = [
        "Agent-steps/s (one household in one tick) on the default economy with the markets, heuristic decisions,",
        "hash embedder. `population`: one columnar memory for all households, recall of every deciding household",
        "in one vectorised pass; `private`: one in-memory SQLite `Memory` per household (the earlier path, kept as",
        "`CognitiveConfig(memory_backend='private')`). Ratios are against the persona rule at the same size in this",
        "run; 240-tick minutes are extrapolated from the later half of the measured ticks. CPU seconds are this",
        "process's own (`time.process_time`): on a shared machine they change less with the load than wall time.",
        "",
        "| policy / memory | households | ticks | agent-steps/s | seconds | CPU s | vs persona | est. min for 240 ticks | est. CPU min | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        *full,
        f"Population run with 100 households: {reused} briefings reused of {built + reused}; decisions "
        + ", ".join(f"{k.split('.')[1]} {v}" for k, v in sorted(counts.items()) if k.startswith("decision."))
        + ".",
        "",
        f"Where the time goes, population memory (cProfile, 100 households x {min(args.ticks, 12)} ticks):",
        "",
        profile("population", 100, min(args.ticks, 12)),
        "",
        "The same with one private `Memory` per household (the earlier path):",
        "",
        profile("private", 100, min(args.ticks, 12)),
        "",
        *([f"Population memory, 1,000 households, ticks {args.late_profile + 1}-{args.late_profile + 10} "
           "(late in a run, where a month costs most):", "",
           profile("population", 1000, 10, args.late_profile), ""] if args.late_profile else []),
        "LLM policy (all calls of a tick in one batch; grouped: one call per group of alike households):",
        "",
        "| model | households x ticks | grouping | calls / agent-step | tokens / agent-step | prompt tokens / call | seconds | outcomes |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]  # fmt: skip
    runs = [("offline", 1000, 3, True), ("offline", 1000, 3, False), ("offline", 100, 6, True)]
    runs += [("local", 20, 2, True)] if args.local else []
    for spec, n, t, group in runs:
        try:
            u = llm_usage(n, t, spec, group)
        except Exception as exc:  # the local model is an optional extra
            lines.append(
                f"| {spec} | {n} x {t} | {'on' if group else 'off'} | - | - | - | - | not run: {exc} |"
            )
            continue
        lines.append(f"| {spec} | {n} x {t} | {'on' if group else 'off'} | {u['calls_per_step']:.3f} | "
                     f"{u['tokens_per_step']:.0f} | {u['prompt_per_call']:.0f} | {u['seconds']:.1f} | {u['outcomes']} |")  # fmt: skip
    lines += ["", "Offline token counts are estimates from text length (the offline model has no tokenizer)."]
    publish("bench_cognitive", "Cognitive agents", lines)


if __name__ == "__main__":
    main()
