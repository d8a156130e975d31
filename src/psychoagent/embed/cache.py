"""Embeddings kept by content: a stable key of a text and an in-process LRU of document vectors."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np


def content_hash(text: str) -> str:
    """Stable key of a text for the embedding cache."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


class EmbeddingCache:
    """In-process LRU of document embeddings by content hash, in front of the persistent SQLite cache."""

    def __init__(self, capacity: int = 10000) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> np.ndarray | None:
        vec = self._items.get(key)
        if vec is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return vec

    def put(self, key: str, vec: np.ndarray) -> None:
        if self.capacity <= 0:
            return
        self._items[key] = vec
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)
