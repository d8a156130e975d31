"""A tiny cognitive run (with a shock, memories, conflicts and traced decisions), a small memory file with a
superseded fact and a conflict, and the explorer served over both on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.report.conftest import shocked_run


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 cognitive households over 30 months, a demand shock in month 13."""
    return shocked_run(tmp_path_factory, "explore-run", agents=12, ticks=30, seed=2, policy="cognitive")


@pytest.fixture(scope="session")
def memory_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A memory file: a move that supersedes an address, a change of heart recorded as a conflict."""
    from psychoagent.memory import Memory

    path = tmp_path_factory.mktemp("explore-memory") / "mem.db"
    mem = Memory(path, namespace="alice", embedder="hash")
    old = mem.observe("Alice lives in Berlin.", timestamp="2024-01-01")
    new = mem.observe("Alice moved to Paris.", timestamp="2024-06-01")
    mem.supersede(old.id, new, reason="moved")
    mem.observe("I love my job at the bakery.", timestamp="2024-02-01")
    mem.observe("I hate my job at the bakery, the boss shouts.", timestamp="2024-03-01")
    mem.close()
    return path


@pytest.fixture(scope="session")
def explorer(run_dir: Path, memory_file: Path) -> Iterator[str]:
    """The explorer over the run and the memory file; yields its base URL."""
    pytest.importorskip("fastapi", reason="the 'explore' extra is not installed")
    pytest.importorskip("plotly", reason="the 'explore' extra is not installed")
    from psychoagent.explore.app import create_app
    from psychoagent.explore.index import RunIndex
    from psychoagent.explore.memory import open_store
    from psychoagent.service.background import serve_in_thread

    browser = open_store(memory_file, "hash")
    try:
        with serve_in_thread(create_app(RunIndex.open(run_dir), browser)) as url:
            yield url
    finally:
        browser.close()


@pytest.fixture
def client(explorer: str) -> Iterator[object]:
    import httpx

    with httpx.Client(base_url=explorer, timeout=30) as c:
        yield c
