"""Export and import a memory file as JSONL: units, edges and conflict records, every field kept.

One JSON object per line, `{"type": "unit" | "edge" | "conflict", "namespace": NS, "data": {...}}`. Units come
first, then edges, then conflicts, so an import can write them in that order. Vectors are not exported: they are
recomputed from the content by whichever embedder the importing memory uses.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from psychoagent.memory.conflicts.records import ConflictLog
from psychoagent.types import ConflictRecord, Edge, MemoryUnit

if TYPE_CHECKING:
    from psychoagent.memory.api import Memory


class ExportLine(BaseModel):
    """One line of an export file."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["unit", "edge", "conflict"]
    namespace: str = Field(..., min_length=1)
    data: dict[str, Any]


class ExportFormatError(ValueError):
    """A malformed export line; the message names the line number and the field."""


def export_lines(memory: Memory, namespaces: Iterable[str] | None = None) -> Iterator[str]:
    """JSONL lines (no newline) for the given namespaces (default: every namespace of the file)."""
    names = list(namespaces) if namespaces is not None else memory.namespaces()
    views = [memory.for_namespace(ns) for ns in names]
    for view in views:
        for unit in view.units():
            yield _line("unit", view.namespace, unit)
    for view in views:
        for edge in view.edges():
            yield _line("edge", view.namespace, edge)
    for view in views:
        for record in view.conflicts():
            yield _line("conflict", view.namespace, record)


def _line(kind: str, namespace: str, item: BaseModel) -> str:
    return json.dumps(
        {"type": kind, "namespace": namespace, "data": item.model_dump(mode="json")},
        ensure_ascii=False,
        allow_nan=False,
    )


def parse_lines(
    lines: Iterable[str],
) -> tuple[list[MemoryUnit], list[tuple[str, Edge]], list[ConflictRecord]]:
    """Validate every line first (raises ExportFormatError naming line and field): nothing is written on bad input."""
    units: list[MemoryUnit] = []
    edges: list[tuple[str, Edge]] = []
    conflicts: list[ConflictRecord] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            line = ExportLine.model_validate_json(raw)
            if line.type == "unit":
                unit = MemoryUnit.model_validate(line.data)
                if unit.namespace != line.namespace:
                    raise ExportFormatError(f"line {number}: field 'data.namespace' differs from 'namespace'")
                units.append(unit)
            elif line.type == "edge":
                edges.append((line.namespace, Edge.model_validate(line.data)))
            else:
                record = ConflictRecord.model_validate(line.data)
                if record.namespace != line.namespace:
                    raise ExportFormatError(f"line {number}: field 'data.namespace' differs from 'namespace'")
                conflicts.append(record)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "(line)"
            if err["type"] == "json_invalid":
                raise ExportFormatError(f"line {number}: not valid JSON ({err['msg']})") from exc
            raise ExportFormatError(f"line {number}: field {where!r}: {err['msg']}") from exc
    return units, edges, conflicts


def import_lines(memory: Memory, lines: Iterable[str]) -> dict[str, int]:
    """Write an export into `memory` (ids kept, no conflict detection: the records travel with the file).

    All lines are validated before the first write, and everything is written in one transaction, so a bad
    line or a clashing id leaves the file as it was. Returns counts per record type.
    """
    units, edges, conflicts = parse_lines(lines)
    by_ns: dict[str, list[MemoryUnit]] = {}
    for unit in units:
        by_ns.setdefault(unit.namespace, []).append(unit)
    edges_by_ns: dict[str, list[Edge]] = {}
    for ns, edge in edges:
        edges_by_ns.setdefault(ns, []).append(edge)
    views = {ns: memory.for_namespace(ns) for ns in {*by_ns, *edges_by_ns}}
    try:
        with memory.store.transaction():
            for ns, items in by_ns.items():
                with views[ns]._ns.detection_off():
                    views[ns].add_units(items)
            for ns, edge_list in edges_by_ns.items():
                views[ns].add_edges(edge_list)
            ConflictLog(memory.store).add(conflicts)
    except BaseException:
        for view in views.values():
            view._drop_caches()
        raise
    return {"units": len(units), "edges": len(edges), "conflicts": len(conflicts)}
