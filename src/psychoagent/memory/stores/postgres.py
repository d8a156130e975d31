"""`MemoryStore` on PostgreSQL with pgvector (extra `postgres`): many processes and machines on one database.

`Memory(path="postgresql://user:pass@host/db")`. psycopg 3 with a connection pool; a transaction holds one
pooled connection per thread, so nested writes join it. Every write transaction takes the row lock of the change
counter first: writers commit in counter order, and a reader that has seen counter N has seen every unit written
up to N. The statements it shares with the SQLite store are in `sql`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from psychoagent.memory.config import StoreConfig
from psychoagent.memory.filters import Condition, FilterError
from psychoagent.memory.inputs import NotFound
from psychoagent.memory.stores.postgres_schema import (
    MIGRATION_LOCK,
    MIGRATIONS,
    Vector,
    hnsw_index_name,
    tsquery,
    vector_dumper,
)
from psychoagent.memory.stores.rows import CONFLICT_FIELDS, row_to_conflict, unit_values
from psychoagent.memory.stores.sql import SQLStore, UnitBatch
from psychoagent.memory.stores.urls import redact
from psychoagent.text import segment, stem
from psychoagent.types import ConflictRecord, MemoryUnit

_COPY_UNITS = (
    "COPY units (pk, namespace, id, content, content_hash, kind, tier, valence, arousal, conflict_intensity, "
    "affect_json, conflict_context, sources_json, metadata_json, created_at, valid_at, invalid_at, access_count, "
    "last_accessed_at, changed, segmented, terms) FROM STDIN"
)


def tsvector_text(words: Sequence[str]) -> str:
    """The text form of a tsvector of these lexemes as they are (what `array_to_tsvector` makes of them): each
    quoted, quotes doubled and backslashes escaped."""
    return " ".join("'" + w.replace("\\", "\\\\").replace("'", "''") + "'" for w in words)


def lexemes(segmented: str) -> list[str]:
    """The distinct stemmed tokens of a unit's keyword text (its tsvector)."""
    return sorted({stem(t) for t in segmented.split() if t})


