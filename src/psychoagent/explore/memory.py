"""The memory browser's reads over one memory file (through the service's `MemoryHub`, which serialises access):
namespaces, recall hits with their score parts, units as they stood at a time, conflicts and a unit's
neighbourhood in the provenance graph. The memory stack is imported on opening a file: exploring a run does
not load it."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from psychoagent.types import MemoryUnit, to_datetime

if TYPE_CHECKING:
    from psychoagent.service.hub import MemoryHub

GRAPH_EDGES = ("supersedes", "contradicts", "derived_from")
"""The edge types drawn in a unit's neighbourhood (`about`/`related` lead to entity nodes, not memories)."""
TEXT = 240
"""Characters of a unit's text shown in lists and graph labels."""


def open_store(path: str | Path, embedder: str) -> MemoryBrowser:
    """Open an existing memory file; ValueError with one line when it is missing or not a memory store."""
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"{file} is not a file")
    with file.open("rb") as fh:
        if fh.read(16) != b"SQLite format 3\x00":
            raise ValueError(f"{file} is not a memory store (not an SQLite file)")
    try:
        with sqlite3.connect(f"file:{file}?mode=ro", uri=True) as con:
            tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{file} is not a memory store ({exc})") from exc
    if "units" not in tables:
        raise ValueError(f"{file} is not a memory store (no units table)")
    from psychoagent.service.hub import MemoryHub

    return MemoryBrowser(MemoryHub.open(file, embedder=embedder), str(file))


def _unit(u: MemoryUnit) -> dict[str, Any]:
    return {"id": u.id, "text": u.content[:TEXT], "kind": u.kind, "tier": u.tier,
            "valence": u.affect.valence, "arousal": u.affect.arousal, "conflict": u.affect.conflict_intensity,
            "created_at": u.created_at.isoformat(), "invalid_at": u.invalid_at.isoformat() if u.invalid_at else None,
            "conflict_context": u.conflict_context}  # fmt: skip


def _valid_at(u: MemoryUnit, at: datetime) -> bool:
    """Observed by `at` and not yet invalid then."""
    return u.created_at <= at and (u.invalid_at is None or u.invalid_at > at)


class MemoryBrowser:
    """Read-only views of a memory file for the explorer."""

    def __init__(self, hub: MemoryHub, path: str) -> None:
        self.hub = hub
        self.path = path

    def close(self) -> None:
        self.hub.close()

    def namespaces(self) -> list[dict[str, Any]]:
        """Every namespace with its number of units."""
        with self.hub.lock:
            names = self.hub.memory.namespaces() or ["default"]
        out = []
        for name in names:
            with self.hub.view(name) as mem:
                out.append({"name": name, "units": len(mem)})
        return out

    def search(self, namespace: str, query: str, k: int, at: datetime | None) -> list[dict[str, Any]]:
        """Recall hits, best first, each with its total score and every named part of it."""
        from psychoagent.service.models import RecallRequest

        hits = self.hub.recall(namespace, RecallRequest(query=query, k=k, at=at))
        return [{**_unit(h.unit), "score": h.score, "parts": h.parts} for h in hits]

    def units(self, namespace: str, at: datetime | None, offset: int, limit: int) -> dict[str, Any]:
        """Units in insertion order; with `at`, only those valid at that time (the state then)."""
        with self.hub.view(namespace) as mem:
            units = mem.units()
        when = to_datetime(at) if at is not None else None
        if when is not None:
            units = [u for u in units if _valid_at(u, when)]
        return {"total": len(units), "units": [_unit(u) for u in units[offset : offset + limit]]}

    def conflicts(self, namespace: str) -> list[dict[str, Any]]:
        """Conflict records, oldest first, with both sides' texts and which side is current."""
        records = self.hub.conflicts(namespace)
        with self.hub.view(namespace) as mem:
            out = []
            for c in records:
                a, b = mem.get(c.side_a), mem.get(c.side_b)
                current = (
                    "b"
                    if a is not None and a.invalid_at is not None
                    else "a"
                    if b and b.invalid_at
                    else "both"
                )
                out.append({"id": c.id, "kind": c.kind, "status": str(c.status.value), "intensity": c.intensity,
                            "a": {"id": c.side_a, "text": (a.content if a else c.description_a)[:TEXT],
                                  "created_at": a.created_at.isoformat() if a else None},
                            "b": {"id": c.side_b, "text": (b.content if b else c.description_b)[:TEXT],
                                  "created_at": b.created_at.isoformat() if b else None},
                            "current": current, "resolution": c.resolution,
                            "created_at": c.created_at.isoformat()})  # fmt: skip
        return out

    def graph(self, namespace: str, unit_id: str, depth: int, limit: int) -> dict[str, Any]:
        """The unit and its neighbours within `depth` hops along supersedes, contradicts and derived_from."""
        from psychoagent.service.hub import NotFound

        with self.hub.view(namespace) as mem:
            if mem.get(unit_id) is None:
                raise NotFound(f"field 'unit_id': no unit {unit_id!r} in namespace {namespace!r}", "unit_id")
            hops = mem.neighbours(unit_id, depth=depth, types=list(GRAPH_EDGES))
            hops[unit_id] = 0
            chosen = dict(sorted(hops.items(), key=lambda p: (p[1], p[0]))[:limit])
            found = {u.id: u for u in mem.get_many(list(chosen))}
            edges = {(e.src, e.dst, e.type) for node in chosen for e in mem.edges(node)
                     if e.type in GRAPH_EDGES and e.src in chosen and e.dst in chosen}  # fmt: skip
        nodes = [{**(_unit(found[n]) if n in found else {"id": n, "text": n, "kind": "node"}), "hops": h}
                 for n, h in chosen.items()]  # fmt: skip
        return {"center": unit_id, "nodes": nodes,
                "edges": [{"src": s, "dst": d, "type": t} for s, d, t in sorted(edges)]}  # fmt: skip
