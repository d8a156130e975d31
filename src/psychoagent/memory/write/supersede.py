"""Supersession stated by the caller: an older unit is no longer valid from the time of a newer one, both kept and
linked by a `supersedes` edge (conflict detection finds updates itself; this is the explicit form)."""

from __future__ import annotations

from datetime import datetime

from psychoagent.memory.inputs import NotFound
from psychoagent.memory.state.namespace import Namespace
from psychoagent.memory.write.observe import observe
from psychoagent.types import Edge, MemoryUnit


def supersede(
    ns: Namespace, old_id: str, new: str | MemoryUnit, timestamp: datetime | str | float | None, reason: str
) -> MemoryUnit:
    """Mark `old_id` as superseded by `new` (a text to observe, an existing unit id, or a unit) from the new unit's
    time; returns the new unit. Raises KeyError when the namespace has no unit `old_id`."""
    old = ns.get(old_id)
    if old is None:
        raise NotFound("old_id", f"no unit {old_id!r} in namespace {ns.name!r}")
    if isinstance(new, MemoryUnit):
        new_unit = new
    else:
        existing = ns.get(new)
        with ns.detection_off():  # the caller states the supersession; no second detection
            new_unit = existing if existing is not None else observe(ns, new, {"timestamp": timestamp})
    when = new_unit.valid_at or new_unit.created_at
    old.invalid_at = when
    if reason:
        old.metadata["superseded_reason"] = reason
    old.metadata["superseded_by"] = new_unit.id
    ns.update(old)
    state = ns.affect()
    state.superseded.add(old.id)
    state.successor[old.id] = new_unit.id
    ns.add_edges([Edge(src=new_unit.id, dst=old.id, type="supersedes", created_at=when)])
    return new_unit
