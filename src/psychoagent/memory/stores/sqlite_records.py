"""The SQLite store's edges and conflict records (a mixin of `SQLiteStore`, sharing its connection)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from psychoagent.memory.stores.base import (
    CONFLICT_FIELDS,
    conflict_values,
    edge_values,
    row_to_conflict,
    row_to_edge,
)
from psychoagent.types import ConflictRecord, ConflictStatus, Edge


class SQLiteRecords:
    """Edges and conflict records of `SQLiteStore`."""

    execute: Any

    def transaction(self) -> AbstractContextManager[Any]:  # implemented by SQLiteStore
        raise NotImplementedError

    def add_edges(self, namespace: str, edges: Sequence[Edge]) -> None:
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO edges (namespace, src, dst, type, weight, created_at, metadata_json) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [edge_values(namespace, e) for e in edges],
            )

    def edges(self, namespace: str, node: str | None = None) -> list[Edge]:
        """All edges of a namespace, or those touching one node."""
        sql = "SELECT src, dst, type, weight, created_at, metadata_json FROM edges WHERE namespace = ?"
        params: tuple[Any, ...] = (namespace,)
        if node is not None:
            sql, params = sql + " AND (src = ? OR dst = ?)", (namespace, node, node)
        return [row_to_edge(r) for r in self.execute(sql, params).fetchall()]

    def add_conflicts(self, records: Sequence[ConflictRecord]) -> None:
        if not records:
            return
        with self.transaction() as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO conflicts ({CONFLICT_FIELDS}) VALUES ({','.join('?' * 13)})",
                [conflict_values(r) for r in records],
            )

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
            marks = ",".join("?" * len(ids))
            sql += f" AND (side_a IN ({marks}) OR side_b IN ({marks}))"
            params += [*ids, *ids]
        return [row_to_conflict(r) for r in self.execute(sql + " ORDER BY created_at, id", params).fetchall()]

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
                raise KeyError(f"no conflict {conflict_id!r} in namespace {namespace!r}")
            row = conn.execute(
                f"SELECT {CONFLICT_FIELDS} FROM conflicts WHERE namespace = ? AND id = ?",
                (namespace, conflict_id),
            ).fetchone()
        return row_to_conflict(row)
