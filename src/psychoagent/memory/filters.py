"""Metadata filters applied before ranking: affect fields, tier, kind, time and free metadata keys.

A filter is either a dict or a string:

- ``{"conflict_intensity": {">": 2}, "valence": {"<": 0}, "tier": "working", "created_at": {">=": "2024-01-01"}}``
- ``{"kind": ["episodic", "semantic"], "current": True, "metadata.topic": "budget"}``
- ``"conflict_intensity > 2 AND valence < 0 AND created_at > 2024-01-01T00:00:00Z"``
- ``"kind in [episodic, summary] AND metadata.topic = 'the budget'"``

A string is parsed by a small recursive-descent parser; anything it cannot read is refused with the column where
reading stopped (OR, a doubled operator, a value with spaces that is not quoted).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime
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
        if isinstance(value, datetime) and value.utcoffset() is None:
            raise FilterError(
                f"filter field {field!r}: {value!r} has no time zone; give it one, e.g. tzinfo=UTC"
            )
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


_TOKEN = re.compile(
    r"""\s*(?:(?P<str>"(?:[^"\\]|\\.)*"|'[^']*')|(?P<op>==|!=|<=|>=|=|<|>)|(?P<punct>[\[\](),])"""
    r"""|(?P<word>[^\s\[\](),=!<>"']+))"""
)


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    column: int  # 1-based


def _tokens(text: str) -> list[_Token]:
    """Split a filter string into tokens with their columns; a character no token starts with is refused."""
    out: list[_Token] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None or match.lastgroup is None:
            column = pos + len(text[pos:]) - len(text[pos:].lstrip()) + 1
            raise FilterError(f"cannot parse filter at column {column}: unexpected {text[column - 1]!r}")
        kind = match.lastgroup
        out.append(_Token(kind, match.group(kind), match.start(kind) + 1))
        pos = match.end()
    return out


class _Parser:
    """Recursive descent over: filter := clause ('AND' clause)*; clause := field op value | field 'in' list;
    list := '[' value (',' value)* ']' | '(' ... ')'; value := quoted text | number | true | false | null | word."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def _peek(self) -> _Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def _fail(self, wanted: str) -> FilterError:
        tok = self._peek()
        if tok is None:
            return FilterError(
                f"cannot parse filter at column {len(self.text) + 1}: expected {wanted}, got the end"
            )
        return FilterError(f"cannot parse filter at column {tok.column}: expected {wanted}, got {tok.text!r}")

    def _take(self, kind: str, wanted: str) -> _Token:
        tok = self._peek()
        if tok is None or tok.kind != kind:
            raise self._fail(wanted)
        self.i += 1
        return tok

    def parse(self) -> list[Condition]:
        conditions = [self._clause()]
        while self._peek() is not None:
            tok = self._peek()
            assert tok is not None
            if tok.kind != "word" or tok.text.upper() != "AND":
                raise self._fail(
                    "AND (the only way clauses join)"
                    if tok.text.upper() != "OR"
                    else "AND; OR is not supported"
                )
            self.i += 1
            conditions.append(self._clause())
        return conditions

    def _clause(self) -> Condition:
        name = self._take("word", "a field name such as 'valence' or 'metadata.topic'")
        field = _field(name.text)
        tok = self._peek()
        if tok is not None and tok.kind == "word" and tok.text.lower() == "in":
            self.i += 1
            return Condition(field, "in", _convert(field, self._list()))
        op = self._take("op", "an operator (=, ==, !=, <, <=, >, >= or in)")
        return Condition(field, OPS[op.text], _convert(field, self._value()))

    def _list(self) -> list[Any]:
        opener = self._take("punct", "a list such as [1, 2]")
        closer = {"[": "]", "(": ")"}.get(opener.text)
        if closer is None:
            self.i -= 1
            raise self._fail("a list such as [1, 2]")
        items = [self._value()]
        while True:
            tok = self._take("punct", f"',' or {closer!r}")
            if tok.text == closer:
                return items
            if tok.text != ",":
                self.i -= 1
                raise self._fail(f"',' or {closer!r}")
            items.append(self._value())

    def _value(self) -> Any:
        tok = self._peek()
        if tok is None or tok.kind not in ("str", "word"):
            raise self._fail("a value (a number, a time, a word or quoted text)")
        self.i += 1
        if tok.kind == "str":
            return json.loads(tok.text) if tok.text[0] == '"' else tok.text[1:-1]
        lowered = tok.text.lower()
        if lowered in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[lowered]
        try:
            number = float(tok.text)
        except ValueError:
            return tok.text
        return int(tok.text) if re.fullmatch(r"[+-]?\d+", tok.text) else number


def parse_where(where: dict[str, Any] | str | None) -> list[Condition]:
    """Parse a filter (dict or string) into conditions; raises FilterError naming the bad field or operator."""
    if where is None or where == {} or where == "":
        return []
    conditions: list[Condition] = []
    if isinstance(where, str):
        return _Parser(where).parse()
    if not isinstance(where, dict):
        raise FilterError(f"filter must be a dict or a string, not {type(where).__name__}")
    for name, spec in where.items():
        if name in ("created_after", "created_before"):
            bound = ">" if name.endswith("after") else "<"
            conditions.append(Condition("created_at", bound, _convert("created_at", spec)))
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
