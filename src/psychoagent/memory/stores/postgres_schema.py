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

MIGRATION_LOCK = 0x70737963686F
"""Advisory lock key held while migrating, so processes opening a new database migrate it exactly once."""

# Each entry upgrades the schema from version i to i + 1. Never edit a released entry: append a new one.
MIGRATIONS: list[str] = [
    """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE changes (id INTEGER PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL);
    INSERT INTO changes (id, seq) VALUES (1, 0);
    CREATE TABLE units (
        pk BIGSERIAL PRIMARY KEY,
        namespace TEXT NOT NULL,
        id TEXT NOT NULL,
        content TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'episodic',
        tier TEXT NOT NULL DEFAULT 'long_term',
        valence INTEGER NOT NULL DEFAULT 0,
        arousal INTEGER NOT NULL DEFAULT 1,
        conflict_intensity INTEGER NOT NULL DEFAULT 0,
        affect_json TEXT NOT NULL,
        conflict_context TEXT NOT NULL DEFAULT '',
        sources_json TEXT NOT NULL DEFAULT '[]',
        metadata_json TEXT NOT NULL DEFAULT '{}',
        created_at DOUBLE PRECISION NOT NULL,
        valid_at DOUBLE PRECISION,
        invalid_at DOUBLE PRECISION,
        access_count INTEGER NOT NULL DEFAULT 0,
        last_accessed_at DOUBLE PRECISION,
        segmented TEXT NOT NULL DEFAULT '',
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
    CREATE TABLE edges (
        namespace TEXT NOT NULL,
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        type TEXT NOT NULL,
        weight DOUBLE PRECISION NOT NULL DEFAULT 1.0,
        created_at DOUBLE PRECISION NOT NULL,
        metadata_json TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (namespace, src, dst, type)
    );
    CREATE INDEX edges_dst ON edges (namespace, dst);
    CREATE TABLE conflicts (
        namespace TEXT NOT NULL,
        id TEXT NOT NULL,
        kind TEXT NOT NULL,
        side_a TEXT NOT NULL,
        side_b TEXT NOT NULL,
        description_a TEXT NOT NULL DEFAULT '',
        description_b TEXT NOT NULL DEFAULT '',
        intensity INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'unresolved',
        resolution TEXT NOT NULL DEFAULT '',
        created_at DOUBLE PRECISION NOT NULL,
        resolved_at DOUBLE PRECISION,
        metadata_json TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (namespace, id)
    );
    CREATE INDEX conflicts_side_a ON conflicts (namespace, side_a);
    CREATE INDEX conflicts_side_b ON conflicts (namespace, side_b);
    """,
]


def split_sql(script: str) -> list[str]:
    """Split a migration script into statements (no semicolons inside our statements' literals)."""
    return [s.strip() for s in script.split(";") if s.strip()]


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
