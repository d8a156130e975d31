"""Tables both stores define alike, written once: each store's migrations fill in its SQL types.

`real` is a double (SQLite REAL, PostgreSQL DOUBLE PRECISION); `int64` a 64-bit integer (INTEGER, BIGINT).
"""

from __future__ import annotations

META = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"

CHANGES = """
    CREATE TABLE changes (id INTEGER PRIMARY KEY CHECK (id = 1), seq {int64} NOT NULL);
    INSERT INTO changes (id, seq) VALUES (1, 0);
"""
"""The change counter: every write transaction increments `seq` once and stamps the unit rows it writes."""

UNIT_COLUMNS = """\
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
        metadata_json TEXT NOT NULL DEFAULT '{{}}',
        created_at {real} NOT NULL,
        valid_at {real},
        invalid_at {real},
        access_count INTEGER NOT NULL DEFAULT 0,
        last_accessed_at {real},
"""
"""The memory unit columns both stores share, after the store's own key column (each adds its search columns)."""

EDGES = """
    CREATE TABLE edges (
        namespace TEXT NOT NULL,
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        type TEXT NOT NULL,
        weight {real} NOT NULL DEFAULT 1.0,
        created_at {real} NOT NULL,
        metadata_json TEXT NOT NULL DEFAULT '{{}}',
        PRIMARY KEY (namespace, src, dst, type)
    );
    CREATE INDEX edges_dst ON edges (namespace, dst);
"""

CONFLICTS = """
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
        created_at {real} NOT NULL,
        resolved_at {real},
        metadata_json TEXT NOT NULL DEFAULT '{{}}',
        PRIMARY KEY (namespace, id)
    );
    CREATE INDEX conflicts_side_a ON conflicts (namespace, side_a);
    CREATE INDEX conflicts_side_b ON conflicts (namespace, side_b);
"""


def sql(template: str, dialect: dict[str, str]) -> str:
    """A shared definition in one store's SQL types."""
    return template.format(**dialect)


def split_sql(script: str) -> list[str]:
    """Split a migration script into statements (no semicolons inside our statements' literals)."""
    return [s.strip() for s in script.split(";") if s.strip()]
