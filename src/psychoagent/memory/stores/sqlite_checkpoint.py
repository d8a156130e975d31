"""Checkpoints of a SQLite file's WAL on a thread of their own, off the write path.

A checkpoint copies the WAL's pages into the database file and syncs both files; run by the committing
connection (SQLite's automatic checkpoint) it makes every few-thousandth commit wait for those writes and
fsyncs. SQLite documents the alternative used here (https://www.sqlite.org/wal.html, "Application-Initiated
Checkpoints"): a separate connection that runs PASSIVE checkpoints, which wait for no reader or writer. What a
commit guarantees does not change: a committed transaction is in the WAL before COMMIT returns, checkpointed or
not. The committing connection keeps SQLite's automatic checkpoint as a backstop, so the WAL stays bounded if
this thread falls behind.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import weakref

from psychoagent.memory.config import StoreConfig

log = logging.getLogger(__name__)

_PASSES = 4
"""Checkpoint passes in a row at most, each copying what was committed during the one before."""


class BackgroundCheckpointer:
    """Runs ``PRAGMA wal_checkpoint(PASSIVE)`` on its own connection each time `every_rows` more rows were written.

    The thread and its connection start with the first checkpoint that is due, so a store that only reads
    never has either.
    """

    def __init__(self, path: str, config: StoreConfig) -> None:
        self.path = path
        self.config = config
        self.every_rows = config.background_checkpoint_rows
        self.checkpoints = 0
        """Checkpoint passes run so far."""
        self._pending = 0
        self._wake = threading.Condition()
        self._due = False
        self._running = False
        self._closed = False
        self._thread: threading.Thread | None = None
        _LIVE.add(self)

    def committed(self, rows: int) -> None:
        """Count the rows a committed transaction wrote; wake the thread when a checkpoint is due."""
        self._pending += rows
        if self._pending < self.every_rows:
            return
        self._pending = 0
        with self._wake:
            if self._closed:
                return
            self._due = True
            if self._thread is None:  # started here, not in the store's constructor: a reader never needs it
                self._thread = threading.Thread(
                    target=self._run, name="psychoagent-wal-checkpoint", daemon=True
                )
                self._thread.start()
            self._wake.notify_all()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_ms)}")
            # a checkpoint syncs the files as its connection's level says: the store's own
            conn.execute(f"PRAGMA synchronous = {self.config.synchronous}")
        except sqlite3.Error as exc:
            log.warning("no background checkpoints of %s: %s", self.path, exc)
            return
        try:
            while True:
                with self._wake:
                    while not self._due and not self._closed:
                        self._wake.wait()
                    if self._closed:
                        return
                    self._due, self._running = False, True
                try:
                    self._checkpoint(conn)
                except sqlite3.Error as exc:  # the committing connection's automatic checkpoint still runs
                    log.warning("background checkpoint of %s failed: %s", self.path, exc)
                finally:
                    with self._wake:
                        self._running = False
                        self._wake.notify_all()
        finally:
            conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        """Copy the WAL into the file, then again what was committed meanwhile (a few passes at most): SQLite
        starts the WAL over at the next write only once every frame is copied, otherwise it keeps growing."""
        for _ in range(_PASSES):
            _, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.checkpoints += 1
            if copied >= frames:
                return

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until no checkpoint is due or running (False if `timeout` seconds passed first)."""
        with self._wake:
            return self._wake.wait_for(
                lambda: self._closed or self._thread is None or not (self._due or self._running), timeout
            )

    def close(self) -> None:
        """Stop the thread (after a checkpoint in progress) and close its connection."""
        with self._wake:
            self._closed = True
            self._wake.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()


_LIVE: weakref.WeakSet[BackgroundCheckpointer] = weakref.WeakSet()
"""Every checkpointer of this process, for the fork hook below."""


def _after_fork_in_child() -> None:
    """A forked child has none of its parent's threads: its copies stop (the automatic checkpoint remains) and get
    a fresh lock, which the parent's thread may have held at the fork."""
    for checkpointer in list(_LIVE):
        checkpointer._wake = threading.Condition()
        checkpointer._closed, checkpointer._thread, checkpointer._due, checkpointer._running = (
            True,
            None,
            False,
            False,
        )


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
