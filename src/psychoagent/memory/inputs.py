"""What `Memory` accepts from callers: checks of single values (texts, ids, lists of
strings, times, JSON-like metadata) that raise one clear error naming the argument and what is allowed."""

from __future__ import annotations

import json
import math
import numbers
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NoReturn

from psychoagent.affect.contracts import Appraiser
from psychoagent.memory.limits import LIMITS, json_problem, text_problem
from psychoagent.types import to_datetime


class InvalidArgument(ValueError):
    """A public `Memory` method was given a bad value; `argument` names it and the message says what is allowed."""

    def __init__(self, argument: str, problem: str) -> None:
        self.argument = argument
        self.problem = problem
        super().__init__(f"{argument}: {problem}")


class InvalidArgumentType(InvalidArgument, TypeError):
    """The argument has the wrong type (also a TypeError, so `except TypeError` keeps working)."""


class NotFound(InvalidArgument, KeyError):
    """An id names nothing stored in this namespace (also a KeyError, so `except KeyError` keeps working)."""

    def __str__(self) -> str:
        return f"{self.argument}: {self.problem}"


RESERVED_KINDS = ("forgotten",)
"""Kinds the memory sets itself (a forgotten unit's tombstone); a caller storing one would hide the unit."""


def _shown(value: Any) -> str:
    """A short repr for error messages."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _wrong_type(name: str, wanted: str, value: Any) -> NoReturn:
    raise InvalidArgumentType(name, f"must be {wanted}, got {type(value).__name__} {_shown(value)}")


def check_unicode(name: str, value: str, max_chars: int | None = None) -> None:
    """Refuse text the store cannot hold: over `max_chars`, lone surrogates, NUL and other control characters."""
    problem = text_problem(value, max_chars if max_chars is not None else len(value))
    if problem is not None:
        raise InvalidArgument(name, problem)


def check_text(name: str, value: Any, *, blank: bool = False, max_chars: int | None = None) -> None:
    """A string (non-blank unless `blank`) of valid Unicode, at most `max_chars` long when given."""
    if not isinstance(value, str):
        _wrong_type(name, "a string", value)
    if not blank and not value.strip():
        raise InvalidArgument(name, "must be a non-empty string")
    check_unicode(name, value, max_chars)


def check_optional_text(name: str, value: Any) -> None:
    """None or a string (may be blank)."""
    if value is not None:
        check_text(name, value, blank=True)


def has_control(text: str) -> bool:
    """True when `text` holds control, format or line/paragraph separator characters."""
    return any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in text)


def check_name(name: str, value: Any, max_chars: int = LIMITS.max_id_chars) -> None:
    """A new identifier (unit id, namespace): non-empty, no surrounding spaces, no control characters."""
    check_text(name, value, max_chars=max_chars)
    if value != value.strip():
        raise InvalidArgument(name, f"must not start or end with whitespace, got {_shown(value)}")
    if has_control(value):
        raise InvalidArgument(
            name, f"must not contain control characters or line breaks, got {_shown(value)}"
        )


def check_ref(name: str, value: Any) -> None:
    """A reference to something stored (an id to look up): a non-empty string."""
    check_text(name, value)


def check_list_of(name: str, value: Any, item: Any = check_text, max_items: int | None = None) -> None:
    """A list or tuple whose items pass `item`; a bare string is refused (it would be read as its characters)."""
    if isinstance(value, str | bytes | bytearray):
        raise InvalidArgumentType(
            name,
            f"must be a list of strings, got a single {type(value).__name__} {_shown(value)}; wrap it in a list",
        )
    if not isinstance(value, Sequence):
        _wrong_type(name, "a list of strings", value)
    if max_items is not None and len(value) > max_items:
        raise InvalidArgument(name, f"has {len(value)} items; at most {max_items}")
    for i, element in enumerate(value):
        item(f"{name}[{i}]", element)


def check_int(name: str, value: Any, low: int, high: int | None = None) -> None:
    """An integer (Python or numpy; not a bool, not a string) within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        _wrong_type(name, "an integer", value)
    number = int(value)
    if number < low or (high is not None and number > high):
        allowed = f">= {low}" if high is None else f"from {low} to {high}"
        raise InvalidArgument(name, f"must be an integer {allowed}, got {value}")


