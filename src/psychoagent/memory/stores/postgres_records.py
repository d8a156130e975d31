"""The PostgreSQL store's edges, conflict records, forgetting, metadata filters and in-database search."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

import numpy as np

from psychoagent.embed import content_hash
from psychoagent.memory.filters import Condition, FilterError
from psychoagent.memory.stores.base import (
    CONFLICT_FIELDS,
    conflict_values,
    edge_values,
    row_to_conflict,
    row_to_edge,
    scrub_quote,
)
from psychoagent.memory.stores.postgres_schema import Vector, tsquery
from psychoagent.text import segment, stem
from psychoagent.types import ConflictRecord, ConflictStatus, Edge, MemoryUnit, to_epoch

_COMPARE = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class RecordsMixin:
    """Methods of `PostgresStore` beyond units and vectors (they share its connections and transactions)."""

    _rows: Any
    _stamp_now: Any
    _hnsw: set[tuple[str, int]]
    ensure_hnsw: Any

    def transaction(self) -> AbstractContextManager[Any]:  # implemented by PostgresStore
        raise NotImplementedError

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

    # -- graph and conflict records -------------------------------------------------------------------------
    def add_edges(self, namespace: str, edges: Sequence[Edge]) -> None:
        if not edges:
            return
        with self.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO edges (namespace, src, dst, type, weight, created_at, metadata_json) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (namespace, src, dst, type) DO UPDATE SET "
                "weight = EXCLUDED.weight, created_at = EXCLUDED.created_at, metadata_json = EXCLUDED.metadata_json",
                [edge_values(namespace, e) for e in edges],
            )

    def edges(self, namespace: str, node: str | None = None) -> list[Edge]:
        """All edges of a namespace (in insertion order), or those touching one node."""
        sql = "SELECT src, dst, type, weight, created_at, metadata_json FROM edges WHERE namespace = %s"
        params: tuple[Any, ...] = (namespace,)
        if node is not None:
            sql, params = sql + " AND (src = %s OR dst = %s)", (namespace, node, node)
        return [row_to_edge(r) for r in self._rows(sql + " ORDER BY ctid", params)]

    def add_conflicts(self, records: Sequence[ConflictRecord]) -> None:
        if not records:
            return
        updates = ", ".join(f"{c.strip()} = EXCLUDED.{c.strip()}" for c in CONFLICT_FIELDS.split(",")[2:])
        with self.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO conflicts ({CONFLICT_FIELDS}) VALUES ({','.join(['%s'] * 13)}) "
                f"ON CONFLICT (namespace, id) DO UPDATE SET {updates}",
                [conflict_values(r) for r in records],
            )

    def conflicts(
        self, namespace: str, ids: Sequence[str] | None = None, status: str | None = None
    ) -> list[ConflictRecord]:
        """Records of a namespace (oldest first), optionally only those touching `ids` or with a status."""
        sql = f"SELECT {CONFLICT_FIELDS} FROM conflicts WHERE namespace = %s"
        params: list[Any] = [namespace]
        if status is not None:
            sql += " AND status = %s"
            params.append(ConflictStatus(status).value)
        if ids is not None:
            if not ids:
                return []
            sql += " AND (side_a = ANY(%s) OR side_b = ANY(%s))"
            params += [list(ids), list(ids)]
        return [row_to_conflict(r) for r in self._rows(sql + " ORDER BY created_at, id", params)]

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
            raise KeyError(f"no conflict {conflict_id!r} in namespace {namespace!r}")
        return row_to_conflict(rows[0])

    # -- forgetting -----------------------------------------------------------------------------------------
    def erase_unit(self, namespace: str, unit_id: str, tomb: MemoryUnit, content: str) -> None:
        """Rewrite the row as `tomb`, drop its keyword terms and unshared vector, scrub quotes, in one transaction.

        PostgreSQL keeps dead row versions until VACUUM: run it after forgetting when the disk must not hold them.
        """
        with self.transaction() as conn:
            stamp = self._stamp_now(conn)
            found = conn.execute(
                "SELECT content_hash, pk FROM units WHERE namespace = %s AND id = %s FOR UPDATE",
                (namespace, unit_id),
            ).fetchone()
            if found is None:
                raise KeyError(f"no unit {unit_id!r} in namespace {namespace!r}")
            chash, pk = str(found[0]), int(found[1])
            conn.execute(
                "UPDATE units SET content = %s, content_hash = %s, kind = %s, affect_json = %s, conflict_context = '', "
                "metadata_json = %s, invalid_at = %s, segmented = '', terms = ''::tsvector, changed = %s WHERE pk = %s",
                (tomb.content, content_hash(tomb.content), tomb.kind, tomb.affect.model_dump_json(),
                 json.dumps(tomb.metadata, ensure_ascii=False), to_epoch(tomb.invalid_at), stamp, pk),
            )  # fmt: skip
            if (
                conn.execute(
                    "SELECT 1 FROM units WHERE content_hash = %s AND pk <> %s LIMIT 1", (chash, pk)
                ).fetchone()
                is None
            ):
                conn.execute("DELETE FROM vectors WHERE content_hash = %s", (chash,))
            for side in ("a", "b"):
                conn.execute(
                    f"UPDATE conflicts SET description_{side} = %s, status = 'resolved', "
                    "metadata_json = (metadata_json::jsonb - 'values')::text, "
                    "resolution = CASE WHEN status = 'resolved' THEN resolution ELSE %s END, "
                    f"resolved_at = COALESCE(resolved_at, %s) WHERE namespace = %s AND side_{side} = %s",
                    (tomb.content, f"side {side} forgotten", to_epoch(tomb.invalid_at), namespace, unit_id),
                )
            for other_pk, affect_json, context in _quoting(conn, namespace, pk, unit_id, content):
                affect, cleaned = scrub_quote(affect_json, context, unit_id, content, tomb.content)
                conn.execute(
                    "UPDATE units SET affect_json = %s, conflict_context = %s, changed = %s WHERE pk = %s",
                    (affect, cleaned, stamp, other_pk),
                )


def _quoting(conn: Any, namespace: str, pk: int, uid: str, content: str) -> Iterator[tuple[int, str, str]]:
    """Other units whose affect or conflict context quote a forgotten unit's text or id."""
    rows = conn.execute(
        "SELECT pk, affect_json, conflict_context FROM units WHERE namespace = %s AND pk <> %s "
        "AND (strpos(conflict_context, %s) > 0 OR strpos(affect_json, %s) > 0 OR strpos(affect_json, %s) > 0)",
        (namespace, pk, content, json.dumps(content, ensure_ascii=False)[1:-1], uid),
    ).fetchall()
    yield from rows
