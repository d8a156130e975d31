"""Durable storage of memory units, their vectors, keyword index and graph edges in one SQLite file.

Durability: WAL journal, one transaction per batch; a batch is either fully visible (units, keyword rows and
vectors) or not at all. With ``synchronous=NORMAL`` (default) a killed process loses nothing that was committed;
a power failure may lose the last commits but never corrupts the file (see StoreConfig).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from psychoagent.config import StoreConfig
from psychoagent.memory.filters import Condition, FilterError
from psychoagent.memory.text import segment
from psychoagent.types import Affect, Edge, MemoryUnit, to_datetime, to_epoch

SCHEMA_VERSION = 2

# Each entry upgrades the schema from version i to i + 1. Never edit a released entry: append a new one.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE units (
        pk INTEGER PRIMARY KEY,
        namespace TEXT NOT NULL,
        id TEXT NOT NULL,
        content TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'episodic',
        tier TEXT NOT NULL DEFAULT 'long_term',
        valence INTEGER NOT NULL DEFAULT 0,
        arousal INTEGER NOT NULL DEFAULT 1,
        conflict_intensity INTEGER NOT NULL DEFAULT 0,
        affect_json TEXT NOT NULL,
        conflict_context TEXT NOT NULL DEFAULT '',
        sources_json TEXT NOT NULL DEFAULT '[]',
        metadata_json TEXT NOT NULL DEFAULT '{}',
        created_at REAL NOT NULL,
        valid_at REAL,
        invalid_at REAL,
        access_count INTEGER NOT NULL DEFAULT 0,
        last_accessed_at REAL,
        UNIQUE (namespace, id)
    );
    CREATE INDEX units_ns_created ON units (namespace, created_at);
    CREATE VIRTUAL TABLE units_fts USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2');
    CREATE TABLE vectors (
        model TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        dim INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (model, content_hash)
    ) WITHOUT ROWID;
    CREATE TABLE edges (
        namespace TEXT NOT NULL,
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        type TEXT NOT NULL,
        weight REAL NOT NULL DEFAULT 1.0,
        created_at REAL NOT NULL,
        metadata_json TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (namespace, src, dst, type)
    );
    CREATE INDEX edges_dst ON edges (namespace, dst);
    """,
    """
    CREATE TABLE conflicts (
        namespace TEXT NOT NULL,
        id TEXT NOT NULL,
        kind TEXT NOT NULL,
        side_a TEXT NOT NULL,
        side_b TEXT NOT NULL,
        description_a TEXT NOT NULL DEFAULT '',
        description_b TEXT NOT NULL DEFAULT '',
        intensity INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'unresolved',
        resolution TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        resolved_at REAL,
        metadata_json TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (namespace, id)
    );
    CREATE INDEX conflicts_side_a ON conflicts (namespace, side_a);
    CREATE INDEX conflicts_side_b ON conflicts (namespace, side_b);
    """,
]

UNIT_COLUMNS = (
    "pk, namespace, id, content, content_hash, kind, tier, affect_json, conflict_context, sources_json, "
    "metadata_json, created_at, valid_at, invalid_at, access_count, last_accessed_at"
)


def _dt(value: float | None) -> datetime | None:
    return None if value is None else to_datetime(value)


def row_to_unit(row: sqlite3.Row | tuple[Any, ...]) -> MemoryUnit:
    """A `units` row (UNIT_COLUMNS order) -> MemoryUnit."""
    (_, namespace, uid, content, _, kind, tier, affect_json, conflict_context, sources_json, metadata_json,
     created_at, valid_at, invalid_at, access_count, last_accessed_at) = tuple(row)  # fmt: skip
    return MemoryUnit(
        id=uid,
        namespace=namespace,
        content=content,
        kind=kind,
        tier=tier,
        affect=Affect.model_validate_json(affect_json),
        conflict_context=conflict_context,
        sources=json.loads(sources_json),
        metadata=json.loads(metadata_json),
        created_at=_dt(created_at),
        valid_at=_dt(valid_at),
        invalid_at=_dt(invalid_at),
        access_count=access_count,
        last_accessed_at=_dt(last_accessed_at),
    )


@dataclass
class NamespaceRows:
    """Columns of every unit of one namespace, as loaded for the in-memory index."""

    pks: np.ndarray
    ids: list[str]
    content_hashes: list[str]
    contents: list[str]
    columns: dict[str, np.ndarray]
    vectors: list[bytes | None]
    segmented: list[str]


