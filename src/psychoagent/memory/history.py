"""The history of one fact: every version linked to a unit by `supersedes` edges, with its edges and conflicts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from psychoagent.memory.inputs import NotFound, check_ref
from psychoagent.types import ConflictRecord, Edge, MemoryUnit

if TYPE_CHECKING:
    from psychoagent.memory.api import Memory

MAX_VERSIONS = 1000
"""A supersession chain longer than this is cut (a fact revised a thousand times is a log, not a history)."""


class History(BaseModel):
    """A unit's versions oldest first (the last one current unless the whole chain was superseded or forgotten)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(..., description="the unit asked about")
    versions: list[MemoryUnit] = Field(
        default_factory=list, description="the supersession chain, oldest first"
    )
    edges: list[Edge] = Field(default_factory=list, description="every edge touching a version")
    conflicts: list[ConflictRecord] = Field(
        default_factory=list, description="conflict records of any version"
    )


def history(memory: Memory, id: str) -> History:
    """Walk `supersedes` edges both ways from `id`; raises KeyError when the namespace has no such unit."""
    check_ref("id", id)
    if memory.get(id) is None:
        raise NotFound("id", f"no unit {id!r} in namespace {memory.namespace!r}")
    seen: dict[str, None] = {id: None}
    todo = [id]
    edges: dict[tuple[str, str, str], Edge] = {}
    while todo and len(seen) < MAX_VERSIONS:
        node = todo.pop()
        for edge in memory.edges(node):
            edges[(edge.src, edge.dst, edge.type)] = edge
            if edge.type != "supersedes":
                continue
            other = edge.dst if edge.src == node else edge.src
            if other not in seen:
                seen[other] = None
                todo.append(other)
    units = memory.get_many(list(seen))
    units.sort(key=lambda u: ((u.valid_at or u.created_at).timestamp(), u.created_at.timestamp()))
    ids = [u.id for u in units]
    return History(
        id=id,
        versions=units,
        edges=sorted(edges.values(), key=lambda e: (e.created_at.timestamp(), e.src, e.dst, e.type)),
        conflicts=memory.conflicts(ids=ids),
    )
