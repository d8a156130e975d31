"""Backends of `Memory`: SQLite (default) and PostgreSQL with pgvector (extra `postgres`, imported only when a
``postgresql://`` URL is opened), over one shared SQL layer (`sql`); the protocol they implement, `MemoryStore`, is a
contract of memory (`psychoagent.memory.contracts`)."""

from __future__ import annotations

from pathlib import Path

from psychoagent.memory.config import StoreConfig
from psychoagent.memory.contracts import MemoryStore
from psychoagent.memory.stores.sqlite import SQLiteStore
from psychoagent.memory.stores.urls import check_database_url, is_database_url, redact


def open_store(path: str | Path | None, config: StoreConfig | None = None) -> MemoryStore:
    """A store for `path`: None -> in-memory SQLite, a ``postgresql://`` URL -> PostgreSQL, else a SQLite file."""
    if is_database_url(path):
        from psychoagent.memory.stores.postgres import PostgresStore

        return PostgresStore(str(path), config)
    return SQLiteStore(path, config)


__all__ = ["MemoryStore", "SQLiteStore", "check_database_url", "is_database_url", "open_store", "redact"]
