"""Argument checks of the public `Memory` methods, run at each method's entry before anything is read or written.

Each check raises `InvalidArgument` (a ValueError) or `InvalidArgumentType` (also a TypeError) naming the argument
and the allowed values, so a mistake never ends in an internal exception deep in the store, and never stores
garbage (a string where a list belongs, a bool as a timestamp, an empty id).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, get_args

import numpy as np

from psychoagent.memory.filters import NUMERIC_FIELDS, TIME_FIELDS, FilterError, parse_where
from psychoagent.memory.inputs import (
    InvalidArgument,
    InvalidArgumentType,
    check_choice,
    check_instance,
    check_int,
    check_json,
    check_kind,
    check_list_of,
    check_metadata,
    check_name,
    check_number,
    check_ref,
    check_text,
    check_time,
)
from psychoagent.memory.limits import LIMITS
from psychoagent.memory.recall.modulate import POLICIES
from psychoagent.memory.state.namespace import Namespace
from psychoagent.types import Affect, ConflictStatus, EdgeType, MemoryUnit


class InvalidFilter(InvalidArgument, FilterError):
    """A bad `where` filter (also a FilterError, as parse errors of filters always were)."""


class InvalidFilterType(InvalidFilter, InvalidArgumentType):
    """A `where` that is neither a dict nor a string."""


OBSERVE_FIELDS = ("text", "goals", "timestamp", "sources", "metadata", "id", "kind", "affect")
"""Keys an `observe_many` item may have (the keyword arguments of `observe`)."""

_SCALARS = (str, int, float, type(None))
_LOOKUP_CHUNK = 500


def check_observe(
    ns: Namespace | None, text: Any, goals: Any = (), timestamp: Any = None, sources: Any = (),
    metadata: Any = None, id: Any = None, kind: Any = "episodic", affect: Any = None, *, where: str = "",
) -> None:  # fmt: skip
    """The arguments of one `observe`; with a namespace, an id it already stores is refused too."""
    check_text(f"{where}text", text, max_chars=LIMITS.max_text_chars)
    check_list_of(f"{where}goals", goals, _goal, LIMITS.max_goals)
    check_time(f"{where}timestamp", timestamp)
    check_list_of(f"{where}sources", sources, check_ref)
    check_metadata(f"{where}metadata", metadata)
    if id is not None:
        check_name(f"{where}id", id)
    check_kind(f"{where}kind", kind)
    check_instance(f"{where}affect", affect, Affect)
    if ns is not None and id is not None:
        check_new_ids(ns, [id])


def _goal(name: str, value: Any) -> None:
    check_text(name, value, max_chars=LIMITS.max_goal_chars)


RECALL_EXTRAS = ("goals", "mmr", "explore")
"""Keywords `recall` takes beyond its named ones (read by the built-in stages); a stage of one's own adds its
keywords with an `extra_keys` attribute."""


def extra_keys(pipeline: Iterable[Any]) -> tuple[str, ...]:
    """The extra keywords recall accepts with this pipeline: the built-in ones and those its stages declare."""
    declared = [key for stage in pipeline for key in getattr(stage, "extra_keys", ())]
    return (*RECALL_EXTRAS, *declared)


def check_new_ids(ns: Namespace, ids: Sequence[str]) -> None:
    """Refuse ids that a unit of the namespace already has (checked in chunks, one query each)."""
    for start in range(0, len(ids), _LOOKUP_CHUNK):
        found = ns.store.get_units(ns.name, list(ids[start : start + _LOOKUP_CHUNK]))
        if found:
            raise InvalidArgument(
                "id", f"a unit with id {found[0].id!r} already exists in namespace {ns.name!r}"
            )


def check_observe_many(ns: Namespace, items: Any) -> list[str | Mapping[str, Any]]:
    """Every item of an `observe_many` batch (a text or a dict of `observe` arguments), all before any is stored;
    returns the items as a list (a generator is read once)."""
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise InvalidArgumentType(
            "items", f"must be a list of texts or dicts of observe() arguments, got {type(items).__name__}"
        )
    batch = list(items)
    ids: dict[str, int] = {}
    for n, item in enumerate(batch):
        where = f"items[{n}]."
        if isinstance(item, str):
            # a bare text: the other arguments keep their defaults
            check_text(f"items[{n}].text", item, max_chars=LIMITS.max_text_chars)
            continue
        if not isinstance(item, Mapping):
            raise InvalidArgumentType(
                f"items[{n}]", f"must be a text or a dict of observe() arguments, got {type(item).__name__}"
            )
        unknown = [str(k) for k in item if k not in OBSERVE_FIELDS]
        if unknown:
            raise InvalidArgument(
                f"items[{n}]", f"unknown key {unknown[0]!r}; allowed: {', '.join(OBSERVE_FIELDS)}"
            )
        if "text" not in item:
            raise InvalidArgument(f"items[{n}]", "each item needs a 'text'")
        check_observe(None, **item, where=where)
        uid = item.get("id")
        if uid is not None:
            if uid in ids:
                raise InvalidArgument(f"{where}id", f"{uid!r} repeats the id of items[{ids[uid]}]")
            ids[uid] = n
    check_new_ids(ns, list(ids))
    return batch


def check_where(where: Any) -> None:
    """A filter dict or string whose values are scalars (lists only for 'in'), finite, and of the field's type."""
    if where is None:
        return
    if not isinstance(where, dict | str):
        raise InvalidFilterType(
            "where", f"must be a dict or a string such as 'valence < 0', not {type(where).__name__}"
        )
    if isinstance(where, dict):
        for key, spec in where.items():
            if not isinstance(key, str):
                raise InvalidFilter("where", f"field names must be strings, got {key!r}")
            pairs = (
                spec.items()
                if isinstance(spec, dict)
                else [("in" if isinstance(spec, list | tuple) else "==", spec)]
            )
            for op, value in pairs:
                _check_filter_value(key, str(op), value)
    try:
        conditions = parse_where(where)
    except FilterError as exc:
        raise InvalidFilter("where", str(exc)) from None
    except (TypeError, ValueError, OverflowError, OSError) as exc:
        raise InvalidFilter("where", f"a value cannot be compared ({exc})") from None
    for c in conditions:
        _check_filter_value(c.field, c.op, c.value)


