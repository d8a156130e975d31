"""The memory as a service, from a client's side: start `psychoagent serve` on loopback and talk REST to it, then
start `psychoagent mcp` over stdio and call the same memory as MCP tools (extras `server` and `mcp`).

    python examples/service_client.py
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import TextContent

PSYCHOAGENT = [sys.executable, "-m", "psychoagent"]
"""The command line of this interpreter's installation (works without activating a virtual environment)."""


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rest(db: Path) -> None:
    """Serve `db` over HTTP, store two memories, recall and brief, then stop the server."""
    port = free_port()
    server = subprocess.Popen(
        [*PSYCHOAGENT, "serve", "--db", str(db), "--port", str(port), "--embedder", "hash"]
    )
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            for _ in range(300):  # wait for the server to answer (up to 30 s)
                try:
                    if client.get("/health").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            for text in ("Alice lives in Berlin.", "Alice moved to Paris."):
                client.post("/v1/namespaces/alice/memories", json={"text": text}).raise_for_status()
            hits = client.post(
                "/v1/namespaces/alice/recall", json={"query": "Where does Alice live?", "k": 2}
            )
            print("REST recall:", [h["unit"]["content"] for h in hits.json()["hits"]])
            brief = client.post(
                "/v1/namespaces/alice/brief", json={"query": "Where does Alice live?", "k": 2}
            )
            print("REST brief conflicts:", len(brief.json()["conflicts"]))
    finally:
        server.terminate()
        server.wait(timeout=30)


async def mcp(db: Path) -> None:
    """Open the same file through the MCP server over stdio and recall with a tool call."""
    params = StdioServerParameters(command=PSYCHOAGENT[0], args=[*PSYCHOAGENT[1:], "mcp", "--db", str(db),
                                                                 "--namespace", "alice", "--embedder", "hash"])  # fmt: skip
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        print("MCP tools:", sorted(t.name for t in tools.tools))
        result = await session.call_tool("recall", {"query": "Where does Alice live?", "k": 2})
        text = "".join(part.text for part in result.content if isinstance(part, TextContent))
        hits = json.loads(text)["hits"]
        print("MCP recall:", [h["unit"]["content"] for h in hits])


def main() -> None:
    """REST first, then MCP, over one memory file in a temporary folder."""
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "service.db"
        rest(db)
        asyncio.run(mcp(db))


if __name__ == "__main__":
    main()
