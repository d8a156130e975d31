"""Load on the REST service over loopback: concurrent clients mixing writes and recalls, then a lost-write audit.

Starts `psychoagent serve` as its own process on a fresh file, seeds each namespace, runs N client threads for a
fixed time, reports throughput, latency percentiles and errors per operation, then checks that every write the
server acknowledged is stored, before and after a restart of the server.

Run from the repository root: ``python -m benchmarks.bench_service`` (``--quick`` for a 10 s run, not recorded).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

from benchmarks._report import write_section

WORDS = (
    "budget price order market steel wheat loan rate bank salary rent trip meeting report client contract "
    "risk profit loss delay refund invoice shipment supplier deadline team project goal plan review"
).split()
NAMESPACES = 4
SEED_UNITS = 250
"""Units per namespace before the load starts, so recalls search a non-trivial index."""


@dataclass
class ClientLog:
    """What one client did: latencies per operation, error statuses, ids the server acknowledged."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: {"observe": [], "recall": []})
    errors: Counter[str] = field(default_factory=Counter)
    acked: list[tuple[str, str]] = field(default_factory=list)


def _sentence(rng: np.random.Generator, n: int = 8) -> str:
    return " ".join(rng.choice(WORDS, size=n)) + "."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(db: str | Path, port: int, embedder: str, log: Path | None = None) -> subprocess.Popen[bytes]:
    """`psychoagent serve` on `db` (a file or a PostgreSQL URL) on loopback, once it answers; its log kept in `log`."""
    cmd = [
        sys.executable,
        "-m",
        "psychoagent",
        "serve",
        "--db",
        str(db),
        "--port",
        str(port),
        "--embedder",
        embedder,
    ]
    stderr = subprocess.DEVNULL if log is None else log.open("wb")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server did not start" + (f": {log.read_text()[-2000:]}" if log else ""))


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used (Linux /proc; 0 where it cannot be read)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _client(url: str, index: int, deadline: float, write_share: float, log: ClientLog) -> None:
    rng = np.random.default_rng(1000 + index)
    n = 0
    with httpx.Client(base_url=url, timeout=60) as http:
        while time.monotonic() < deadline:
            ns = f"ns{rng.integers(NAMESPACES)}"
            write = rng.random() < write_share
            start = time.perf_counter()
            try:
                if write:
                    uid = f"c{index}-{n}"
                    n += 1
                    resp = http.post(
                        f"/v1/namespaces/{ns}/memories", json={"text": _sentence(rng), "id": uid}
                    )
                    if resp.status_code == 201:
                        log.acked.append((ns, uid))
                else:
                    resp = http.post(f"/v1/namespaces/{ns}/recall", json={"query": _sentence(rng, 4), "k": 5})
                elapsed = time.perf_counter() - start
                if resp.is_success:
                    log.latencies["observe" if write else "recall"].append(elapsed)
                else:
                    log.errors[f"HTTP {resp.status_code}"] += 1
            except httpx.HTTPError as exc:
                log.errors[type(exc).__name__] += 1


FUZZ_EXAMPLES = 25
"""Per operation and phase, as in tests/service/test_fuzz.py."""
FUZZ_EXCLUDED = "positive_data_acceptance,use_after_free"
"""A schema-valid string such as "0" is no timestamp; a forgotten unit stays readable as a tombstone."""


def _fuzz(url: str, workdir: Path) -> tuple[int, str]:
    """Schemathesis (all phases, every other check) against the running server: exit code and case summary."""
    cmd = [sys.executable, "-m", "schemathesis.cli", "run", f"{url}/openapi.json", "--checks", "all",
           "--exclude-checks", FUZZ_EXCLUDED, "--max-examples", str(FUZZ_EXAMPLES), "--seed", "7",
           "--generation-database", "none", "--no-color", "--workers", "1", "--request-timeout", "60"]  # fmt: skip
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir, timeout=1800)
    found = re.search(r"Test cases:\s*\n\s*(.+)", result.stdout)
    return result.returncode, found.group(1).strip() if found else "no summary"


