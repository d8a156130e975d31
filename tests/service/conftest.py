"""A real service on a free loopback port, over an in-memory store with the hashing embedder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

ALICE_KEY = "alice-key-0123456789abcdef"
ADMIN_KEY = "admin-key-0123456789abcdef"


def _serve(keys: Any = None) -> Iterator[str]:
    pytest.importorskip("fastapi", reason="the 'server' extra is not installed")
    from psychoagent.service.app import create_app
    from psychoagent.service.background import serve_in_thread
    from psychoagent.service.hub import MemoryHub

    hub = MemoryHub.open(None, embedder="hash")
    with serve_in_thread(create_app(hub, keys, close_on_shutdown=True)) as url:
        yield url


@pytest.fixture
def server() -> Iterator[str]:
    yield from _serve()


@pytest.fixture
def client(server: str) -> Iterator[Any]:
    import httpx

    with httpx.Client(base_url=server, timeout=30) as c:
        yield c


@pytest.fixture
def keyed_server() -> Iterator[str]:
    from psychoagent.service.auth import KeyEntry, KeyRing

    ring = KeyRing([KeyEntry(key=ALICE_KEY, namespaces=["alice"]), KeyEntry(key=ADMIN_KEY, namespaces=["*"])])
    yield from _serve(ring)
