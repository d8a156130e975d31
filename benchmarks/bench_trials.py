"""The reliability trials with a chosen embedder (default e5, the library's default) on SQLite and PostgreSQL:
writers killed with SIGKILL mid-batch, two writer processes under a reader, and namespace isolation with `forget`
leaving no copy of the text. The hash-embedder trials are bench_kill and the tests; this pass shows the same
guarantees hold when every write runs the real model (slower batches, 384-d vectors, a vector index per model).

Run from the repository root: ``python -m benchmarks.bench_trials`` (``--embedder hash`` for a quick look,
``--backend sqlite`` or ``postgres`` for one, ``--no-write`` to print only).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks._report import publish
from benchmarks.bench_soak import _postgres_url
from psychoagent import Memory

PER_BATCH = 10
"""Units per `observe_many` call: e5 embeds about 15 short texts a second on a busy core, so a batch takes ~1 s."""
KILL_AFTER = (5.0, 20.0)
"""Seconds (a seeded draw) a writer runs before SIGKILL: past the model load, a few batches in."""
_WRITER = """
import sys
from psychoagent import Memory
db, embedder, ns, tag = sys.argv[1:5]
batches, per_batch = int(sys.argv[5]), int(sys.argv[6])
with Memory(db, namespace=ns, embedder=embedder, appraiser=None) as mem:
    b = 0
    while batches < 0 or b < batches:
        mem.observe_many(
            [{"text": f"writer {ns} filed report {b} part {i} about the harbour crane", "id": f"{b}-{i}-{tag}"}
             for i in range(per_batch)]
        )
        print(b, flush=True)
        b += 1
"""


def _writer(db: str, embedder: str, ns: str, batches: int, tag: str = "w") -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", _WRITER, db, embedder, ns, tag, str(batches), str(PER_BATCH)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def _query(db: str, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of one read-only statement on the database itself (`?` placeholders), outside the library."""
    if db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db) as conn:
            return list(conn.execute(sql.replace("?", "%s"), args).fetchall())
    with sqlite3.connect(db) as conn:
        return list(conn.execute(sql, args).fetchall())


def _batches(db: str, embedder: str, ns: str) -> dict[int, int]:
    with Memory(db, namespace=ns, embedder=embedder, appraiser=None) as mem:
        counts: dict[int, int] = {}
        for unit in mem.units():
            batch = int(unit.id.split("-")[0])
            counts[batch] = counts.get(batch, 0) + 1
    return counts


