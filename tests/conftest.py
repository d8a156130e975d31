"""Fixtures shared by several test folders: a PostgreSQL server the suite starts itself (see tests/pg.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.pg import fresh_database, start_server


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A private PostgreSQL with pgvector for the whole session (stopped at the end)."""
    server = start_server(tmp_path_factory.mktemp("pgdata"))
    yield server
    server.cleanup()


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """URL of a fresh, migrated, empty database."""
    return fresh_database(pg_server.get_uri())
