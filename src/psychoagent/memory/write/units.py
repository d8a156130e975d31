"""Units from `observe` arguments: appraised (if the namespace has an appraiser), with a deterministic id.

Units the library builds itself skip pydantic validation (the arguments were checked at the API boundary,
`memory.arguments`); a batch of bare texts without an appraiser is built in columns.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from psychoagent.memory.inputs import check_finite
from psychoagent.memory.state.namespace import Namespace
from psychoagent.types import Affect, MemoryUnit, to_datetime, utcnow

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
    ns: Namespace, text: str, args: Mapping[str, Any] = _NO_ARGS, vector: np.ndarray | None = None
) -> MemoryUnit:
    """A unit from `text` and its checked `observe` arguments (goals, timestamp, sources, metadata, id, kind,
    affect): appraised (if an appraiser is set), with a deterministic id."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("text must be a non-empty string")
    goals: Sequence[str] = args.get("goals", ())
    affect: Affect | None = args.get("affect")
    created = to_datetime(args.get("timestamp")) or utcnow()
    if affect is None and ns.appraiser is not None:
        if vector is None and ns.takes_vectors():
            vector = ns.embed_documents([text])[1][0]
        # The appraiser learns which embedder this memory has, so it never embeds with another model itself.
        context = {"embedder": ns.embedder.name, "vector": vector}
        affect = ns.appraiser.appraise(text, goals, context)
    elif affect is None:
        affect = neutral_affect()
    metadata = args.get("metadata")
    meta = dict(metadata) if metadata else {}
    if meta:
        check_finite(meta, "metadata")
    if goals:
        meta.setdefault("goals", list(goals))
    uid = args.get("id")
    values = {
        "id": uid if uid is not None else ns.shared.new_id(ns.name, text, created),
        "namespace": ns.name,
        "content": text,
        "kind": args.get("kind", "episodic"),
        "affect": affect,
        "conflict_context": " vs ".join(affect.conflict_parties) if affect.conflict_intensity else "",
        "sources": list(args.get("sources", ())),
        "created_at": created,
        "valid_at": created,
        "invalid_at": None,
        "tier": "long_term",
        "access_count": 0,
        "last_accessed_at": None,
        "metadata": meta,
    }
    return _trusted(MemoryUnit, values, _UNIT_FIELDS)


def appraise(ns: Namespace, event: Any, goals: Sequence[str] = (), context: Any = None) -> Affect:
    """The namespace appraiser's affect of an event (neutral without one); without a context the appraiser is told
    this memory's embedder (and given its vector when it takes them)."""
    if ns.appraiser is None:
        return Affect.neutral()
    if context is None:
        takes = isinstance(event, str) and event.strip() and ns.takes_vectors()
        context = {
            "embedder": ns.embedder.name,
            "vector": ns.embed_documents([event])[1][0] if takes else None,
        }
    return ns.appraiser.appraise(event, goals, context)


def build_units(
    ns: Namespace, batch: Sequence[tuple[str, Mapping[str, Any]]], vectors: Sequence[Any]
) -> list[MemoryUnit]:
    """`build_unit` of each (text, arguments) item; a batch of bare texts in a memory without an appraiser is
    built in columns, to the same units (a test compares them)."""
    if ns.appraiser is not None or any(kw for _, kw in batch):
        return [build_unit(ns, t, kw, v) for (t, kw), v in zip(batch, vectors, strict=True)]
    with collector_paused():
        return _bare_units(ns, [t for t, _ in batch])


def _bare_units(ns: Namespace, texts: list[str]) -> list[MemoryUnit]:
    """`build_unit` of each bare text, with `_trusted` inlined: the loop runs once per unit of every batch."""
    namespace = ns.name
    created = [utcnow() for _ in texts]
    ids = ns.shared.new_ids(namespace, texts, created)
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