def _check_filter_value(field: str, op: str, value: Any) -> None:
    many = isinstance(value, list | tuple | set)
    if (op.lower() == "in") != many:
        wanted = "a list" if op.lower() == "in" else "a single number, time or text"
        raise InvalidFilter("where", f"{op!r} for {field!r} takes {wanted}, got {value!r}")
    timed = field in TIME_FIELDS or field in ("created", "created_after", "created_before")
    for item in value if many else [value]:
        if not isinstance(item, _SCALARS) or (isinstance(item, bool) and (timed or field in NUMERIC_FIELDS)):
            raise InvalidFilter(
                "where", f"{field!r} cannot be compared with {item!r} ({type(item).__name__})"
            )
        if isinstance(item, float) and not math.isfinite(item):
            raise InvalidFilter("where", f"{field!r} needs a finite number, got {item!r}")


def check_recall(
    query: Any, k: Any, where: Any = None, context: Any = None, now: Any = None, at: Any = None,
    affect_state: Any = None, policy: Any = None, rng: Any = None, extras: Mapping[str, Any] | None = None,
    allowed: Sequence[str] = RECALL_EXTRAS,
) -> None:  # fmt: skip
    """The arguments of `recall` (and of the recall inside `brief`); an unknown keyword is refused by name."""
    for key in extras or {}:
        if key not in allowed:
            raise InvalidArgumentType(
                key, f"is not an argument of recall; extra keywords allowed: {', '.join(allowed)}"
            )
    check_text("query", query, max_chars=LIMITS.max_query_chars)
    check_int("k", k, 0)
    check_where(where)
    if context is not None:
        check_text("context", context, blank=True, max_chars=LIMITS.max_query_chars)
    check_time("now", now)
    check_time("at", at)
    check_instance("affect_state", affect_state, Affect)
    if policy is not None:
        check_choice("policy", policy, POLICIES)
    check_instance("rng", rng, np.random.Generator)
    extras = extras or {}
    if "goals" in extras:
        check_list_of("goals", extras["goals"], _goal, LIMITS.max_goals)
    for flag in ("mmr", "explore"):
        if flag in extras and not isinstance(extras[flag], bool):
            raise InvalidArgumentType(flag, f"must be True or False, got {extras[flag]!r}")


def check_brief(
    query: Any, k: Any, context: Any, kwargs: Mapping[str, Any], allowed: Sequence[str] = RECALL_EXTRAS
) -> None:
    """The arguments of `brief`: those of recall, and `max_words` (a positive integer) for a model's summary."""
    named = ("where", "at", "affect_state", "policy", "now", "rng")
    rest = {key: v for key, v in kwargs.items() if key not in (*named, "persona", "model", "max_words")}
    check_recall(
        query, k, context=context, extras=rest, allowed=allowed, **{key: kwargs.get(key) for key in named}
    )
    if kwargs.get("max_words") is not None:
        check_int("max_words", kwargs["max_words"], 1)


