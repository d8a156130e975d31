"""Rows as both stores read and write them: a unit, conflict record or edge to and from its column values.

What a store is (`MemoryStore`) and the row types it hands out (`NamespaceRows`, `ChangedUnit`) are contracts of
memory (`psychoagent.memory.contracts`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from psychoagent.memory.contracts import NamespaceRows
from psychoagent.types import Affect, ConflictRecord, ConflictStatus, Edge, MemoryUnit, to_datetime, to_epoch

UNIT_FIELDS = (
    "pk, namespace, id, content, content_hash, kind, tier, affect_json, conflict_context, sources_json, "
    "metadata_json, created_at, valid_at, invalid_at, access_count, last_accessed_at"
)
"""Column order of a unit row as `row_to_unit` reads it."""

CONFLICT_FIELDS = (
    "namespace, id, kind, side_a, side_b, description_a, description_b, intensity, status, resolution, "
    "created_at, resolved_at, metadata_json"
)
"""Column order of a conflict row as `row_to_conflict` reads it."""


def _dt(value: float | None) -> datetime | None:
    return None if value is None else to_datetime(value)


def _json(value: Any) -> Any:
    """A stored JSON column; the empty list and object most units store are built without the parser."""
    if value == "[]":
        return []
    if value == "{}":
        return {}
    return json.loads(value) if isinstance(value, str | bytes) else value


_AFFECT_FIELDS = frozenset(Affect.model_fields)


def _affect(value: Any) -> Affect:
    """A stored affect; JSON with every field (as `Affect.model_dump_json` writes it) is built without validating
    again, older or partial JSON is validated (its labels fill the missing scores)."""
    data = _json(value)
    if isinstance(data, dict) and data.keys() == _AFFECT_FIELDS:
        return Affect.model_construct(**data)
    return Affect.model_validate(data)


def row_to_unit(row: Sequence[Any]) -> MemoryUnit:
    """A unit row (UNIT_FIELDS order) -> MemoryUnit."""
    (_, namespace, uid, content, _, kind, tier, affect_json, conflict_context, sources_json, metadata_json,
     created_at, valid_at, invalid_at, access_count, last_accessed_at) = tuple(row)  # fmt: skip
    created = _dt(created_at)
    if created is None:
        raise ValueError(f"unit {uid!r} has no created_at")
    # stored rows were validated when written: built without validating again (most of the cost of a read)
    return MemoryUnit.model_construct(
        id=uid,
        namespace=namespace,
        content=content,
        kind=kind,
        tier=tier,
        affect=_affect(affect_json),
        conflict_context=conflict_context,
        sources=_json(sources_json),
        metadata=_json(metadata_json),
        created_at=created,
        valid_at=_dt(valid_at),
        invalid_at=_dt(invalid_at),
        access_count=access_count,
        last_accessed_at=_dt(last_accessed_at),
    )


_NEUTRAL = Affect.neutral()
_NEUTRAL_VALUES = dict(_NEUTRAL.__dict__)
_NEUTRAL_JSON = _NEUTRAL.model_dump_json()


def affect_json(affect: Affect) -> str:
    """An affect as stored; the neutral one (every unit stored without an appraiser) is serialised once."""
    return _NEUTRAL_JSON if affect.__dict__ == _NEUTRAL_VALUES else affect.model_dump_json()


def unit_values(unit: MemoryUnit, chash: str) -> tuple[Any, ...]:
    """The insert values of a unit: namespace, id, content, hash, kind, tier, valence, arousal, conflict
    intensity, affect, conflict context, sources, metadata, created, valid, invalid, access count, last access."""
    return (
        unit.namespace, unit.id, unit.content, chash, unit.kind, unit.tier, unit.affect.valence,
        unit.affect.arousal, unit.affect.conflict_intensity, affect_json(unit.affect), unit.conflict_context,
        json.dumps(unit.sources, ensure_ascii=False) if unit.sources else "[]",
        json.dumps(unit.metadata, ensure_ascii=False, default=str) if unit.metadata else "{}",
        unit.created_at.timestamp(), to_epoch(unit.valid_at), to_epoch(unit.invalid_at), unit.access_count,
        to_epoch(unit.last_accessed_at),
    )  # fmt: skip


def unit_rows(
    pks: Iterable[int], units: Iterable[MemoryUnit], hashes: Iterable[str], stamp: int
) -> Iterator[tuple[Any, ...]]:
    """(pk, *`unit_values`, stamp) of each unit, one at a time, read from the units' field dicts: the same
    values for a batch with a quarter of the per-unit attribute lookups and calls."""
    dumps, neutral, neutral_json = json.dumps, _NEUTRAL_VALUES, _NEUTRAL_JSON
    for pk, unit, chash in zip(pks, units, hashes, strict=True):
        d = unit.__dict__
        affect = d["affect"]
        a = affect.__dict__
        sources, metadata = d["sources"], d["metadata"]
        valid, invalid, last = d["valid_at"], d["invalid_at"], d["last_accessed_at"]
        yield (
            pk, d["namespace"], d["id"], d["content"], chash, d["kind"], d["tier"], a["valence"], a["arousal"],
            a["conflict_intensity"], neutral_json if a == neutral else affect.model_dump_json(),
            d["conflict_context"], dumps(sources, ensure_ascii=False) if sources else "[]",
            dumps(metadata, ensure_ascii=False, default=str) if metadata else "{}", d["created_at"].timestamp(),
            None if valid is None else valid.timestamp(), None if invalid is None else invalid.timestamp(),
            d["access_count"], None if last is None else last.timestamp(), stamp,
        )  # fmt: skip


def update_values(unit: MemoryUnit) -> tuple[Any, ...]:
    """The mutable fields of a unit in the order both stores' UPDATE statements use, then namespace and id."""
    return (
        unit.kind, unit.tier, unit.affect.valence, unit.affect.arousal, unit.affect.conflict_intensity,
        unit.affect.model_dump_json(), unit.conflict_context, json.dumps(unit.sources, ensure_ascii=False),
        json.dumps(unit.metadata, ensure_ascii=False, default=str), to_epoch(unit.valid_at),
        to_epoch(unit.invalid_at), unit.access_count, to_epoch(unit.last_accessed_at), unit.namespace, unit.id,
    )  # fmt: skip


