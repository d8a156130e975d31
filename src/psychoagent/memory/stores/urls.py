"""Database URLs: which paths select the PostgreSQL store, their form, and their text without the password."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
"""URL prefixes that select the PostgreSQL store."""


def is_database_url(path: object) -> bool:
    """True for a PostgreSQL URL (as opposed to a file path)."""
    return isinstance(path, str) and path.startswith(POSTGRES_SCHEMES)


def redact(url: str) -> str:
    """A database URL without its password (for messages and logs)."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


def check_database_url(url: str) -> None:
    """Raise ValueError saying what is wrong with the form of a PostgreSQL URL (connecting is left to the store)."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a port that is no number or out of range
    except ValueError as exc:
        raise ValueError(
            f"not a valid PostgreSQL URL ({exc}); write postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
        ) from exc
    if parts.fragment:
        raise ValueError("a PostgreSQL URL has no '#' part (quote a '#' in the password as %23)")
