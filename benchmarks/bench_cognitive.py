"""Cognitive agents: agent-steps/s with full cognition at 100 and 1,000 households, where the time goes, and
LLM calls and tokens per agent-step with the LLM policy (offline model; optionally the local SmolLM2).

    python -m benchmarks.bench_cognitive [--ticks 24] [--large-ticks 6] [--local]

An agent-step is one household in one tick. The rule policy `persona` is measured in the same run as the
baseline. 1,000 households are measured over a short run and the 240-tick time is extrapolated from the
late ticks (memory grows with time, so later ticks are the slower ones).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from typing import Any

from benchmarks._report import write_section
from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.cognitive.llm_policy import LLMPolicy
from psychoagent.econ.cognitive.policy import CognitivePolicy
from psychoagent.econ.model import EconomyModel


def timed(policy: Any, agents: int, ticks: int, seed: int = 1) -> tuple[float, list[float], EconomyModel]:
    """Seconds for the whole run and per tick."""
    model = EconomyModel(seed=seed, policy=policy, households=agents)
    per_tick = []
    for _ in range(ticks):
        t = time.perf_counter()
        model.step()
        per_tick.append(time.perf_counter() - t)
    model.close()
    return sum(per_tick), per_tick, model


def rate(agents: int, seconds: list[float]) -> float:
    return agents * len(seconds) / max(sum(seconds), 1e-9)


def profile(agents: int, ticks: int) -> str:
    """cProfile of a cognitive run: top functions by cumulative time (own code and memory)."""
    prof = cProfile.Profile()
    model = EconomyModel(seed=2, policy=CognitivePolicy(), households=agents)
    prof.enable()
    model.run(ticks)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out).sort_stats("cumulative")
    rows = []
    for (file, _line, func), (_, _, tt, ct, _) in sorted(stats.stats.items(), key=lambda kv: -kv[1][3]):  # type: ignore[attr-defined]
        if "psychoagent" not in file:
            continue
        short = file.split("src/psychoagent/")[-1]
        rows.append(f"| `{short}:{func}` | {ct:.2f} | {tt:.2f} |")
        if len(rows) == 16:
            break
    return "| function | cumulative s | own s |\n|---|---:|---:|\n" + "\n".join(rows)


def llm_usage(agents: int, ticks: int, spec: str) -> dict[str, Any]:
    policy = LLMPolicy()
    policy.use_llm(spec)
    total, _, _ = timed(policy, agents, ticks)
    stats = policy.usage()
    dec = stats["purposes"].get("decision", {})
    steps = agents * ticks
    return {
        "spec": spec, "agents": agents, "ticks": ticks, "seconds": total, "calls": dec.get("calls", 0),
        "calls_per_step": dec.get("calls", 0) / steps,
        "tokens_per_step": (dec.get("prompt_tokens", 0) + dec.get("completion_tokens", 0)) / steps,
        "prompt_per_call": dec.get("prompt_tokens", 0) / max(dec.get("calls", 1), 1),
        "outcomes": dec.get("outcomes", {}),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ticks", type=int, default=24, help="ticks of the 100-household runs")
    ap.add_argument("--large-ticks", type=int, default=24, help="ticks of the 1,000-household runs")
    ap.add_argument("--full", action="store_true", help="also run 1,000 x 240 with both configurations")
    ap.add_argument("--local", action="store_true", help="also a short LLM run on the bundled SmolLM2")
    args = ap.parse_args()
    rows = []
    _, base, _ = timed("persona", 100, args.ticks)
    rows.append(("persona rule (baseline)", 100, args.ticks, rate(100, base), sum(base)))
    _, full, model = timed(CognitivePolicy(), 100, args.ticks)
    rows.append(("cognitive, all households", 100, args.ticks, rate(100, full), sum(full)))
    counts = dict(model.policy.counts)  # type: ignore[attr-defined]
    variants = [
        ("cognitive, all households", CognitiveConfig()),
        ("cognitive, 20 % of households, decide every 2 ticks", CognitiveConfig(share=0.2, decide_every=2)),
    ]
    large = []
    for label, cfg in variants:
        _, secs, _ = timed(CognitivePolicy(cognitive=cfg), 1000, args.large_ticks)
        late = secs[len(secs) // 2 :]
        per_tick = sum(late) / len(late)
        large.append((label, rate(1000, secs), per_tick * 240 / 60))
    _, base_large, _ = timed("persona", 1000, args.large_ticks)
    full_run = []
    if args.full:
        full_run = ["Measured over the full 240 ticks with 1,000 households:", ""]
        for label, cfg in reversed(variants):
            whole, _, _ = timed(CognitivePolicy(cognitive=cfg), 1000, 240)
            full_run.append(f"- {label}: {whole / 60:.1f} minutes ({1000 * 240 / whole:.0f} agent-steps/s)")
    lines = [
        "Agent-steps/s (one household in one tick) on the default economy with the markets; hash embedder, one",
        "in-memory SQLite store per cognitive household, heuristic decisions.",
        "",
        "| policy | households | ticks | agent-steps/s | seconds |",
        "|---|---:|---:|---:|---:|",
        *(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.0f} | {r[4]:.1f} |" for r in rows),
        f"| persona rule (baseline) | 1000 | {args.large_ticks} | {rate(1000, base_large):.0f} | {sum(base_large):.1f} |",
        "",
        f"1,000 households ({args.large_ticks} ticks measured; 240 ticks extrapolated from the later half):",
        "",
        "| configuration | agent-steps/s | est. minutes for 240 ticks |",
        "|---|---:|---:|",
        *(f"| {label} | {r:.0f} | {m:.1f} |" for label, r, m in large),
        "",
        *([*full_run, ""] if full_run else []),
        f"Cognitive run with 100 households: {counts.get('briefing.reused', 0)} briefings reused of "
        f"{counts.get('briefing.reused', 0) + counts.get('briefing.built', 0)}; decisions "
        + ", ".join(f"{k.split('.')[1]} {v}" for k, v in sorted(counts.items()) if k.startswith("decision."))
        + ".",
        "",
        f"Where the time goes (cProfile, 100 households x {min(args.ticks, 12)} ticks, psychoagent functions):",
        "",
        profile(100, min(args.ticks, 12)),
        "",
        "LLM policy (one batched call per tick, one prompt per deciding household):",
        "",
        "| model | households x ticks | calls / agent-step | tokens / agent-step | prompt tokens / call | seconds | outcomes |",
        "|---|---|---:|---:|---:|---:|---|",
    ]  # fmt: skip
    specs = ["offline"] + (["local"] if args.local else [])
    for spec in specs:
        n, t = (20, 6) if spec == "offline" else (3, 2)
        try:
            u = llm_usage(n, t, spec)
        except Exception as exc:  # the local model is an optional extra
            lines.append(f"| {spec} | {n} x {t} | - | - | - | - | not run: {type(exc).__name__}: {exc} |")
            continue
        lines.append(
            f"| {spec} | {n} x {t} | {u['calls_per_step']:.2f} | {u['tokens_per_step']:.0f} | "
            f"{u['prompt_per_call']:.0f} | {u['seconds']:.1f} | {u['outcomes']} |"
        )
    lines += ["", "Offline token counts are estimates from text length (the offline model has no tokenizer)."]
    body = "\n".join(lines)
    print(body)
    write_section("bench_cognitive", "Cognitive agents", body)


if __name__ == "__main__":
    main()
