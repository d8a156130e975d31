"""`Memory` over PostgreSQL exactly as a user runs it: a URL as the path, several processes on one database."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from psychoagent import Memory
from psychoagent.memory.stores import SQLiteStore, open_store
from psychoagent.memory.stores.postgres_schema import MIGRATIONS
from tests.pg import fresh_database

_OPEN = """
import sys
from psychoagent import Memory
with Memory(sys.argv[1], namespace=sys.argv[2], embedder="hash", appraiser=None) as mem:
    mem.observe("opened by " + sys.argv[2])
"""


def test_a_url_opens_the_postgres_store_and_the_facade_behaves_as_on_sqlite(pg_url: str) -> None:
    with Memory(pg_url, namespace="alice", embedder="hash") as mem:
        assert type(mem.store.inner).__name__ == "PostgresStore" and "***" not in pg_url
        old = mem.observe(
            "The user's budget is 2000 yuan", timestamp="2024-05-01T09:00:00Z", metadata={"k": 1}
        )
        new = mem.supersede(old.id, "The user's budget is 3000 yuan", timestamp="2024-05-05T09:00:00Z")
        mem.for_namespace("bob").observe("Bob's budget is 10 yuan")
        current = mem.recall("What is the user's budget?", k=5, where={"current": True})
        assert [h.unit.id for h in current] == [new.id]
        assert [h.unit.id for h in mem.recall("budget", k=5, where={"metadata.k": 1})] == [old.id]
        assert {e.type for e in mem.edges(old.id)} == {"supersedes"}
        brief = mem.brief("Which budget should I plan with?")
        assert new.id in {m.unit.id for m in brief.memories}
        tomb = mem.forget(old.id)
        assert tomb.content == "[forgotten]" and old.id not in {
            h.unit.id for h in mem.recall("2000 yuan", k=5)
        }
        assert sorted(mem.namespaces()) == ["alice", "bob"] and len(mem) == 2
    with Memory(pg_url, namespace="alice", embedder="hash") as again:
        got = again.get(new.id)
        assert got is not None and got.content == new.content and got.invalid_at is None
        assert again.recall("budget 3000", k=1)[0].unit.id == new.id


def test_conflicts_detected_on_write_are_stored_in_postgres(pg_url: str) -> None:
    with Memory(pg_url, namespace="n", embedder="hash") as mem:
        mem.observe("The user's budget is 2000 yuan", id="old", timestamp="2024-05-01T09:00:00Z")
        mem.observe("The user's budget is 3000 yuan", id="new", timestamp="2024-05-05T09:00:00Z")
        records = mem.conflicts()
        assert records and {records[0].side_a, records[0].side_b} == {"old", "new"}
        done = mem.resolve_conflict(records[0].id, "the newer one holds")
        assert done.resolution == "the newer one holds"


def test_an_open_memory_sees_what_another_process_wrote(pg_url: str) -> None:
    a = Memory(pg_url, namespace="n", embedder="hash")
    a.observe("order 1 filled")
    index = a._index()
    subprocess.run([sys.executable, "-c", _OPEN, pg_url, "n"], check=True, timeout=120)
    assert a.recall("opened by", k=1)[0].unit.content == "opened by n"
    assert a._index() is index and len(a) == 2
    a.close()


def test_processes_opening_a_new_database_at_once_all_succeed(pg_server: Any) -> None:
    bare = fresh_database(pg_server.get_uri(), migrated=False)  # no schema yet: the four race to create it
    procs = [subprocess.Popen([sys.executable, "-c", _OPEN, bare, f"p{i}"], stderr=subprocess.PIPE, text=True)
             for i in range(4)]  # fmt: skip
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
    store = open_store(bare)
    assert store.namespaces() == ["p0", "p1", "p2", "p3"] and store.schema_version == len(MIGRATIONS)
    store.close()


def test_a_store_can_be_injected_and_a_path_with_it_is_refused(tmp_path: object) -> None:
    store = SQLiteStore()
    mem = Memory(store=store, embedder="hash")
    mem.observe("kept in the injected store")
    assert store.count() == 1
    with pytest.raises(ValueError, match="either path or store"):
        Memory("x.db", store=store)


@pytest.mark.parametrize("when", ["on_search", "on_write"])
def test_vectors_get_an_hnsw_index_for_the_in_database_search(pg_url: str, when: str) -> None:
    import psycopg

    from psychoagent.memory.config import MemoryConfig, StoreConfig

    config = MemoryConfig(store=StoreConfig(hnsw=when))  # type: ignore[arg-type]
    with Memory(pg_url, embedder="hash", appraiser=None, config=config) as mem:
        mem.observe_many([f"note {i} about topic {i % 7}" for i in range(200)] + ["the harbour painting"])

        def indexes() -> list[str]:
            with psycopg.connect(pg_url) as conn:
                rows = conn.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'vectors'").fetchall()
            return [r[0] for r in rows if "hnsw" in r[0]]

        assert len(indexes()) == (1 if when == "on_write" else 0)
        query = mem.embedder.embed_queries(["the harbour painting"])[0]
        hits = mem.store.search_vectors("default", mem.embedder.name, query, 3)
        assert hits[0][0] == mem.recall("the harbour painting", k=1)[0].unit.id
        assert len(indexes()) == 1 and "vector_cosine_ops" in indexes()[0]


def test_a_url_that_cannot_be_reached_is_one_clear_error_without_the_password() -> None:
    with pytest.raises(ValueError, match=r"cannot connect to postgresql://u:\*\*\*@127\.0\.0\.1:1/db") as err:
        Memory("postgresql://u:secret@127.0.0.1:1/db", embedder="hash")
    assert "secret" not in str(err.value)


def test_the_rest_service_serves_a_postgres_database(pg_url: str) -> None:
    pytest.importorskip("fastapi", reason="the 'server' extra is not installed")
    import httpx

    from psychoagent.service.app import create_app
    from psychoagent.service.background import serve_in_thread
    from psychoagent.service.hub import MemoryHub

    hub = MemoryHub.open(pg_url, embedder="hash")
    with (
        serve_in_thread(create_app(hub, None, close_on_shutdown=True)) as url,
        httpx.Client(base_url=url) as c,
    ):
        made = c.post("/v1/namespaces/alice/memories", json={"text": "Alice moved to Berlin."})
        assert made.status_code == 201, made.text
        hits = c.post("/v1/namespaces/alice/recall", json={"query": "Where does Alice live?", "k": 3}).json()
        assert hits["hits"][0]["unit"]["content"] == "Alice moved to Berlin."
        assert c.get("/healthz").json()["schema_version"] == len(MIGRATIONS)
    with Memory(
        pg_url, namespace="alice", embedder="hash"
    ) as mem:  # written to the database, not the process
        assert [u.content for u in mem.units()] == ["Alice moved to Berlin."]


def test_the_copied_keyword_vector_equals_array_to_tsvector(pg_url: str) -> None:
    """A batch's units go in by COPY with their tsvector in text form: it must be the lexemes as they are."""
    import psycopg

    from psychoagent.memory.stores.postgres import tsvector_text

    words = ["a'b", "back\\slash", "中文", "x:1", "it''s", "\\'", "plain", "w1"]
    with psycopg.connect(pg_url) as conn:
        same = conn.execute(
            "SELECT array_to_tsvector(%s::text[]) = %s::tsvector, %s::tsvector::text",
            (words, tsvector_text(words), tsvector_text(words)),
        ).fetchone()
    assert same is not None and same[0], same


def test_a_batch_stores_every_unit_vector_and_keyword_row_once(pg_url: str) -> None:
    """The COPY path: repeated texts in one batch share one vector row; every unit is searchable by keyword."""
    with Memory(pg_url, namespace="copy", embedder="hash", appraiser=None) as mem:
        texts = [f"event {i}: w{i % 7} shared" for i in range(300)] + ["event 1: w1 shared"] * 3
        units = mem.observe_many(texts)
        store: Any = mem.store
        assert len(mem) == 303 and len({u.content for u in units}) == 300
        hits = store.search_keywords("copy", ["shared"], 400)
        assert len(hits) == 303
        rows = store._rows("SELECT COUNT(*) FROM vectors WHERE model = %s", (mem.embedder.name,))
        assert rows[0][0] >= 300
        with pytest.raises(ValueError, match="already exists"):
            mem.observe_many([{"text": "again", "id": units[0].id}])
        assert len(mem) == 303
