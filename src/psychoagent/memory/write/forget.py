"""Forgetting for privacy: erase a unit's content, keyword row and vector, keeping a tombstone in the graph.

The tombstone keeps the unit's id, kind, times and edges, so provenance and supersession chains stay whole, but
its content, metadata, affect reason and conflict context are replaced and it never comes back from recall.
Conflict records that quoted it lose that side's text and are marked resolved. The store does the erasing
(`MemoryStore.erase_unit`); SQLite also overwrites the freed pages so the text does not linger on disk.
"""

from __future__ import annotations

from psychoagent.memory.contracts import TOMBSTONE_KIND, TOMBSTONE_TEXT, is_tombstone
from psychoagent.memory.inputs import NotFound
from psychoagent.memory.state.namespace import Namespace
from psychoagent.types import MemoryUnit, utcnow


def forget(ns: Namespace, id: str, *, reason: str = "") -> MemoryUnit:
    """Erase unit `id` of the namespace and return its tombstone (forgetting twice changes nothing).

    Raises KeyError when the namespace has no such unit.
    """
    if not isinstance(id, str) or not id:
        raise ValueError("id must be a non-empty string")
    unit = ns.get(id)
    if unit is None:
        raise NotFound("id", f"no unit {id!r} in namespace {ns.name!r}")
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
    ns.store.erase_unit(ns.name, unit.id, tomb, unit.content)
    ns.forgotten(unit.id)  # the in-process index and slot state still hold the text
    return tomb
