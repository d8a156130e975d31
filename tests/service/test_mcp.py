"""The MCP server in a subprocess, driven by the official SDK's client exactly as an MCP host would."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def _params(db: Path, *extra: str) -> StdioServerParameters:
    args = ["-m", "psychoagent", "mcp", "--db", str(db), "--embedder", "hash", *extra]
    return StdioServerParameters(command=sys.executable, args=args)


def _data(result: Any) -> Any:
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


async def test_mcp_tools_observe_recall_brief_supersede_forget(tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"
    async with stdio_client(_params(db)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        assert names == {"observe", "recall", "brief", "conflicts", "supersede", "forget"}
        berlin = _data(
            await session.call_tool("observe", {"text": "Alice lives in Berlin.", "namespace": "alice"})
        )
        paris = _data(
            await session.call_tool("observe", {"text": "Alice moved to Paris.", "namespace": "alice"})
        )
        hits = _data(await session.call_tool("recall", {"query": "Where does Alice live?", "k": 2,
                                                        "namespace": "alice"}))["hits"]  # fmt: skip
        assert {h["unit"]["id"] for h in hits} == {berlin["id"], paris["id"]}
        assert "affect" in hits[0]["unit"] and "relevance" in hits[0]["parts"]
        brief = _data(
            await session.call_tool("brief", {"query": "Where does Alice live?", "namespace": "alice"})
        )
        assert "Alice moved to Paris." in brief["text"] and brief["conflicts"]
        records = _data(await session.call_tool("conflicts", {"namespace": "alice"}))["conflicts"]
        assert [(r["side_a"], r["side_b"]) for r in records] == [(berlin["id"], paris["id"])]
        swap = _data(await session.call_tool("supersede", {"old_id": paris["id"], "text": "Alice moved to Rome.",
                                                           "namespace": "alice"}))  # fmt: skip
        assert swap["old"]["invalid_at"] is not None and swap["new"]["content"] == "Alice moved to Rome."
        tomb = _data(await session.call_tool("forget", {"id": berlin["id"], "namespace": "alice"}))
        assert tomb["content"] == "[forgotten]" and "forgotten_at" in tomb["metadata"]
        empty = _data(await session.call_tool("recall", {"query": "Alice", "namespace": "bob"}))
        assert empty["hits"] == []
        bad = await session.call_tool("recall", {"query": "x", "k": 0, "namespace": "alice"})
        assert bad.is_error and "'k'" in bad.content[0].text
        blank = await session.call_tool("recall", {"query": "x", "namespace": " "})
        assert blank.is_error and "'namespace'" in blank.content[0].text
        missing = await session.call_tool("forget", {"id": "nope", "namespace": "alice"})
        assert missing.is_error and "'id'" in missing.content[0].text


async def test_mcp_fixed_namespace_refuses_others(tmp_path: Path) -> None:
    async with (
        stdio_client(_params(tmp_path / "m.db", "--namespace", "alice")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        unit = _data(await session.call_tool("observe", {"text": "Only Alice's."}))
        assert unit["namespace"] == "alice"
        other = await session.call_tool("recall", {"query": "x", "namespace": "bob"})
        assert other.is_error and "'namespace'" in other.content[0].text


async def test_mcp_refuses_coercion_unknown_arguments_and_hides_validator_internals(tmp_path: Path) -> None:
    async with (
        stdio_client(_params(tmp_path / "s.db")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        text_k = await session.call_tool("recall", {"query": "x", "k": "5"})
        assert text_k.is_error and "argument 'k'" in text_k.content[0].text
        bogus = await session.call_tool("observe", {"text": "Dave likes jazz.", "bogus": 1})
        assert bogus.is_error and "argument 'bogus'" in bogus.content[0].text
        assert _data(await session.call_tool("recall", {"query": "Dave jazz"}))["hits"] == [], (
            "nothing stored"
        )
        for stamp in ("yesterday-ish", 10.0**20, True):
            bad = await session.call_tool("observe", {"text": "Dave likes jazz.", "timestamp": stamp})
            message = bad.content[0].text
            assert bad.is_error and "argument 'timestamp'" in message, message
            assert (
                "function-after" not in message and "functools" not in message and "pydantic" not in message
            )
        nested = await session.call_tool(
            "observe", {"text": "Dave likes jazz.", "metadata": {"a": {"b": 10**400}}}
        )
        assert nested.is_error and "argument 'metadata" in nested.content[0].text, nested.content[0].text
        unit = _data(
            await session.call_tool("observe", {"text": "Dave likes jazz.", "timestamp": 1_700_000_000})
        )
        assert unit["content"] == "Dave likes jazz."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_mcp_streamable_http_on_loopback(tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    cmd = [sys.executable, "-m", "psychoagent", "mcp", "--db", str(tmp_path / "h.db"), "--embedder", "hash",
           "--http", str(port)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the MCP HTTP server did not start"
                await asyncio.sleep(0.1)
        async with (
            streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            unit = _data(await session.call_tool("observe", {"text": "Carol prefers tea."}))
            hits = _data(await session.call_tool("recall", {"query": "What does Carol drink?", "k": 1}))[
                "hits"
            ]
            assert [h["unit"]["id"] for h in hits] == [unit["id"]]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


_FUZZ_VALUES: list[Any] = [
    None, True, 0, -1, 5, 2**70, 1.5, float("1e308"), "", " ", "x", "5", "a\x00b", "\ud800"[:0] + "é", "tier = = ;",
    "valence < 0", "2024-01-01T00:00:00Z", [], ["a"], [1, 2], {}, {"a": 1}, {"a": {"b": [None]}}, "n" * 300,
]  # fmt: skip
_FUZZ_KEYS = ["text", "query", "k", "where", "context", "timestamp", "metadata", "goals", "id", "old_id", "new_id",
              "reason", "namespace", "status", "bogus", "at"]  # fmt: skip


async def test_mcp_random_argument_dicts_get_a_result_or_an_error_naming_an_argument(tmp_path: Path) -> None:
    import random

    rng = random.Random(11)
    async with (
        stdio_client(_params(tmp_path / "f.db")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        for _ in range(120):
            tool = rng.choice(tools)
            arguments = {key: rng.choice(_FUZZ_VALUES) for key in rng.sample(_FUZZ_KEYS, rng.randint(0, 4))}
            result = await session.call_tool(tool, arguments)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            assert "Traceback" not in text and "pydantic" not in text and "functools" not in text, (
                tool,
                text,
            )
            if result.is_error:
                assert "argument '" in text or "field '" in text or "no unit" in text, (tool, arguments, text)
        assert not (await session.call_tool("recall", {"query": "anything"})).is_error, (
            "the server still answers"
        )