FORGET_UNITS = 20_000
"""Namespace size for the forget timing: a long-lived agent's memory."""


def _forget_cost(workdir: Path, units: int = FORGET_UNITS, repeats: int = 5) -> tuple[float, float]:
    """Median seconds of `Memory.forget` and of the next recall (the forgotten row is blanked in place; a
    namespace reloads only once a quarter of its rows are blanked)."""
    from psychoagent.memory.api import Memory

    rng = np.random.default_rng(1)
    forget_s, rebuild_s = [], []
    with Memory(workdir / "forget.db", embedder="hash", appraiser=None) as mem:
        for start in range(0, units, 1000):
            mem.observe_many([_sentence(rng) for _ in range(min(1000, units - start))])
        ids = [u.id for u in mem.units()[:repeats]]
        mem.recall("budget", k=5)
        for uid in ids:
            began = time.perf_counter()
            mem.forget(uid)
            forget_s.append(time.perf_counter() - began)
            began = time.perf_counter()
            mem.recall("budget", k=5)
            rebuild_s.append(time.perf_counter() - began)
    return float(np.median(forget_s)), float(np.median(rebuild_s))


def _stored_ids(url: str) -> set[tuple[str, str]]:
    return set(stored_kinds(url))


def stored_kinds(url: str) -> dict[tuple[str, str], str]:
    """(namespace, id) -> kind of every unit the server lists in the NAMESPACES namespaces, tombstones included."""
    found: dict[tuple[str, str], str] = {}
    with httpx.Client(base_url=url, timeout=120) as http:
        for i in range(NAMESPACES):
            ns, offset = f"ns{i}", 0
            while True:
                page = http.get(
                    f"/v1/namespaces/{ns}/memories", params={"offset": offset, "limit": 1000}
                ).json()
                found.update(((ns, u["id"]), u["kind"]) for u in page["units"])
                offset += len(page["units"])
                if offset >= page["total"] or not page["units"]:
                    break
    return found


def seed(url: str) -> None:
    """Store SEED_UNITS units in each of the NAMESPACES namespaces before a load starts."""
    rng = np.random.default_rng(0)
    with httpx.Client(base_url=url, timeout=60) as http:
        for i in range(NAMESPACES):
            for _ in range(SEED_UNITS):
                http.post(f"/v1/namespaces/ns{i}/memories", json={"text": _sentence(rng)}).raise_for_status()


def run(
    clients: int, seconds: float, write_share: float, embedder: str, backend: str = "sqlite"
) -> dict[str, object]:
    """One load run on `backend` (sqlite: a fresh file; postgres: a fresh local server); the measured numbers.
    Schemathesis and the forget timing run on SQLite only (None on PostgreSQL)."""
    with tempfile.TemporaryDirectory() as tmp:
        pg = None
        if backend == "postgres":
            from benchmarks.bench_soak import _postgres_url

            pg, db = _postgres_url(Path(tmp))
        else:
            db = str(Path(tmp) / "bench.db")
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        proc = _start(db, port, embedder)
        try:
            seed(url)
            fuzz = _fuzz(url, Path(tmp)) if pg is None else None
            logs = [ClientLog() for _ in range(clients)]
            deadline = time.monotonic() + seconds
            threads = [
                threading.Thread(target=_client, args=(url, i, deadline, write_share, logs[i]))
                for i in range(clients)
            ]
            began, cpu_server, cpu_clients = time.perf_counter(), _cpu_seconds(proc.pid), time.process_time()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - began
            cpu = (_cpu_seconds(proc.pid) - cpu_server, time.process_time() - cpu_clients)
            acked = {a for log in logs for a in log.acked}
            lost_live = len(acked - _stored_ids(url))
        finally:
            _stop(proc)
        proc = _start(db, port, embedder)
        try:
            lost_restart = len(acked - _stored_ids(url))
        finally:
            _stop(proc)
        forget = _forget_cost(Path(tmp)) if pg is None else None
        if pg is not None:
            pg.cleanup()
    lat = {
        op: np.array([x for log in logs for x in log.latencies[op]]) * 1000 for op in ("observe", "recall")
    }
    errors: Counter[str] = Counter()
    for log in logs:
        errors.update(log.errors)
    return {"wall": wall, "lat": lat, "errors": errors, "acked": len(acked), "lost_live": lost_live,
            "lost_restart": lost_restart, "fuzz": fuzz, "forget": forget, "cpu": cpu}  # fmt: skip


