"""The `MemoryStore` protocol every backend implements, and the row types and conversions they share.

A store holds units, their vectors (keyed by embedding model and content hash), keyword rows, edges and conflict
records of every namespace, migrates its own schema, and stamps each write transaction with a change counter so
an open `Memory` can fetch only what other processes wrote since it last looked.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np

from psychoagent.memory.filters import Condition
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


@dataclass
class NamespaceRows:
    """Columns of every unit of one namespace, as loaded for the in-memory index."""

    pks: np.ndarray
    ids: list[str]
    content_hashes: list[str]
    contents: list[str]
    columns: dict[str, np.ndarray]
    vectors: list[bytes | None]
    segmented: list[str]


@dataclass
class ChangedUnit:
    """A unit another connection added or changed: its pk, the unit, its vector for the asked model (or None)
    and its keyword-index text."""

    pk: int
    unit: MemoryUnit
    vector: bytes | None
    segmented: str


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


class ChangeCounter:
    """Change detection both stores share: which value of the store's change counter this connection's caller
    has reflected, compared with the counter in one read (`_counter`, the store's)."""

    _lock: Any
    _seen: int

    def _counter(self) -> int:
        raise NotImplementedError

    def _in_transaction(self) -> bool:
        """Whether the caller has a transaction open: its own uncommitted rows are not another's changes."""
        return False

    def poll_changes(self) -> tuple[int, int] | None:
        """(last seen, now) when another connection changed units since the last look; one indexed read. Inside
        the caller's own transaction it answers None: the counter there already counts the caller's own writes,
        which its indexes hold, and what others committed before it began is caught up after the commit."""
        if self._in_transaction():
            return None
        now = self._counter()
        with self._lock:
            return None if now == self._seen else (self._seen, now)

    def mark_seen(self, upto: int) -> None:
        with self._lock:
            self._seen = max(self._seen, upto)

    def _committed(self, stamp: int | None) -> None:
        """After committing a transaction stamped `stamp`: if nobody else wrote in between, this connection's own
        writes are already reflected (they went into the in-memory indexes as they were made)."""
        if stamp is not None:
            with self._lock:
                if stamp == self._seen + 1:
                    self._seen = stamp


@runtime_checkable
class MemoryStore(Protocol):
    """Persistence behind `Memory`: units, vectors, keyword rows, edges and conflict records, by namespace."""

    path: str
    """Where the store lives (a file, ``:memory:`` or a database URL without its password)."""

    @property
    def schema_version(self) -> int: ...

    def transaction(self) -> AbstractContextManager[Any]:
        """All writes inside commit together or not at all; nested blocks join the outermost one."""
        ...

    # -- meta and change detection
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def poll_changes(self) -> tuple[int, int] | None:
        """(last seen, now) of the change counter when another connection wrote since the last look, else None."""
        ...

    def changes(self, since: int, upto: int, model: str, namespaces: Sequence[str]) -> list[ChangedUnit]:
        """Units of `namespaces` written in change counter interval (since, upto], in pk order."""
        ...

    def mark_seen(self, upto: int) -> None:
        """Everything up to this counter value is reflected in the caller's in-memory state."""
        ...

    # -- units
    def add_units(
        self,
        units: Sequence[MemoryUnit],
        hashes: Sequence[str],
        model: str,
        vectors: np.ndarray,
        segmented: Sequence[str] | None = None,
    ) -> list[int]: ...
    def update_unit(self, unit: MemoryUnit) -> None: ...
    def record_access(self, namespace: str, ids: Sequence[str], when: float, times: int = 1) -> None:
        """Count `times` accesses for each of the (distinct) ids, the last at `when`."""
        ...

    def get_units(self, namespace: str, ids: Sequence[str]) -> list[MemoryUnit]: ...
    def iter_units(self, namespace: str, kind: str | None = None) -> Iterator[MemoryUnit]: ...
    def count(self, namespace: str | None = None) -> int: ...
    def namespaces(self) -> list[str]: ...
    def load_namespace(self, namespace: str, model: str) -> NamespaceRows: ...
    def erase_unit(self, namespace: str, unit_id: str, tomb: MemoryUnit, content: str) -> None:
        """Forget: rewrite the row as `tomb`, drop its keyword row and unshared vector, scrub quotes of
        `content` from other units and conflict records (marked resolved)."""
        ...

    # -- vectors and search
    def get_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]: ...
    def put_vectors(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None: ...
    def metadata_pks(self, namespace: str, conditions: Sequence[Condition]) -> set[int]: ...
    def search_vectors(
        self, namespace: str, model: str, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]: ...
    def search_keywords(self, namespace: str, terms: Sequence[str], k: int) -> list[tuple[str, float]]: ...

    # -- graph and conflict records
    def add_edges(self, namespace: str, edges: Sequence[Edge]) -> None: ...
    def edges(self, namespace: str, node: str | None = None) -> list[Edge]: ...
    def add_conflicts(self, records: Sequence[ConflictRecord]) -> None: ...
    def conflicts(
        self, namespace: str, ids: Sequence[str] | None = None, status: str | None = None
    ) -> list[ConflictRecord]: ...
    def resolve_conflict(
        self, namespace: str, conflict_id: str, resolution: str, when: datetime
    ) -> ConflictRecord: ...

    def close(self) -> None: ...
