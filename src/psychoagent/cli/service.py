"""`psychoagent serve` (REST) and `psychoagent mcp` (Model Context Protocol) over one memory file."""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from psychoagent.cli.errors import fail
from psychoagent.service.auth import is_loopback

if TYPE_CHECKING:
    from psychoagent.service.hub import MemoryHub

DbArg = Annotated[
    str, typer.Option("--db", help="memory file (SQLite, created if missing) or a postgresql:// URL")
]
EmbArg = Annotated[str, typer.Option("--embedder", help="e5 (default, multilingual), hash, static, ...")]


def _extra(extra: str, module: str) -> Any:
    """Import a module of an optional extra, or exit naming the extra the command needs."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        fail(
            f"this command needs the '{extra}' extra: pip install 'psychoagent[{extra}]' ({exc.name} missing)"
        )


MALLOC_ARENAS = 2
"""glibc malloc arenas of the server process (glibc's default: 8 per core). The thread pool spreads requests over
up to 40 threads and each arena keeps what was freed in it: in bench_soak's mix (16 clients, SQLite, 4 min) the
freed memory malloc held grew from 49 to 100 MiB with the default and from 11 to 22 MiB with 2 arenas, at the same
throughput (12,072 and 12,024 requests); the live memory grew alike (39 to 53 MiB)."""


def _limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> None:
    """Cap glibc's malloc arenas before the server starts its threads (no effect on another C library)."""
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):
        return
    mallopt(-8, arenas)  # M_ARENA_MAX


SERVER_TEXT_CACHE = 4096
"""Texts each per-text analysis cache keeps in the server (`PSYCHOAGENT_TEXT_CACHE`; 32,768 in the library). The
caches hold about 5 KiB a text, so the library's size lets a long-running server grow by up to about 160 MiB as new
texts arrive; this one keeps it to about 20 MiB and still holds the working set of a few thousand live units."""


def _apply_text_cache(entries: int) -> None:
    """Size the per-text caches before the analysis modules are imported (their size is fixed when they are);
    a size already set in the environment wins."""
    if not os.environ.get("PSYCHOAGENT_TEXT_CACHE", "").strip():
        os.environ["PSYCHOAGENT_TEXT_CACHE"] = str(entries)


SERVER_PAGE_CACHE_MIB = 8
"""SQLite page cache of a server's connection (MiB; `StoreConfig.cache_size_kib` is 64 MiB in the library). The
cache fills with the pages a server touches, so under steady writing and forgetting it grows with the file (about
1.3 MiB a minute in the soak, docs/benchmarks.md); the operating system's file cache serves the rest. Recall reads
the in-process index: `soak_memory` answered 60,485 requests in 310 s with it against 56,846 with 64 MiB."""


def _open_hub(db: str, embedder: str, page_cache_mib: int = SERVER_PAGE_CACHE_MIB) -> MemoryHub:
    """The memory file both servers serve, or exit naming the option at fault."""
    from psychoagent.memory.config import MemoryConfig, StoreConfig
    from psychoagent.service.hub import MemoryHub

    config = MemoryConfig(store=StoreConfig(cache_size_kib=page_cache_mib * 1024))
    try:
        return MemoryHub.open(db, embedder=embedder, config=config)
    except ValueError as exc:
        fail(f"--db/--embedder: {exc}")


def serve(
    db: DbArg,
    host: Annotated[
        str, typer.Option(help="address to bind; other than loopback only with --keys")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port (0: any free port)")] = 8765,
    keys: Annotated[
        Path | None, typer.Option("--keys", help="keys.toml mapping bearer keys to namespaces")
    ] = None,
    embedder: EmbArg = "e5",
    text_cache: Annotated[
        int,
        typer.Option(
            "--text-cache",
            min=64,
            help="texts each analysis cache keeps (PSYCHOAGENT_TEXT_CACHE wins when set)",
        ),
    ] = SERVER_TEXT_CACHE,
    page_cache: Annotated[
        int, typer.Option("--page-cache", min=1, help="SQLite page cache of the file, MiB")
    ] = SERVER_PAGE_CACHE_MIB,
) -> None:
    """Serve the memory over HTTP (OpenAPI at /docs and /openapi.json)."""
    _apply_text_cache(text_cache)
    uvicorn = _extra("server", "uvicorn")
    create_app = _extra("server", "psychoagent.service.app").create_app
    from psychoagent.service.auth import KeyRing

    ring = None
    if keys is not None:
        try:
            ring = KeyRing.load(keys)
        except ValueError as exc:
            fail(str(exc))
    elif not is_loopback(host):
        fail(f"--host {host} is not a loopback address: pass --keys keys.toml to serve beyond this machine")
    _limit_malloc_arenas()
    hub = _open_hub(db, embedder, page_cache)
    app = create_app(hub, ring, close_on_shutdown=True)
    access = f"{len(ring.entries)} bearer keys" if ring else "no keys, loopback only"
    typer.echo(
        f"serving {hub.memory.store.path} on http://{host}:{port} ({access}); API docs at /docs", err=True
    )
    uvicorn.run(app, host=host, port=port, log_level="warning")


def mcp(
    db: DbArg,
    namespace: Annotated[
        str | None, typer.Option(help="fix every tool to this namespace (otherwise each call names one)")
    ] = None,
    http: Annotated[
        int | None,
        typer.Option("--http", min=0, max=65535, help="serve streamable HTTP on this loopback port"),
    ] = None,
    embedder: EmbArg = "e5",
) -> None:
    """Serve the memory as MCP tools over stdio (default) or streamable HTTP on loopback."""
    _apply_text_cache(SERVER_TEXT_CACHE)
    build_server = _extra("mcp", "psychoagent.service.mcp").build_server
    if namespace is not None and not namespace.strip():
        fail("--namespace must not be blank")
    hub = _open_hub(db, embedder)
    server = build_server(hub, namespace)
    try:
        if http is None:
            server.run("stdio")
        else:
            server.run("streamable-http", host="127.0.0.1", port=http)
    finally:
        hub.close()


def register(app: typer.Typer) -> None:
    """Add `serve` and `mcp` to the top-level command."""
    app.command("serve")(serve)
    app.command("mcp")(mcp)
