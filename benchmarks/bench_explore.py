"""Speed of `psychoagent explore` on a big run: opening it (first open reads the table from columns and writes
the per-agent copies, later opens read the cache) and answering agent pages and months, against the targets of 3 s
per open and 300 ms per page. Each open runs in a fresh interpreter, as the command does.

The big run is written from a small simulated cognitive run: its households' events (memories, persona updates,
traced decisions, guardrails) are repeated over HOUSEHOLDS x MONTHS with their ticks and sources renamed, so the
files have the payloads (and decoded sizes) of a real run of that shape without simulating it for minutes; it is
kept under the temporary folder and reused. ``--run DIR`` measures another run folder (a simulated one) instead.

Run from the repository root: ``python -m benchmarks.bench_explore`` (``--quick``: 200 x 60, not recorded).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
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
PAGES = 30
"""Agents picked at random for each kind of request: their pages made cold, as a user clicks through."""


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


def _first_open(path: Path) -> dict[str, float]:
    """In this (fresh) interpreter: import the explorer, open the run without a cache as `psychoagent explore`
    does (in the background) and time the overview, the agents table, the agent pages and the months' decision
    texts being ready, and the cache written."""
    start = time.perf_counter()
    from psychoagent.explore.app import create_app  # noqa: F401  (loaded by the command)
    from psychoagent.explore.config import ExploreConfig
    from psychoagent.explore.index import RunIndex, use_memory_pool

    use_memory_pool(ExploreConfig().memory_pool)  # as the command does
    loaded, cpu = time.perf_counter(), time.process_time()
    index = RunIndex.open(path, background=True)
    serving = time.perf_counter()
    index.ready.wait()
    table = time.perf_counter()
    index.paged.wait()
    paged, paged_cpu = time.perf_counter(), time.process_time() - cpu
    index.texted.wait()
    texted = time.perf_counter()
    index.built.wait()
    built = time.perf_counter()
    assert index.failure is None, index.failure
    return {
        "imports": loaded - start,
        "serving": serving - loaded,
        "table": table - loaded,
        "paged": paged - loaded,
        "paged_cpu": paged_cpu,
        "texted": texted - loaded,
        "built": built - loaded,
    }


def _pages_while_writing(path: Path, pages: int) -> dict[str, object]:
    """In this (fresh) interpreter: a first open served as the command serves it; from the moment agent pages
    answer (from memory) until every copy is written, time up to `pages` random agents' pages over HTTP."""
    from psychoagent.explore.app import create_app
    from psychoagent.explore.config import ExploreConfig
    from psychoagent.explore.index import RunIndex, use_memory_pool
    from psychoagent.service.background import serve_in_thread

    use_memory_pool(ExploreConfig().memory_pool)
    index = RunIndex.open(path, background=True)
    timed: list[float] = []
    with serve_in_thread(create_app(index, None)) as url, httpx.Client(base_url=url, timeout=60) as client:
        index.paged.wait()
        ids = [int(r["id"]) for r in index.rows]
        for agent in np.random.default_rng(1).choice(ids, size=min(pages, len(ids)), replace=False):
            if index.built.is_set():
                break
            t = time.perf_counter()
            client.get(f"/api/agents/{agent}").raise_for_status()
            timed.append(time.perf_counter() - t)
        index.built.wait()
    assert index.failure is None, index.failure
    return {"pages": timed}


def _later_open(path: Path, pages: int) -> dict[str, object]:
    """In this (fresh) interpreter: open the run from its cache, serve it, and time over HTTP each of `pages`
    random agents' page then one of its months, and a month of `pages` other agents not opened before."""
    from psychoagent.explore.app import create_app
    from psychoagent.explore.config import ExploreConfig
    from psychoagent.explore.index import RunIndex, use_memory_pool
    from psychoagent.service.background import serve_in_thread

    use_memory_pool(ExploreConfig().memory_pool)
    start = time.perf_counter()
    index = RunIndex.open(path)
    opened = time.perf_counter() - start
    assert index.paged.is_set(), "the cache was not valid"
    rng = np.random.default_rng(0)
    ids = [int(r["id"]) for r in index.rows]
    picked = rng.choice(ids, size=min(2 * pages, len(ids)), replace=False)
    months = int(index.summary["ticks"])
    timed: dict[str, list[float]] = {"page": [], "month_after": [], "month_cold": []}
    with serve_in_thread(create_app(index, None)) as url, httpx.Client(base_url=url, timeout=60) as client:
        for n, agent in enumerate(picked):
            asks = [("page", f"/api/agents/{agent}")] if n < pages else []
            month = f"/api/agents/{agent}/month/{int(rng.integers(1, months + 1))}"
            asks.append(("month_after" if n < pages else "month_cold", month))
            for kind, path_ in asks:
                t = time.perf_counter()
                client.get(path_).raise_for_status()
                timed[kind].append(time.perf_counter() - t)
    return {"open": opened, **timed}


