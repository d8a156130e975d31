"""State shared by every namespace view of one `Memory`: store, embedder, embedding cache, per-namespace indexes."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from psychoagent.embed import Embedder, EmbeddingCache, content_hash, normalise
from psychoagent.memory.access import AccessBuffer
from psychoagent.memory.config import MemoryConfig
from psychoagent.memory.index import NamespaceIndex
from psychoagent.memory.refresh import catch_up
from psychoagent.memory.stores.base import MemoryStore

log = logging.getLogger(__name__)


class Shared:
    """State shared by every namespace view of one Memory: store, embedder, caches, per-namespace indexes."""

    def __init__(self, store: MemoryStore, embedder: Embedder, config: MemoryConfig) -> None:
        flush = config.recall.access_flush_seconds
        self.store: MemoryStore = AccessBuffer(store, flush) if flush > 0 else store
        self.embedder = embedder
        self.config = config
        self.cache = EmbeddingCache(config.embed_cache_size)
        self.indexes: dict[str, NamespaceIndex] = {}
        self.graphs: dict[str, Any] = {}
        self.seq: dict[str, int] = {}
        self.affect: dict[str, Any] = {}

    def refresh(self) -> None:
        """Bring the in-process indexes and affect state up to date with what other processes committed since the
        last look: one cheap read of the store's change counter, then only the changed rows (see `catch_up`)."""
        got = self.store.poll_changes()
        if got is None:
            return
        since, upto = got
        self.graphs.clear()  # edges of other processes: rebuilt lazily on the next graph read
        loaded = [ns for ns in {*self.indexes, *self.affect}]
        if loaded:
            catch_up(self, self.store.changes(since, upto, self.embedder.name, loaded))
        self.store.mark_seen(upto)

    def embed_documents(self, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Content hashes and unit vectors for texts, served from the LRU, then SQLite, then the embedder."""
        hashes = [content_hash(t) for t in texts]
        model = self.embedder.name
        found: dict[str, np.ndarray] = {}
        missing: list[str] = []
        for h in hashes:
            vec = self.cache.get(h)
            if vec is not None:
                found[h] = vec
            elif h not in found:
                missing.append(h)
        if missing:
            if not getattr(self.embedder, "cheaper_than_lookup", False):  # hashing: computing beats a lookup
                found.update(self.store.get_vectors(model, missing))
            todo = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
            if todo:
                fresh = normalise(self.embedder.embed_documents(list(todo.values())))
                if len(todo) == len(hashes):  # every text new and distinct: the rows are already in order
                    fresh.setflags(write=False)  # the cache holds its rows: nobody may change them in place
                    for h, vec in zip(hashes, fresh, strict=True):
                        self.cache.put(h, vec)
                    return hashes, fresh
                for h, vec in zip(todo, fresh, strict=True):
                    found[h] = vec
        for h in dict.fromkeys(hashes):
            self.cache.put(h, found[h])
        dim = self.embedder.dim or (len(next(iter(found.values()))) if found else 0)
        matrix = np.stack([found[h] for h in hashes]) if hashes else np.zeros((0, dim), np.float32)
        return hashes, matrix

    def index(self, namespace: str) -> NamespaceIndex:
        """The namespace's in-memory index, loaded from the store on first use."""
        index = self.indexes.get(namespace)
        if index is not None:
            return index
        model = self.embedder.name
        rows = self.store.load_namespace(namespace, model)
        missing = [i for i, v in enumerate(rows.vectors) if v is None]
        if missing:
            log.info("embedding %d units of %r with %s", len(missing), namespace, model)
            _, fresh = self.embed_documents([rows.contents[i] for i in missing])
            self.store.put_vectors(model, [(rows.content_hashes[i], fresh[j]) for j, i in enumerate(missing)])
            for j, i in enumerate(missing):
                rows.vectors[i] = fresh[j].tobytes()
        dim = self.embedder.dim or (len(rows.vectors[0] or b"") // 4 if rows.vectors else 0)
        vectors = (
            np.frombuffer(b"".join(v for v in rows.vectors if v is not None), dtype=np.float32).reshape(
                -1, dim
            )
            if rows.vectors
            else np.zeros((0, dim), np.float32)
        )
        index = NamespaceIndex.from_rows(rows, vectors, dim)
        self.indexes[namespace] = index
        return index

    def new_id(self, namespace: str, content: str, created: datetime) -> str:
        """Deterministic id from the namespace, its write count, the time and the content."""
        return self.new_ids(namespace, [content], [created])[0]

    def new_ids(self, namespace: str, contents: Sequence[str], created: Sequence[datetime]) -> list[str]:
        """`new_id` of each (content, time) in order, counting one write each."""
        seq = self.seq.get(namespace)
        if seq is None:
            seq = self.store.count(namespace)
        self.seq[namespace] = seq + len(contents)
        blake2b = hashlib.blake2b
        return [
            "mem_"
            + blake2b(f"{namespace}|{seq + i}|{when.isoformat()}|{text}".encode(), digest_size=8).hexdigest()
            for i, (text, when) in enumerate(zip(contents, created, strict=True))
        ]
