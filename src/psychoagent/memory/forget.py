"""Forgetting for privacy: erase a unit's content, keyword row and vector, keeping a tombstone in the graph.

The tombstone keeps the unit's id, kind, times and edges, so provenance and supersession chains stay whole, but
its content, metadata, affect reason and conflict context are replaced and it never comes back from recall.
Conflict records that quoted it lose that side's text and are marked resolved. The store does the erasing
(`MemoryStore.erase_unit`); SQLite also overwrites the freed pages so the text does not linger on disk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from psychoagent.memory.config import RecallConfig
from psychoagent.memory.index import NamespaceIndex
from psychoagent.types import MemoryUnit, utcnow

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
    memory.store.erase_unit(memory.namespace, unit.id, tomb, unit.content)
    memory._drop_caches()  # the in-process index and slot state still hold the text: reload them from the file
    return tomb


def drop_forgotten(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Recall stage: tombstones are never recalled (they have no content to offer)."""
    keep = index.column("kind")[cands.rows] != TOMBSTONE_KIND
    if bool(np.all(keep)):
        return
    cands.rows = cands.rows[keep]
    cands.parts = {name: values[keep] for name, values in cands.parts.items()}
    cands.score = cands.score[keep]
