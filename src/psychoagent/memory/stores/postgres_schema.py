"""Schema of the PostgreSQL store and the binary adapter that sends numpy vectors as pgvector values.

Same tables as the SQLite store. Keyword rows are a `tsvector` built from the stemmed tokens of the same
segmentation (jieba words for Chinese), so English and Chinese match alike without a text-search configuration
or pg_trgm. Vectors keep their float32 bytes (loaded into the in-memory index) beside a pgvector column with one
HNSW index per embedding model and dimension (`hnsw_index_sql`).
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import numpy as np

from psychoagent.memory.stores.tables import CHANGES, CONFLICTS, EDGES, META, UNIT_COLUMNS, split_sql, sql

POSTGRES = {"real": "DOUBLE PRECISION", "int64": "BIGINT"}
"""PostgreSQL's types for the shared table definitions."""

MIGRATION_LOCK = 0x70737963686F
"""Advisory lock key held while migrating, so processes opening a new database migrate it exactly once."""

# Each entry upgrades the schema from version i to i + 1. Never edit a released entry: append a new one.
MIGRATIONS: list[str] = [
    """
    CREATE EXTENSION IF NOT EXISTS vector;
    """
    + META
    + sql(CHANGES, POSTGRES)
    + """
    CREATE TABLE units (
        pk BIGSERIAL PRIMARY KEY,
"""
    + sql(UNIT_COLUMNS, POSTGRES)
    + """        segmented TEXT NOT NULL DEFAULT '',
        terms TSVECTOR NOT NULL DEFAULT ''::tsvector,
        changed BIGINT NOT NULL DEFAULT 0,
        UNIQUE (namespace, id)
    );
    CREATE INDEX units_ns_created ON units (namespace, created_at);
    CREATE INDEX units_changed ON units (changed);
    CREATE INDEX units_hash ON units (content_hash);
    CREATE INDEX units_terms ON units USING gin (terms);
    CREATE TABLE vectors (
        model TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        dim INTEGER NOT NULL,
        data BYTEA NOT NULL,
        embedding vector NOT NULL,
        PRIMARY KEY (model, content_hash)
    );
    """
    + sql(EDGES, POSTGRES)
    + sql(CONFLICTS, POSTGRES),
    # each namespace's live units: loading a namespace and scrubbing a forgotten unit's quotes skip tombstones
    "CREATE INDEX units_live ON units (namespace, pk) WHERE kind <> 'forgotten';",
]


__all__ = [
    "MIGRATIONS",
    "MIGRATION_LOCK",
    "Vector",
    "hnsw_index_name",
    "split_sql",
    "tsquery",
    "vector_dumper",
]


def hnsw_index_name(model: str, dim: int) -> str:
    """Name of the HNSW index of one embedding model's vectors (a digest: model names are free text)."""
    return "vectors_hnsw_" + hashlib.blake2b(f"{model}|{dim}".encode(), digest_size=6).hexdigest()


class Vector:
    """A float32 vector to be sent to PostgreSQL as a pgvector value (binary format)."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values


def vector_dumper(oid: int) -> Any:
    """A psycopg binary dumper class for `Vector` bound to the database's `vector` type oid."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format

    class VectorDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: Any) -> bytes:
            values = np.asarray(obj.values, dtype=">f4")
            return struct.pack(">HH", values.shape[0], 0) + values.tobytes()

    VectorDumper.oid = oid
    return VectorDumper


def tsquery(stems: list[str]) -> str:
    """An OR tsquery of exact lexemes, quoted so no token is read as an operator."""
    quoted = ("'" + s.replace("\\", "\\\\").replace("'", "''") + "'" for s in dict.fromkeys(stems))
    return " | ".join(quoted)