def check_supersede(namespace: str, old_id: Any, new: Any, timestamp: Any, reason: Any) -> None:
    """`old_id` an id; `new` a non-empty text, an id or a unit of this namespace, not `old_id` itself."""
    check_ref("old_id", old_id)
    if isinstance(new, MemoryUnit):
        if new.namespace != namespace:
            raise InvalidArgument(
                "new", f"unit {new.id!r} belongs to namespace {new.namespace!r}, not {namespace!r}"
            )
        new_id = new.id
    else:
        if not isinstance(new, str):
            raise InvalidArgumentType(
                "new", f"must be a text, a unit id or a MemoryUnit, got {type(new).__name__}"
            )
        check_text("new", new)
        new_id = new
    if new_id == old_id:
        raise InvalidArgument("new", f"a unit cannot supersede itself ({old_id!r})")
    check_time("timestamp", timestamp)
    check_text("reason", reason, blank=True)


def check_update(unit: Any) -> None:
    """A MemoryUnit whose fields still pass validation (a `model_copy(update=...)` skips it) with JSON metadata."""
    if not isinstance(unit, MemoryUnit):
        raise InvalidArgumentType("unit", f"must be a MemoryUnit, got {type(unit).__name__}")
    from pydantic import ValidationError

    try:
        MemoryUnit.model_validate(unit.model_dump())
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "unit"
        raise InvalidArgument(f"unit.{field}", str(err["msg"])) from None
    check_metadata("unit.metadata", unit.metadata)


def check_forget(id: Any, reason: Any) -> None:
    """A unit id and a text reason (may be empty)."""
    check_ref("id", id)
    check_text("reason", reason, blank=True)


def check_namespace(namespace: Any) -> None:
    """A namespace name: non-empty, at most `LIMITS.max_namespace_chars`, no surrounding spaces or control
    characters, no '/' (it is part of the service's paths)."""
    check_name("namespace", namespace, LIMITS.max_namespace_chars)
    if "/" in namespace:
        raise InvalidArgument("namespace", f"must not contain '/', got {namespace[:60]!r}")


def check_open(
    path: Any, namespace: Any, embedder: Any, config: Any, appraiser: Any, affect_config: Any
) -> None:
    """The arguments of `Memory(...)`: a file path (or None), a namespace, an embedder name or object, configs."""
    from psychoagent.memory.config import AffectiveMemoryConfig, MemoryConfig

    if path is not None:
        if not isinstance(path, str | os.PathLike):
            raise InvalidArgumentType(
                "path", f"must be a file path, a database URL or None, got {type(path).__name__}"
            )
        text = os.fspath(path)
        check_text("path", text)
        parent = os.path.dirname(os.path.abspath(text))
        if "://" not in text and text != ":memory:" and not os.path.isdir(parent):
            raise InvalidArgument("path", f"the folder {parent!r} does not exist; create it first")
    check_namespace(namespace)
    if embedder is not None and not isinstance(embedder, str) and not hasattr(embedder, "embed_queries"):
        raise InvalidArgumentType(
            "embedder",
            f"must be a name such as 'e5' or 'hash', or an Embedder, got {type(embedder).__name__}",
        )
    check_instance("config", config, MemoryConfig)
    if (
        appraiser is not None
        and not isinstance(appraiser, str)
        and not callable(getattr(appraiser, "appraise", None))
    ):
        raise InvalidArgumentType(
            "appraiser",
            f"must be 'heuristic', None or an object with appraise(), got {type(appraiser).__name__}",
        )
    check_instance("affect_config", affect_config, AffectiveMemoryConfig)


def check_link(src: Any, dst: Any, type: Any, weight: Any, metadata: Mapping[str, Any]) -> None:
    """An edge src -> dst of a known type with a finite weight and JSON metadata."""
    check_ref("src", src)
    check_ref("dst", dst)
    check_choice("type", type, get_args(EdgeType))
    check_number("weight", weight)
    check_json("metadata", dict(metadata))


def check_conflicts(ids: Any, status: Any) -> None:
    """None or a list of ids; None or a conflict status."""
    if ids is not None:
        check_list_of("ids", ids, check_ref)
    if status is not None:
        check_choice("status", str(status.value if isinstance(status, ConflictStatus) else status),
                     [s.value for s in ConflictStatus])  # fmt: skip