def conflict_values(r: ConflictRecord) -> tuple[Any, ...]:
    """A conflict record's values in CONFLICT_FIELDS order."""
    return (
        r.namespace, r.id, r.kind, r.side_a, r.side_b, r.description_a, r.description_b, r.intensity,
        r.status.value, r.resolution, r.created_at.timestamp(), to_epoch(r.resolved_at),
        json.dumps(r.metadata, ensure_ascii=False, default=str),
    )  # fmt: skip


def row_to_conflict(row: Sequence[Any]) -> ConflictRecord:
    """A conflict row (CONFLICT_FIELDS order) -> ConflictRecord."""
    ns, cid, kind, a, b, da, db, intensity, status, resolution, created, resolved, meta = tuple(row)
    return ConflictRecord(
        id=cid, namespace=ns, kind=kind, side_a=a, side_b=b, description_a=da, description_b=db,
        intensity=intensity, status=ConflictStatus(status), resolution=resolution, created_at=to_datetime(created),
        resolved_at=_dt(resolved), metadata=_json(meta),
    )  # fmt: skip


def edge_values(namespace: str, e: Edge) -> tuple[Any, ...]:
    return (namespace, e.src, e.dst, e.type, e.weight, e.created_at.timestamp(),
            json.dumps(e.metadata, ensure_ascii=False, default=str))  # fmt: skip


def row_to_edge(row: Sequence[Any]) -> Edge:
    s, d, t, w, c, m = tuple(row)
    return Edge(src=s, dst=d, type=t, weight=w, created_at=to_datetime(c), metadata=_json(m))


def scrub_quote(affect_json: str, context: str, uid: str, content: str, tombstone: str) -> tuple[str, str]:
    """Another unit's affect and conflict context with every quote of a forgotten unit erased.

    A reason that names the forgotten unit may paraphrase it (the clashing value), so it is replaced whole.
    """
    affect = Affect.model_validate_json(affect_json)
    cleaned = affect.model_copy(
        update={
            "conflict_parties": [p.replace(content, tombstone) for p in affect.conflict_parties],
            "reason": f"conflicted with {uid}, since forgotten"
            if uid in affect.reason
            else affect.reason.replace(content, tombstone),
        }
    )
    return cleaned.model_dump_json(), context.replace(content, tombstone)


def check_batch(units: Sequence[MemoryUnit], hashes: Sequence[str], vectors: np.ndarray) -> np.ndarray:
    """The batch's vectors as contiguous float32, after checking lengths and refusing NaN or inf."""
    if len(units) != len(hashes) or len(units) != len(vectors):
        raise ValueError("units, hashes and vectors must have the same length")
    vecs = np.ascontiguousarray(vectors, dtype=np.float32)
    if vecs.size and not np.isfinite(vecs).all():
        raise ValueError("refusing to store NaN or inf vectors")
    return vecs


def namespace_rows(rows: Sequence[Sequence[Any]]) -> NamespaceRows:
    """NamespaceRows from rows of (pk, id, hash, content, valence, arousal, conflict intensity, created, valid,
    invalid, access count, last access, tier, kind, vector bytes, segmented text)."""
    nan = float("nan")

    def col(i: int, dtype: Any, nullable: bool = False) -> np.ndarray:
        return np.array([nan if nullable and r[i] is None else r[i] for r in rows], dtype=dtype)

    columns: dict[str, np.ndarray] = {
        "valence": col(4, np.float32), "arousal": col(5, np.float32), "conflict_intensity": col(6, np.float32),
        "created_at": col(7, np.float64), "valid_at": col(8, np.float64, True),
        "invalid_at": col(9, np.float64, True), "access_count": col(10, np.float32),
        "last_accessed_at": col(11, np.float64, True), "tier": col(12, object), "kind": col(13, object),
    }  # fmt: skip
    return NamespaceRows(
        pks=np.array([r[0] for r in rows], dtype=np.int64),
        ids=[r[1] for r in rows],
        content_hashes=[r[2] for r in rows],
        contents=[r[3] for r in rows],
        columns=columns,
        vectors=[None if r[14] is None else bytes(r[14]) for r in rows],
        segmented=[r[15] or "" for r in rows],
    )
