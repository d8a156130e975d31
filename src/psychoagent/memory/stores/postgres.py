"""`MemoryStore` on PostgreSQL with pgvector (extra `postgres`): many processes and machines on one database.

`Memory(path="postgresql://user:pass@host/db")`. psycopg 3 with a connection pool; a transaction holds one
pooled connection per thread, so nested writes join it. Every write transaction takes the row lock of the change
counter first: writers commit in counter order, and a reader that has seen counter N has seen every unit written
up to N. Edges, conflict records, forgetting and search are in `postgres_records`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from psychoagent.memory.config import StoreConfig
from psychoagent.memory.stores import redact
from psychoagent.memory.stores.base import (
    UNIT_FIELDS,
    ChangeCounter,
    ChangedUnit,
    NamespaceRows,
    check_batch,
    namespace_rows,
    row_to_unit,
    unit_values,
    update_values,
)
from psychoagent.memory.stores.postgres_records import RecordsMixin
from psychoagent.memory.stores.postgres_schema import (
    MIGRATION_LOCK,
    MIGRATIONS,
    Vector,
    hnsw_index_name,
    split_sql,
    vector_dumper,
)
from psychoagent.text import segment, stem
from psychoagent.types import MemoryUnit

_ROW_FIELDS = (
    "u.pk, u.id, u.content_hash, u.content, u.valence, u.arousal, u.conflict_intensity, u.created_at, "
    "u.valid_at, u.invalid_at, u.access_count, u.last_accessed_at, u.tier, u.kind, v.data, u.segmented"
)
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


class PostgresStore(RecordsMixin, ChangeCounter):
    """Units, vectors (pgvector, HNSW), keyword rows (tsvector, GIN), edges and conflicts in one database."""

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
            version = self._version(conn)
            if version > len(MIGRATIONS):
                raise RuntimeError(
                    f"{self.path} has schema version {version}, newer than this psychoagent ({len(MIGRATIONS)})"
                )
            for target in range(version, len(MIGRATIONS)):
                for statement in split_sql(MIGRATIONS[target]):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (str(target + 1),),
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

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._conn() as conn:
            return list(conn.execute(sql, params).fetchall())

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

    # -- meta and change detection --------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = %s", (key,))
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (key, value),
            )

    def _counter(self) -> int:
        return int(self._rows("SELECT seq FROM changes WHERE id = 1")[0][0])

    def changes(self, since: int, upto: int, model: str, namespaces: Sequence[str]) -> list[ChangedUnit]:
        if not namespaces:
            return []
        fields = ", ".join(f"u.{c.strip()}" for c in UNIT_FIELDS.split(","))
        rows = self._rows(
            f"SELECT {fields}, v.data, u.segmented FROM units u "
            "LEFT JOIN vectors v ON v.model = %s AND v.content_hash = u.content_hash "
            "WHERE u.changed > %s AND u.changed <= %s AND u.namespace = ANY(%s) ORDER BY u.pk",
            (model, since, upto, list(namespaces)),
        )
        return [
            ChangedUnit(int(r[0]), row_to_unit(r[:16]), None if r[16] is None else bytes(r[16]), r[17])
            for r in rows
        ]

    # -- units ----------------------------------------------------------------------------------------------
    def add_units(
        self,
        units: Sequence[MemoryUnit],
        hashes: Sequence[str],
        model: str,
        vectors: np.ndarray,
        segmented: Sequence[str] | None = None,
    ) -> list[int]:
        """Insert units with their keyword rows and vectors in one transaction; duplicate ids fail the batch."""
        import psycopg

        vecs = check_batch(units, hashes, vectors)
        if segmented is None:
            segmented = [segment(u.content) for u in units]
        if not units:
            return []
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

    def _refuse_existing(self, conn: Any, units: Sequence[MemoryUnit]) -> None:
        """Raise naming the first id of the batch that its namespace already holds."""
        by_ns: dict[str, list[str]] = {}
        for u in units:
            by_ns.setdefault(u.namespace, []).append(u.id)
        for ns, ids in by_ns.items():
            row = conn.execute(
                "SELECT id FROM units WHERE namespace = %s AND id = ANY(%s) LIMIT 1", (ns, ids)
            ).fetchone()
            if row is not None:
                raise ValueError(f"a unit with id {row[0]!r} already exists in {ns!r}")

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

    def update_unit(self, unit: MemoryUnit) -> None:
        """Rewrite the mutable fields of an existing unit (affect, tier, validity, access, metadata)."""
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE units SET kind = %s, tier = %s, valence = %s, arousal = %s, conflict_intensity = %s, "
                "affect_json = %s, conflict_context = %s, sources_json = %s, metadata_json = %s, valid_at = %s, "
                "invalid_at = %s, access_count = %s, last_accessed_at = %s, changed = %s "
                "WHERE namespace = %s AND id = %s",
                (*update_values(unit)[:13], self._stamp_now(conn), unit.namespace, unit.id),
            )
            if cur.rowcount != 1:
                raise KeyError(f"no unit {unit.id!r} in namespace {unit.namespace!r}")

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

    def get_units(self, namespace: str, ids: Sequence[str]) -> list[MemoryUnit]:
        """Units by id, in the order asked; missing ids are skipped."""
        if not ids:
            return []
        rows = self._rows(
            f"SELECT {UNIT_FIELDS} FROM units WHERE namespace = %s AND id = ANY(%s)", (namespace, list(ids))
        )
        found = {u.id: u for u in map(row_to_unit, rows)}
        return [found[i] for i in ids if i in found]

    def iter_units(self, namespace: str, kind: str | None = None) -> Iterator[MemoryUnit]:
        """All units of a namespace (optionally of one kind) in insertion order."""
        sql = f"SELECT {UNIT_FIELDS} FROM units WHERE namespace = %s"
        params: tuple[Any, ...] = (namespace,)
        if kind is not None:
            sql, params = sql + " AND kind = %s", (namespace, kind)
        yield from map(row_to_unit, self._rows(sql + " ORDER BY pk", params))

    def count(self, namespace: str | None = None) -> int:
        if namespace is None:
            return int(self._rows("SELECT COUNT(*) FROM units")[0][0])
        return int(self._rows("SELECT COUNT(*) FROM units WHERE namespace = %s", (namespace,))[0][0])

    def namespaces(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT DISTINCT namespace FROM units ORDER BY namespace")]

    def load_namespace(self, namespace: str, model: str) -> NamespaceRows:
        """Every unit of a namespace with the columns recall filters on and its vector for `model` (or None)."""
        rows = self._rows(
            f"SELECT {_ROW_FIELDS} FROM units u LEFT JOIN vectors v ON v.model = %s AND v.content_hash = u.content_hash "
            "WHERE u.namespace = %s ORDER BY u.pk",
            (model, namespace),
        )
        return namespace_rows(rows)

    # -- vectors --------------------------------------------------------------------------------------------
    def get_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached embeddings by content hash for one embedding model."""
        unique = list(dict.fromkeys(hashes))
        if not unique:
            return {}
        rows = self._rows(
            "SELECT content_hash, data FROM vectors WHERE model = %s AND content_hash = ANY(%s)",
            (model, unique),
        )
        return {h: np.frombuffer(bytes(d), dtype=np.float32) for h, d in rows}

    def put_vectors(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        with self.transaction() as conn, conn.cursor() as cur:
            self._insert_vectors(cur, model, [(h, np.asarray(v, np.float32)) for h, v in items])

    def close(self) -> None:
        self._pool.close()
