"""AsyncMemory: the same answers as Memory, awaited; the event loop keeps running while the worker embeds."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from psychoagent import AsyncMemory, Memory
from psychoagent.memory.inputs import InvalidArgument


async def test_same_answers_as_memory(tmp_path: Path) -> None:
    texts = ["Alice moved to Berlin.", "Bob likes green tea.", "Alice moved to Paris in May."]
    sync = Memory(tmp_path / "s.db", namespace="alice", embedder="hash")
    for t in texts:
        sync.observe(t, timestamp="2024-05-01T00:00:00Z")
    async with AsyncMemory(tmp_path / "a.db", namespace="alice", embedder="hash") as mem:
        for t in texts:
            await mem.observe(t, timestamp="2024-05-01T00:00:00Z")
        got = [h.unit.content for h in await mem.recall("Where does Alice live?", k=3)]
        want = [h.unit.content for h in sync.recall("Where does Alice live?", k=3)]
        assert got == want
        brief = await mem.brief("Where does Alice live?", k=3)
        assert brief.text == sync.brief("Where does Alice live?", k=3).text
        assert len(await mem.units()) == 3 and await mem.namespace() == "alice"
        await mem.observe("A rule of thumb.", kind="semantic")
        assert [u.content for u in await mem.units(kind="semantic")] == ["A rule of thumb."]
        assert len(await mem.units(kind="episodic")) == 3 and sync.units(kind="goal") == []
        with pytest.raises(InvalidArgument, match="kind"):
            sync.units(kind="")
    sync.close()


async def test_calls_run_off_the_loop_in_order() -> None:
    async with AsyncMemory(embedder="hash") as mem:
        loop_thread = threading.get_ident()
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        units = await asyncio.gather(*(mem.observe(f"event number {i}") for i in range(40)))
        task.cancel()
        assert ticks > 0  # the loop ran while the worker wrote
        assert [u.content for u in await mem.units()] == [u.content for u in units]
        worker = mem._pool.submit(threading.get_ident).result()
        assert worker != loop_thread


async def test_errors_and_namespace_views(tmp_path: Path) -> None:
    async with AsyncMemory(tmp_path / "m.db", namespace="a", embedder="hash") as mem:
        with pytest.raises(InvalidArgument):
            await mem.recall("q", k=-1)
        other = mem.for_namespace("b")
        await other.observe("only in b")
        assert await other.namespace() == "b" and len(await mem.units()) == 0
        await other.aclose()  # a view leaves the store open
        await mem.observe("still writable")
        assert sorted(await mem.namespaces()) == ["a", "b"]
    broken = AsyncMemory(namespace="", embedder="hash")
    with pytest.raises(InvalidArgument):
        await broken.observe("x")
    await broken.aclose()
