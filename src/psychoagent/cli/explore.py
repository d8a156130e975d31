"""`psychoagent explore`: serve the explorer over a run folder and/or a memory file on loopback."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from psychoagent.cli.errors import fail
from psychoagent.cli.service import _extra
from psychoagent.service.auth import is_loopback


def explore(
    run: Annotated[Path | None, typer.Argument(help="run folder written by `psychoagent simulate`")] = None,
    db: Annotated[Path | None, typer.Option("--db", help="memory file (SQLite) to browse")] = None,
    host: Annotated[str, typer.Option(help="address to bind: loopback only")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port (0: any free port)")] = 8765,
    embedder: Annotated[
        str, typer.Option("--embedder", help="embedder the memory file was written with")
    ] = "e5",
) -> None:
    """Serve a web app to look inside a run's agents and a memory file (API docs at /docs); print its URL."""
    if run is None and db is None:
        fail("give a run folder (psychoagent explore runs/demo) or --db MEMORY_FILE")
    if not is_loopback(host):
        fail(f"--host {host} is not a loopback address: the explorer serves this machine only")
    uvicorn = _extra("explore", "uvicorn")
    _extra("explore", "plotly")
    create_app = _extra("explore", "psychoagent.explore.app").create_app
    from psychoagent.explore.config import ExploreConfig
    from psychoagent.explore.index import RunIndex, use_memory_pool
    from psychoagent.explore.memory import open_store

    index = browser = None
    if run is not None:
        use_memory_pool(ExploreConfig().memory_pool)
        try:
            index = RunIndex.open(run, background=True)
        except (FileNotFoundError, ValueError) as exc:
            fail(str(exc))
    if db is not None:
        try:
            browser = open_store(db, embedder)
        except ValueError as exc:
            fail(f"--db: {exc}")
    if port == 0:
        port = _free_port(host)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"http://{shown}:{port}/")
    typer.echo(
        f"exploring {', '.join(str(p) for p in (run, db) if p is not None)}; API docs at /docs", err=True
    )
    try:
        uvicorn.run(create_app(index, browser), host=host, port=port, log_level="warning")
    finally:
        if browser is not None:
            browser.close()


def _free_port(host: str) -> int:
    """A port free on `host` now, so the printed URL names the port the server then binds."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def register(app: typer.Typer) -> None:
    """Add `explore` to the top-level command."""
    app.command("explore")(explore)
