"""In-process event bus: typed events, deterministic dispatch, an optional journal (a JSONL file or a sink).

Environment updates, action results, decision points, news and notifications between an agent's modules all
travel here, so a new module (a news generator, a memory that announces "an important memory was activated")
plugs in by subscribing instead of being wired into the model.

Ordering rules (what makes runs reproducible):
- every published event gets a sequence number ``seq`` (0, 1, 2, ...) in publication order;
- handlers run in ascending ``priority``, ties in subscription order;
- an event published by a handler is queued and dispatched after the current event has reached every handler
  (breadth-first), never re-entrantly;
- a failing handler is logged and counted (``bus.errors``) and the others still run, unless ``strict=True``.
"""

from __future__ import annotations

import json
import logging
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

log = logging.getLogger(__name__)

_TYPE_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_.")


@lru_cache(maxsize=1024)
def _check_type(value: str) -> str:
    """`value` when it is a dotted lower-case event type (cached: a run uses a few dozen types millions of times)."""
    if not value or set(value) - _TYPE_CHARS or value.startswith(".") or value.endswith(".") or ".." in value:
        raise ValueError(f"event type must be dotted lower-case words like 'news.published', got {value!r}")
    return value


class Event(BaseModel):
    """One message on the bus: when (tick), what (dotted type), who sent it and the payload."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tick: int = Field(ge=0, description="simulation tick (or turn) the event belongs to")
    type: str = Field(description="dotted name, e.g. 'news.published', 'market.cleared'")
    source: str = Field(
        "", description="who published it: 'model', 'firm:steel', 'household:17', 'memory', ..."
    )
    payload: dict[str, Any] = Field(default_factory=dict, description="JSON-serialisable content")
    seq: int = Field(-1, description="publication order, assigned by the bus")

    @field_validator("type")
    @classmethod
    def _dotted(cls, value: str) -> str:
        return _check_type(value)

    def to_json(self) -> str:
        """One JSONL line; keys sorted and non-finite floats written as null so the file is valid JSON."""
        try:  # a plain payload (the usual case) goes straight to the encoder: the same line, no copy of it
            return _LINE.encode({name: getattr(self, name) for name in type(self).model_fields})
        except (TypeError, ValueError):  # non-finite floats, models or other objects in the payload
            return journal_line(self.model_dump())


class NewsPublished(Event):
    """A news item (from the news generator or a scheduled shock) that agents may read."""

    type: Literal["news.published"] = "news.published"


class MarketCleared(Event):
    """Result of one market clearing: quantities, prices, rationing."""

    type: Literal["market.cleared"] = "market.cleared"


class EnvironmentUpdated(Event):
    """End-of-tick summary of the environment (the public indicators a snapshot shows)."""

    type: Literal["env.updated"] = "env.updated"


class DecisionPoint(Event):
    """A scheduled moment at which agents decide (payload says who and about what)."""

    type: Literal["decision.point"] = "decision.point"


class ActionResult(Event):
    """Outcome of actions: what was intended, what was executed, what was refused and why."""

    type: Literal["action.result"] = "action.result"


class ModuleNotice(Event):
    """Communication between an agent's modules, e.g. 'module.memory.activated'."""

    @field_validator("type")
    @classmethod
    def _module_prefix(cls, value: str) -> str:
        if not value.startswith("module."):
            raise ValueError(f"module notices use the 'module.' prefix, got {value!r}")
        return value


Handler = Callable[[Event], None]


class Journal(Protocol):
    """Where a bus writes every event it publishes (agent.eventlog.EventLog writes Parquet)."""

    def write(self, event: Event) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


_LINE = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
"""Encoder of journal lines; refuses non-finite floats, which `Event.to_json` then writes as null."""


