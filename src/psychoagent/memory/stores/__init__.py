"""Backends of `Memory`: the `MemoryStore` protocol, SQLite (default) and PostgreSQL with pgvector (extra
`postgres`, imported only when a ``postgresql://`` URL is opened)."""

from __future__ import annotations

from pathlib import Path

from psychoagent.config import StoreConfig
from psychoagent.memory.stores.base import MemoryStore
from psychoagent.memory.stores.sqlite import SQLiteStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
"""URL prefixes that select the PostgreSQL store."""


def is_database_url(path: object) -> bool:
    """True for a PostgreSQL URL (as opposed to a file path)."""
    return isinstance(path, str) and path.startswith(POSTGRES_SCHEMES)


def open_store(path: str | Path | None, config: StoreConfig | None = None) -> MemoryStore:
    """A store for `path`: None -> in-memory SQLite, a ``postgresql://`` URL -> PostgreSQL, else a SQLite file."""
    if is_database_url(path):
        from psychoagent.memory.stores.postgres import PostgresStore

        return PostgresStore(str(path), config)
    return SQLiteStore(path, config)


__all__ = ["MemoryStore", "SQLiteStore", "is_database_url", "open_store"]
