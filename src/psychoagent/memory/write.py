"""The write path of `Memory`: observe arguments -> units -> one store transaction -> the in-memory index.

A batch is handled in columns: its texts are embedded in one call; units the library builds itself skip pydantic
validation (the arguments were checked at the API boundary, `memory.arguments`); the store writes each table with
one executemany; the index takes the batch as columns and builds its keyword postings and conversation facts on
the next read that needs them.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from pydantic import BaseModel

from psychoagent.memory import affective
from psychoagent.memory.inputs import check_finite
from psychoagent.text import tokens
from psychoagent.types import Affect, Edge, MemoryUnit, to_datetime, utcnow

if TYPE_CHECKING:
    from psychoagent.memory.core import Memory

_set = object.__setattr__
_NO_ARGS: Mapping[str, Any] = MappingProxyType({})
"""The `observe` arguments of a bare text: none (shared, read-only)."""
_Model = TypeVar("_Model", bound=BaseModel)
_NEUTRAL = Affect.neutral()
_NEUTRAL_FIELDS = frozenset(_NEUTRAL.model_fields_set)
_UNIT_FIELDS = frozenset(
    ("id", "namespace", "content", "kind", "affect", "conflict_context", "sources", "created_at", "valid_at",
     "metadata")
)  # fmt: skip
"""The fields a built unit sets (the rest keep their defaults), as `MemoryUnit(...)` with them records."""


def _trusted(cls: type[_Model], values: dict[str, Any], fields: frozenset[str]) -> _Model:
    """A pydantic model from values the library made itself, without validation (what `model_construct` does,
    minus its per-field default handling: every field is given)."""
    obj = cls.__new__(cls)
    _set(obj, "__dict__", values)
    _set(obj, "__pydantic_fields_set__", set(fields))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a batch's units, tokens and rows are made and stored, then
    restore it: those objects all live until the batch is stored, so collections meanwhile only walk them again
    (12-15% of a store-only batch's time). Appraisal and conflict detection run with the collector on: pausing
    it around them made writes 20% slower (docs/benchmarks.md). A collector someone else paused stays paused."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def neutral_affect() -> Affect:
    """`Affect.neutral()` (its own list of parties) without re-running its validators."""
    values = dict(_NEUTRAL.__dict__)
    values["conflict_parties"] = []
    return _trusted(Affect, values, _NEUTRAL_FIELDS)


def build_unit(
    memory: Memory,
    text: str,
    *,
    goals: Sequence[str] = (),
    timestamp: datetime | str | float | None = None,
    sources: Sequence[str] = (),
    metadata: Mapping[str, Any] | None = None,
    id: str | None = None,
    kind: str = "episodic",
    affect: Affect | None = None,
    vector: np.ndarray | None = None,
) -> MemoryUnit:
    """A unit from checked `observe` arguments: appraised (if an appraiser is set), with a deterministic id."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("text must be a non-empty string")
    created = to_datetime(timestamp) or utcnow()
    if affect is None and memory.appraiser is not None:
        if vector is None and takes_vectors(memory):
            vector = memory.embed_documents([text])[1][0]
        # The appraiser learns which embedder this memory has, so it never embeds with another model itself.
        context = {"embedder": memory.embedder.name, "vector": vector}
        affect = memory.appraiser.appraise(text, goals, context)
    elif affect is None:
        affect = neutral_affect()
    meta = dict(metadata) if metadata else {}
    if meta:
        check_finite(meta, "metadata")
    if goals:
        meta.setdefault("goals", list(goals))
    values = {
        "id": id if id is not None else memory._shared.new_id(memory.namespace, text, created),
        "namespace": memory.namespace,
        "content": text,
        "kind": kind,
        "affect": affect,
        "conflict_context": " vs ".join(affect.conflict_parties) if affect.conflict_intensity else "",
        "sources": list(sources),
        "created_at": created,
        "valid_at": created,
        "invalid_at": None,
        "tier": "long_term",
        "access_count": 0,
        "last_accessed_at": None,
        "metadata": meta,
    }
    return _trusted(MemoryUnit, values, _UNIT_FIELDS)


def takes_vectors(memory: Memory) -> bool:
    """True when the appraiser can use this memory's passage vectors (computed and cached here anyway)."""
    return getattr(memory.appraiser, "vector_embedder", None) == memory.embedder.name