_SET_VERSION = "INSERT INTO meta (key, value) VALUES ('schema_version', %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
_COMPARE = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class PostgresStore(SQLStore):
    """Units, vectors (pgvector, HNSW), keyword rows (tsvector, GIN), edges and conflicts in one database."""

    _MARK = "%s"
    _CHUNK = 0
    _SEGMENTED = "u.segmented"
    _KEYWORD_JOIN = ""
    _BY_CHANGED = ""  # PostgreSQL's planner has statistics
    _EDGE_ORDER = " ORDER BY ctid"
    _UPSERT_EDGES = (
        "INSERT INTO edges (namespace, src, dst, type, weight, created_at, metadata_json) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (namespace, src, dst, type) DO UPDATE SET "
        "weight = EXCLUDED.weight, created_at = EXCLUDED.created_at, metadata_json = EXCLUDED.metadata_json"
    )
    _UPSERT_CONFLICTS = (
        f"INSERT INTO conflicts ({CONFLICT_FIELDS}) VALUES ({','.join(['%s'] * 13)}) ON CONFLICT (namespace, id) "
        "DO UPDATE SET "
        + ", ".join(f"{c.strip()} = EXCLUDED.{c.strip()}" for c in CONFLICT_FIELDS.split(",")[2:])
    )
    _DROP_VALUES = "(metadata_json::jsonb - 'values')::text"
    _FIND = "strpos"
    _TOMB_KEYWORDS = "segmented = '', terms = ''::tsvector, "

    def __init__(self, url: str, config: StoreConfig | None = None) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:  # pragma: no cover - depends on the installed extras
            raise ImportError(
                "a postgresql:// path needs the 'postgres' extra: pip install 'psychoagent[postgres]'"
            ) from exc
        self.config = config or StoreConfig()
        self.path = redact(url)
        self._lock = threading.RLock()
        self._local = threading.local()
        self._hnsw: set[tuple[str, int]] = set()
        try:
            conn = psycopg.connect(url, autocommit=True)
        except psycopg.OperationalError as exc:
            raise ValueError(f"cannot connect to {self.path}: {str(exc).strip()}") from exc
        with conn:
            self._migrate(conn)
            row = conn.execute("SELECT oid FROM pg_type WHERE typname = 'vector'").fetchone()
        if row is None:
            raise RuntimeError(f"{self.path}: the pgvector extension ('vector' type) is not installed")
        self._vector_oid = int(row[0])
        dumper = vector_dumper(self._vector_oid)

        def configure(conn: Any) -> None:
            conn.adapters.register_dumper(Vector, dumper)

        self._pool = ConnectionPool(
            url, min_size=1, max_size=self.config.pool_size, kwargs={"autocommit": True}, configure=configure,
            open=True, timeout=self.config.busy_timeout_ms / 1000 + 30,
        )  # fmt: skip
        self._seen = self._counter()

    # -- schema and transactions ----------------------------------------------------------------------------
    def _migrate(self, conn: Any) -> None:
        """Bring the schema up to date under an advisory lock, reading the version inside that transaction."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            self._upgrade(
                conn, self._version(conn), MIGRATIONS, lambda to: conn.execute(_SET_VERSION, (str(to),))
            )

    @staticmethod
    def _version(conn: Any) -> int:
        if conn.execute("SELECT to_regclass('meta')").fetchone()[0] is None:
            return 0
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return 0 if row is None else int(row[0])

    @property
    def schema_version(self) -> int:
        with self._conn() as conn:
            return self._version(conn)

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        """This thread's transaction connection, or a pooled one for a single autocommit statement."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with self._pool.connection() as pooled:
            yield pooled

    def _rows(self, sql: Any, params: Sequence[Any] = ()) -> list[Any]:
        with self._conn() as conn:
            return list(conn.execute(sql, params).fetchall())

    def _executemany(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with conn.cursor() as cur:
            cur.executemany(sql, rows)

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """BEGIN ... COMMIT on one pooled connection, rolled back on any exception; nested blocks join it."""
        local = self._local
        if self._in_transaction():
            yield local.conn
            return
        stamp = None
        with self._pool.connection() as conn:
            local.conn, local.stamp = conn, None
            try:
                with conn.transaction():
                    yield conn
                stamp = local.stamp
            finally:
                local.conn, local.stamp = None, None
        self._committed(stamp)

    def _in_transaction(self) -> bool:
        return getattr(self._local, "conn", None) is not None

    def _stamp_now(self, conn: Any) -> int:
        """This transaction's change counter value; taking it locks the counter row until commit."""
        if self._local.stamp is None:
            row = conn.execute("UPDATE changes SET seq = seq + 1 WHERE id = 1 RETURNING seq").fetchone()
            self._local.stamp = int(row[0])
        return int(self._local.stamp)

    # -- meta -----------------------------------------------------------------------------------------------
    def snapshot_folder(self) -> Path | None:
        """None: a PostgreSQL store keeps no index snapshots (its processes share no file system)."""
        return None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (key, value),
            )

    # -- units ----------------------------------------------------------------------------------------------
    def _insert_units(self, batch: UnitBatch) -> list[int]:
        import psycopg

        units, hashes, model, vecs, segmented = batch
        with self.transaction() as conn:
            stamp = self._stamp_now(conn)
            self._refuse_existing(conn, units)
            pks = [int(r[0]) for r in conn.execute(
                "SELECT nextval('units_pk_seq') FROM generate_series(1, %s)", (len(units),)
            ).fetchall()]  # fmt: skip
            try:
                with conn.cursor() as cur:
                    # one COPY stream instead of a statement per row; the tsvector goes as its text form
                    with cur.copy(_COPY_UNITS) as copy:
                        for pk, u, h, seg in zip(pks, units, hashes, segmented, strict=True):
                            copy.write_row((pk, *unit_values(u, h), stamp, seg, tsvector_text(lexemes(seg))))
                    self._insert_vectors(cur, model, zip(hashes, vecs, strict=True))
            except psycopg.errors.UniqueViolation as exc:
                raise ValueError(f"a unit of this batch already exists ({exc.diag.message_detail})") from exc
            except psycopg.errors.UntranslatableCharacter as exc:
                raise ValueError(f"text PostgreSQL cannot store ({exc.diag.message_primary})") from exc
        return pks

    def _insert_vectors(self, cur: Any, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        """Insert vectors (first one per model and hash wins) and make sure their HNSW index exists."""
        rows = [(model, h, int(v.shape[0]), v.tobytes(), Vector(v)) for h, v in items]
        if not rows:
            return
        if self.config.hnsw == "on_write":
            for dim in {r[2] for r in rows}:
                self.ensure_hnsw(cur, model, dim)
        # COPY (binary) into a session table, then one INSERT that skips hashes already stored
        cur.execute("CREATE TEMP TABLE IF NOT EXISTS vectors_in (LIKE vectors) ON COMMIT DELETE ROWS")
        with cur.copy(
            "COPY vectors_in (model, content_hash, dim, data, embedding) FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["text", "text", "int4", "bytea", self._vector_oid])
            for row in rows:
                copy.write_row(row)
        cur.execute(
            "INSERT INTO vectors (model, content_hash, dim, data, embedding) "
            "SELECT model, content_hash, dim, data, embedding FROM vectors_in "
            "ON CONFLICT (model, content_hash) DO NOTHING"
        )
        cur.execute("DELETE FROM vectors_in")

    def ensure_hnsw(self, cur: Any, model: str, dim: int) -> None:
        """An HNSW (cosine) index over one model's vectors of one dimension, created once per database."""
        from psycopg import sql

        if (model, dim) in self._hnsw:
            return
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK + 1,))
        cur.execute(
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON vectors USING hnsw ((embedding::vector({})) vector_cosine_ops) "
                "WHERE model = {} AND dim = {}"
            ).format(
                sql.Identifier(hnsw_index_name(model, dim)),
                sql.Literal(dim),
                sql.Literal(model),
                sql.Literal(dim),
            )
        )
        self._hnsw.add((model, dim))

    def record_access(self, namespace: str, ids: Sequence[str], when: float, times: int = 1) -> None:
        """Count `times` accesses for each id (access reinforcement; an id given twice counts once); outside a
        transaction one statement (one round trip per recall) takes the counter and updates the rows."""
        if not ids:
            return
        if getattr(self._local, "conn", None) is None:
            rows = self._rows(
                "WITH s AS (UPDATE changes SET seq = seq + 1 WHERE id = 1 RETURNING seq), "
                "u AS (UPDATE units SET access_count = access_count + %s, last_accessed_at = %s, "
                "changed = (SELECT seq FROM s) WHERE namespace = %s AND id = ANY(%s) RETURNING 1) SELECT seq FROM s",
                (times, when, namespace, list(ids)),
            )
            self._committed(int(rows[0][0]))
            return
        with self.transaction() as conn:
            conn.execute(
                "UPDATE units SET access_count = access_count + %s, last_accessed_at = %s, changed = %s "
                "WHERE namespace = %s AND id = ANY(%s)",
                (times, when, self._stamp_now(conn), namespace, list(ids)),
            )

    # -- vectors --------------------------------------------------------------------------------------------
    def put_vectors(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        with self.transaction() as conn, conn.cursor() as cur:
            self._insert_vectors(cur, model, [(h, np.asarray(v, np.float32)) for h, v in items])

    # -- conflict records and forgetting --------------------------------------------------------------------
    def resolve_conflict(
        self, namespace: str, conflict_id: str, resolution: str, when: datetime
    ) -> ConflictRecord:
        """Mark a record resolved with the text of how; both sides stay stored."""
        rows = self._rows(
            f"UPDATE conflicts SET status = 'resolved', resolution = %s, resolved_at = %s "
            f"WHERE namespace = %s AND id = %s RETURNING {CONFLICT_FIELDS}",
            (resolution, when.timestamp(), namespace, conflict_id),
        )
        if not rows:
            raise NotFound("conflict_id", f"no conflict {conflict_id!r} in namespace {namespace!r}")
        return row_to_conflict(rows[0])

    def erase_unit(self, namespace: str, unit_id: str, tomb: MemoryUnit, content: str) -> None:
        """Forget a unit (`MemoryStore.erase_unit`) in one transaction that takes the change counter first, as every
        write does. PostgreSQL keeps dead row versions until VACUUM: run it after forgetting when the disk must not
        hold them."""
        with self.transaction() as conn:
            self._stamp_now(conn)
            found = conn.execute(
                "SELECT content_hash, pk FROM units WHERE namespace = %s AND id = %s FOR UPDATE",
                (namespace, unit_id),
            ).fetchone()
            if found is None:
                raise NotFound("id", f"no unit {unit_id!r} in namespace {namespace!r}")
            self._erase(conn, namespace, unit_id, tomb, content, int(found[1]), str(found[0]))

    # -- filters and search ---------------------------------------------------------------------------------
    def metadata_pks(self, namespace: str, conditions: Sequence[Condition]) -> set[int]:
        """pks of units whose metadata satisfy every `metadata.<key>` condition (compared as JSON values)."""
        clauses: list[str] = []
        params: list[Any] = [namespace]
        for cond in conditions:
            path = cond.field.split(".", 1)[1].split(".")
            value = "(metadata_json::jsonb #> %s)"
            if cond.op == "in":
                clauses.append(f"{value} IN ({','.join(['%s::jsonb'] * len(cond.value))})")
                params += [path, *(json.dumps(v) for v in cond.value)]
            elif cond.op in ("==", "!="):
                clauses.append(f"{value} {_COMPARE[cond.op]} %s::jsonb")
                params += [path, json.dumps(cond.value)]
            elif cond.op in _COMPARE:
                numeric = isinstance(cond.value, int | float) and not isinstance(cond.value, bool)
                kind, cast = ("number", "::float8") if numeric else ("string", "")
                clauses.append(
                    f"jsonb_typeof({value}) = '{kind}' AND (metadata_json::jsonb #>> %s){cast} {_COMPARE[cond.op]} %s"
                )
                params += [path, path, cond.value]
            else:
                raise FilterError(f"operator {cond.op!r} not supported on metadata")
        sql = "SELECT pk FROM units WHERE namespace = %s AND " + " AND ".join(clauses)
        return {int(r[0]) for r in self._rows(sql, params)}

    def search_vectors(
        self, namespace: str, model: str, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        """(id, cosine) of the k nearest units by pgvector (the model's HNSW index where the planner uses it)."""
        from psycopg import sql

        q = np.asarray(query, dtype=np.float32)
        if k <= 0 or q.size == 0:
            return []
        if (model, int(q.shape[0])) not in self._hnsw:
            with self.transaction() as conn, conn.cursor() as cur:
                self.ensure_hnsw(cur, model, int(q.shape[0]))
        dim = sql.Literal(int(q.shape[0]))
        distance = sql.SQL("v.embedding::vector({}) <=> %b::vector({})").format(dim, dim)
        stmt = sql.SQL(
            "SELECT u.id, 1 - ({d}) AS s FROM units u JOIN vectors v ON v.content_hash = u.content_hash "
            "WHERE v.model = {m} AND v.dim = {n} AND u.namespace = %s ORDER BY {d} LIMIT %s"
        ).format(d=distance, m=sql.Literal(model), n=dim)
        rows = self._rows(stmt, (Vector(q), namespace, Vector(q), int(k)))
        return [(str(uid), float(score)) for uid, score in rows]

    def search_keywords(self, namespace: str, terms: Sequence[str], k: int) -> list[tuple[str, float]]:
        """(id, rank) of the k best units matching any term, by the GIN-indexed tsvector of stemmed tokens."""
        stems = [stem(t) for t in segment(" ".join(terms)).split() if t]
        if not stems or k <= 0:
            return []
        rows = self._rows(
            "SELECT id, ts_rank(terms, q) AS s FROM units, CAST(%s AS tsquery) AS q "
            "WHERE namespace = %s AND terms @@ q ORDER BY s DESC, pk LIMIT %s",
            (tsquery(stems), namespace, int(k)),
        )
        return [(str(uid), float(score)) for uid, score in rows]

    def close(self) -> None:
        self._pool.close()
