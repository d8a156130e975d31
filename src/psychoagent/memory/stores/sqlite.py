"""The default `MemoryStore`: units, vectors, keyword rows (FTS5), edges and conflicts in one SQLite file.

Durability: WAL journal, one transaction per batch; a batch is either fully visible (units, keyword rows and
vectors) or not at all. With ``synchronous=NORMAL`` (default) a killed process loses nothing that was committed;
a power failure may lose the last commits but never corrupts the file (see StoreConfig). The WAL is copied
into the file by a thread of the store (`sqlite_checkpoint`), not by the commit that fills it.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from psychoagent.memory.config import StoreConfig
from psychoagent.memory.filters import Condition, FilterError
from psychoagent.memory.inputs import NotFound
from psychoagent.memory.stores.rows import CONFLICT_FIELDS, row_to_conflict, unit_rows
from psychoagent.memory.stores.sql import SQLStore, UnitBatch
from psychoagent.memory.stores.sqlite_checkpoint import BackgroundCheckpointer
from psychoagent.memory.stores.sqlite_schema import MIGRATIONS
from psychoagent.text import segment
from psychoagent.types import ConflictRecord, MemoryUnit

_WAL_ATTEMPTS = 8
"""Tries to switch a new file to WAL while other processes open it too (each waits busy_timeout first)."""
_INSERT_UNIT = (
    "INSERT INTO units (pk, namespace, id, content, content_hash, kind, tier, valence, arousal, conflict_intensity, "
    "affect_json, conflict_context, sources_json, metadata_json, created_at, valid_at, invalid_at, access_count, "
    "last_accessed_at, changed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class SQLiteStore(SQLStore):
    """The default `MemoryStore`: one SQLite file (or ``:memory:``) holding every namespace."""

    _UPSERT_EDGES = (
        "INSERT OR REPLACE INTO edges (namespace, src, dst, type, weight, created_at, metadata_json) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)"
    )
    _UPSERT_CONFLICTS = f"INSERT OR REPLACE INTO conflicts ({CONFLICT_FIELDS}) VALUES ({','.join('?' * 13)})"
    _DROP_VALUES = "json_remove(metadata_json, '$.values')"
    _FIND = "instr"

    def __init__(self, path: str | Path | None = None, config: StoreConfig | None = None) -> None:
        self.config = config or StoreConfig()
        self.path = ":memory:" if path is None else str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._depth = 0
        self._stamp: int | None = None
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_ms)}")
        if self.path != ":memory:":
            self._conn.execute(f"PRAGMA page_size = {int(self.config.page_size)}")  # a new file only
            self._set_wal()
            self._conn.execute(f"PRAGMA wal_autocheckpoint = {int(self.config.wal_autocheckpoint_pages)}")
        self._conn.execute(f"PRAGMA synchronous = {self.config.synchronous}")
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._conn.execute(f"PRAGMA cache_size = -{int(self.config.cache_size_kib)}")
        self._checkpointer: BackgroundCheckpointer | None = None
        self._migrate()
        self._seen = self._counter()
        if self.path != ":memory:" and self.config.background_checkpoint_rows:
            self._checkpointer = BackgroundCheckpointer(self.path, self.config)
            # a store dropped without close() (or open at exit) stops its thread too
            weakref.finalize(self, self._checkpointer.close)

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
            self._upgrade(conn, version, MIGRATIONS, lambda to: conn.execute(f"PRAGMA user_version = {to}"))

    def data_version(self) -> int:
        """SQLite's counter of commits made by other connections (processes) since this one opened."""
        with self._lock:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    @property
    def schema_version(self) -> int:
        with self._lock:
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
            self._depth, self._stamp = 1, None
            written = self._conn.total_changes
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")
                self._committed(self._stamp)
                if self._checkpointer is not None:
                    self._checkpointer.committed(self._conn.total_changes - written)
            finally:
                self._depth, self._stamp = 0, None

    def _in_transaction(self) -> bool:
        return self._depth > 0

    def _stamp_now(self, conn: sqlite3.Connection) -> int:
        """This transaction's change counter value (incremented once, on its first write of a unit)."""
        if self._stamp is None:
            self._stamp = int(conn.execute("UPDATE changes SET seq = seq + 1 RETURNING seq").fetchone()[0])
        return self._stamp

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement outside an explicit transaction (autocommit)."""
        with self._lock:
            return self._conn.execute(sql, params)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of a query, read while holding the lock: a statement left stepping on the shared connection
        would make another thread's write of the same table fail ("database table is locked")."""
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def _executemany(self, conn: sqlite3.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        conn.executemany(sql, rows)

    # -- meta -----------------------------------------------------------------------------------------------
    def snapshot_folder(self) -> Path | None:
        """``<file>.index/``: where the in-memory index of a large namespace is snapshot (none in memory)."""
        return None if self.path == ":memory:" else Path(self.path + ".index")

    def set_meta(self, key: str, value: str) -> None:
        self.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- units ----------------------------------------------------------------------------------------------
    def _insert_units(self, batch: UnitBatch) -> list[int]:
        units, hashes, model, vecs, segmented = batch
        dim = int(vecs.shape[1]) if vecs.ndim == 2 else 0
        with self.transaction() as conn:
            stamp = self._stamp_now(conn)
            first = int(conn.execute("SELECT COALESCE(MAX(pk), 0) FROM units").fetchone()[0]) + 1
            pks = list(range(first, first + len(units)))
            try:
                # rows made one at a time as SQLite asks for them: each is freed before the next is built
                conn.executemany(_INSERT_UNIT, unit_rows(pks, units, hashes, stamp))
            except sqlite3.IntegrityError as exc:  # the unique (namespace, id) index refused a row: name it
                conn.execute("DELETE FROM units WHERE changed = ? AND pk >= ?", (stamp, first))
                self._refuse_existing(conn, units)
                raise ValueError(f"a unit of this batch already exists ({exc})") from exc
            conn.executemany(
                "INSERT INTO units_fts (rowid, text) VALUES (?, ?)", zip(pks, segmented, strict=True)
            )
            conn.executemany(
                "INSERT OR IGNORE INTO vectors (model, content_hash, dim, data) VALUES (?, ?, ?, ?)",
                # a row of the contiguous matrix is bound as a BLOB as it is (no bytes copy of each)
                ((model, h, dim, memoryview(v)) for h, v in zip(hashes, vecs, strict=True)),
            )
        return pks

    def record_access(self, namespace: str, ids: Sequence[str], when: float, times: int = 1) -> None:
        """Count `times` accesses for each id (access reinforcement); an id given twice counts once."""
        if not ids:
            return
        with self.transaction() as conn:
            stamp = self._stamp_now(conn)
            conn.executemany(
                "UPDATE units SET access_count = access_count + ?, last_accessed_at = ?, changed = ? "
                "WHERE namespace = ? AND id = ?",
                [(times, when, stamp, namespace, uid) for uid in dict.fromkeys(ids)],
            )

    def erase_unit(self, namespace: str, unit_id: str, tomb: MemoryUnit, content: str) -> None:
        """Forget a unit (`MemoryStore.erase_unit`): in one transaction, with SQLite's `secure_delete` on, so freed
        pages are overwritten; the keyword index is rebuilt and the WAL checkpointed so the text does not linger."""
        with self._lock:
            found = self.execute(
                "SELECT content_hash, pk FROM units WHERE namespace = ? AND id = ?", (namespace, unit_id)
            ).fetchone()
            if found is None:
                raise NotFound("id", f"no unit {unit_id!r} in namespace {namespace!r}")
            chash, pk = str(found[0]), int(found[1])
            secure = self.execute("PRAGMA secure_delete").fetchone()[0]
            self.execute("PRAGMA secure_delete = ON")
            try:
                with self.transaction() as conn:
                    self._erase(conn, namespace, unit_id, tomb, content, pk, chash)
                    # the keyword index is rebuilt from the rows left, so no segment keeps the forgotten words;
                    # FTS5's 'optimize' did the same but, repeated after deletes, corrupts the index (SQLite 3.40)
                    conn.execute("INSERT INTO units_fts (units_fts) VALUES ('rebuild')")
            finally:
                self.execute(f"PRAGMA secure_delete = {int(secure)}")
            if self.path != ":memory:":
                self.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def _drop_keywords(self, conn: sqlite3.Connection, pk: int) -> None:
        conn.execute("DELETE FROM units_fts WHERE rowid = ?", (pk,))

    def resolve_conflict(
        self, namespace: str, conflict_id: str, resolution: str, when: datetime
    ) -> ConflictRecord:
        """Mark a record resolved with the text of how; both sides stay stored."""
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE conflicts SET status = 'resolved', resolution = ?, resolved_at = ? "
                "WHERE namespace = ? AND id = ?",
                (resolution, when.timestamp(), namespace, conflict_id),
            )
            if cur.rowcount != 1:
                raise NotFound("conflict_id", f"no conflict {conflict_id!r} in namespace {namespace!r}")
            row = conn.execute(
                f"SELECT {CONFLICT_FIELDS} FROM conflicts WHERE namespace = ? AND id = ?",
                (namespace, conflict_id),
            ).fetchone()
        return row_to_conflict(row)

    # -- vectors and search ---------------------------------------------------------------------------------
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
                clauses.append(f"json_extract(metadata_json, ?) IN ({','.join('?' * len(cond.value))})")
                params += [path, *cond.value]
            elif cond.op in ("==", "!=", "<", "<=", ">", ">="):
                clauses.append(f"json_extract(metadata_json, ?) {'=' if cond.op == '==' else cond.op} ?")
                params += [path, cond.value]
            else:
                raise FilterError(f"operator {cond.op!r} not supported on metadata")
        sql = "SELECT pk FROM units WHERE namespace = ? AND " + " AND ".join(clauses)
        return {int(r[0]) for r in self._rows(sql, params)}

    def search_vectors(
        self, namespace: str, model: str, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        """(id, cosine) of the k nearest units by an exact scan (recall itself uses the in-memory index)."""
        rows = self.load_namespace(namespace, model)
        keep = [i for i, v in enumerate(rows.vectors) if v is not None]
        if not keep or k <= 0:
            return []
        matrix = np.frombuffer(b"".join(rows.vectors[i] or b"" for i in keep), np.float32).reshape(
            len(keep), -1
        )
        scores = matrix @ np.asarray(query, np.float32)
        order = np.argsort(-scores, kind="stable")[:k]
        return [(rows.ids[keep[i]], float(scores[i])) for i in order]

    def search_keywords(self, namespace: str, terms: Sequence[str], k: int) -> list[tuple[str, float]]:
        """(id, BM25) of the k best units matching any term, by FTS5 (recall uses the in-memory BM25)."""
        words = [t for t in segment(" ".join(terms)).split() if t]
        if not words or k <= 0:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self._rows(
            "SELECT u.id, -bm25(units_fts) AS s FROM units_fts JOIN units u ON u.pk = units_fts.rowid "
            "WHERE units_fts MATCH ? AND u.namespace = ? ORDER BY s DESC, u.pk LIMIT ?",
            (match, namespace, k),
        )
        return [(str(uid), float(score)) for uid, score in rows]

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
        with self._lock:
            self._conn.close()