def _child(mode: str, path: Path, pages: int) -> dict:
    """Run one open in a fresh interpreter (this script with --child) and return what it measured."""
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.bench_explore",
        "--child",
        mode,
        "--run",
        str(path),
        "--pages",
        str(pages),
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, ["src", os.environ.get("PYTHONPATH")]))}
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "process": time.perf_counter() - start}


def _megabytes(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*.parquet")) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 households x 60 months; not recorded")
    parser.add_argument("--run", type=Path, help="a run folder to measure (default: the grown run, kept)")
    parser.add_argument("--pages", type=int, default=PAGES, help="random agents per kind of request")
    parser.add_argument("--no-write", action="store_true", help="print only; docs/benchmarks.md unchanged")
    parser.add_argument("--child", choices=["first", "writing", "later"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        works = {"first": _first_open, "writing": lambda p: _pages_while_writing(p, args.pages),
                 "later": lambda p: _later_open(p, args.pages)}  # fmt: skip
        print(json.dumps(works[args.child](args.run)))
        return
    households, months = (200, 60) if args.quick else (1000, 240)
    path = args.run or Path(tempfile.gettempdir()) / f"explore-bench-run-{households}x{months}"
    if not (path / "config.json").is_file():
        with tempfile.TemporaryDirectory() as tmp:
            partial = path.with_name(path.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            grow(seed_run(Path(tmp) / "seed"), partial, households, months)
            partial.rename(path)
    from psychoagent.eval.rundata import RunData

    run = RunData.open(path)
    households, months = run.config.get("agents", households), run.ticks
    shutil.rmtree(path / ".explore", ignore_errors=True)
    load = os.getloadavg()[0]
    first = _child("first", path, args.pages)
    shutil.rmtree(path / ".explore", ignore_errors=True)
    writing = _child("writing", path, args.pages)["pages"]
    later = _child("later", path, args.pages)
    p95 = lambda xs: float(np.percentile(xs, 95))  # noqa: E731
    ms = lambda xs: f"{statistics.median(xs) * 1000:.0f} / {p95(xs) * 1000:.0f} ms"  # noqa: E731
    lines = [
        f"A run of {households:,} households x {months} months ({'`' + str(args.run) + '`' if args.run else 'grown from a simulated one'}; "
        f"agents.parquet {(path / 'agents.parquet').stat().st_size / 1e6:.1f} MB, events/ {_megabytes(path / 'events'):.1f} MB, "
        f"every decision traced); the cache it leaves, .explore/, {_megabytes(path / '.explore'):.1f} MB. Load average "
        f"{load:.1f} at the start. Each open in a fresh interpreter (its imports not counted: {first['imports']:.1f} s for "
        f"the explorer after pandas and pyarrow; the whole first-open process took {first['process']:.1f} s, and until "
        f"agent pages were ready it used {first['paged_cpu']:.2f} s of CPU; pyarrow's jemalloc pool, as the command); "
        f"{args.pages} random agents per request kind over HTTP, each page made cold.",
        "",
        "| step | time | target | time / target |",
        "|---|---|---|---|",
        f"| first open: serving, the overview ready | {first['serving'] * 1000:.0f} ms | {OPEN_TARGET_S:.0f} s | {first['serving'] / OPEN_TARGET_S:.3f} |",
        f"| first open: the agents table ready (column reads) | {first['table']:.2f} s | {OPEN_TARGET_S:.0f} s | {first['table'] / OPEN_TARGET_S:.2f} |",
        f"| first open: agent pages ready (what they need read into memory) | {first['paged']:.2f} s | {OPEN_TARGET_S:.0f} s | {first['paged'] / OPEN_TARGET_S:.2f} |",
        f"| first open: months' decision texts ready (read into memory) | {first['texted']:.2f} s | | |",
        f"| first open: over (every copy and the cache written) | {first['built']:.2f} s | | |",
        f"| agent page while the first open sorts and writes the copies, median / p95 ({len(writing)} pages) | {ms(writing)} | {PAGE_TARGET_S * 1000:.0f} ms | {p95(writing) / PAGE_TARGET_S:.2f} |"
        if writing else "| agent page while the first open sorts and writes the copies | (written before a page was asked) | | |",
        f"| later open (from the cache beside the run) | {later['open'] * 1000:.0f} ms | {OPEN_TARGET_S:.0f} s | {later['open'] / OPEN_TARGET_S:.3f} |",
        f"| agent page, median / p95 | {ms(later['page'])} | {PAGE_TARGET_S * 1000:.0f} ms | {p95(later['page']) / PAGE_TARGET_S:.2f} |",
        f"| a month after its agent's page, median / p95 | {ms(later['month_after'])} | {PAGE_TARGET_S * 1000:.0f} ms | {p95(later['month_after']) / PAGE_TARGET_S:.2f} |",
        f"| a month of an agent not opened yet, median / p95 | {ms(later['month_cold'])} | {PAGE_TARGET_S * 1000:.0f} ms | {p95(later['month_cold']) / PAGE_TARGET_S:.2f} |",
    ]  # fmt: skip
    publish(
        "bench_explore",
        "Explorer: opening a big run and answering its pages",
        lines,
        write=not (args.quick or args.no_write),
    )


if __name__ == "__main__":
    main()