def _table(
    result: dict[str, object], clients: int, seconds: float, write_share: float, embedder: str, backend: str
) -> str:
    lat: dict[str, np.ndarray] = result["lat"]  # type: ignore[assignment]
    wall = float(result["wall"])  # type: ignore[arg-type]
    total = sum(len(v) for v in lat.values())
    rows = [
        "| operation | ok requests | per second | p50 ms | p95 ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for op, values in lat.items():
        if len(values):
            p50, p95, p99 = np.percentile(values, [50, 95, 99])
            rows.append(f"| {op} | {len(values):,} | {len(values) / wall:.0f} | {p50:.1f} | {p95:.1f} | {p99:.1f} | "
                        f"{values.max():.1f} |")  # fmt: skip
    errors: Counter[str] = result["errors"]  # type: ignore[assignment]
    fuzz: tuple[int, str] = result["fuzz"]  # type: ignore[assignment]
    forget: tuple[float, float] = result["forget"]  # type: ignore[assignment]
    cpu: tuple[float, float] = result["cpu"]  # type: ignore[assignment]
    store = "one SQLite file" if backend == "sqlite" else "one PostgreSQL database through its pool"
    lines = [
        f"**{backend}**: {clients} client threads for {seconds:.0f} s against `psychoagent serve --embedder {embedder}` (its own "
        f"process, {store}, {NAMESPACES} namespaces seeded with {SEED_UNITS} units each), "
        f"{write_share:.0%} writes (`POST .../memories` with a client-chosen id) and {1 - write_share:.0%} recalls "
        "(`POST .../recall`, k=5). Clients and server share the same cores, so these are lower bounds for a "
        "dedicated server; every request is serialised by the server's per-file lock and runs on its event loop.",
        "",
        *rows,
        "",
        f"- all requests: {total:,} ok in {wall:.1f} s = {total / wall:.0f} requests/s",
        f"- CPU time per request (steadier than the rate on a shared machine): server {cpu[0] / total * 1000:.2f} ms, "
        f"client threads {cpu[1] / total * 1000:.2f} ms",
        f"- errors: {sum(errors.values())}" + (f" ({dict(errors)})" if errors else ""),
        f"- acknowledged writes: {result['acked']:,}; missing while running: {result['lost_live']}; "
        f"missing after a server restart: {result['lost_restart']}",
    ]
    if backend != "sqlite":
        return "\n".join(lines)
    return "\n".join([
        *lines,
        "",
        f"Before the load, schemathesis ({FUZZ_EXAMPLES} examples per operation and phase; coverage, fuzzing and "
        f"stateful phases; every check except {FUZZ_EXCLUDED.replace(',', ' and ')}) ran against the same server: "
        f"{fuzz[1]}, exit code {fuzz[0]} (0: no server error, no response outside the OpenAPI schema).",
        "",
        f"Forgetting (`Memory.forget`, in process, a namespace of {FORGET_UNITS:,} units, median of 5): "
        f"{forget[0] * 1000:.1f} ms; it blanks the unit's row of the in-process index in place, and the next recall "
        f"takes {forget[1] * 1000:.1f} ms.",
    ])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--write-share", type=float, default=0.5)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--quick", action="store_true", help="10 s, printed only")
    args = parser.parse_args()
    seconds = 10.0 if args.quick else args.seconds
    parts = []
    for backend in ["sqlite", "postgres"] if args.backend == "both" else [args.backend]:
        result = run(args.clients, seconds, args.write_share, args.embedder, backend)
        parts.append(_table(result, args.clients, seconds, args.write_share, args.embedder, backend))
        print(parts[-1])
    body = "\n\n".join(parts)
    if not args.quick:
        write_section("bench_service", "Memory service (REST over loopback)", body)
    print(f"(load average now {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
