"""Affect-aware memory: store, embedders, hybrid recall, provenance graph, and the `Memory` facade."""

from psychoagent.memory.core import Appraiser, Memory
from psychoagent.memory.embed import Embedder, HashingEmbedder, get_embedder
from psychoagent.memory.filters import FilterError
from psychoagent.memory.store import MemoryStore, SQLiteStore

__all__ = [
    "Appraiser",
    "Embedder",
    "FilterError",
    "HashingEmbedder",
    "Memory",
    "MemoryStore",
    "SQLiteStore",
    "get_embedder",
]
