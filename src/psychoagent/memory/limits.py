"""The one input contract of the memory: limits and value rules that the library, REST, MCP and the CLI apply alike.

`LIMITS` is read by `memory.inputs` (the library's argument checks) and by `service.models` (the request models of
REST, MCP and the memory CLI), so a value one surface accepts the others accept too. `limits_table()` is the table
the docs show.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from pydantic import Field

from psychoagent.config import ConfigModel, Count, NonNegativeInt

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
"""SQLite's and PostgreSQL's bigint range: a larger integer would come back from the store as a float or as text."""
EPOCH_MIN, EPOCH_MAX = -62_135_596_800, 253_402_300_799
"""Epoch seconds of 0001-01-01 and 9999-12-31T23:59:59 UTC: the range a datetime can hold."""
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""Unicode's control characters (category Cc) but tab, line feed and carriage return."""


class InputLimits(ConfigModel):
    """Size and value limits of everything a caller hands the memory; they bound the work and the storage one call
    can cause, and they are the same on every surface."""

    max_text_chars: Count = Field(8_000, description="a memory is an event, not a document")
    max_query_chars: Count = Field(2_000, description="a question or a decision, not a document")
    max_goal_chars: Count = Field(300, description="a goal is one sentence; goal matching grows with length²")
    max_id_chars: Count = Field(256, description="ids travel in URLs; 256 leaves room for any UUID scheme")
    max_namespace_chars: Count = Field(200, description="a namespace names one agent or user")
    max_metadata_bytes: int = Field(65_536, ge=2, description="metadata is for filters and provenance")
    max_metadata_depth: Count = Field(
        32, description="JSON nested deeper is a mistake; recursion stays bounded"
    )
    max_k: Count = Field(100, description="a briefing reads a handful; 100 covers re-ranking by the caller")
    max_goals: NonNegativeInt = Field(16, description="goals are standing aims, a few per agent")
    kinds: tuple[str, ...] = Field(
        ("episodic", "semantic", "summary", "goal", "reflection", "procedural", "chat"),
        description="what a unit is: an event, a fact, a summary, a standing aim, a lesson, a how-to, a message",
    )


LIMITS = InputLimits()

TIME_RULE = (
    "ISO 8601 text or epoch seconds; text without a UTC offset is read as UTC; a Python datetime must carry its "
    "time zone (a naive one is refused, since it may be local time)"
)


def text_problem(value: str, max_chars: int) -> str | None:
    """What is wrong with a text for the store (too long, a lone surrogate, NUL or other control characters but
    tab and line breaks), or None."""
    if len(value) > max_chars:
        return f"is {len(value):,} characters long; at most {max_chars:,}"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"must be valid Unicode text (a lone surrogate at position {exc.start})"
    found = _CONTROL.search(value)
    if found is not None:
        at = found.start()
        return f"must not contain control characters such as NUL (U+{ord(value[at]):04X} at position {at})"
    return None


class JsonProblem(NamedTuple):
    """Where below the value a JSON rule fails (e.g. "['a'][0]"), what is wrong, and whether it is the value's type."""

    where: str
    problem: str
    wrong_type: bool = False

    def below(self, step: str) -> JsonProblem:
        """The same problem seen from one level up, `step` being the key or index it sits under."""
        return self._replace(where=step + self.where)


def json_problem(value: Any, depth: int = 0) -> JsonProblem | None:
    """The first problem of a JSON value, or None: nesting, non-finite or out-of-range numbers, non-text keys, text
    the store cannot hold, and values JSON has no type for."""
    if depth > LIMITS.max_metadata_depth:
        return JsonProblem("", f"is nested deeper than {LIMITS.max_metadata_depth} levels")
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            return JsonProblem(
                "", "integers must fit in 64 bits (-2**63 .. 2**63-1), as the store keeps them"
            )
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else JsonProblem("", f"must hold finite numbers, got {value!r}")
    if isinstance(value, str):
        problem = text_problem(value, LIMITS.max_metadata_bytes)
        return None if problem is None else JsonProblem("", problem)
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return JsonProblem(
                    " key", f"keys must be strings (JSON object keys are text), got {key!r}", True
                )
            problem = text_problem(key, LIMITS.max_id_chars)
            if problem is not None:
                return JsonProblem(f"[{key[:40]!r}]", f"key {problem}")
            found = json_problem(item, depth + 1)
            if found is not None:
                return found.below(f"[{key!r}]")
        return None
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = json_problem(item, depth + 1)
            if found is not None:
                return found.below(f"[{i}]")
        return None
    kind = type(value).__name__
    return JsonProblem("", f"must be a JSON value (str, number, bool, None, list or dict), got {kind}", True)


def limits_table() -> list[tuple[str, str, str]]:
    """(what, limit, why) rows of the limits, for the docs."""
    fields = InputLimits.model_fields
    rows = [
        (name.removeprefix("max_").replace("_", " "), f"{getattr(LIMITS, name):,}" if name != "kinds" else
         ", ".join(LIMITS.kinds), str(info.description))
        for name, info in fields.items()
    ]  # fmt: skip
    rows += [
        ("metadata integers", "-2**63 .. 2**63-1", "the stores keep 64-bit integers"),
        ("numbers", "finite", "NaN and infinities cannot be read back from the stores' JSON"),
        ("text", "valid Unicode; no control characters but tab and line breaks", "NUL ends text in C code"),
        ("times", TIME_RULE, "one rule on every surface"),
        (
            "unknown arguments and keywords",
            "refused, naming the argument",
            "a misspelt name must not be ignored",
        ),
    ]
    return rows
