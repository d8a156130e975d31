"""The batched write path stores exactly what the per-unit path stored before it was made columnar.

`data/write_golden.json` holds every stored row (vectors as digests) of a fixed input, written by the per-unit
implementation; regenerate it only for a deliberate change of what is stored: `python -m tests.memory.test_write_path`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from psychoagent import Memory
from psychoagent.affect.config import AffectiveMemoryConfig, ConflictConfig
from psychoagent.memory.embed import HashingEmbedder
from psychoagent.types import Affect

GOLDEN = Path(__file__).parent / "data" / "write_golden.json"
NO_DETECTION = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
T0 = 1_684_000_000.0
"""2023-05-13 17:46:40 UTC: the fixed clock of the fixture."""


def fixture_items() -> list[dict[str, Any]]:
    """Dialogue turns, dates (English and Chinese), whitespace runs, accents, Greek, emoji, Chinese, metadata,
    goals, sources, explicit ids, kinds and a given affect: what the write path treats specially."""
    texts = [
        "Alice: I moved to Berlin last Saturday.",
        "Bob: How was the ice cream?",
        "Alice: Super good!",
        "The user set the equipment budget to 2000 yuan.",
        "The user raised the budget from 1000 to 3000 yuan on 13 May, 2023.",
        "用户把预算从1000元提高到3000元。",
        "上周我们在北京开会，会议改到2023年5月20日。",
        "Tabs\tand   runs of\n\nwhitespace  stay one feature",
        "Ωμέγα ΣΟΦΟΣ and naïve café résumé",
        "emoji 🎉 party 🎉 in 2024-01-05",
        "Melanie: We painted a sunset two weeks ago.",
        "Caroline: The meeting is now at 3 pm tomorrow.",
        "Price of gold rose; rent is due next week.",
        "x",
        "ab",
        "  leading and trailing  ",
        "I prefer short answers.",
        "数字１２３４和全角字符",
        "event 1999: w1 w2 w3 w22 w333",
    ]
    items: list[dict[str, Any]] = []
    for i, text in enumerate(texts):
        items.append({"text": text, "timestamp": T0 + 600 * i + (86_400 * 3 if i > 9 else 0)})
    items[3].update(id="budget-1", metadata={"topic": "budget", "n": 2, "nested": {"a": [1, 2.5, None]}})
    items[4].update(goals=["Keep the total budget under 2000 yuan"], sources=["budget-1"])
    items[12].update(kind="semantic", affect=Affect(valence=-1, arousal=2, conflict_intensity=2,
                                                    conflict_parties=["a", "b"], reason="given"))  # fmt: skip
    items.append({"text": "Keep the total budget under 2000 yuan", "kind": "goal", "timestamp": T0 - 60})
    return items


def build(path: Path, batched: bool = True) -> Memory:
    mem = Memory(path, namespace="n", embedder=HashingEmbedder(64), appraiser=None, affect_config=NO_DETECTION)
    items = fixture_items()
    if batched:
        mem.observe_many(items[:7])
        mem.observe_many(items[7:])
    else:
        for item in items:
            mem.observe(**item)
    return mem


def dump(path: Path) -> dict[str, list[list[Any]]]:
    """Every row of every table of a store file, in key order; vector blobs as sha256 digests."""
    conn = sqlite3.connect(path)
    out: dict[str, list[list[Any]]] = {}
    for table, order in (("units", "pk"), ("units_fts", "rowid"), ("vectors", "model, content_hash"),
                         ("edges", "src, dst, type"), ("conflicts", "id"), ("meta", "key")):  # fmt: skip
        cols = "rowid, *" if table == "units_fts" else "*"
        rows = conn.execute(f"SELECT {cols} FROM {table} ORDER BY {order}").fetchall()  # noqa: S608
        out[table] = [
            [hashlib.sha256(v).hexdigest() if isinstance(v, bytes) else v for v in row] for row in rows
        ]
    conn.close()
    return out


def test_stored_rows_match_the_per_unit_implementation(tmp_path: Path) -> None:
    build(tmp_path / "m.db").close()
    assert dump(tmp_path / "m.db") == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_batched_and_single_writes_store_the_same_rows(tmp_path: Path) -> None:
    build(tmp_path / "a.db").close()
    build(tmp_path / "b.db", batched=False).close()
    a, b = dump(tmp_path / "a.db"), dump(tmp_path / "b.db")
    for rows in (a["units"], b["units"]):  # the change counter stamps each transaction: one per batch or unit
        for row in rows:
            row.pop()
    assert a == b


QUERIES = ["Where did Alice move?", "budget 3000 yuan", "预算", "meeting date", "ice cream", "What happened in May 2023?",
           "When did Melanie paint a sunset?", "whitespace features", "café", "gold price rent"]  # fmt: skip


def hits(mem: Memory) -> list[list[tuple[str, float]]]:
    return [[(h.unit.id, round(h.score, 9)) for h in mem.recall(q, k=8, now=T0 + 10 * 86_400)] for q in QUERIES]


@pytest.mark.parametrize("detect", [False, True])
def test_recall_after_writes_equals_recall_after_reopening(tmp_path: Path, detect: bool) -> None:
    """The in-memory index the write path appends to ranks exactly like the one loaded from the file."""
    config = None if detect else NO_DETECTION
    mem = Memory(tmp_path / "m.db", namespace="n", embedder=HashingEmbedder(64), affect_config=config)
    mem.recall("warm up", k=1)  # the index exists before the writes, so they are appended to it
    mem.observe_many(fixture_items()[:7])
    mem.observe_many(fixture_items()[7:])
    with sqlite3.connect(tmp_path / "m.db") as src, sqlite3.connect(tmp_path / "copy.db") as dst:
        src.backup(dst)  # a snapshot before recall counts accesses (which change later scores)
    written = hits(mem)
    mem.close()
    reopened = Memory(tmp_path / "copy.db", namespace="n", embedder=HashingEmbedder(64), affect_config=config)
    assert hits(reopened) == written
    assert any(h for h in written)


if __name__ == "__main__" and "--write" in sys.argv:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp) / "m.db").close()
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(dump(Path(tmp) / "m.db"), ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
        print("wrote", GOLDEN)