def check_number(name: str, value: Any, low: float | None = None, high: float | None = None) -> None:
    """A finite int or float (not a bool) within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        _wrong_type(name, "a number", value)
    if not math.isfinite(value):
        raise InvalidArgument(name, f"must be a finite number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise InvalidArgument(name, f"must be between {low} and {high}, got {value!r}")


def check_choice(name: str, value: Any, allowed: Sequence[str]) -> None:
    """One of the allowed strings."""
    if not isinstance(value, str) or value not in allowed:
        raise InvalidArgument(name, f"must be one of {', '.join(map(repr, allowed))}, got {_shown(value)}")


def check_instance(name: str, value: Any, kind: type, *, optional: bool = True) -> None:
    """An instance of `kind` (or None when optional)."""
    if value is None and optional:
        return
    if not isinstance(value, kind):
        _wrong_type(name, f"a {kind.__name__}" + (" or None" if optional else ""), value)


def check_time(name: str, value: Any) -> None:
    """None, an aware datetime, an ISO 8601 string or finite epoch seconds within years 1..9999 (`memory.limits.TIME_RULE`)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, datetime | str | int | float):
        _wrong_type(name, "a datetime, an ISO 8601 string or epoch seconds", value)
    if isinstance(value, datetime) and value.utcoffset() is None:
        raise InvalidArgument(
            name,
            f"{_shown(value)} has no time zone (it may be local time); give it one, e.g. tzinfo=datetime.UTC",
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidArgument(name, f"must be a finite time, got {value!r}")
    try:
        when = to_datetime(value)
        assert when is not None
        when.astimezone(UTC).timestamp()
    except (OverflowError, OSError) as exc:
        raise InvalidArgument(
            name, f"{_shown(value)} is out of range ({exc}); allowed: years 1 to 9999"
        ) from None
    except ValueError as exc:
        if isinstance(value, str):
            raise InvalidArgument(
                name, f"{_shown(value)} is not ISO 8601 (e.g. 2024-05-01T12:00:00Z)"
            ) from None
        raise InvalidArgument(
            name, f"{_shown(value)} is out of range ({exc}); allowed: years 1 to 9999"
        ) from None


def check_kind(name: str, value: Any) -> None:
    """A unit kind: one of `LIMITS.kinds` (a reserved one, set by the memory itself, is refused with why)."""
    check_text(name, value)
    if value in RESERVED_KINDS:
        raise InvalidArgument(name, f"{value!r} is set by the memory itself (forget() makes tombstones)")
    if value not in LIMITS.kinds:
        raise InvalidArgument(
            name, f"must be one of {', '.join(map(repr, LIMITS.kinds))}, got {_shown(value)}"
        )


def check_json(name: str, value: Any, depth: int = 0) -> None:
    """A JSON-like value: text, 64-bit int, finite float, bool, None, lists and string-keyed dicts of them."""
    found = json_problem(value, depth)
    if found is None:
        return
    error = InvalidArgumentType if found.wrong_type else InvalidArgument
    raise error(f"{name}{found.where}", found.problem)


def check_metadata(name: str, value: Any) -> None:
    """None or a string-keyed dict of JSON values with finite numbers."""
    if value is None:
        return
    if not isinstance(value, Mapping):
        _wrong_type(name, "a dict (or None)", value)
    check_json(name, dict(value))
    size = len(json.dumps(value, ensure_ascii=False, default=str).encode())
    if size > LIMITS.max_metadata_bytes:
        raise InvalidArgument(name, f"is {size:,} bytes as JSON; at most {LIMITS.max_metadata_bytes:,}")


def check_finite(value: Any, where: str) -> None:
    """Refuse NaN and infinities anywhere in a JSON-like value: SQLite's JSON functions cannot read them back."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidArgument(where, f"must hold finite numbers, got {value!r}")
    if isinstance(value, Mapping):
        for key, item in value.items():
            check_finite(item, f"{where}[{key!r}]")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            check_finite(item, f"{where}[{i}]")


def resolve_appraiser(appraiser: Appraiser | str | None) -> Appraiser | None:
    """'heuristic' (default) -> HeuristicAppraiser; None -> no appraisal; an object is used as is."""
    if isinstance(appraiser, str):
        if appraiser != "heuristic":
            raise ValueError(
                f"unknown appraiser {appraiser!r}; pass 'heuristic', None or an Appraiser object"
            )
        from psychoagent.affect.heuristic import HeuristicAppraiser

        return HeuristicAppraiser()
    return appraiser
