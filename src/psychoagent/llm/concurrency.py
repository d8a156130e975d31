"""Concurrency helpers of the LLM layer: a global rate limiter and the private loop behind the sync API."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

R = TypeVar("R")


class RateLimiter:
    """Global cap on calls started per second, shared by every thread and event loop using it."""

    def __init__(self, per_s: float | None) -> None:
        self.interval = 1.0 / per_s if per_s else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    async def wait(self) -> None:
        """Reserve the next free slot and sleep until it comes."""
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next)
            self._next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


class _LoopThread:
    """A private event loop in a daemon thread that serves the sync API, so it works inside running loops too."""

    _instance: _LoopThread | None = None
    _guard = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="psychoagent-llm", daemon=True)
        self.thread.start()

    @classmethod
    def run(cls, coro: Coroutine[Any, Any, R]) -> R:
        with cls._guard:
            if cls._instance is None:
                cls._instance = cls()
        if threading.current_thread() is cls._instance.thread:
            coro.close()
            raise RuntimeError(
                "a sync LLM call was made from inside an async one; await the a* method instead"
            )
        return asyncio.run_coroutine_threadsafe(coro, cls._instance.loop).result()


def run_sync(coro: Coroutine[Any, Any, R]) -> R:
    """Run a coroutine to completion from sync code, on the shared private loop."""
    return _LoopThread.run(coro)