def journal_line(event: dict[str, Any]) -> str:
    """The JSONL line of an event given as a dict (`tick`, `type`, `source`, `payload`, `seq`), as the journal
    writes it."""
    try:
        return _LINE.encode(event)
    except (TypeError, ValueError):
        return json.dumps(_finite(event), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def matches(pattern: str, event_type: str) -> bool:
    """True when `pattern` selects `event_type`: '*' selects all, 'news' selects 'news' and 'news.*'."""
    if pattern == "*":
        return True
    return event_type == pattern or event_type.startswith(pattern + ".")


@dataclass(frozen=True)
class Subscription:
    """A handle returned by `EventBus.subscribe`; pass it to `unsubscribe`."""

    pattern: str
    handler: Handler
    priority: int
    order: int


@dataclass
class EventBus:
    """Publish/subscribe with deterministic order and an optional append-only journal: `journal` names a JSONL
    file, `sink` takes any `Journal`."""

    journal: str | Path | None = None
    sink: Journal | None = None
    strict: bool = False
    keep: int = 0
    errors: int = 0
    history: deque[Event] = field(default_factory=deque)
    _subs: list[Subscription] = field(default_factory=list)
    _queue: deque[Event] = field(default_factory=deque)
    _dispatching: bool = False
    _seq: int = 0
    _order: int = 0
    _fh: IO[str] | None = None

    def __post_init__(self) -> None:
        if self.keep < 0:
            raise ValueError(f"keep must be >= 0 (events kept in memory), got {self.keep}")
        self.history = deque(maxlen=self.keep)
        if self.journal is not None:
            path = Path(self.journal)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = path.open("a", encoding="utf-8")

    def subscribe(self, pattern: str, handler: Handler, priority: int = 0) -> Subscription:
        """Call `handler` for every event whose type equals `pattern` or starts with `pattern.`; '*' for all."""
        if pattern != "*":
            _check_type(pattern)
        sub = Subscription(pattern, handler, priority, self._order)
        self._order += 1
        self._subs.append(sub)
        self._subs.sort(key=lambda s: (s.priority, s.order))
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Remove a subscription; unknown handles are ignored."""
        if sub in self._subs:
            self._subs.remove(sub)

    def has_subscribers(self, event_type: str) -> bool:
        """Whether any handler would receive an event of this type (lets publishers skip costly payloads)."""
        return any(matches(s.pattern, event_type) for s in self._subs)

    def publish(self, event: Event) -> Event:
        """Number the event, journal it, and dispatch it (now, or after the event being dispatched)."""
        return self._numbered(event.model_copy(update={"seq": self._seq}))

    def _numbered(self, event: Event) -> Event:
        """Journal, keep and dispatch an event that already carries the next sequence number."""
        self._seq += 1
        if self._fh is not None:
            self._fh.write(event.to_json() + "\n")
        if self.sink is not None:
            self.sink.write(event)
        if self.keep:
            self.history.append(event)
        self._queue.append(event)
        if not self._dispatching:
            self._drain()
        return event

    def emit(self, tick: int, type: str, payload: dict[str, Any] | None = None, source: str = "") -> Event:
        """Shorthand for `publish(Event(...))` (the event is built with its number: no copy)."""
        return self._numbered(
            Event(tick=tick, type=type, payload=payload or {}, source=source, seq=self._seq)
        )

    def _drain(self) -> None:
        self._dispatching = True
        try:
            while self._queue:
                event = self._queue.popleft()
                for sub in list(self._subs):
                    if matches(sub.pattern, event.type):
                        self._call(sub, event)
        finally:
            self._dispatching = False

    def _call(self, sub: Subscription, event: Event) -> None:
        try:
            sub.handler(event)
        except Exception:
            if self.strict:
                raise
            self.errors += 1
            log.exception("bus handler for %r failed on event %s #%d", sub.pattern, event.type, event.seq)

    def flush(self) -> None:
        """Push journal lines to disk."""
        if self._fh is not None:
            self._fh.flush()
        if self.sink is not None:
            self.sink.flush()

    def close(self) -> None:
        """Close the journal (publishing afterwards still dispatches but no longer journals)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        if self.sink is not None:
            sink, self.sink = self.sink, None
            sink.close()

    def __enter__(self) -> EventBus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_journal(path: str | Path) -> list[Event]:
    """Load an events.jsonl file back into `Event` objects (in file order)."""
    out = []
    with Path(path).open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    out.append(Event.model_validate_json(line))
                except ValueError as exc:
                    raise ValueError(f"{path}:{n}: not a bus event: {exc}") from exc
    return out