class MemoryStore(Protocol):
    """Persistence behind `Memory`: units, vectors, keyword search and edges, isolated by namespace."""

    def add_units(
        self, units: Sequence[MemoryUnit], hashes: Sequence[str], model: str, vectors: np.ndarray
    ) -> None: ...

    def get_units(self, namespace: str, ids: Sequence[str]) -> list[MemoryUnit]: ...

    def load_namespace(self, namespace: str, model: str) -> NamespaceRows: ...

    def close(self) -> None: ...


_WAL_ATTEMPTS = 8
"""Tries to switch a new file to WAL while other processes open it too (each waits busy_timeout first)."""


class SQLiteStore:
    """The default `MemoryStore`: one SQLite file (or ``:memory:``) holding every namespace."""

    def __init__(self, path: str | Path | None = None, config: StoreConfig | None = None) -> None:
        self.config = config or StoreConfig()
        self.path = ":memory:" if path is None else str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._depth = 0
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_ms)}")
        if self.path != ":memory:":
            self._set_wal()
        self._conn.execute(f"PRAGMA synchronous = {self.config.synchronous}")
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._conn.execute(f"PRAGMA cache_size = -{int(self.config.cache_size_kib)}")
        self._migrate()

    # -- schema ---------------------------------------------------------------------------------------------
    def _set_wal(self) -> None:
        """Switch a file to WAL; another process doing the same at that moment can hold the lock past the busy
        timeout, so a few short retries follow before the error is raised."""
        for attempt in range(_WAL_ATTEMPTS):
            try:
                self._conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == _WAL_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def _migrate(self) -> None:
        """Bring the schema up to date under the write lock: the version is read inside the same IMMEDIATE
        transaction that migrates, so processes opening a new file at once migrate it exactly once."""
        with self._lock, self.transaction() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise RuntimeError(
                    f"{self.path} has schema version {version}, newer than this psychoagent ({len(MIGRATIONS)})"
                )
            for target in range(version, len(MIGRATIONS)):
                for statement in _split_sql(MIGRATIONS[target]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {target + 1}")

    def data_version(self) -> int:
        """SQLite's counter of commits made by other connections (processes) since this one opened."""
        with self._lock:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    @property
    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception: all or nothing.

        Nested calls join the outermost transaction, so a caller can make several writes one atomic unit.
        """
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")
            finally:
                self._depth = 0

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement outside an explicit transaction (autocommit)."""
        with self._lock:
            return self._conn.execute(sql, params)

    # -- meta -----------------------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- units ----------------------------------------------------------------------------------------------
    def add_units(
        self,
        units: Sequence[MemoryUnit],
        hashes: Sequence[str],
        model: str,
        vectors: np.ndarray,
        segmented: Sequence[str] | None = None,
    ) -> list[int]:
        """Insert units with their keyword rows and vectors in one transaction; duplicate ids fail the batch.

        `segmented` is each unit's keyword-index text (computed here when not given). Returns the new pks.
        """
        if len(units) != len(hashes) or len(units) != len(vectors):
            raise ValueError("units, hashes and vectors must have the same length")
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        if vecs.size and not np.isfinite(vecs).all():
            raise ValueError("refusing to store NaN or inf vectors")
        if segmented is None:
            segmented = [segment(u.content) for u in units]
        pks: list[int] = []
        with self.transaction() as conn:
            for unit, chash, vec, seg in zip(units, hashes, vecs, segmented, strict=True):
                try:
                    cur = conn.execute(
                        "INSERT INTO units (namespace, id, content, content_hash, kind, tier, valence, arousal, "
                        "conflict_intensity, affect_json, conflict_context, sources_json, metadata_json, "
                        "created_at, valid_at, invalid_at, access_count, last_accessed_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        _unit_params(unit, chash),
                    )
                except sqlite3.IntegrityError as exc:
                    raise ValueError(
                        f"a unit with id {unit.id!r} already exists in {unit.namespace!r}"
                    ) from exc
                pk = int(cur.lastrowid or 0)
                pks.append(pk)
                conn.execute("INSERT INTO units_fts (rowid, text) VALUES (?, ?)", (pk, seg))
                conn.execute(
                    "INSERT OR IGNORE INTO vectors (model, content_hash, dim, data) VALUES (?, ?, ?, ?)",
                    (model, chash, int(vec.shape[0]), vec.tobytes()),
                )
        return pks

    def update_unit(self, unit: MemoryUnit) -> None:
        """Rewrite the mutable fields of an existing unit (affect, tier, validity, access, metadata)."""
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE units SET kind = ?, tier = ?, valence = ?, arousal = ?, conflict_intensity = ?, "
                "affect_json = ?, conflict_context = ?, sources_json = ?, metadata_json = ?, valid_at = ?, "
                "invalid_at = ?, access_count = ?, last_accessed_at = ? WHERE namespace = ? AND id = ?",
                (
                    unit.kind,
                    unit.tier,
                    unit.affect.valence,
                    unit.affect.arousal,
                    unit.affect.conflict_intensity,
                    unit.affect.model_dump_json(),
                    unit.conflict_context,
                    json.dumps(unit.sources, ensure_ascii=False),
                    json.dumps(unit.metadata, ensure_ascii=False, default=str),
                    to_epoch(unit.valid_at),
                    to_epoch(unit.invalid_at),
                    unit.access_count,
                    to_epoch(unit.last_accessed_at),
                    unit.namespace,
                    unit.id,
                ),
            )
            if cur.rowcount != 1:
                raise KeyError(f"no unit {unit.id!r} in namespace {unit.namespace!r}")

    def record_access(self, namespace: str, ids: Sequence[str], when: float) -> None:
        """Count one access for each id (access reinforcement)."""
        if not ids:
            return
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE units SET access_count = access_count + 1, last_accessed_at = ? "
                "WHERE namespace = ? AND id = ?",
                [(when, namespace, uid) for uid in ids],
            )

    def get_units(self, namespace: str, ids: Sequence[str]) -> list[MemoryUnit]:
        """Units by id, in the order asked; missing ids are skipped."""
        if not ids:
            return []
        found: dict[str, MemoryUnit] = {}
        for chunk_start in range(0, len(ids), 500):
            chunk = list(ids[chunk_start : chunk_start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self.execute(
                f"SELECT {UNIT_COLUMNS} FROM units WHERE namespace = ? AND id IN ({marks})",
                (namespace, *chunk),
            ).fetchall()
            for row in rows:
                unit = row_to_unit(row)
                found[unit.id] = unit
        return [found[i] for i in ids if i in found]

    def iter_units(
        self, namespace: str, where_sql: str = "", params: Sequence[Any] = ()
    ) -> Iterator[MemoryUnit]:
        """All units of a namespace in insertion order (optionally narrowed by an SQL condition on units)."""
        sql = f"SELECT {UNIT_COLUMNS} FROM units WHERE namespace = ?"
        if where_sql:
            sql += f" AND ({where_sql})"
        for row in self.execute(sql + " ORDER BY pk", (namespace, *params)).fetchall():
            yield row_to_unit(row)

    def count(self, namespace: str | None = None) -> int:
        if namespace is None:
            return int(self.execute("SELECT COUNT(*) FROM units").fetchone()[0])
        return int(self.execute("SELECT COUNT(*) FROM units WHERE namespace = ?", (namespace,)).fetchone()[0])

    def namespaces(self) -> list[str]:
        return [
            r[0] for r in self.execute("SELECT DISTINCT namespace FROM units ORDER BY namespace").fetchall()
        ]

    def load_namespace(self, namespace: str, model: str) -> NamespaceRows:
        """Every unit of a namespace with the columns recall filters on and its vector for `model` (or None)."""
        rows = self.execute(
            "SELECT u.pk, u.id, u.content_hash, u.content, u.valence, u.arousal, u.conflict_intensity, "
            "u.created_at, u.valid_at, u.invalid_at, u.access_count, u.last_accessed_at, u.tier, u.kind, v.data, "
            "f.text FROM units u LEFT JOIN vectors v ON v.model = ? AND v.content_hash = u.content_hash "
            "LEFT JOIN units_fts f ON f.rowid = u.pk "
            "WHERE u.namespace = ? ORDER BY u.pk",
            (model, namespace),
        ).fetchall()
        nan = float("nan")
        columns: dict[str, np.ndarray] = {
            "valence": np.array([r[4] for r in rows], dtype=np.float32),
            "arousal": np.array([r[5] for r in rows], dtype=np.float32),
            "conflict_intensity": np.array([r[6] for r in rows], dtype=np.float32),
            "created_at": np.array([r[7] for r in rows], dtype=np.float64),
            "valid_at": np.array([nan if r[8] is None else r[8] for r in rows], dtype=np.float64),
            "invalid_at": np.array([nan if r[9] is None else r[9] for r in rows], dtype=np.float64),
            "access_count": np.array([r[10] for r in rows], dtype=np.float32),
            "last_accessed_at": np.array([nan if r[11] is None else r[11] for r in rows], dtype=np.float64),
            "tier": np.array([r[12] for r in rows], dtype=object),
            "kind": np.array([r[13] for r in rows], dtype=object),
        }
        return NamespaceRows(
            pks=np.array([r[0] for r in rows], dtype=np.int64),
            ids=[r[1] for r in rows],
            content_hashes=[r[2] for r in rows],
            contents=[r[3] for r in rows],
            columns=columns,
            vectors=[r[14] for r in rows],
            segmented=[r[15] or "" for r in rows],
        )

    # -- vectors --------------------------------------------------------------------------------------------
    def get_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached embeddings by content hash for one embedding model."""
        out: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for chash, data in self.execute(
                f"SELECT content_hash, data FROM vectors WHERE model = ? AND content_hash IN ({marks})",
                (model, *chunk),
            ).fetchall():
                out[chash] = np.frombuffer(data, dtype=np.float32)
        return out

    def put_vectors(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO vectors (model, content_hash, dim, data) VALUES (?, ?, ?, ?)",
                [(model, h, int(v.shape[0]), np.asarray(v, np.float32).tobytes()) for h, v in items],
            )

    def metadata_pks(self, namespace: str, conditions: Sequence[Condition]) -> set[int]:
        """pks of units whose metadata satisfy every `metadata.<key>` condition."""
        clauses: list[str] = []
        params: list[Any] = [namespace]
        for cond in conditions:
            path = "$." + cond.field.split(".", 1)[1]
            if cond.op == "in":
                marks = ",".join("?" * len(cond.value))
                clauses.append(f"json_extract(metadata_json, ?) IN ({marks})")
                params += [path, *cond.value]
            elif cond.op in ("==", "!=", "<", "<=", ">", ">="):
                sql_op = "=" if cond.op == "==" else cond.op
                clauses.append(f"json_extract(metadata_json, ?) {sql_op} ?")
                params += [path, cond.value]
            else:
                raise FilterError(f"operator {cond.op!r} not supported on metadata")
        sql = "SELECT pk FROM units WHERE namespace = ? AND " + " AND ".join(clauses)
        return {int(r[0]) for r in self.execute(sql, params).fetchall()}

    # -- edges ----------------------------------------------------------------------------------------------
    def add_edges(self, namespace: str, edges: Sequence[Edge]) -> None:
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO edges (namespace, src, dst, type, weight, created_at, metadata_json) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        namespace,
                        e.src,
                        e.dst,
                        e.type,
                        e.weight,
                        e.created_at.timestamp(),
                        json.dumps(e.metadata, ensure_ascii=False, default=str),
                    )
                    for e in edges
                ],
            )

    def edges(self, namespace: str, node: str | None = None) -> list[Edge]:
        """All edges of a namespace, or those touching one node."""
        sql = "SELECT src, dst, type, weight, created_at, metadata_json FROM edges WHERE namespace = ?"
        params: tuple[Any, ...] = (namespace,)
        if node is not None:
            sql += " AND (src = ? OR dst = ?)"
            params += (node, node)
        return [
            Edge(src=s, dst=d, type=t, weight=w, created_at=to_datetime(c), metadata=json.loads(m))
            for s, d, t, w, c, m in self.execute(sql, params).fetchall()
        ]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _unit_params(unit: MemoryUnit, chash: str) -> tuple[Any, ...]:
    return (
        unit.namespace,
        unit.id,
        unit.content,
        chash,
        unit.kind,
        unit.tier,
        unit.affect.valence,
        unit.affect.arousal,
        unit.affect.conflict_intensity,
        unit.affect.model_dump_json(),
        unit.conflict_context,
        json.dumps(unit.sources, ensure_ascii=False),
        json.dumps(unit.metadata, ensure_ascii=False, default=str),
        unit.created_at.timestamp(),
        to_epoch(unit.valid_at),
        to_epoch(unit.invalid_at),
        unit.access_count,
        to_epoch(unit.last_accessed_at),
    )


def _split_sql(script: str) -> list[str]:
    """Split a migration script into statements (no semicolons inside our statements' literals)."""
    return [s.strip() for s in script.split(";") if s.strip()]
