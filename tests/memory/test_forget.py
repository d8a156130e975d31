"""`Memory.forget`: content erased everywhere (file, index, conflict records, other units' quotes), graph kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from psychoagent.memory.api import Memory
from psychoagent.memory.config import MemoryConfig
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


def test_forget_blanks_the_row_in_place_and_reloads_without_tombstones(tmp_path: Path) -> None:
    """A forget costs no reload of the namespace (its row is blanked: no vector, no keyword postings, no speaker),
    and once enough rows are blanked the index reloads holding only the live units."""
    from psychoagent.memory.index.namespace import RELOAD_DEAD_MIN

    with Memory(tmp_path / "m.db", namespace="a", embedder="hash") as mem:
        units = [mem.observe(f"Parcel {i} for locker zq{i}qz arrived") for i in range(3 * RELOAD_DEAD_MIN)]
        index = mem._index()
        for unit in units[:5]:
            mem.forget(unit.id)
        assert mem._index() is index and index.dead == 5  # blanked in place, not reloaded
        row = index.row_of[units[0].id]
        assert not index.vectors[row].any() and index.keywords.terms(row) == ()
        assert [h.unit.id for h in mem.recall("zq0qz", k=3)][:1] != [units[0].id]
        assert all(h.unit.id not in {u.id for u in units[:5]} for h in mem.recall("parcel locker", k=50))
        assert mem.recall("zq7qz", k=1)[0].unit.id == units[7].id  # the others are still found first
        for unit in units[5:RELOAD_DEAD_MIN]:
            mem.forget(unit.id)
        fresh = mem._index()
        assert (
            fresh is not index and len(fresh) == len(units) - RELOAD_DEAD_MIN
        )  # reloaded without tombstones
        assert units[0].id not in fresh.row_of and mem.recall("zq70qz", k=1)[0].unit.id == units[70].id
        assert len(mem) == len(units)  # the tombstones stay in the file
        live = list(mem._ns.store.iter_units("a", live=True))
        assert len(live) == len(units) - RELOAD_DEAD_MIN and all(u.kind != "forgotten" for u in live)


def test_forgetting_a_speakers_only_turn_forgets_the_speaker() -> None:
    config = MemoryConfig.model_validate({"recall": {"turn_context": False}})
    mem = Memory(None, embedder="hash", config=config)
    mem.observe("Zed: I keep my spare key under the blue pot.")
    kept = mem.observe("Ann: the bus leaves at nine.")
    index = mem._index()
    assert "zed" in index.conversation.speaker_names
    mem.forget(index.ids[0])
    assert (
        "zed" not in index.conversation.speaker_names
        and index.conversation.named_speakers("What did Zed say?") == []
    )
    assert index.conversation.named_speakers("What did Ann say?") != [] and mem.get(kept.id) is not None


def test_a_forget_in_another_process_reaches_this_one(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, namespace="a", embedder="hash") as one, Memory(db, namespace="a", embedder="hash") as two:
        secret = one.observe("The safe code is zq4711qz.")
        one.observe("The garden gate squeaks.")
        assert two.recall("zq4711qz", k=1)[0].unit.id == secret.id
        one.forget(secret.id)
        assert all(h.unit.id != secret.id for h in two.recall("zq4711qz safe code", k=5))
        assert secret.id not in two._index().row_of and len(two._index()) == 1
