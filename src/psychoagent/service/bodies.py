"""Why a request body could not be parsed, and which top-level field it was in.

FastAPI answers a body that is not UTF-8, or nested past Python's recursion limit, with a bare "There was an error
parsing the body". The service instead names the field: a small scan over the raw bytes (strings, brackets, colons)
finds the top-level key whose value held the bad byte or the too-deep nesting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from psychoagent.memory.limits import LIMITS

MAX_DEPTH = LIMITS.max_metadata_depth
"""Deepest nesting accepted inside a field (the metadata rule in `models.py`)."""

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:]', re.S)


@dataclass(frozen=True)
class BodyProblem:
    """A body the service cannot read: HTTP status, the message naming the field, and the field."""

    status: int
    message: str
    field: str


def _key_at(body: bytes, stop: int | None = None, max_depth: int | None = None) -> str | None:
    """The top-level key whose value is being read at byte `stop`, or where nesting first passes `max_depth`."""
    depth, key, last = 0, None, None
    for match in _TOKEN.finditer(body):
        if stop is not None and match.start() >= stop:
            break
        token = match.group()
        if token in (b"{", b"["):
            depth += 1
            if max_depth is not None and depth > max_depth + 1:  # +1: the body's own object
                return key
        elif token in (b"}", b"]"):
            depth -= 1
        elif token == b":":
            if depth == 1 and last is not None:
                key = last
        else:
            last = token[1:-1].decode("utf-8", "replace")
    return key if max_depth is None else None


def diagnose(body: bytes) -> BodyProblem:
    """Name the field of a body FastAPI could not parse (not UTF-8, nested too deep), or the body itself."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        field = _key_at(body, stop=exc.start) or "body"
        return BodyProblem(400, f"field {field!r}: not valid UTF-8 (byte {exc.start} of the body)", field)
    deep = _key_at(body, max_depth=MAX_DEPTH)
    if deep is not None:
        return BodyProblem(422, f"field {deep!r}: nested deeper than {MAX_DEPTH} levels", deep)
    return BodyProblem(400, "field 'body': could not be parsed as JSON", "body")
