"""Concurrency helpers of the LLM layer: a global rate limiter, the private loop behind the sync API and
`sync_face`, which makes the blocking twin of an async method so a call is written once."""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

R = TypeVar("R")
S = TypeVar("S")
P = ParamSpec("P")


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


def sync_face(
    method: Callable[Concatenate[S, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[S, P], R]:
    """The blocking face of an async method `aNAME`: named NAME, same arguments, run to completion by `run_sync`."""

    @functools.wraps(method)
    def face(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return run_sync(method(self, *args, **kwargs))

    face.__name__ = method.__name__.removeprefix("a")
    face.__qualname__ = face.__qualname__.rsplit(".", 1)[0] + "." + face.__name__
    face.__doc__ = f"Blocking `{method.__name__}`: the same call, run to completion on a private event loop."
    return face
