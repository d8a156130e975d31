"""The SQL layer the SQLite and PostgreSQL stores share: every statement both run alike, written once.

Both stores keep the same tables (`tables`), read and write rows alike (`rows`) and stamp each write transaction
with the change counter. A store supplies how it runs a statement (`_rows`, `transaction`, `_stamp_now`,
`_executemany`), how it binds a list of ids (`_CHUNK`: IN lists of that many marks, or 0 for one array
parameter), its parameter mark, and the few expressions its SQL spells differently; statements are written with
`?` marks and translated by `_sql`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, NamedTuple

import numpy as np

from psychoagent.embed import content_hash
from psychoagent.memory.contracts import TOMBSTONE_KIND, ChangedUnit, NamespaceRows, UnitFact
from psychoagent.memory.inputs import NotFound
from psychoagent.memory.stores.changes import ChangeCounter
from psychoagent.memory.stores.rows import (
    CONFLICT_FIELDS,
    UNIT_FIELDS,
    check_batch,
    conflict_values,
    edge_values,
    namespace_rows,
    row_to_conflict,
    row_to_edge,
    row_to_unit,
    scrub_quote,
    update_values,
)
from psychoagent.memory.stores.tables import split_sql
from psychoagent.text import segment
from psychoagent.types import ConflictRecord, ConflictStatus, Edge, MemoryUnit, to_epoch

LIVE = f" AND kind <> '{TOMBSTONE_KIND}'"
"""The condition of the partial index `units_live` (written as a literal so the planner can use that index)."""


class UnitBatch(NamedTuple):
    """Units to insert with their content hashes, the embedding model, their float32 vectors (contiguous, checked)
    and keyword-index texts."""

    units: Sequence[MemoryUnit]
    hashes: Sequence[str]
    model: str
    vectors: np.ndarray
    segmented: Sequence[str]


class SQLStore(ChangeCounter):
    """The statements both stores share (see the module docstring); a store subclasses it with its dialect."""

    _MARK = "?"
    """The driver's parameter mark."""
    _CHUNK = 500
    """Ids per IN (...) list, well under SQLite's bound-parameter limit; 0: one array parameter, `= ANY(?)`."""
    _SEGMENTED = "f.text"
    """A unit's keyword text in unit reads."""
    _KEYWORD_JOIN = "LEFT JOIN units_fts f ON f.rowid = u.pk "
    """The join that reads the keyword text, if it lives in a table of its own."""
    _EDGE_ORDER = ""
    """ORDER BY of edge reads (rows come back in insertion order without one in SQLite)."""
    _UPSERT_EDGES = ""
    """Adds or replaces edge rows (namespace, src, dst, type, weight, created_at, metadata)."""
    _UPSERT_CONFLICTS = ""
    """Adds or replaces conflict rows (CONFLICT_FIELDS)."""
    _DROP_VALUES = ""
    """`metadata_json` without its 'values' key."""
    _FIND = ""
    """The function giving the position of a substring (0 when absent)."""
    _TOMB_KEYWORDS = ""
    """Assignments that clear a forgotten unit's keyword columns in the units table, if it has them."""
    _BY_CHANGED = " INDEXED BY units_changed"
    """How `changes` reads the units table: SQLite's planner, without statistics, scanned a namespace's every row
    by its (namespace, id) index instead of the few changed ones (5.5 s at a million units)."""

    path: str

    # -- what a store supplies ------------------------------------------------------------------------------
    def _rows(self, sql: Any, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of one statement (inside the caller's transaction, if one is open)."""
        raise NotImplementedError

    def transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _stamp_now(self, conn: Any) -> int:
        raise NotImplementedError

    def _executemany(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        raise NotImplementedError

    def _insert_units(self, batch: UnitBatch) -> list[int]:
        """Insert a checked, non-empty batch with its keyword rows and vectors in one transaction; the new pks."""
        raise NotImplementedError

    def _drop_keywords(self, conn: Any, pk: int) -> None:
        """Delete a forgotten unit's keyword row, if it lives in a table of its own."""

    def _upgrade(
        self, conn: Any, version: int, migrations: Sequence[str], record: Callable[[int], Any]
    ) -> None:
        """Inside the caller's migrating transaction: apply `migrations` from schema `version` on, each followed by
        `record(new version)`; a schema newer than this code is refused."""
        if version > len(migrations):
            raise RuntimeError(
                f"{self.path} has schema version {version}, newer than this psychoagent ({len(migrations)})"
            )
        for target in range(version, len(migrations)):
            for statement in split_sql(migrations[target]):
                conn.execute(statement)
            record(target + 1)

    # -- dialect helpers ------------------------------------------------------------------------------------
    def _sql(self, text: str) -> str:
        """A statement written with `?` marks in the driver's marks."""
        return text if self._MARK == "?" else text.replace("?", self._MARK)

    def _chunks(self, values: Sequence[str]) -> Iterator[list[str]]:
        """Ids in the lists one statement binds: chunks of `_CHUNK`, or all at once; none for no ids."""
        step = self._CHUNK or max(len(values), 1)
        for start in range(0, len(values), step):
            yield list(values[start : start + step])

    def _in(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """A condition that `column` is one of `values`, and its parameters."""
        if self._CHUNK:
            return f"{column} IN ({','.join('?' * len(values))})", list(values)
        return f"{column} = ANY(?)", [list(values)]

    # -- meta and change detection --------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self._rows(self._sql("SELECT value FROM meta WHERE key = ?"), (key,))
        return str(rows[0][0]) if rows else None

    def _counter(self) -> int:
        return int(self._rows("SELECT seq FROM changes WHERE id = 1")[0][0])

    def changes(self, since: int, upto: int, model: str, namespaces: Sequence[str]) -> list[ChangedUnit]:
        if not namespaces:
            return []
        fields = ", ".join(f"u.{c.strip()}" for c in UNIT_FIELDS.split(","))
        within, names = self._in("u.namespace", namespaces)
        rows = self._rows(
            self._sql(
                f"SELECT {fields}, v.data, {self._SEGMENTED} FROM units u{self._BY_CHANGED} "
                f"LEFT JOIN vectors v ON v.model = ? AND v.content_hash = u.content_hash {self._KEYWORD_JOIN}"
                f"WHERE u.changed > ? AND u.changed <= ? AND {within} ORDER BY u.pk"
            ),
            (model, since, upto, *names),
        )
        return [
            ChangedUnit(int(r[0]), row_to_unit(r[:16]), None if r[16] is None else bytes(r[16]), r[17] or "")
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
        """Insert units with their keyword rows and vectors in one transaction; duplicate ids fail the batch.

        `segmented` is each unit's keyword-index text (computed here when not given). Returns the new pks.
        """
        vecs = check_batch(units, hashes, vectors)
        if segmented is None:
            segmented = [segment(u.content) for u in units]
        if not units:
            return []
        return self._insert_units(UnitBatch(units, hashes, model, vecs, segmented))

    def _refuse_existing(self, conn: Any, units: Sequence[MemoryUnit]) -> None:
        """Raise naming the first id of the batch that its namespace already holds."""
        by_ns: dict[str, list[str]] = {}
        for u in units:
            by_ns.setdefault(u.namespace, []).append(u.id)
        for ns, ids in by_ns.items():
            for chunk in self._chunks(ids):
                within, values = self._in("id", chunk)
                row = conn.execute(
                    self._sql(f"SELECT id FROM units WHERE namespace = ? AND {within} LIMIT 1"), (ns, *values)
                ).fetchone()
                if row is not None:
                    raise ValueError(f"a unit with id {row[0]!r} already exists in {ns!r}")

    def update_unit(self, unit: MemoryUnit) -> None:
        """Rewrite the mutable fields of an existing unit (affect, tier, validity, access, metadata)."""
        with self.transaction() as conn:
            cur = conn.execute(
                self._sql(
                    "UPDATE units SET kind = ?, tier = ?, valence = ?, arousal = ?, conflict_intensity = ?, "
                    "affect_json = ?, conflict_context = ?, sources_json = ?, metadata_json = ?, valid_at = ?, "
                    "invalid_at = ?, access_count = ?, last_accessed_at = ?, changed = ? "
                    "WHERE namespace = ? AND id = ?"
                ),
                (*update_values(unit)[:13], self._stamp_now(conn), unit.namespace, unit.id),
            )
            if cur.rowcount != 1:
                raise NotFound("unit", f"no unit {unit.id!r} in namespace {unit.namespace!r}")

    def get_units(self, namespace: str, ids: Sequence[str]) -> list[MemoryUnit]:
        """Units by id, in the order asked; missing ids are skipped."""
        found: dict[str, MemoryUnit] = {}
        for chunk in self._chunks(ids):
            within, values = self._in("id", chunk)
            for row in self._rows(
                self._sql(f"SELECT {UNIT_FIELDS} FROM units WHERE namespace = ? AND {within}"),
                (namespace, *values),
            ):
                unit = row_to_unit(row)
                found[unit.id] = unit
        return [found[i] for i in ids if i in found]

    def iter_units(self, namespace: str, kind: str | None = None, live: bool = False) -> Iterator[MemoryUnit]:
        """All units of a namespace (optionally of one kind; without tombstones when `live`) in insertion order."""
        sql = f"SELECT {UNIT_FIELDS} FROM units WHERE namespace = ?"
        params: tuple[Any, ...] = (namespace,)
        if kind is not None:
            sql, params = sql + " AND kind = ?", (*params, kind)
        if live:
            sql += LIVE
        yield from map(row_to_unit, self._rows(self._sql(sql + " ORDER BY pk"), params))

    def unit_facts(
        self, namespace: str, ids: Sequence[str] | None = None, upto_pk: int | None = None
    ) -> list[UnitFact]:
        """What the in-process affect state indexes of live units (these ids, or every one up to `upto_pk` in
        insertion order), without building the units (at 200k units building them was most of a first recall's
        16 s)."""
        fields = "id, created_at, content, kind, invalid_at, valence, metadata_json"
        if ids is None:
            bound = "" if upto_pk is None else " AND pk <= ?"
            params: tuple[Any, ...] = (namespace,) if upto_pk is None else (namespace, upto_pk)
            sql = f"SELECT {fields} FROM units WHERE namespace = ?{LIVE}{bound} ORDER BY pk"
            return [UnitFact(*row) for row in self._rows(self._sql(sql), params)]
        found: list[UnitFact] = []
        for chunk in self._chunks(ids):
            # by (namespace, id) and the kind tested here: with the live condition in SQL, SQLite's planner
            # walked the namespace's partial live index instead (270 ms a read at a million units)
            within, values = self._in("id", chunk)
            rows = self._rows(self._sql(f"SELECT {fields} FROM units WHERE namespace = ? AND {within}"),
                              (namespace, *values))  # fmt: skip
            found.extend(UnitFact(*row) for row in rows if row[3] != TOMBSTONE_KIND)
        return found

    def count(self, namespace: str | None = None) -> int:
        if namespace is None:
            return int(self._rows("SELECT COUNT(*) FROM units")[0][0])
        return int(
            self._rows(self._sql("SELECT COUNT(*) FROM units WHERE namespace = ?"), (namespace,))[0][0]
        )

    def namespaces(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT DISTINCT namespace FROM units ORDER BY namespace")]

    def load_namespace(self, namespace: str, model: str) -> NamespaceRows:
        """Every unit of a namespace but its tombstones, with the columns recall filters on and its vector for
        `model` (or None); tombstones never come back from recall, and under steady forgetting they outnumber
        the live units."""
        fields = (
            "u.pk, u.id, u.content_hash, u.content, u.valence, u.arousal, u.conflict_intensity, u.created_at, "
            "u.valid_at, u.invalid_at, u.access_count, u.last_accessed_at, u.tier, u.kind, v.data"
        )
        rows = self._rows(
            self._sql(
                f"SELECT {fields}, {self._SEGMENTED} FROM units u "
                f"LEFT JOIN vectors v ON v.model = ? AND v.content_hash = u.content_hash {self._KEYWORD_JOIN}"
                f"WHERE u.namespace = ?{LIVE.replace(' kind', ' u.kind')} ORDER BY u.pk"
            ),
            (model, namespace),
        )
        return namespace_rows(rows)

    def _erase(
        self, conn: Any, namespace: str, unit_id: str, tomb: MemoryUnit, content: str, pk: int, chash: str
    ) -> None:
        """Inside the caller's transaction: rewrite row `pk` as `tomb`, drop its keyword row and (unless another
        unit shares it) its vector (content hash `chash`); conflict records quoting it lose that side's text and are marked resolved, and
        other units' affect and conflict context lose every quote of it."""
        stamp = self._stamp_now(conn)
        conn.execute(
            self._sql(
                "UPDATE units SET content = ?, content_hash = ?, kind = ?, affect_json = ?, conflict_context = '', "
                f"metadata_json = ?, invalid_at = ?, {self._TOMB_KEYWORDS}changed = ? WHERE pk = ?"
            ),
            (tomb.content, content_hash(tomb.content), tomb.kind, tomb.affect.model_dump_json(),
             json.dumps(tomb.metadata, ensure_ascii=False), to_epoch(tomb.invalid_at), stamp, pk),
        )  # fmt: skip
        self._drop_keywords(conn, pk)
        shared = conn.execute(
            self._sql("SELECT 1 FROM units WHERE content_hash = ? AND pk <> ? LIMIT 1"), (chash, pk)
        ).fetchone()
        if shared is None:
            conn.execute(self._sql("DELETE FROM vectors WHERE content_hash = ?"), (chash,))
        for side in ("a", "b"):
            conn.execute(
                self._sql(
                    f"UPDATE conflicts SET description_{side} = ?, status = 'resolved', "
                    f"metadata_json = {self._DROP_VALUES}, "
                    "resolution = CASE WHEN status = 'resolved' THEN resolution ELSE ? END, "
                    f"resolved_at = COALESCE(resolved_at, ?) WHERE namespace = ? AND side_{side} = ?"
                ),
                (tomb.content, f"side {side} forgotten", to_epoch(tomb.invalid_at), namespace, unit_id),
            )
        find = self._FIND
        quoting = conn.execute(
            self._sql(
                f"SELECT pk, affect_json, conflict_context FROM units WHERE namespace = ? AND pk <> ?{LIVE} "
                f"AND ({find}(conflict_context, ?) > 0 OR {find}(affect_json, ?) > 0 OR {find}(affect_json, ?) > 0)"
            ),
            (namespace, pk, content, json.dumps(content, ensure_ascii=False)[1:-1], unit_id),
        ).fetchall()
        for other_pk, affect_json, context in quoting:
            affect, cleaned = scrub_quote(affect_json, context, unit_id, content, tomb.content)
            conn.execute(
                self._sql("UPDATE units SET affect_json = ?, conflict_context = ?, changed = ? WHERE pk = ?"),
                (affect, cleaned, stamp, other_pk),
            )

    # -- vectors --------------------------------------------------------------------------------------------
    def get_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached embeddings by content hash for one embedding model."""
        out: dict[str, np.ndarray] = {}
        for chunk in self._chunks(list(dict.fromkeys(hashes))):
            within, values = self._in("content_hash", chunk)
            rows = self._rows(
                self._sql(f"SELECT content_hash, data FROM vectors WHERE model = ? AND {within}"),
                (model, *values),
            )
            for chash, data in rows:
                out[chash] = np.frombuffer(bytes(data), dtype=np.float32)
        return out

    # -- graph and conflict records -------------------------------------------------------------------------
    def add_edges(self, namespace: str, edges: Sequence[Edge]) -> None:
        if not edges:
            return
        with self.transaction() as conn:
            self._executemany(conn, self._UPSERT_EDGES, [edge_values(namespace, e) for e in edges])

    def edges(self, namespace: str, node: str | None = None) -> list[Edge]:
        """All edges of a namespace (in insertion order), or those touching one node."""
        sql = "SELECT src, dst, type, weight, created_at, metadata_json FROM edges WHERE namespace = ?"
        params: tuple[Any, ...] = (namespace,)
        if node is not None:
            sql, params = sql + " AND (src = ? OR dst = ?)", (namespace, node, node)
        return [row_to_edge(r) for r in self._rows(self._sql(sql + self._EDGE_ORDER), params)]

    def add_conflicts(self, records: Sequence[ConflictRecord]) -> None:
        if not records:
            return
        with self.transaction() as conn:
            self._executemany(conn, self._UPSERT_CONFLICTS, [conflict_values(r) for r in records])

    def conflicts(
        self, namespace: str, ids: Sequence[str] | None = None, status: str | None = None
    ) -> list[ConflictRecord]:
        """Records of a namespace (oldest first), optionally only those touching `ids` or with a status."""
        sql = f"SELECT {CONFLICT_FIELDS} FROM conflicts WHERE namespace = ?"
        params: list[Any] = [namespace]
        if status is not None:
            sql += " AND status = ?"
            params.append(ConflictStatus(status).value)
        if ids is not None:
            if not ids:
                return []
            side_a, values = self._in("side_a", ids)
            side_b, _ = self._in("side_b", ids)
            sql += f" AND ({side_a} OR {side_b})"
            params += [*values, *values]
        return [row_to_conflict(r) for r in self._rows(self._sql(sql + " ORDER BY created_at, id"), params)]
