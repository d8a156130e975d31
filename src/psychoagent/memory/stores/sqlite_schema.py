"""Schema of the SQLite store: one migration per version, applied in order under the write lock.

Version 3 adds the change counter: every write transaction increments `changes.seq` once and stamps the unit
rows it writes with that value in `units.changed`, so another connection fetches only what changed.
Version 4 stores vectors in a rowid table with a unique (model, hash) index: in the former WITHOUT ROWID table
each 1.5 KB vector row was inserted at a random place of the primary key's B-tree, three times the cost of an
append plus a small index entry (measured with 384-d vectors, docs/benchmarks.md).
Version 5 drops the (namespace, created_at) index: no query reads it (time filters run on the in-memory index,
and every SQL read of units is by namespace and id or in pk order), and keeping it cost 12% of a unit row's
insert (0.6 of 5.0 us, docs/benchmarks.md).
Version 6 indexes units by content hash (forgetting asks whether another unit shares the forgotten one's vector)
and keeps a partial index of each namespace's live units, so loading a namespace and scrubbing quotes of a
forgotten unit read its live rows, not its tombstones (under steady forgetting they outnumber the live ones).
"""

from psychoagent.memory.stores.tables import CHANGES, CONFLICTS, EDGES, META, UNIT_COLUMNS, split_sql, sql

SQLITE = {"real": "REAL", "int64": "INTEGER"}
"""SQLite's types for the shared table definitions."""

# Each entry upgrades the schema from version i to i + 1. Never edit a released entry: append a new one.
MIGRATIONS: list[str] = [
    META
    + """
    CREATE TABLE units (
        pk INTEGER PRIMARY KEY,
"""
    + sql(UNIT_COLUMNS, SQLITE)
    + """        UNIQUE (namespace, id)
    );
    CREATE INDEX units_ns_created ON units (namespace, created_at);
    CREATE VIRTUAL TABLE units_fts USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2');
    CREATE TABLE vectors (
        model TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        dim INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (model, content_hash)
    ) WITHOUT ROWID;
    """
    + sql(EDGES, SQLITE),
    sql(CONFLICTS, SQLITE),
    sql(CHANGES, SQLITE)
    + """
    ALTER TABLE units ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX units_changed ON units (changed);
    """,
    """
    CREATE TABLE vectors_by_rowid (
        model TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        dim INTEGER NOT NULL,
        data BLOB NOT NULL,
        UNIQUE (model, content_hash)
    );
    INSERT INTO vectors_by_rowid (model, content_hash, dim, data) SELECT model, content_hash, dim, data FROM vectors;
    DROP TABLE vectors;
    ALTER TABLE vectors_by_rowid RENAME TO vectors;
    """,
    "DROP INDEX IF EXISTS units_ns_created;",
    """
    CREATE INDEX units_hash ON units (content_hash);
    CREATE INDEX units_live ON units (namespace, pk) WHERE kind <> 'forgotten';
    """,
]

__all__ = ["MIGRATIONS", "split_sql"]
