"""The `MemoryStore` contract: every store (SQLite file, PostgreSQL with pgvector) passes the same tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from psychoagent.memory.filters import Condition
from psychoagent.memory.stores import MemoryStore, open_store
from psychoagent.types import Affect, ConflictRecord, Edge, MemoryUnit

Opener = Callable[[], MemoryStore]


@pytest.fixture(params=["sqlite", "postgres"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens connections (as separate processes would) to one fresh store of each kind."""
    target = str(tmp_path / "c.db") if request.param == "sqlite" else request.getfixturevalue("pg_url")
    opened: list[MemoryStore] = []

    def open_one() -> MemoryStore:
        opened.append(open_store(target))
        return opened[-1]

    yield open_one
    for store in opened:
        store.close()


@pytest.fixture
def store(opener: Opener) -> MemoryStore:
    return opener()


def unit(uid: str, content: str, ns: str = "a", **kw: object) -> MemoryUnit:
    t = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
    return MemoryUnit(id=uid, namespace=ns, content=content, created_at=t, valid_at=t, **kw)  # type: ignore[arg-type]


def vecs(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def add(store: MemoryStore, units: list[MemoryUnit], seed: int = 0) -> np.ndarray:
    v = vecs(len(units), seed=seed)
    store.add_units(units, [f"h-{u.namespace}-{u.id}" for u in units], "m", v)
    return v


def test_it_is_a_memory_store(store: MemoryStore) -> None:
    assert isinstance(store, MemoryStore)
    assert store.schema_version >= 1
    store.set_meta("embedder", "hash-384")
    store.set_meta("embedder", "e5")
    assert store.get_meta("embedder") == "e5" and store.get_meta("nothing") is None


def test_units_round_trip_and_namespaces_stay_apart(store: MemoryStore) -> None:
    a1 = unit("a1", "The warehouse in Lyon stores steel", metadata={"k": 1.5, "tags": ["x"]}, sources=["s0"])
    a2 = unit(
        "a2", "用户把预算从1000元提高到3000元。", affect=Affect(valence=-1, arousal=2, conflict_intensity=3)
    )
    add(store, [a1, a2])
    add(store, [unit("a1", "Bob's own fact", ns="b")], seed=1)
    assert store.get_units("a", ["a2", "missing", "a1"]) == [a2, a1]
    assert [u.id for u in store.iter_units("a")] == ["a1", "a2"]
    assert [u.content for u in store.iter_units("b")] == ["Bob's own fact"]
    assert store.count("a") == 2 and store.count() == 3 and store.namespaces() == ["a", "b"]
    rows = store.load_namespace("a", "m")
    assert rows.ids == ["a1", "a2"] and rows.columns["conflict_intensity"].tolist() == [0, 3]
    assert all(v is not None for v in rows.vectors) and "3000" in rows.segmented[1]
    assert store.load_namespace("a", "other-model").vectors == [None, None]


def test_a_duplicate_id_fails_the_whole_batch(store: MemoryStore) -> None:
    add(store, [unit("dup", "first")])
    with pytest.raises(ValueError, match="'dup' already exists in 'a'"):
        add(store, [unit("new", "second"), unit("dup", "third")])
    assert [u.id for u in store.iter_units("a")] == ["dup"]
    with pytest.raises(ValueError, match="NaN"):
        store.add_units([unit("n", "x")], ["h"], "m", np.array([[np.nan, 1.0]], dtype=np.float32))


def test_a_failed_transaction_writes_nothing(store: MemoryStore) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        add(store, [unit("x", "inside")])
        store.add_edges("a", [Edge(src="x", dst="y", type="related")])
        raise RuntimeError("disk full")
    assert store.count() == 0 and store.edges("a") == []


def test_updates_and_access_counts(store: MemoryStore) -> None:
    u = unit("u", "budget is 2000")
    add(store, [u])
    u.invalid_at = datetime(2024, 6, 1, tzinfo=UTC)
    u.metadata["superseded_by"] = "v"
    store.update_unit(u)
    store.record_access("a", ["u", "u"], 1_700_000_000.0)
    got = store.get_units("a", ["u"])[0]
    assert got.invalid_at == u.invalid_at and got.metadata == {"superseded_by": "v"} and got.access_count == 1
    store.record_access("a", ["u"], 1_700_000_100.0, times=3)
    got = store.get_units("a", ["u"])[0]
    assert got.access_count == 4 and got.last_accessed_at == datetime.fromtimestamp(1_700_000_100.0, UTC)
    with pytest.raises(KeyError, match="no unit 'zz'"):
        store.update_unit(unit("zz", "nope"))


def test_metadata_filters(store: MemoryStore) -> None:
    add(store, [unit("p", "x", metadata={"topic": "budget", "r": 2, "deep": {"k": "v"}}),
                unit("q", "y", metadata={"topic": "social", "r": 0.5}), unit("s", "z")])  # fmt: skip
    pk = {
        u: int(p)
        for u, p in zip(store.load_namespace("a", "m").ids, store.load_namespace("a", "m").pks, strict=True)
    }

    def ids(*conds: Condition) -> set[str]:
        found = store.metadata_pks("a", list(conds))
        return {u for u, p in pk.items() if p in found}

    assert ids(Condition("metadata.topic", "==", "social")) == {"q"}
    assert ids(Condition("metadata.topic", "!=", "social")) == {"p"}
    assert ids(Condition("metadata.r", ">", 1)) == {"p"}
    assert ids(Condition("metadata.r", "<=", 2), Condition("metadata.topic", "in", ["budget", "x"])) == {"p"}
    assert ids(Condition("metadata.deep.k", "==", "v")) == {"p"}


def test_vector_and_keyword_search(store: MemoryStore) -> None:
    texts = [
        "The painter painted the harbour",
        "Interest rates rose again",
        "用户把预算提高到3000元",
        "lunch",
    ]
    v = add(store, [unit(f"u{i}", t) for i, t in enumerate(texts)])
    add(store, [unit("other", "The painter painted the harbour", ns="b")], seed=3)
    hits = store.search_vectors("a", "m", v[2], 2)
    assert hits[0][0] == "u2" and hits[0][1] == pytest.approx(1.0, abs=1e-4) and len(hits) == 2
    assert [h[0] for h in store.search_keywords("a", ["painting"], 5)] == ["u0"]  # stems match
    assert [h[0] for h in store.search_keywords("a", ["预算"], 5)] == ["u2"]  # a Chinese word
    assert store.search_keywords("a", ["nothing-like-it"], 5) == []


def test_edges_and_conflict_records(store: MemoryStore) -> None:
    store.add_edges("a", [Edge(src="n2", dst="n1", type="supersedes"), Edge(src="n1", dst="g", type="about")])
    store.add_edges("a", [Edge(src="n1", dst="g", type="about", weight=0.5)])  # replaces
    store.add_edges("b", [Edge(src="x", dst="y", type="related")])
    assert {(e.src, e.dst, e.weight) for e in store.edges("a")} == {("n2", "n1", 1.0), ("n1", "g", 0.5)}
    assert [e.src for e in store.edges("a", "n2")] == ["n2"]
    t = datetime(2024, 5, 2, tzinfo=UTC)
    rec = ConflictRecord(id="cf1", namespace="a", kind="update", side_a="n1", side_b="n2", created_at=t,
                         metadata={"values": ["2000", "3000"]})  # fmt: skip
    store.add_conflicts([rec])
    assert store.conflicts("a") == [rec] and store.conflicts("a", ids=["n2"]) == [rec]
    assert store.conflicts("a", ids=["zz"]) == [] and store.conflicts("b") == []
    done = store.resolve_conflict("a", "cf1", "took the newer", t)
    assert done.status.value == "resolved" and store.conflicts("a", status="unresolved") == []
    with pytest.raises(KeyError, match="no conflict 'nope'"):
        store.resolve_conflict("a", "nope", "x", t)


def test_erasing_a_unit_leaves_a_tombstone_and_scrubs_quotes(store: MemoryStore) -> None:
    secret = "the vault code is 4711"
    quoting = unit("q", "new code", affect=Affect(conflict_parties=[f"memory: {secret}"], reason="clash with s"),
                   conflict_context=f"memory: {secret} vs new")  # fmt: skip
    add(store, [unit("s", secret), quoting])
    store.add_conflicts([ConflictRecord(id="c", namespace="a", kind="update", side_a="s", side_b="q",
                                        description_a=secret, created_at=datetime(2024, 5, 2, tzinfo=UTC))])  # fmt: skip
    tomb = unit("s", "[forgotten]", kind="forgotten")
    store.erase_unit("a", "s", tomb, secret)
    assert store.get_units("a", ["s"])[0].content == "[forgotten]"
    assert store.search_keywords("a", ["vault"], 5) == []
    other = store.get_units("a", ["q"])[0]
    assert secret not in other.conflict_context and secret not in other.affect.model_dump_json()
    rec = store.conflicts("a")[0]
    assert rec.description_a == "[forgotten]" and rec.status.value == "resolved"
    assert store.get_vectors("m", ["h-a-s"]) == {} and len(store.get_vectors("m", ["h-a-q"])) == 1
    with pytest.raises(KeyError):
        store.erase_unit("a", "missing", tomb, "x")


def test_change_detection_sees_only_what_another_connection_wrote(opener: Opener) -> None:
    first, second = opener(), opener()
    add(first, [unit(f"u{i}", f"fact {i}") for i in range(20)])
    assert first.poll_changes() is None  # its own writes
    assert second.poll_changes() is not None
    second.mark_seen(second.poll_changes()[1])  # type: ignore[index]
    add(second, [unit("new", "written elsewhere")], seed=5)
    moved = unit("u3", "fact 3")
    moved.tier = "working"
    second.update_unit(moved)
    got = first.poll_changes()
    assert got is not None
    changed = first.changes(*got, "m", ["a"])
    assert [(c.unit.id, c.unit.tier) for c in changed] == [("u3", "working"), ("new", "long_term")]
    assert changed[1].vector is not None and "written" in changed[1].segmented
    assert first.changes(*got, "m", ["b"]) == []
    first.mark_seen(got[1])
    assert first.poll_changes() is None


def test_own_open_transaction_is_not_another_connections_change(opener: Opener) -> None:
    first = opener()
    with first.transaction():
        add(first, [unit("mine", "written inside")])
        assert first.poll_changes() is None  # its own uncommitted rows, already in its caller's indexes
    assert first.poll_changes() is None


def test_reopening_keeps_the_schema_and_data(opener: Opener) -> None:
    store = opener()
    add(store, [unit("x", "kept")])
    version = store.schema_version
    again = opener()
    assert again.schema_version == version and [u.id for u in again.iter_units("a")] == ["x"]
