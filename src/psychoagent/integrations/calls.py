"""Calls to a `Memory` or an `AsyncMemory` from framework code, sync or async, so every adapter takes either.

A `Memory` is called under one lock per store (adapters' calls from worker threads never overlap on it); its async
calls run on a thread. An `AsyncMemory` is awaited; its sync calls run it on a private event loop.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from psychoagent.memory.aio import AsyncMemory
from psychoagent.memory.api import Memory
from psychoagent.types import MemoryUnit

MemoryLike = Memory | AsyncMemory
"""What an adapter takes: a `Memory` (one namespace view) or an `AsyncMemory`."""

_LOCKS: weakref.WeakKeyDictionary[Any, threading.RLock] = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def check_memory(memory: Any) -> MemoryLike:
    """`memory` when it is a `Memory` or an `AsyncMemory`; a TypeError naming what it got otherwise."""
    if not isinstance(memory, Memory | AsyncMemory):
        raise TypeError(f"memory must be a psychoagent Memory or AsyncMemory, got {type(memory).__name__}")
    return memory


def _lock(memory: Memory) -> threading.RLock:
    with _GUARD:
        return _LOCKS.setdefault(memory.store, threading.RLock())


def call(memory: MemoryLike, name: str, *args: Any, **kwargs: Any) -> Any:
    """`memory.name(*args, **kwargs)`, its result awaited when the memory is an `AsyncMemory`."""
    if isinstance(memory, AsyncMemory):

        def run() -> Any:
            return asyncio.run(getattr(memory, name)(*args, **kwargs))

        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop in this thread: run one here
            return run()
        with ThreadPoolExecutor(max_workers=1) as pool:  # a loop runs here: it must not wait on itself
            return pool.submit(run).result()
    with _lock(memory):
        return getattr(memory, name)(*args, **kwargs)


async def acall(memory: MemoryLike, name: str, *args: Any, **kwargs: Any) -> Any:
    """`memory.name(*args, **kwargs)` without blocking the event loop."""
    if isinstance(memory, AsyncMemory):
        return await getattr(memory, name)(*args, **kwargs)
    return await asyncio.to_thread(call, memory, name, *args, **kwargs)


CHAT_KIND = "chat"
"""The kind of the units adapters store a conversation's messages or items as."""


def session_units(units: list[MemoryUnit], session: str, key: str) -> list[MemoryUnit]:
    """The live units (in insertion order) an adapter stored for `session`: metadata `session` and `key` set."""
    return [u for u in units if u.metadata.get("session") == session and key in u.metadata]
