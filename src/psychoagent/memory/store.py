"""Where the stores used to live: kept so `psychoagent.memory.store` imports keep working (see `memory.stores`)."""

from psychoagent.memory.stores.base import UNIT_FIELDS as UNIT_COLUMNS
from psychoagent.memory.stores.base import MemoryStore, NamespaceRows, row_to_unit
from psychoagent.memory.stores.sqlite import SQLiteStore
from psychoagent.memory.stores.sqlite_schema import MIGRATIONS

SCHEMA_VERSION = len(MIGRATIONS)

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "UNIT_COLUMNS",
    "MemoryStore",
    "NamespaceRows",
    "SQLiteStore",
    "row_to_unit",
]
