"""Affect-aware memory: store, embedders, hybrid recall, provenance graph, and the `Memory` facade."""

from psychoagent.embed import Embedder, HashingEmbedder, get_embedder
from psychoagent.memory.aio import AsyncMemory
from psychoagent.memory.api import Memory
from psychoagent.memory.config.recipes import RECALL_RECIPES, recall_recipe
from psychoagent.memory.contracts import Appraiser, MemoryStore
from psychoagent.memory.filters import FilterError
from psychoagent.memory.stores.sqlite import SQLiteStore

__all__ = [
    "RECALL_RECIPES",
    "Appraiser",
    "AsyncMemory",
    "Embedder",
    "FilterError",
    "HashingEmbedder",
    "Memory",
    "MemoryStore",
    "SQLiteStore",
    "get_embedder",
    "recall_recipe",
]
