"""Forgetting in the SQLite store: the row becomes a tombstone, its keyword row and unshared vector go, and the
freed pages are overwritten (`secure_delete`) and checkpointed out of the WAL so the text does not linger."""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING

from psychoagent.embed import content_hash
from psychoagent.memory.stores.base import scrub_quote
from psychoagent.types import MemoryUnit, to_epoch

if TYPE_CHECKING:
    from psychoagent.memory.stores.sqlite import SQLiteStore


def erase(store: SQLiteStore, namespace: str, unit_id: str, tomb: MemoryUnit, content: str) -> None:
    """Rewrite the row as `tomb`, drop its keyword row and (unless another unit shares it) its vector, in one
    transaction; conflict records quoting it lose that side's text and are marked resolved."""
    row = store.execute(
        "SELECT content_hash, pk FROM units WHERE namespace = ? AND id = ?", (namespace, unit_id)
    )
    found = row.fetchone()
    if found is None:
        raise KeyError(f"no unit {unit_id!r} in namespace {namespace!r}")
    chash, pk = str(found[0]), int(found[1])
    secure = store.execute("PRAGMA secure_delete").fetchone()[0]
    store.execute("PRAGMA secure_delete = ON")
    try:
        with store.transaction() as conn:
            conn.execute(
                "UPDATE units SET content = ?, content_hash = ?, kind = ?, affect_json = ?, conflict_context = '', "
                "metadata_json = ?, invalid_at = ?, changed = ? WHERE pk = ?",
                (tomb.content, content_hash(tomb.content), tomb.kind, tomb.affect.model_dump_json(),
                 json.dumps(tomb.metadata, ensure_ascii=False), to_epoch(tomb.invalid_at),
                 store._stamp_now(conn), pk),
            )  # fmt: skip
            conn.execute("DELETE FROM units_fts WHERE rowid = ?", (pk,))
            shared = conn.execute(
                "SELECT 1 FROM units WHERE content_hash = ? AND pk != ? LIMIT 1", (chash, pk)
            ).fetchone()
            if shared is None:
                conn.execute("DELETE FROM vectors WHERE content_hash = ?", (chash,))
            for side in ("a", "b"):
                conn.execute(
                    f"UPDATE conflicts SET description_{side} = ?, status = 'resolved', "
                    "metadata_json = json_remove(metadata_json, '$.values'), "
                    "resolution = CASE WHEN status = 'resolved' THEN resolution ELSE ? END, "
                    f"resolved_at = COALESCE(resolved_at, ?) WHERE namespace = ? AND side_{side} = ?",
                    (tomb.content, f"side {side} forgotten", to_epoch(tomb.invalid_at), namespace, unit_id),
                )
            _scrub_quotes(conn, namespace, pk, unit_id, content, tomb.content, store._stamp_now(conn))
            conn.execute("INSERT INTO units_fts (units_fts) VALUES ('optimize')")  # merge away the old tokens
    finally:
        store.execute(f"PRAGMA secure_delete = {int(secure)}")
    if store.path != ":memory:":
        store.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _scrub_quotes(
    conn: sqlite3.Connection, namespace: str, pk: int, uid: str, content: str, tombstone: str, stamp: int
) -> None:
    """Other units quote a conflicting memory in their affect (parties, reason) and conflict context: erase it."""
    rows = conn.execute(
        "SELECT pk, affect_json, conflict_context FROM units WHERE namespace = ? AND pk != ? "
        "AND (instr(conflict_context, ?) > 0 OR instr(affect_json, ?) > 0 OR instr(affect_json, ?) > 0)",
        (namespace, pk, content, json.dumps(content, ensure_ascii=False)[1:-1], uid),
    ).fetchall()
    for other_pk, affect_json, context in rows:
        affect, cleaned = scrub_quote(affect_json, context, uid, content, tombstone)
        conn.execute(
            "UPDATE units SET affect_json = ?, conflict_context = ?, changed = ? WHERE pk = ?",
            (affect, cleaned, stamp, other_pk),
        )
