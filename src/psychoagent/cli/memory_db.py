"""Opening the store that `--db` names for the memory commands: a memory file or a PostgreSQL URL, checked first."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from psychoagent.cli.errors import fail

__all__ = ["MEMORY_TABLES", "check_db", "open_memory", "resolve_db"]


def check_db(db: Path, must_exist: bool) -> None:
    """Exit 2 unless --db names a memory file (or, when allowed, a new file in an existing folder); a text
    file or another program's SQLite file is refused before anything is written to it."""
    if db.is_dir():
        fail(f"--db {db} is a folder; give a memory file (SQLite)")
    if not db.exists():
        if must_exist:
            fail(f"--db {db} does not exist; create it with `psychoagent memory ingest`")
        if not db.parent.is_dir():
            fail(f"--db {db}: folder {db.parent} does not exist; create it first")
        return
    try:
        with closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro&immutable=1", uri=True)) as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        fail(f"--db {db} is not a SQLite memory file ({exc})")
    if tables and not tables >= MEMORY_TABLES:
        fail(
            f"--db {db} is a SQLite file of another program (tables: {', '.join(sorted(tables)[:5])}); "
            "give a memory file or a new path"
        )


def resolve_db(db: str, must_exist: bool) -> str | Path:
    """--db as the store to open: a PostgreSQL URL (its form checked; the server is asked when it is opened) or a
    memory file (checked by `check_db`). Anything else with a scheme is refused with exit 2."""
    from psychoagent.memory.stores import check_database_url, is_database_url, redact

    if is_database_url(db):
        try:
            check_database_url(db)
        except ValueError as exc:
            fail(f"--db {redact(db)}: {exc}")
        return db
    scheme = db.split("://", 1)[0] if "://" in db else ""
    if scheme and scheme.replace("+", "").isalnum():
        fail(f"--db {redact(db)}: unsupported scheme {scheme!r}; give a memory file or a postgresql:// URL")
    check_db(Path(db), must_exist)
    return Path(db)


def open_memory(target: str | Path, namespace: str, embedder: str, recipe: str = "default") -> Any:
    """The `Memory` of --db recalling by recall recipe `recipe` (`memory.config.recipes`); an unknown recipe, or a
    database that cannot be opened (server down, bad credentials, no pgvector, the extra missing) stops with one
    line and exit 2."""
    from psychoagent.memory.api import Memory
    from psychoagent.memory.config import MemoryConfig
    from psychoagent.memory.config.recipes import recall_recipe
    from psychoagent.memory.stores import redact

    try:
        config = MemoryConfig(recall=recall_recipe(recipe))
    except ValueError as exc:
        fail(f"--recipe: {exc}")
    if isinstance(target, Path):
        return Memory(target, namespace=namespace, embedder=embedder, config=config)
    try:
        return Memory(target, namespace=namespace, embedder=embedder, config=config)
    except Exception as exc:  # every failure to open a database is a bad --db for the user
        fail(f"--db {redact(target)}: {' '.join(str(exc).split())}")


MEMORY_TABLES = {"meta", "units"}
"""Tables every memory file has; a SQLite file without them belongs to another program."""
