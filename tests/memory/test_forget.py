"""`Memory.forget`: content erased everywhere (file, index, conflict records, other units' quotes), graph kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from psychoagent.memory.api import Memory
from psychoagent.memory.contracts import TOMBSTONE_TEXT


def _file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_forget_erases_text_from_the_file_and_keeps_a_tombstone(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, namespace="a", embedder="hash") as mem:
        secret = mem.observe("Alice lives in Berlin with her cat Zyxwort.", metadata={"pin": "4711"})
        other = mem.observe("Alice moved to Paris.")
        assert mem.conflicts(ids=[secret.id])  # the second unit contradicts the first and quotes it
        tomb = mem.forget(secret.id, reason="user request")
        assert tomb.content == TOMBSTONE_TEXT and tomb.kind == "forgotten"
        assert set(tomb.metadata) >= {"forgotten_at", "forgotten_reason"} and "pin" not in tomb.metadata
        assert mem.get(secret.id) == tomb and len(mem) == 2
        assert any(e.dst == secret.id for e in mem.edges(other.id))  # the graph stays whole
        quoted = mem.get(other.id)
        assert quoted is not None and "Zyxwort" not in quoted.model_dump_json()
        record = mem.conflicts(ids=[secret.id])[0]
        assert record.description_a == TOMBSTONE_TEXT and record.status.value == "resolved"
        assert all(h.unit.id != secret.id for h in mem.recall("Zyxwort cat Berlin", k=10))
        assert "Zyxwort" not in mem.brief("Where does Alice live?").text
        assert mem.forget(secret.id) == tomb  # twice changes nothing
    data = _file_bytes(db)
    assert b"Zyxwort" not in data and b"4711" not in data and b"Berlin" not in data


def test_forget_keeps_a_vector_another_unit_shares_and_refuses_unknown_ids() -> None:
    mem = Memory(None, embedder="hash")
    a = mem.observe("The same words twice.")
    b = mem.observe("The same words twice.", id="copy")
    mem.forget(a.id)
    assert [h.unit.id for h in mem.recall("same words", k=5)] == [b.id]
    with pytest.raises(KeyError, match="no unit 'missing'"):
        mem.forget("missing")
    with pytest.raises(KeyError):
        mem.for_namespace("other").forget(b.id)  # another namespace cannot reach it
    kept = mem.get(b.id)
    assert kept is not None and kept.content == "The same words twice."
