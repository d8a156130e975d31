"""Validated requests and responses shared by the REST service, the MCP tools and the memory CLI.

Every field is checked here, at the boundary, so that the memory only ever sees well-formed input: strict types
(no "5" for 5, no true for a timestamp), finite numbers, text that is valid Unicode, bounded sizes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any

from annotated_types import GroupedMetadata
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
)

from psychoagent.memory.history import History
from psychoagent.memory.limits import EPOCH_MAX, EPOCH_MIN, LIMITS, InputLimits, json_problem, text_problem
from psychoagent.types import Briefing, ConflictRecord, MemoryUnit, Recall, to_datetime

ServiceConfig = InputLimits
"""The service's limits are the memory's input contract (`memory.limits`), the same on every surface."""


_TYPE_TAGS = {"float", "int", "str", "bool", "none", "dict", "list"}
_LOCATIONS = {"body", "path", "query", "header", "cookie"}


def error_message(err: Any) -> str:
    """A pydantic error's message without the prefix its validators' exceptions get ("Value error, ...")."""
    return str(err.get("msg", "invalid")).removeprefix("Value error, ").removeprefix("Assertion failed, ")


def field_of(loc: tuple[object, ...] | list[object]) -> str:
    """The dotted field name of a pydantic error location, without the request part it starts with (a body field
    may be called `query`) and without union-branch tags."""
    parts = [
        str(p) for i, p in enumerate(loc)
        if not (isinstance(p, str) and ((i == 0 and p in _LOCATIONS) or p in _TYPE_TAGS or "[" in p))
    ]  # fmt: skip
    return ".".join(parts) or "body"


def _unicode(value: str) -> str:
    """Refuse text the store cannot hold (lone surrogates, NUL and other control characters), as the library does."""
    problem = text_problem(value, len(value))
    if problem is not None:
        raise ValueError(f"text {problem}")
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _plain_id(value: str) -> str:
    if "/" in value or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValueError("must not contain '/' or control characters")
    return value


def _finite_json(value: Any) -> None:
    """The library's JSON rule (`memory.limits.json_problem`), raised as a validation error naming the place."""
    found = json_problem(value)
    if found is not None:
        raise ValueError(f"{found.where} {found.problem}".strip())


def _metadata(value: dict[str, Any]) -> dict[str, Any]:
    _finite_json(value)
    if len(json.dumps(value, ensure_ascii=False).encode()) > LIMITS.max_metadata_bytes:
        raise ValueError(f"larger than {LIMITS.max_metadata_bytes} bytes as JSON")
    return value


def _timestamp(value: float | str | None) -> float | str | None:
    try:
        to_datetime(value)
    except (ValueError, OverflowError, OSError) as exc:
        raise ValueError(f"not a valid time ({exc}); use ISO 8601 or epoch seconds") from exc
    return value


@dataclass(frozen=True)
class TextChecks(GroupedMetadata):
    """The checks of a text field: 1 to `max_chars` characters, valid Unicode, then `checks` in order (each raises
    ValueError with what is wrong), so that each text field states its limit and its extra rules only."""

    max_chars: int
    checks: tuple[Callable[[str], str], ...] = ()

    def __iter__(self) -> Iterator[object]:
        yield Field(min_length=1, max_length=self.max_chars)
        yield AfterValidator(_unicode)
        for check in self.checks:
            yield AfterValidator(check)


Text = Annotated[StrictStr, TextChecks(LIMITS.max_text_chars, (_not_blank,))]
Query_ = Annotated[StrictStr, TextChecks(LIMITS.max_query_chars, (_not_blank,))]
Goal = Annotated[StrictStr, TextChecks(LIMITS.max_goal_chars, (_not_blank,))]
UnitId = Annotated[StrictStr, TextChecks(LIMITS.max_id_chars, (_plain_id,))]
Namespace = Annotated[StrictStr, TextChecks(LIMITS.max_namespace_chars, (_plain_id, _not_blank))]

Timestamp = Annotated[
    Annotated[StrictFloat | StrictInt, Field(ge=EPOCH_MIN, le=EPOCH_MAX)]
    | Annotated[StrictStr, Field(min_length=4, max_length=64)]
    | None,
    AfterValidator(_timestamp),
    Field(description="ISO 8601 (e.g. 2024-05-01T12:00:00Z) or epoch seconds"),
]
Metadata = Annotated[dict[str, Any], AfterValidator(_metadata)]


def _integral(value: Any) -> Any:
    """JSON's 5.0 is the integer 5; "5" and true are not integers."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be an integer")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("must be an integer")
        return int(value)
    return value


K = Annotated[int, BeforeValidator(_integral), Field(ge=1, le=LIMITS.max_k)]
Where = Annotated[
    dict[str, Any] | StrictStr | None,
    AfterValidator(lambda v: _metadata(v) if isinstance(v, dict) else (v if v is None else _unicode(v))),
    Field(description='filter, e.g. {"conflict_intensity": {">": 2}} or "valence < 0 AND tier = working"'),
]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ObserveRequest(_Request):
    """Store one event."""

    text: Text
    timestamp: Timestamp = None
    metadata: Metadata = Field(default_factory=dict)
    goals: Annotated[list[Goal], Field(max_length=LIMITS.max_goals)] = Field(default_factory=list)
    id: UnitId | None = None


class RecallRequest(_Request):
    """Hybrid recall; `at` asks for the memory as it stood at that time (where the memory supports it)."""

    query: Query_
    k: K = 5
    where: Where = None
    at: Timestamp = None


class BriefRequest(_Request):
    """A conflict-aware briefing for a decision."""

    query: Query_
    k: K = 5
    context: Query_ | None = None


class SupersedeRequest(_Request):
    """Mark `old_id` as no longer valid, replaced by a new text or by an existing unit `new_id` (exactly one)."""

    old_id: UnitId
    text: Text | None = None
    new_id: UnitId | None = None
    timestamp: Timestamp = None
    reason: Annotated[StrictStr, Field(max_length=2000), AfterValidator(_unicode)] = ""


class RecallResponse(BaseModel):
    """Hits best first, each with its score, the parts of the score and the unit (affect included)."""

    hits: list[Recall]


class ConflictsResponse(BaseModel):
    """Conflict records, oldest first."""

    conflicts: list[ConflictRecord]


class SupersedeResponse(BaseModel):
    """The superseded unit (now with invalid_at) and the unit that replaced it."""

    old: MemoryUnit
    new: MemoryUnit


class UnitList(BaseModel):
    """A page of units in insertion order."""

    units: list[MemoryUnit]
    total: int


class Health(BaseModel):
    """Liveness and what the server serves."""

    status: str
    version: str
    schema_version: int | None = None


class ErrorBody(BaseModel):
    """Every error: a message that names the field at fault (when one is), and that field."""

    detail: str
    field: str | None = None


__all__ = [
    "LIMITS",
    "BriefRequest",
    "Briefing",
    "ConflictsResponse",
    "ErrorBody",
    "Health",
    "History",
    "ObserveRequest",
    "RecallRequest",
    "RecallResponse",
    "ServiceConfig",
    "SupersedeRequest",
    "SupersedeResponse",
    "UnitList",
]
