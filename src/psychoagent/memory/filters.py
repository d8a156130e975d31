"""Metadata filters applied before ranking: affect fields, tier, kind, time and free metadata keys.

A filter is either a dict or a string:

- ``{"conflict_intensity": {">": 2}, "valence": {"<": 0}, "tier": "working", "created_at": {">=": "2024-01-01"}}``
- ``{"kind": ["episodic", "semantic"], "current": True, "metadata.topic": "budget"}``
- ``"conflict_intensity > 2 AND valence < 0 AND created_at > 2024-01-01T00:00:00Z"``
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from psychoagent.types import to_datetime

NUMERIC_FIELDS = ("valence", "arousal", "conflict_intensity", "access_count")
TIME_FIELDS = ("created_at", "valid_at", "invalid_at", "last_accessed_at")
TEXT_FIELDS = ("tier", "kind")
ALIASES = {"conflict": "conflict_intensity", "created": "created_at"}
OPS = {"=": "==", "==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "in": "in"}
_WORD_OPS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "lte": "<=", "gt": ">", "ge": ">=", "gte": ">="}
ALLOWED = (*NUMERIC_FIELDS, *TIME_FIELDS, *TEXT_FIELDS, "current", "metadata.<key>")


class FilterError(ValueError):
    """A filter names an unknown field or operator, or has a value of the wrong type."""


@dataclass(frozen=True)
class Condition:
    """One comparison: field op value (values already converted: times to epoch seconds)."""

    field: str
    op: str
    value: Any


def _convert(field: str, value: Any) -> Any:
    if isinstance(value, list | tuple | set):
        return [_convert(field, v) for v in value]
    if field in TIME_FIELDS:
        if value is None:
            return None
        dt = to_datetime(value)
        assert dt is not None
        return dt.timestamp()
    if field in NUMERIC_FIELDS:
        try:
            number = float(value)
        except (TypeError, ValueError) as exc:
            raise FilterError(f"filter field {field!r} needs a number, got {value!r}") from exc
        if not math.isfinite(number):
            raise FilterError(f"filter field {field!r} needs a finite number, got {value!r}")
        return number
    if field == "current":
        if isinstance(value, str):
            return value.strip().lower() in ("1", "true", "yes")
        return bool(value)
    return value


def _field(name: str) -> str:
    name = ALIASES.get(name, name)
    if name in NUMERIC_FIELDS or name in TIME_FIELDS or name in TEXT_FIELDS or name == "current":
        return name
    if name.startswith("metadata.") and len(name) > len("metadata."):
        return name
    raise FilterError(f"unknown filter field {name!r}; allowed: {', '.join(ALLOWED)}")


def _parse_value(token: str) -> Any:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return token[1:-1]
    try:
        return json.loads(token)
    except json.JSONDecodeError:
        return token


_CLAUSE = re.compile(r"^\s*([\w.]+)\s*(==|!=|<=|>=|=|<|>|\bin\b)\s*(.+?)\s*$", re.IGNORECASE)


def parse_where(where: dict[str, Any] | str | None) -> list[Condition]:
    """Parse a filter (dict or string) into conditions; raises FilterError naming the bad field or operator."""
    if where is None or where == {} or where == "":
        return []
    conditions: list[Condition] = []
    if isinstance(where, str):
        for clause in re.split(r"\s+AND\s+", where.strip(), flags=re.IGNORECASE):
            match = _CLAUSE.match(clause)
            if not match:
                raise FilterError(
                    f"cannot parse filter clause {clause!r}; expected 'field op value' joined by AND"
                )
            name, op, raw = match.groups()
            field = _field(name)
            conditions.append(Condition(field, OPS[op.lower()], _convert(field, _parse_value(raw))))
        return conditions
    if not isinstance(where, dict):
        raise FilterError(f"filter must be a dict or a string, not {type(where).__name__}")
    for name, spec in where.items():
        if name in ("created_after", "created_before"):
            op = ">" if name.endswith("after") else "<"
            conditions.append(Condition("created_at", op, _convert("created_at", spec)))
            continue
        field = _field(name)
        if isinstance(spec, dict):
            for raw_op, value in spec.items():
                op = OPS.get(str(raw_op).lower()) or _WORD_OPS.get(str(raw_op).lower().lstrip("$"))
                if op is None:
                    raise FilterError(f"unknown operator {raw_op!r} for {name!r}; allowed: {', '.join(OPS)}")
                conditions.append(Condition(field, op, _convert(field, value)))
        elif isinstance(spec, list | tuple | set):
            conditions.append(Condition(field, "in", _convert(field, list(spec))))
        else:
            conditions.append(Condition(field, "==", _convert(field, spec)))
    return conditions


def compare(left: Any, op: str, right: Any) -> Any:
    """Apply op elementwise (works for numpy arrays and scalars)."""
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    if op == "<":
        return left < right
    if op == "<=":
        return left <= right
    if op == ">":
        return left > right
    if op == ">=":
        return left >= right
    raise FilterError(f"operator {op!r} not supported here")
