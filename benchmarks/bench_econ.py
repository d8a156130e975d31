"""Economy core: speed and memory by population size, and EconAgent's macro regularities over seeds.

Run from the repository root: `python -m benchmarks.bench_econ` (add `--quick` for a smoke run). Each size runs in
its own process so peak memory (VmHWM) is that run's alone; the model runs with the persona heuristic, no LLM,
with the per-household table recorded (as `psychoagent simulate` does). Regularities: 100 households x 240
months, annual points, for the composite baseline and the persona heuristic; reported as they come out.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._report import write_section

SIZES = ((100, 240), (1000, 240), (10000, 60))
SEEDS = (1, 2, 3, 4, 5)


def _rss_mib(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure_one(households: int, ticks: int, seed: int = 1) -> dict[str, float]:
    """Time one run (model steps incl. data collection and the event log; then writing the tables)."""
    from psychoagent.agent.bus import EventBus
    from psychoagent.agent.eventlog import EventLog
    from psychoagent.econ.collect import write_tables
    from psychoagent.econ.model import EconomyModel

    base = _rss_mib("VmRSS")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        bus = EventBus(sink=EventLog(Path(tmp) / "events"))
        model = EconomyModel(seed=seed, policy="persona", households=households, bus=bus)
        t1 = time.perf_counter()
        model.run(ticks)
        t2 = time.perf_counter()
        model.close()
        write_tables(model, Path(tmp))
        t3 = time.perf_counter()
    return {
        "households": households, "ticks": ticks, "init_s": t1 - t0, "run_s": t2 - t1, "write_s": t3 - t2,
        "ticks_per_s": ticks / (t2 - t1), "agent_steps_per_s": households * ticks / (t2 - t1),
        "base_mib": base, "peak_mib": _rss_mib("VmHWM"),
    }  # fmt: skip


def speed(sizes: tuple[tuple[int, int], ...]) -> list[dict[str, float]]:
    """Each size in a fresh interpreter so the memory peak belongs to that run."""
    rows = []
    for n, t in sizes:
        code = f"import json; from benchmarks.bench_econ import measure_one; print(json.dumps(measure_one({n}, {t})))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return rows


def regularities(seeds: tuple[int, ...], households: int, ticks: int) -> dict[str, dict[str, object]]:
    """Phillips-curve and Okun's-law correlations per seed and pooled, per policy."""
    from psychoagent.econ.collect import macro_frame
    from psychoagent.econ.model import EconomyModel
    from psychoagent.eval.macro import okun_law, okun_points, phillips_curve, phillips_points, pooled

    out: dict[str, dict[str, object]] = {}
    for policy in ("composite", "persona"):
        per_seed, ph_pts, ok_pts = [], [], []
        for seed in seeds:
            model = EconomyModel(seed=seed, policy=policy, households=households)
            model.run(ticks)
            df = macro_frame(model)
            per_seed.append((seed, phillips_curve(df), okun_law(df), float(df["unemployment"].mean()),
                             float(df["inflation"].iloc[11::12].mean())))  # fmt: skip
            ph_pts.append(phillips_points(df))
            ok_pts.append(okun_points(df))
        out[policy] = {"seeds": per_seed, "phillips": pooled(ph_pts), "okun": pooled(ok_pts)}
    return out


def render(
    rows: list[dict[str, float]],
    regs: dict[str, dict[str, object]],
    households: int,
    ticks: int,
    seeds: tuple[int, ...],
) -> str:
    """Markdown body of the benchmark section."""
    lines = [
        "Persona heuristic policy, no LLM; per-household table recorded; events journalled. Run time covers the",
        "model's steps (decisions, markets, indicators, DataCollector); writing the tables is separate.",
        "Peak memory is the process's VmHWM (it includes the interpreter and imports: 'base').",
        "",
        "| households | ticks | run s | ticks/s | agent-steps/s | write tables s | base MiB | peak MiB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['households']:,} | {r['ticks']} | {r['run_s']:.2f} | {r['ticks_per_s']:.1f} | "
            f"{r['agent_steps_per_s']:,.0f} | {r['write_s']:.2f} | {r['base_mib']:.0f} | {r['peak_mib']:.0f} |"
        )
    lines += [
        "",
        f"Macro regularities: {households} households x {ticks} months, seeds {', '.join(map(str, seeds))}; annual",
        "points (EconAgent, Li et al. 2024). Phillips: corr(unemployment, wage inflation); Okun:",
        "corr(unemployment growth, real GDP growth). Negative r is the textbook sign; with 19 points r <= -0.456",
        "is significant at p < 0.05. Reported as they come out, without tuning.",
        "",
        "| policy | seed | Phillips r (p, n) | Okun r (p, n) | mean unemployment | mean annual inflation |",
        "|---|---:|---|---|---:|---:|",
    ]
    for policy, res in regs.items():
        for seed, ph, ok, u, infl in res["seeds"]:  # type: ignore[attr-defined]
            lines.append(
                f"| {policy} | {seed} | {ph.r:+.3f} ({ph.p:.3g}, {ph.n}) | {ok.r:+.3f} ({ok.p:.3g}, {ok.n}) | "
                f"{u:.1%} | {infl:+.1%} |"
            )
        ph, ok = res["phillips"], res["okun"]
        lines.append(f"| {policy} | pooled | {ph} | {ok} | | |")
    sig = {
        p: (sum(1 for s in r["seeds"] if s[1].r < 0 and s[1].significant()),  # type: ignore[attr-defined]
            sum(1 for s in r["seeds"] if s[2].r < 0 and s[2].significant()))  # type: ignore[attr-defined]
        for p, r in regs.items()
    }  # fmt: skip
    lines += ["", "Seeds with a significant negative correlation (Phillips, Okun): "
              + "; ".join(f"{p}: {a}/{len(seeds)}, {b}/{len(seeds)}" for p, (a, b) in sig.items()) + "."]  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, no report written")
    args = parser.parse_args()
    sizes = ((100, 24), (1000, 12)) if args.quick else SIZES
    households, ticks = (30, 36) if args.quick else (100, 240)
    t0 = time.perf_counter()
    rows = speed(sizes)
    seeds = SEEDS[:2] if args.quick else SEEDS
    regs = regularities(seeds, households, ticks)
    body = render(rows, regs, households, ticks, seeds)
    print(body)
    print(f"\n(total {time.perf_counter() - t0:.1f} s)")
    if not args.quick:
        write_section("bench_econ", "Economy core", body)


if __name__ == "__main__":
    main()
