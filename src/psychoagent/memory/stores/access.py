"""Write-behind access counts: recall's one write per query, deferred and grouped.

Every recall counts its results as accessed (`RecallConfig.track_access`); written through, that is one write
transaction per recall (0.15-0.3 ms at 100k units here, docs/benchmarks.md). `AccessBuffer` wraps the store: it
keeps the counts in memory and writes them, all at once, inside the next write transaction or in one of their own
before any other call reaches the store (a read of many units, a count), on `close`, at interpreter exit, and at
most `flush_seconds` after the first unwritten one (one timer at a time), so another process reads them that late at
most. Units this process reads back carry their unwritten counts, and the in-memory index counts them at once, so
recall ranks as if they were written. A killed process (``kill -9``) loses the counts of its last `flush_seconds`.
"""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from psychoagent.memory.contracts import ChangedUnit, MemoryStore
from psychoagent.types import MemoryUnit, to_datetime

_UNBUFFERED = frozenset(
    {"record_access", "get_units", "changes", "poll_changes", "mark_seen", "close", "flush", "unit_facts",
     "counter", "seen", "snapshot_folder"}
)  # fmt: skip
"""Store calls that do not write the buffered counts first: the recall path itself (its texts, `unit_facts`, carry
no counts), the catch-up with other processes (whose units are read with the unwritten counts counted in) and the
change counter's reads."""


class AccessBuffer:
    """A `MemoryStore` that defers `record_access` (see the module docstring); every other call goes through."""

    def __init__(self, store: MemoryStore, flush_seconds: float) -> None:
        self._store = store
        self._flush_seconds = flush_seconds
        self._pending: dict[str, dict[str, tuple[int, float]]] = {}
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._pid = os.getpid()
        self._closed = False
        ref = weakref.ref(self)
        self._at_exit: Callable[[], None] = lambda: _flush_if_alive(ref)
        atexit.register(self._at_exit)

    @property
    def inner(self) -> MemoryStore:
        """The wrapped store."""
        return self._store

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._store, name)
        if name in _UNBUFFERED or not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            self.flush()
            return value(*args, **kwargs)

        return call

    def record_access(self, namespace: str, ids: Sequence[str], when: float, times: int = 1) -> None:
        """Count `times` accesses for each id, written later (see the module docstring)."""
        if not ids:
            return
        with self._lock:
            counts = self._pending.setdefault(namespace, {})
            for uid in dict.fromkeys(ids):
                counts[uid] = (counts.get(uid, (0, when))[0] + times, when)
            if self._timer is None:  # one timer at a time; a flush before it fires leaves it to find nothing
                self._timer = threading.Timer(self._flush_seconds, self._timer_fired)
                self._timer.daemon = True
                self._timer.start()

    def _timer_fired(self) -> None:
        with self._lock:
            self._timer = None
        self.flush()

    def get_units(self, namespace: str, ids: Sequence[str]) -> list[MemoryUnit]:
        """Units by id, with the accesses not yet written counted in."""
        units = self._store.get_units(namespace, ids)
        self._count_in(units)
        return units

    def changes(self, since: int, upto: int, model: str, namespaces: Sequence[str]) -> list[ChangedUnit]:
        """Units other processes changed, with this process's unwritten accesses counted in (as the in-memory
        index already counts them); writing them here would stamp them past `upto` and out of this read."""
        changed = self._store.changes(since, upto, model, namespaces)
        self._count_in([item.unit for item in changed])
        return changed

    def _count_in(self, units: Sequence[MemoryUnit]) -> None:
        """Add the unwritten accesses to units read from the store."""
        with self._lock:
            for unit in units:
                found = self._pending.get(unit.namespace, {}).get(unit.id)
                if found is not None:
                    unit.access_count += found[0]
                    unit.last_accessed_at = to_datetime(found[1])

    def flush(self) -> None:
        """Write the buffered counts in one transaction (nothing when none are buffered)."""
        pending = self._take()
        if pending:
            with self._writing(pending):
                pass

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """The store's transaction, with the buffered counts written inside it rather than in one of their own
        before it (a write after recalls then commits once)."""
        with self._writing(self._take()) as conn:
            yield conn

    @contextmanager
    def _writing(self, pending: dict[str, dict[str, tuple[int, float]]]) -> Iterator[Any]:
        """A store transaction that starts by writing `pending`; rolled back, they go back to the buffer."""
        try:
            with self._store.transaction() as conn:
                self._write(pending)
                yield conn
        except BaseException:
            self._restore(pending)
            raise

    def _take(self) -> dict[str, dict[str, tuple[int, float]]]:
        """The buffered counts, removed from the buffer (none in a forked child, whose parent writes its own, or
        once closed)."""
        with self._lock:
            pending, self._pending = self._pending, {}
        return {} if self._closed or os.getpid() != self._pid else pending

    def _write(self, pending: dict[str, dict[str, tuple[int, float]]]) -> None:
        for namespace, counts in pending.items():
            groups: dict[tuple[int, float], list[str]] = {}  # one statement per distinct (count, time)
            for uid, (count, when) in counts.items():
                groups.setdefault((count, when), []).append(uid)
            for (count, when), ids in groups.items():
                self._store.record_access(namespace, ids, when, count)

    def _restore(self, pending: dict[str, dict[str, tuple[int, float]]]) -> None:
        """Put counts that were not written back, for the next flush."""
        with self._lock:
            for namespace, counts in pending.items():
                mine = self._pending.setdefault(namespace, {})
                for uid, (count, when) in counts.items():
                    later = mine.get(uid)
                    mine[uid] = (count + later[0], later[1]) if later else (count, when)

    def close(self) -> None:
        """Write the buffered counts, then close the store."""
        self.flush()
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        self._closed = True
        atexit.unregister(self._at_exit)
        self._store.close()


def _flush_if_alive(ref: weakref.ref[AccessBuffer]) -> None:
    """At interpreter exit: write what a buffer still holds (a closed store has nothing left)."""
    buffer = ref()
    if buffer is not None and buffer._pending:
        buffer.flush()
