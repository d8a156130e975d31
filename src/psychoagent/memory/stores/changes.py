"""Change detection both SQL stores share: which value of the store's change counter a connection's caller has
reflected, against the counter read in one query."""

from __future__ import annotations

from typing import Any


class ChangeCounter:
    """Change detection both stores share: which value of the store's change counter this connection's caller
    has reflected, compared with the counter in one read (`_counter`, the store's)."""

    _lock: Any
    _seen: int

    def _counter(self) -> int:
        raise NotImplementedError

    def _in_transaction(self) -> bool:
        """Whether the caller has a transaction open: its own uncommitted rows are not another's changes."""
        return False

    def poll_changes(self) -> tuple[int, int] | None:
        """(last seen, now) when another connection changed units since the last look; one indexed read. Inside
        the caller's own transaction it answers None: the counter there already counts the caller's own writes,
        which its indexes hold, and what others committed before it began is caught up after the commit."""
        if self._in_transaction():
            return None
        now = self._counter()
        with self._lock:
            return None if now == self._seen else (self._seen, now)

    def counter(self) -> int:
        """The store's change counter now."""
        return self._counter()

    def seen(self) -> int:
        """The change counter this connection's caller reflects."""
        with self._lock:
            return self._seen

    def mark_seen(self, upto: int) -> None:
        with self._lock:
            self._seen = max(self._seen, upto)

    def _committed(self, stamp: int | None) -> None:
        """After committing a transaction stamped `stamp`: if nobody else wrote in between, this connection's own
        writes are already reflected (they went into the in-memory indexes as they were made)."""
        if stamp is not None:
            with self._lock:
                if stamp == self._seen + 1:
                    self._seen = stamp
