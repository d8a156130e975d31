"""Reliability trials on PostgreSQL: a writer killed with SIGKILL mid-batch, concurrent writer processes under a
reader, and namespace isolation plus `forget` leaving no trace of the text anywhere in the database."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psycopg
import pytest

from psychoagent import Memory

BATCH = 20

_WRITER = """
import sys
from psychoagent import Memory
url, tag, batches = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Memory(url, namespace="n", embedder="hash", appraiser=None) as mem:
    b = 0
    while batches < 0 or b < batches:
        mem.observe_many(
            [{"text": f"writer {tag} batch {b} item {i} noted", "id": f"{tag}-{b}-{i}"} for i in range(20)]
        )
        print(b, flush=True)
        b += 1
"""


def _writer(url: str, tag: str, batches: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, url, tag, str(batches)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_writer_killed_with_sigkill_loses_no_acknowledged_batch_and_leaves_no_partial_one(
    pg_url: str,
) -> None:
    proc = _writer(pg_url, "k", -1)
    assert proc.stdout is not None
    acknowledged: list[int] = []
    try:
        while len(acknowledged) < 5:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "writer exited"
            acknowledged.append(int(line))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    acknowledged += [int(line) for line in proc.stdout.read().split()]  # printed before the kill landed
    with Memory(pg_url, namespace="n", embedder="hash", appraiser=None) as mem:
        ids = {u.id for u in mem.units()}
    batches: dict[int, set[int]] = {}
    for uid in ids:
        _, batch, item = uid.split("-")
        batches.setdefault(int(batch), set()).add(int(item))
    for b in acknowledged:
        assert batches.get(b) == set(range(BATCH)), f"acknowledged batch {b} is incomplete"
    for b, items in batches.items():
        assert items == set(range(BATCH)), f"batch {b} is partial: {sorted(items)}"
    in_flight = set(batches) - set(acknowledged)  # committed but killed before printing: at most the next one
    assert in_flight <= {max(acknowledged) + 1}, in_flight


def test_a_reader_sees_the_count_only_grow_under_two_writer_processes(pg_url: str) -> None:
    batches = 6
    writers = [_writer(pg_url, tag, batches) for tag in ("a", "b")]
    counts: list[int] = []
    with Memory(pg_url, namespace="n", embedder="hash", appraiser=None) as mem:
        deadline = time.monotonic() + 120
        while any(w.poll() is None for w in writers) and time.monotonic() < deadline:
            counts.append(len(mem.units()))
            time.sleep(0.05)
        errors = [w.communicate(timeout=60)[1] for w in writers]
        assert [w.returncode for w in writers] == [0, 0], errors
        counts.append(len(mem.units()))
        assert counts == sorted(counts), counts
        assert counts[-1] == 2 * batches * BATCH == len(mem)
        assert all(c % BATCH == 0 for c in counts), counts  # batches appear whole


def test_another_namespace_cannot_reach_a_unit_and_forget_leaves_no_trace_in_any_table(pg_url: str) -> None:
    secret = "Zorblax"
    with Memory(pg_url, namespace="a", embedder="hash") as a:
        unit = a.observe(f"The vault password is {secret} 4471", metadata={"note": f"{secret} hint"})
        a.observe(f"{secret} 4471 is the vault password, as said", id="echo")
        b = a.for_namespace("b")
        assert b.get(unit.id) is None
        with pytest.raises(KeyError):
            b.forget(unit.id)
        assert a.get(unit.id) is not None and a.get(unit.id).content == unit.content  # type: ignore[union-attr]
        assert _tables_holding(pg_url, secret)  # the probe finds it before forgetting
        a.forget(unit.id)
        a.forget("echo")
    assert _tables_holding(pg_url, secret) == []
    assert _tables_holding(pg_url, secret.lower()) == []


def _tables_holding(url: str, word: str) -> list[str]:
    """Tables of the database with a row whose text form (every column) contains `word`, case-insensitively."""
    with psycopg.connect(url) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            ).fetchall()
        ]
        found = []
        for table in tables:
            row = conn.execute(
                f'SELECT count(*) FROM "{table}" AS t WHERE t::text ILIKE %s', (f"%{word}%",)
            ).fetchone()
            if row and row[0]:
                found.append(table)
    return found
