"""`AsyncMemory`: the `Memory` API for asyncio servers and agents. Every call runs on one worker thread that owns
the memory (its store connection never changes thread), so the event loop never waits on embedding or SQLite, and
calls from one task keep their order.

    async with AsyncMemory("agent.db", namespace="alice", embedder="hash") as mem:
        await mem.observe("Alice moved to Berlin")
        hits = await mem.recall("Where does Alice live?", k=1)
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Concatenate, ParamSpec, TypeVar

from psychoagent.memory.api import Memory

P = ParamSpec("P")
R = TypeVar("R")


def _awaitable(method: Callable[Concatenate[Memory, P], R]) -> Callable[Concatenate[AsyncMemory, P], Coroutine[Any, Any, R]]:  # fmt: skip
    """The async twin of a `Memory` method: same arguments, same result, run on the memory's worker thread."""
    name = method.__name__

    async def call(self: AsyncMemory, *args: P.args, **kwargs: P.kwargs) -> R:
        memory = await self._ready()
        return await self._run(getattr(memory, name), *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"Async `Memory.{name}`: {method.__doc__ or ''}".strip()
    return call


class AsyncMemory:
    """`Memory` with awaitable methods; takes the same arguments as `Memory(...)` and opens it on its worker."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="psychoagent-memory")
        self._opened: Future[Memory] = self._pool.submit(Memory, *args, **kwargs)
        self._owner = True

    @classmethod
    def _view(cls, parent: AsyncMemory, opened: Future[Memory]) -> AsyncMemory:
        view = cls.__new__(cls)
        view._pool, view._opened, view._owner = parent._pool, opened, False
        return view

    async def _ready(self) -> Memory:
        """The opened memory (raises what opening it raised)."""
        return await asyncio.wrap_future(self._opened)

    async def _run(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    async def __aenter__(self) -> AsyncMemory:
        await self._ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the memory (the store too, when this is not a namespace view) and stop the worker."""
        if not self._owner:
            return
        try:
            memory: Memory | None = await self._ready()
        except Exception:  # it never opened: nothing to close
            memory = None
        if memory is not None:
            await self._run(memory.close)
        self._pool.shutdown(wait=False)

    def for_namespace(self, namespace: str) -> AsyncMemory:
        """A view of another namespace over the same store and worker (closing it leaves the store open)."""
        opened = self._pool.submit(lambda: self._opened.result().for_namespace(namespace))
        return AsyncMemory._view(self, opened)

    async def namespace(self) -> str:
        """The agent (namespace) this view reads and writes."""
        return (await self._ready()).namespace

    observe = _awaitable(Memory.observe)
    observe_many = _awaitable(Memory.observe_many)
    supersede = _awaitable(Memory.supersede)
    forget = _awaitable(Memory.forget)
    link = _awaitable(Memory.link)
    update = _awaitable(Memory.update)
    get = _awaitable(Memory.get)
    get_many = _awaitable(Memory.get_many)
    units = _awaitable(Memory.units)
    edges = _awaitable(Memory.edges)
    neighbours = _awaitable(Memory.neighbours)
    namespaces = _awaitable(Memory.namespaces)
    recall = _awaitable(Memory.recall)
    brief = _awaitable(Memory.brief)
    appraise = _awaitable(Memory.appraise)
    conflicts = _awaitable(Memory.conflicts)
    resolve_conflict = _awaitable(Memory.resolve_conflict)
    consolidate = _awaitable(Memory.consolidate)
