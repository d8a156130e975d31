"""The write path stores and ranks exactly what it did before its speed work, on a larger fixed input.

`data/write_identity.json` holds, for 3,000 units written in batches (synthetic events, the bilingual retrieval
fixture, dialogue turns, dates, metadata, goals, sources), a digest of every row of every table (the FTS5 shadow
tables included, so the keyword index itself must match) and the top-10 ids and scores of fixed queries, with
conflict detection off and on. Regenerate it only for a deliberate change of what is stored or how recall ranks:
`python -m tests.memory.test_write_identity --write`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bench_memory import queries, sentences
from benchmarks.retrieval_fixture import build as retrieval_fixture
from psychoagent import Memory
from psychoagent.embed import HashingEmbedder
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig
from tests.memory.test_write_path import T0, fixture_items

GOLDEN = Path(__file__).parent / "data" / "write_identity.json"
NO_DETECTION = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
TABLES = ("units", "units_fts", "units_fts_data", "units_fts_idx", "units_fts_docsize", "units_fts_config",
          "vectors", "edges", "conflicts", "meta", "changes")  # fmt: skip


def items(n_events: int) -> list[dict[str, Any]]:
    """Synthetic events, the retrieval fixture's facts and distractors and the write-path fixture, at fixed times
    (a minute apart, so recency and ids are reproducible)."""
    units, _ = retrieval_fixture()
    texts: list[dict[str, Any]] = [{"text": t} for t in sentences(n_events, seed=11)]
    texts += [dict(u) if isinstance(u, dict) else {"text": u} for u in units]
    out = [{**item, "timestamp": T0 + 60 * i} for i, item in enumerate(texts)]
    return out + [{**item, "timestamp": item["timestamp"] + 60 * len(out)} for item in fixture_items()]


def questions() -> list[str]:
    _, qs = retrieval_fixture()
    return [q.text for q in qs[:40]] + queries(20, seed=7) + ["预算", "When did Alice move?", "ice cream"]


def write(path: Path, detect: bool, n_events: int) -> Memory:
    config = None if detect else NO_DETECTION
    appraiser = "heuristic" if detect else None
    mem = Memory(
        path, namespace="n", embedder=HashingEmbedder(384), appraiser=appraiser, affect_config=config
    )
    batch = items(n_events)
    for pos in range(0, len(batch), 500):
        mem.observe_many(batch[pos : pos + 500])
    return mem


def digests(path: Path) -> dict[str, str]:
    """sha256 of every table's rows in rowid order (WITHOUT ROWID tables: in key order)."""
    conn = sqlite3.connect(path)
    out = {}
    for table in TABLES:
        try:
            rows = conn.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid").fetchall()
        except sqlite3.OperationalError:  # no rowid: the FTS5 term index and config tables
            rows = conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
        blob = json.dumps(
            [[hashlib.sha256(v).hexdigest() if isinstance(v, bytes) else v for v in row] for row in rows]
        )
        out[table] = hashlib.sha256(blob.encode()).hexdigest()
    conn.close()
    return out


def ranked(mem: Memory) -> list[list[list[Any]]]:
    when = T0 + 30 * 86_400
    # the golden predates the answer-type and newest-statement stages (tests/memory/test_answer_type.py, test_latest.py)
    mem.config.recall.answer_type_weight = 0.0
    mem.config.recall.latest_candidates = 0
    return [[[h.unit.id, round(h.score, 6)] for h in mem.recall(q, k=10, now=when)] for q in questions()]


def case(tmp: Path, detect: bool) -> dict[str, Any]:
    path = tmp / f"{'on' if detect else 'off'}.db"
    mem = write(path, detect, 600 if detect else 2_600)
    mem.close()
    stored = digests(path)
    mem = Memory(
        path, namespace="n", embedder=HashingEmbedder(384), affect_config=None if detect else NO_DETECTION
    )
    out = {"tables": stored, "recall": ranked(mem), "conflicts": len(mem.conflicts())}
    mem.close()
    return out


@pytest.mark.parametrize("detect", [False, True], ids=["detection-off", "detection-on"])
def test_stored_rows_and_recall_equal_the_golden(tmp_path: Path, detect: bool) -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["on" if detect else "off"]
    got = case(tmp_path, detect)
    assert got["tables"] == golden["tables"]
    assert got["conflicts"] == golden["conflicts"]
    assert got["recall"] == golden["recall"]


if __name__ == "__main__" and "--write" in sys.argv:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        data = {"off": case(Path(tmp), False), "on": case(Path(tmp), True)}
    GOLDEN.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
    print("wrote", GOLDEN, {k: v["conflicts"] for k, v in data.items()})