def observe_batch(memory: Memory, items: Iterable[str | Mapping[str, Any]]) -> list[MemoryUnit]:
    """Build and store checked `observe_many` items (texts or dicts of `observe` arguments) in one transaction."""
    batch: list[tuple[str, Mapping[str, Any]]] = []
    for item in items:
        if isinstance(item, str):
            batch.append((item, _NO_ARGS))
        else:
            kwargs = dict(item)
            text = kwargs.pop("text", None)
            if text is None:
                raise ValueError("each item needs a 'text'")
            batch.append((text, kwargs))
    vectors: list[Any] = [None] * len(batch)
    if memory.appraiser is not None and takes_vectors(memory):
        todo = [
            i
            for i, (t, kw) in enumerate(batch)
            if kw.get("affect") is None and isinstance(t, str) and t.strip()
        ]
        if todo:  # one batched embedding for appraisal; store_units then finds the vectors cached
            matrix = memory.embed_documents([batch[i][0] for i in todo])[1]
            for row, i in enumerate(todo):
                vectors[i] = matrix[row]
    return store_units(memory, build_units(memory, batch, vectors))


def build_units(
    memory: Memory, batch: Sequence[tuple[str, Mapping[str, Any]]], vectors: Sequence[Any]
) -> list[MemoryUnit]:
    """`build_unit` of each (text, arguments) item; a batch of bare texts in a memory without an appraiser is
    built in columns, to the same units (a test compares them)."""
    if memory.appraiser is not None or any(kw for _, kw in batch):
        return [build_unit(memory, t, vector=v, **kw) for (t, kw), v in zip(batch, vectors, strict=True)]
    with collector_paused():
        return _bare_units(memory, [t for t, _ in batch])


def _bare_units(memory: Memory, texts: list[str]) -> list[MemoryUnit]:
    """`build_unit` of each bare text, with `_trusted` inlined: the loop runs once per unit of every batch."""
    namespace = memory.namespace
    created = [utcnow() for _ in texts]
    ids = memory._shared.new_ids(namespace, texts, created)
    neutral = _NEUTRAL.__dict__
    new_unit, new_affect = MemoryUnit.__new__, Affect.__new__
    unit_fields, affect_fields = _UNIT_FIELDS, _NEUTRAL_FIELDS
    units: list[MemoryUnit] = []
    append = units.append
    for uid, text, when in zip(ids, texts, created, strict=True):
        affect = new_affect(Affect)
        _set(affect, "__dict__", {**neutral, "conflict_parties": []})
        _set(affect, "__pydantic_fields_set__", set(affect_fields))
        _set(affect, "__pydantic_extra__", None)
        _set(affect, "__pydantic_private__", None)
        unit = new_unit(MemoryUnit)
        _set(unit, "__dict__", {
            "id": uid, "namespace": namespace, "content": text, "kind": "episodic", "affect": affect,
            "conflict_context": "", "sources": [], "created_at": when, "valid_at": when, "invalid_at": None,
            "tier": "long_term", "access_count": 0, "last_accessed_at": None, "metadata": {},
        })  # fmt: skip
        _set(unit, "__pydantic_fields_set__", set(unit_fields))
        _set(unit, "__pydantic_extra__", None)
        _set(unit, "__pydantic_private__", None)
        append(unit)
    return units


def store_units(memory: Memory, units: Sequence[MemoryUnit]) -> list[MemoryUnit]:
    """Store built units in one transaction (all or nothing) and index them."""
    if not units:
        return []
    namespace = memory.namespace
    ids = [u.id for u in units]
    for unit in units:
        if unit.namespace != namespace:
            raise ValueError(f"unit {unit.id!r} belongs to {unit.namespace!r}, not {namespace!r}")
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate ids within one batch")
    index = memory._index()
    hashes, vectors = memory.embed_documents([u.content for u in units])
    plan = affective.before_store(memory, units, vectors, index)
    with collector_paused():  # tokens hold no whitespace: joined and split again they are the same
        words = [tokens(u.content) for u in units]
        segmented = [" ".join(w) for w in words]
    edges = [
        Edge(src=u.id, dst=s, type="derived_from", created_at=u.created_at) for u in units for s in u.sources
    ]
    try:
        # Units, keyword rows, vectors, provenance edges and conflict records commit together or not at all.
        with collector_paused(), memory.store.transaction():
            pks = memory.store.add_units(units, hashes, memory.embedder.name, vectors, segmented)
            index.append(pks, units, vectors, words)
            if edges:
                memory.add_edges(edges)
            affective.after_store(memory, units, plan)
    except BaseException:
        drop_caches(memory)
        raise
    return list(units)


def drop_caches(memory: Memory) -> None:
    """Forget a namespace's in-process index, graph and affect state; they reload from the file."""
    shared = memory._shared
    for cache in (shared.indexes, shared.graphs, shared.affect):
        cache.pop(memory.namespace, None)
