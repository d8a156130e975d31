"""`MemoryHub`: one open `Memory` per file, its namespace views, and one lock that serialises access to them.

The REST service, the MCP server and the memory CLI all go through a hub, so they validate and answer alike.
The memory is single-process (another process's writes are not seen by an open index), so a server holds exactly
one `Memory` per file and runs every operation under the hub's lock.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from psychoagent.memory import FilterError, Memory
from psychoagent.memory.config import MemoryConfig
from psychoagent.memory.history import History, history
from psychoagent.memory.inputs import InvalidArgument
from psychoagent.service.models import (
    BriefRequest,
    ObserveRequest,
    RecallRequest,
    SupersedeRequest,
    UnitList,
)
from psychoagent.types import Briefing, ConflictRecord, ConflictStatus, MemoryUnit, Recall


class ServiceError(Exception):
    """A request the memory cannot serve; `status` is the HTTP status, `field` the argument at fault."""

    status = 422

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotFound(ServiceError):
    """No such unit in the namespace."""

    status = 404


class Clash(ServiceError):
    """The request contradicts what is stored (an id that already exists)."""

    status = 409


class MemoryHub:
    """Serialised access to one memory file and its namespaces."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.lock = threading.RLock()
        self._views: dict[str, Memory] = {memory.namespace: memory}
        self.recall_supports_at = "at" in inspect.signature(memory.recall).parameters

    @classmethod
    def open(
        cls, db: str | Path | None, embedder: str = "e5", config: MemoryConfig | None = None
    ) -> MemoryHub:
        """Open (or create) a memory file; `db=None` keeps it in memory."""
        return cls(Memory(db, namespace="default", embedder=embedder, config=config))

    def close(self) -> None:
        """Close the memory file."""
        with self.lock:
            self.memory.close()

    @contextmanager
    def view(self, namespace: str) -> Iterator[Memory]:
        """The namespace's view, held under the lock for the duration of the block."""
        with self.lock:
            view = self._views.get(namespace)
            try:
                if view is None:
                    view = self._views[namespace] = self.memory.for_namespace(namespace)
                yield view
            except InvalidArgument as exc:  # an argument the request model let through but the memory refuses
                raise ServiceError(f"field {exc.argument!r}: {exc.problem}", exc.argument) from exc

    # -- operations -----------------------------------------------------------------------------------------
    def observe(self, namespace: str, req: ObserveRequest) -> MemoryUnit:
        """Store one event; an id already in the namespace is a clash (409), not an overwrite."""
        with self.view(namespace) as mem:
            if req.id is not None and mem.get(req.id) is not None:
                raise Clash(f"field 'id': a unit with id {req.id!r} already exists in {namespace!r}", "id")
            try:
                return mem.observe(
                    req.text, goals=req.goals, timestamp=req.timestamp, metadata=req.metadata, id=req.id
                )
            except InvalidArgument:
                raise  # names its own argument; the view turns it into a ServiceError
            except ValueError as exc:
                raise ServiceError(f"field 'text': {exc}", "text") from exc

    def recall(self, namespace: str, req: RecallRequest) -> list[Recall]:
        """Hybrid recall; `at` is passed on only when this version of `Memory.recall` accepts it."""
        kwargs: dict[str, Any] = {}
        if req.at is not None:
            if not self.recall_supports_at:
                raise ServiceError(
                    "field 'at': this memory does not support point-in-time recall; leave 'at' out", "at"
                )
            kwargs["at"] = req.at
        with self.view(namespace) as mem:
            try:
                return mem.recall(req.query, k=req.k, where=req.where, **kwargs)
            except FilterError as exc:
                raise ServiceError(f"field 'where': {exc}", "where") from exc

    def brief(self, namespace: str, req: BriefRequest) -> Briefing:
        """The conflict-aware briefing for a decision."""
        with self.view(namespace) as mem:
            return mem.brief(req.query, k=req.k, context=req.context)

    def get(self, namespace: str, id: str) -> MemoryUnit:
        """One unit, or NotFound naming `id`."""
        with self.view(namespace) as mem:
            unit = mem.get(id)
        if unit is None:
            raise NotFound(f"field 'id': no unit {id!r} in namespace {namespace!r}", "id")
        return unit

    def history(self, namespace: str, id: str) -> History:
        """The unit's supersession chain with edges and conflicts, or NotFound."""
        with self.view(namespace) as mem:
            try:
                return history(mem, id)
            except KeyError as exc:
                raise NotFound(f"field 'id': no unit {id!r} in namespace {namespace!r}", "id") from exc

    def conflicts(self, namespace: str, status: ConflictStatus | None = None) -> list[ConflictRecord]:
        """Conflict records of the namespace, oldest first, optionally with one status."""
        with self.view(namespace) as mem:
            return mem.conflicts(status=None if status is None else status.value)

    def supersede(self, namespace: str, req: SupersedeRequest) -> tuple[MemoryUnit, MemoryUnit]:
        """Replace a fact by a new text or an existing unit; returns (old, new), both kept."""
        if (req.text is None) == (req.new_id is None):
            raise ServiceError("field 'text': give exactly one of 'text' and 'new_id'", "text")
        if req.new_id == req.old_id:
            raise ServiceError("field 'new_id': a unit cannot supersede itself", "new_id")
        with self.view(namespace) as mem:
            if mem.get(req.old_id) is None:
                raise NotFound(f"field 'old_id': no unit {req.old_id!r} in namespace {namespace!r}", "old_id")
            if req.new_id is not None:
                new_unit = mem.get(req.new_id)
                if new_unit is None:
                    raise NotFound(
                        f"field 'new_id': no unit {req.new_id!r} in namespace {namespace!r}", "new_id"
                    )
                new = mem.supersede(req.old_id, new_unit, reason=req.reason)
            else:
                assert req.text is not None
                new = mem.supersede(req.old_id, req.text, timestamp=req.timestamp, reason=req.reason)
            old = mem.get(req.old_id)
            assert old is not None
            return old, new

    def forget(self, namespace: str, id: str, reason: str = "") -> MemoryUnit:
        """Erase a unit's content and return its tombstone (see memory/forget.py)."""
        with self.view(namespace) as mem:
            try:
                return mem.forget(id, reason=reason)
            except KeyError as exc:
                raise NotFound(f"field 'id': no unit {id!r} in namespace {namespace!r}", "id") from exc

    def page(self, namespace: str, offset: int = 0, limit: int = 100) -> UnitList:
        """Units in insertion order from `offset`, at most `limit`, with the namespace's total."""
        with self.view(namespace) as mem:
            units = mem.units()
        return UnitList(units=units[offset : offset + limit], total=len(units))
