"""Forgetting for privacy: erase a unit's content, keyword row and vector, keeping a tombstone in the graph.

The tombstone keeps the unit's id, kind, times and edges, so provenance and supersession chains stay whole, but
its content, metadata, affect reason and conflict context are replaced and it never comes back from recall.
Conflict records that quoted it lose that side's text and are marked resolved. SQLite's `secure_delete` overwrites
the freed pages and a WAL checkpoint moves the change into the main file, so the text does not linger on disk.
"""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING

import numpy as np

from psychoagent.config import RecallConfig
from psychoagent.memory.embed import content_hash
from psychoagent.memory.index import NamespaceIndex
from psychoagent.types import Affect, MemoryUnit, to_epoch, utcnow

if TYPE_CHECKING:
    from psychoagent.memory.core import Memory
    from psychoagent.memory.retrieve import Candidates, RecallContext

TOMBSTONE_TEXT = "[forgotten]"
"""Content of every forgotten unit (a unit's content must be non-empty)."""
TOMBSTONE_KIND = "forgotten"
"""Kind of a forgotten unit; recall drops rows of this kind."""


def is_tombstone(unit: MemoryUnit) -> bool:
    """True for a unit whose content was erased by `forget`."""
    return unit.kind == TOMBSTONE_KIND


def forget(memory: Memory, id: str, *, reason: str = "") -> MemoryUnit:
    """Erase unit `id` of the memory's namespace and return its tombstone (forgetting twice changes nothing).

    Raises KeyError when the namespace has no such unit.
    """
    if not isinstance(id, str) or not id:
        raise ValueError("id must be a non-empty string")
    unit = memory.get(id)
    if unit is None:
        raise KeyError(f"no unit {id!r} in namespace {memory.namespace!r}")
    if is_tombstone(unit):
        return unit
    when = utcnow()
    meta: dict[str, object] = {"forgotten_at": when.isoformat(), "forgotten_kind": unit.kind}
    if reason:
        meta["forgotten_reason"] = reason
    for key in ("superseded_by", "superseded_reason"):
        if key in unit.metadata:  # structural links of the supersession chain, not content
            meta[key] = unit.metadata[key]
    affect = unit.affect.model_copy(update={"conflict_parties": [], "reason": "forgotten"})  # scores stay
    tomb = unit.model_copy(
        update={
            "content": TOMBSTONE_TEXT, "kind": TOMBSTONE_KIND, "affect": affect, "conflict_context": "",
            "metadata": meta, "invalid_at": unit.invalid_at or when,
        }
    )  # fmt: skip
    _erase(memory, unit, tomb)
    memory._drop_caches()  # the in-process index and slot state still hold the text: reload them from the file
    return tomb


def _erase(memory: Memory, unit: MemoryUnit, tomb: MemoryUnit) -> None:
    """Rewrite the row, drop its keyword row and (unless another unit shares it) its vector, in one transaction."""
    store = memory.store
    ns = memory.namespace
    old_hash = store.execute(
        "SELECT content_hash, pk FROM units WHERE namespace = ? AND id = ?", (ns, unit.id)
    ).fetchone()
    chash, pk = str(old_hash[0]), int(old_hash[1])
    secure = store.execute("PRAGMA secure_delete").fetchone()[0]
    store.execute("PRAGMA secure_delete = ON")
    try:
        with store.transaction() as conn:
            conn.execute(
                "UPDATE units SET content = ?, content_hash = ?, kind = ?, affect_json = ?, conflict_context = '', "
                "metadata_json = ?, invalid_at = ? WHERE pk = ?",
                (tomb.content, content_hash(tomb.content), tomb.kind, tomb.affect.model_dump_json(),
                 json.dumps(tomb.metadata, ensure_ascii=False), to_epoch(tomb.invalid_at),
                 pk),
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
                    (TOMBSTONE_TEXT, f"side {side} forgotten", to_epoch(tomb.invalid_at), ns, unit.id),
                )
            _scrub_quotes(conn, ns, pk, unit.id, unit.content)
            conn.execute("INSERT INTO units_fts (units_fts) VALUES ('optimize')")  # merge away the old tokens
    finally:
        store.execute(f"PRAGMA secure_delete = {int(secure)}")
    if store.path != ":memory:":
        store.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _scrub_quotes(conn: sqlite3.Connection, namespace: str, pk: int, uid: str, content: str) -> None:
    """Other units quote a conflicting memory in their affect (parties, reason) and conflict context: erase it.

    A reason that names the forgotten unit may paraphrase it (the clashing value), so it is replaced whole.
    """
    rows = conn.execute(
        "SELECT pk, affect_json, conflict_context FROM units WHERE namespace = ? AND pk != ? "
        "AND (instr(conflict_context, ?) > 0 OR instr(affect_json, ?) > 0 OR instr(affect_json, ?) > 0)",
        (namespace, pk, content, json.dumps(content, ensure_ascii=False)[1:-1], uid),
    ).fetchall()
    for other_pk, affect_json, context in rows:
        affect = Affect.model_validate_json(affect_json)
        cleaned = affect.model_copy(
            update={
                "conflict_parties": [p.replace(content, TOMBSTONE_TEXT) for p in affect.conflict_parties],
                "reason": f"conflicted with {uid}, since forgotten"
                if uid in affect.reason
                else affect.reason.replace(content, TOMBSTONE_TEXT),
            }
        )
        conn.execute(
            "UPDATE units SET affect_json = ?, conflict_context = ? WHERE pk = ?",
            (cleaned.model_dump_json(), context.replace(content, TOMBSTONE_TEXT), other_pk),
        )


def drop_forgotten(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Recall stage: tombstones are never recalled (they have no content to offer)."""
    keep = index.column("kind")[cands.rows] != TOMBSTONE_KIND
    if bool(np.all(keep)):
        return
    cands.rows = cands.rows[keep]
    cands.parts = {name: values[keep] for name, values in cands.parts.items()}
    cands.score = cands.score[keep]