def kill_trial(db: str, embedder: str, ns: str, seconds: float) -> tuple[int, int, list[str]]:
    """Kill a writer after `seconds`: (acknowledged units, units found, problems)."""
    proc = _writer(db, embedder, ns, -1)
    acked = [-1]

    def read() -> None:  # to the end of the pipe: every line printed before the kill counts
        assert proc.stdout is not None
        for line in proc.stdout:
            acked[0] = int(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(seconds)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    reader.join()
    counts = _batches(db, embedder, ns)
    problems = [f"{ns}: acknowledged batch {b} has {counts.get(b, 0)} units" for b in range(acked[0] + 1)
                if counts.get(b) != PER_BATCH]  # fmt: skip
    problems += [f"{ns}: batch {b} is half-written ({n} units)" for b, n in counts.items() if n != PER_BATCH]
    bare = _query(db, "SELECT count(*) FROM units u WHERE u.namespace = ? AND NOT EXISTS "
                  "(SELECT 1 FROM vectors v WHERE v.content_hash = u.content_hash)", (ns,))[0][0]  # fmt: skip
    if bare:
        problems.append(f"{ns}: {bare} units without a vector")
    if not db.startswith("postgresql://"):
        check = _query(db, "PRAGMA integrity_check")[0][0]
        if check != "ok":
            problems.append(f"{ns}: integrity_check: {check}")
    return (acked[0] + 1) * PER_BATCH, sum(counts.values()), problems


def readers_trial(db: str, embedder: str, batches: int = 6) -> dict[str, Any]:
    """Two writer processes store `batches` batches each in one namespace while this process reads it: the count
    seen must only grow, by whole batches, and recall must find the last batch written by the other processes."""
    writers = [_writer(db, embedder, "rw", batches, tag) for tag in ("a", "b")]
    counts: list[int] = []
    with Memory(db, namespace="rw", embedder=embedder, appraiser=None) as mem:
        while any(w.poll() is None for w in writers):
            counts.append(len(mem.units()))
            time.sleep(0.05)
        errors = [w.communicate(timeout=60)[1] for w in writers if w.returncode]
        counts.append(len(mem.units()))
        hits = mem.recall(f"writer rw filed report {batches - 1} part 3 about the harbour crane", k=5)
    stale = sum(1 for a, b in itertools.pairwise(counts) if b < a)
    return {"polls": len(counts), "stale": stale, "partial": sum(1 for c in counts if c % PER_BATCH),
            "final": counts[-1], "expected": 2 * batches * PER_BATCH, "errors": errors,
            "found_last": any(h.unit.id.startswith(f"{batches - 1}-3-") for h in hits)}  # fmt: skip


def _copies(db: str, word: str) -> int:
    """Places holding `word` (any case) outside the library: files of the SQLite database (with -wal and -shm), or tables of
    the PostgreSQL schema whose rows' text form contains it."""
    if db.startswith("postgresql://"):
        tables = [
            r[0] for r in _query(db, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        ]
        return sum(1 for t in tables if _query(db, f'SELECT count(*) FROM "{t}" AS t WHERE t::text ILIKE ?',
                                                   (f"%{word}%",))[0][0])  # fmt: skip
    path = Path(db)
    return sum(
        1 for p in path.parent.glob(path.name + "*") if word.lower().encode() in p.read_bytes().lower()
    )


def isolation_trial(db: str, embedder: str) -> dict[str, Any]:
    """A secret stored in namespace "a": namespace "b" cannot get, forget or recall it; after `forget` no copy of
    its words is left in the database, and recall in "a" no longer returns it."""
    secret, query = "Quivermonk", "What is the vault password?"
    out: dict[str, Any] = {"refused": 0, "leaks": 0}
    with Memory(db, namespace="a", embedder=embedder, appraiser=None) as a:
        a.observe_many([f"Note {i}: the harbour crane was serviced on day {i}." for i in range(20)])
        unit = a.observe(f"The vault password is {secret} plumbatter.", metadata={"hint": f"{secret} hint"})
        b = a.for_namespace("b")
        b.observe_many([f"Namespace b note {i} about the canteen menu." for i in range(20)])
        out["refused"] += b.get(unit.id) is None
        try:
            b.forget(unit.id)
        except KeyError:
            out["refused"] += 1
        out["leaks"] += sum(1 for h in b.recall(query, k=10) if secret in h.unit.content)
        out["leaks"] += sum(1 for h in b.recall(secret, k=10) if secret in h.unit.content)
        out["top_before"] = a.recall(query, k=3)[0].unit.id == unit.id
        out["copies_before"] = _copies(db, secret)
        a.forget(unit.id)
        out["returned_after"] = sum(1 for h in a.recall(query, k=10) if h.unit.id == unit.id)
    out["copies_after"] = _copies(db, secret) + _copies(db, "plumbatter")
    return out


def run(db: str, embedder: str, trials: int, rng: random.Random) -> dict[str, Any]:
    """All three trials on one database."""
    kills = [kill_trial(db, embedder, f"k{t}", rng.uniform(*KILL_AFTER)) for t in range(trials)]
    return {
        "kills": kills,
        "readers": readers_trial(db, embedder),
        "isolation": isolation_trial(db, embedder),
    }


def _lines(backend: str, r: dict[str, Any]) -> list[str]:
    kills, rw, iso = r["kills"], r["readers"], r["isolation"]
    problems = [p for _, _, ps in kills for p in ps]
    lost = sum(1 for p in problems if "acknowledged" in p)
    return [
        f"| {backend} | {len(kills)} | {sum(a for a, _, _ in kills):,} acknowledged, {sum(f for _, f, _ in kills):,} "
        f"found | {lost} | {len(problems) - lost} | {rw['polls']} polls, {rw['stale']} stale, {rw['partial']} partial, "
        f"{rw['final']} of {rw['expected']} at the end, last batch recalled: {'yes' if rw['found_last'] else 'no'}"
        f"{', writer errors' if rw['errors'] else ''} | {iso['refused']} of 2 refused, {iso['leaks']} leaks "
        f"| {iso['copies_before']} before, {iso['copies_after']} after; top hit before: "
        f"{'yes' if iso['top_before'] else 'no'}, recalled after: {iso['returned_after']} |",
        *(f"| | problem: {p} | | | | | |" for p in problems[:5]),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--trials", type=int, default=6, help="kill trials per backend")
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--no-write", action="store_true", help="print only; docs/benchmarks.md unchanged")
    args = parser.parse_args()
    rng, load = random.Random(17), os.getloadavg()[0]
    lines = [
        "| backend | kill trials | units | lost | other problems | 2 writer processes, 1 reader | isolation "
        "(get, forget from another namespace) | copies of the secret before and after forget |",
        "|---|---:|---|---:|---:|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for backend in ["sqlite", "postgres"] if args.backend == "both" else [args.backend]:
            server = None
            if backend == "postgres":
                server, db = _postgres_url(Path(tmp))
            else:
                db = str(Path(tmp) / "trials.db")
            try:
                lines += _lines(backend, run(db, args.embedder, args.trials, rng))
            finally:
                if server is not None:
                    server.cleanup()
    lines += ["", f"Embedder `{args.embedder}`. Kill trials: a writer process stores batches of {PER_BATCH} units "
              "(one `observe_many` each) and prints each batch's number once it returned; it is killed with SIGKILL "
              f"after {KILL_AFTER[0]:.0f}-{KILL_AFTER[1]:.0f} s (a seeded draw); then every acknowledged batch must be "
              "complete, no batch partial, every unit must have its vector, and SQLite's `integrity_check` must pass. "
              "Readers: two writer processes store 6 batches each while a reader counts the units every 50 ms "
              "(a stale read is a count lower than one seen before; partial, one not a multiple of the batch), then "
              "recalls the last batch. Isolation: a secret stored in one namespace, refused by `get` and `forget` "
              "from another, never among its recall hits; after `forget`, the copies of its words are counted in "
              "the database files (SQLite, with WAL) or in every table (PostgreSQL). "
              f"Load average {load:.1f} at the start."]  # fmt: skip
    publish("bench_trials", f"Reliability trials with the {args.embedder} embedder", lines,
            write=not args.no_write, after="bench_kill")  # fmt: skip


if __name__ == "__main__":
    main()
