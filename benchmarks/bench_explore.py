"""Speed of `psychoagent explore` on a big run: opening it (first open builds the indexes, later opens read the
cache) and answering an agent page and a month, against the targets of 3 s per open and 300 ms per page.

The big run is written from a small simulated cognitive run: its households' events (memories, persona updates,
traced decisions, guardrails) are repeated over HOUSEHOLDS x MONTHS with their ticks and sources renamed, so the
files have the sizes and the payloads of a real run of that shape without simulating it for hours.

Run from the repository root: ``python -m benchmarks.bench_explore`` (``--quick``: 200 x 60, not recorded).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import pyarrow as pa

from benchmarks._report import publish

OPEN_TARGET_S = 3.0
PAGE_TARGET_S = 0.3
PAGES = 40
"""Agent pages (and as many months) asked, of agents picked at random: cold, as a user clicks through."""


def seed_run(folder: Path) -> Path:
    """The small simulated run the big one is written from (12 cognitive households, 30 months)."""
    from psychoagent.econ.run import simulate
    from psychoagent.econ.scenario import Scenario

    scen = Scenario.model_validate({"name": "bench", "shocks": [{"kind": "demand_shock", "start": 13, "duration": 6, "factor": 0.7}]})  # fmt: skip
    simulate(folder, agents=12, ticks=30, seed=5, policy="cognitive", scenario=scen)
    return folder


def grow(seed: Path, out: Path, households: int, months: int) -> dict[str, float]:
    """Write a run of `households` x `months` into `out` from the seed run (through the run writer's table and
    event-log functions); returns the sizes in MB of the agents table and the events."""
    from psychoagent.agent.bus import Event
    from psychoagent.agent.eventlog import EventLog, EventLogSettings, write_atomic
    from psychoagent.eval.rundata import RunData

    out.mkdir(parents=True)
    run = RunData.open(seed)
    config = dict(run.config)
    config.update(agents=households, ticks=months)
    (out / "config.json").write_text(json.dumps(config))
    macro = run.macro
    reps = -(-months // len(macro))
    big = pd.concat([macro] * reps, ignore_index=True).iloc[:months]
    big["tick"] = np.arange(1, months + 1)
    agents = run.agents
    assert agents is not None and run.assets is not None
    base = agents[agents["tick"] <= 1].reset_index(drop=True)
    rows = pd.concat([base] * (-(-households // len(base))), ignore_index=True).iloc[:households]
    frame = pd.concat([rows] * months, ignore_index=True)
    frame["tick"] = np.repeat(np.arange(1, months + 1), households)
    frame["agent_id"] = np.tile(np.arange(households) + 4, months)
    for name, df in (("macro", big), ("agents", frame), ("assets", run.assets)):
        write_atomic(
            pa.Table.from_pandas(df, preserve_index=False), out / f"{name}.parquet", EventLogSettings()
        )
    by_tick: dict[int, list[dict]] = {}
    for event in run.iter_events():
        if str(event.get("source", "")).startswith("household:"):
            by_tick.setdefault(int(event["tick"]), []).append(event)
    seed_ticks, seed_n = sorted(by_tick), 12
    log, seq = EventLog(out / "events"), 0
    for t in range(1, months + 1):
        for event in by_tick[seed_ticks[(t - 1) % len(seed_ticks)]]:
            k = int(event["source"].split(":")[1])
            for h in range(k, households, seed_n):
                log.write(
                    Event.model_construct(**{**event, "seq": seq, "tick": t, "source": f"household:{h}"})
                )
                seq += 1
    log.close()
    events = sum(p.stat().st_size for p in (out / "events").rglob("*.parquet"))
    return {"agents": (out / "agents.parquet").stat().st_size / 1e6, "events": events / 1e6}


def timed_pages(
    url: str, households: int, months: int, rng: np.random.Generator
) -> tuple[list[float], list[float]]:
    """Seconds per agent page and per month over HTTP, for PAGES random agents."""
    pages, month_times = [], []
    with httpx.Client(base_url=url, timeout=60) as client:
        for agent in rng.choice(households, size=PAGES, replace=False):
            start = time.perf_counter()
            client.get(f"/api/agents/{agent}").raise_for_status()
            pages.append(time.perf_counter() - start)
            start = time.perf_counter()
            client.get(f"/api/agents/{agent}/month/{int(rng.integers(1, months + 1))}").raise_for_status()
            month_times.append(time.perf_counter() - start)
    return pages, month_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 households x 60 months; not recorded")
    args = parser.parse_args()
    households, months = (200, 60) if args.quick else (1000, 240)
    from psychoagent.explore.app import create_app
    from psychoagent.explore.index import RunIndex
    from psychoagent.service.background import serve_in_thread

    with tempfile.TemporaryDirectory() as tmp:
        sizes = grow(seed_run(Path(tmp) / "seed"), Path(tmp) / "big", households, months)
        start = time.perf_counter()
        fresh = RunIndex.open(Path(tmp) / "big", background=True)
        serving = time.perf_counter() - start
        fresh.ready.wait()
        first = time.perf_counter() - start
        start = time.perf_counter()
        index = RunIndex.open(Path(tmp) / "big")
        again = time.perf_counter() - start
        with serve_in_thread(create_app(index, None)) as url:
            pages, month_times = timed_pages(url, households, months, np.random.default_rng(0))
    p95 = lambda xs: float(np.percentile(xs, 95))  # noqa: E731
    lines = [
        f"A run of {households:,} households x {months} months (agents.parquet {sizes['agents']:.0f} MB, "
        f"events/ {sizes['events']:.0f} MB, every decision traced); {PAGES} random agents over HTTP.",
        "",
        "| step | time | target | time / target |",
        "|---|---|---|---|",
        f"| first open: serving, the overview ready (`psychoagent explore` indexes in the background) | {serving * 1000:.0f} ms | {OPEN_TARGET_S:.0f} s | {serving / OPEN_TARGET_S:.3f} |",
        f"| first open: events indexed and cached, the agents table ready | {first:.1f} s | {OPEN_TARGET_S:.0f} s | {first / OPEN_TARGET_S:.2f} |",
        f"| later open (from the cache beside the run) | {again * 1000:.0f} ms | {OPEN_TARGET_S:.0f} s | {again / OPEN_TARGET_S:.3f} |",
        f"| agent page, median / p95 | {statistics.median(pages) * 1000:.0f} / {p95(pages) * 1000:.0f} ms | {PAGE_TARGET_S * 1000:.0f} ms | {p95(pages) / PAGE_TARGET_S:.2f} |",
        f"| a month (briefing and decision), median / p95 | {statistics.median(month_times) * 1000:.0f} / {p95(month_times) * 1000:.0f} ms | {PAGE_TARGET_S * 1000:.0f} ms | {p95(month_times) / PAGE_TARGET_S:.2f} |",
    ]  # fmt: skip
    publish(
        "bench_explore", "Explorer: opening a big run and answering its pages", lines, write=not args.quick
    )


if __name__ == "__main__":
    main()
