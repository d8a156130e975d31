"""State shared by every namespace view of one `Memory`: store, embedder, embedding cache, per-namespace indexes
and affect states, and catching up with what other processes wrote to the store."""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from psychoagent.embed import Embedder, EmbeddingCache, content_hash, normalise
from psychoagent.memory.config import MemoryConfig
from psychoagent.memory.contracts import TOMBSTONE_KIND, ChangedUnit, MemoryStore
from psychoagent.memory.index import snapshot
from psychoagent.memory.index.ann import ann_for
from psychoagent.memory.index.context import turn_windows
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.state.affect import NamespaceAffect
from psychoagent.memory.stores.access import AccessBuffer
from psychoagent.types import to_epoch

log = logging.getLogger(__name__)

SNAPSHOT_CATCH_UP = 1000
"""Units (or commits) since a namespace's snapshot that the next open may catch up on instead of the snapshot
being written again at close (catching up reads each changed unit: about 45 us a unit here)."""


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
        self.affect: dict[str, NamespaceAffect] = {}
        self.snapshots: dict[str, tuple[int, int, int]] = {}
        """(change counter, rows, blanked rows) of the snapshot on disk each loaded namespace index came from or
        was written to."""

    def refresh(self) -> None:
        """Bring the in-process indexes and affect state up to date with what other processes committed since the
        last look: one cheap read of the store's change counter, then only the changed rows (see `_catch_up`)."""
        got = self.store.poll_changes()
        if got is None:
            return
        since, upto = got
        self.graphs.clear()  # edges of other processes: rebuilt lazily on the next graph read
        loaded = [ns for ns in {*self.indexes, *self.affect}]
        if loaded:
            self._catch_up(self.store.changes(since, upto, self.embedder.name, loaded))
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
        """The namespace's in-memory index, loaded on first use: from its snapshot where a current one exists
        (`index.snapshot`), else built from the store."""
        index = self.indexes.get(namespace)
        if index is None:
            index = self._from_snapshot(namespace) or self._build(namespace)
            self.indexes[namespace] = index
        return index

    def _snapshot_stamp(self, namespace: str) -> dict[str, Any]:
        """What a snapshot of a namespace must have been built with to serve this memory."""
        cfg = self.config.recall
        return {"format": snapshot.FORMAT, "store": self.store.get_meta("store_id"), "namespace": namespace,
                "model": self.embedder.name, "context": [cfg.turn_context, cfg.session_gap_minutes],
                "vectors": cfg.vector_dtype}  # fmt: skip

    def _from_snapshot(self, namespace: str) -> NamespaceIndex | None:
        """The namespace's snapshot, brought up to date with the units changed in the store since it was written
        (forgotten ones blanked, others updated or appended); None where none serves."""
        folder = snapshot.directory(self.store)
        if folder is None or self.config.store.index_snapshot_rows == 0:
            return None
        now = self.store.counter()
        got = snapshot.load(snapshot.file_for(folder, namespace), self._snapshot_stamp(namespace), now)
        if got is None:
            return None
        index, since = got
        self.snapshots[namespace] = (since, len(index), index.dead)
        fresh: list[ChangedUnit] = []
        changed = self.store.changes(since, now, self.embedder.name, [namespace])
        known = index.known_pks([it.pk for it in changed])
        for it, held in zip(changed, known.tolist(), strict=True):
            if it.unit.kind == TOMBSTONE_KIND:
                if not index.forget(it.unit.id):
                    return None
            elif held:
                index.update(it.unit)
            else:
                fresh.append(it)
        if fresh:
            self._append(index, fresh)
        return index

    def save_snapshots(self) -> None:
        """Snapshot each loaded namespace of at least `StoreConfig.index_snapshot_rows` units that changed since
        its snapshot, its IVF index trained first (the next open then trains nothing); a failed write is logged
        and counted, and the next open builds from the file."""
        folder = snapshot.directory(self.store)
        least = self.config.store.index_snapshot_rows
        if folder is None or least == 0:
            return
        seen = self.store.seen()
        for namespace, index in list(self.indexes.items()):
            if len(index) < least or not self._snapshot_due(namespace, index, seen):
                continue
            ann_for(index, self.config.recall)
            if self.store.get_meta("store_id") is None:
                self.store.set_meta("store_id", uuid.uuid4().hex)
            try:
                snapshot.save(snapshot.file_for(folder, namespace), index,
                              {**self._snapshot_stamp(namespace), "counter": seen})  # fmt: skip
            except OSError as exc:
                snapshot.STATS["failed"] += 1
                log.warning("index snapshot of %r not written (%s): the next open builds it", namespace, exc)
                continue
            self.snapshots[namespace] = (seen, len(index), index.dead)

    def _snapshot_due(self, namespace: str, index: NamespaceIndex, seen: int) -> bool:
        """Whether a namespace's snapshot is worth writing again: none serves it yet, or the units appended and
        forgotten since, or the commits since, are more than the next open should catch up on
        (`SNAPSHOT_CATCH_UP`); access counts alone move the change counter by one commit per flush."""
        counter, rows, dead = self.snapshots.get(namespace, (-1, 0, 0))
        if counter < 0:
            return True
        moved = len(index) - rows + index.dead - dead
        return moved > max(SNAPSHOT_CATCH_UP, len(index) // 100) or seen - counter > SNAPSHOT_CATCH_UP

    def _build(self, namespace: str) -> NamespaceIndex:
        """The namespace's index built from every stored unit."""
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
        index = NamespaceIndex.from_rows(rows, vectors, dim, self.config.recall.vector_dtype)
        if index.conversation.any_turn():
            self.add_turn_context(index, 0, rows.contents, rows.columns["created_at"].tolist(), None)
        return index

    def add_turn_context(
        self,
        index: NamespaceIndex,
        start: int,
        contents: Sequence[str],
        created: Sequence[float | None],
        previous: tuple[str, float | None] | None,
    ) -> None:
        """Give rows start.. (these contents) of a namespace their turn-window search vectors (`index.context`),
        embedded once and kept in the store's vector cache so a reload finds them."""
        cfg = self.config.recall
        if not cfg.turn_context:
            return
        windows = turn_windows(contents, created, previous, cfg.session_gap_minutes * 60.0)
        if not windows:
            return
        hashes, vectors = self.embed_documents([text for _, text in windows])
        if not getattr(self.embedder, "cheaper_than_lookup", False):
            self.store.put_vectors(self.embedder.name, list(zip(hashes, vectors, strict=True)))
        index.set_context(np.asarray([start + pos for pos, _ in windows], dtype=np.int64), vectors)

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

    def _catch_up(self, changed: Sequence[ChangedUnit]) -> None:
        """Apply changed units (pk order) to the loaded namespaces; a namespace where one was forgotten elsewhere is
        dropped and reloads on its next use (its index still holds the erased text)."""
        by_ns: dict[str, list[ChangedUnit]] = {}
        for item in changed:
            by_ns.setdefault(item.unit.namespace, []).append(item)
        for ns, items in by_ns.items():
            index = self.indexes.get(ns)
            state = self.affect.get(ns)
            if any(it.unit.kind == TOMBSTONE_KIND for it in items):
                self.indexes.pop(ns, None)
                if state is not None:
                    self.affect[ns] = state.reset()
                continue
            held = [] if index is None else index.known_pks([it.pk for it in items]).tolist()
            known = {it.pk for it, h in zip(items, held, strict=False) if h}
            fresh = [it for it in items if it.pk not in known]
            if index is not None:
                for it in items:
                    if it.pk in known:
                        index.update(it.unit)
                if fresh:
                    self._append(index, fresh)
            if state is not None and state.loaded:
                _update_affect(state, items)

    def _append(self, index: NamespaceIndex, fresh: Sequence[ChangedUnit]) -> None:
        """Add new units to the index, embedding those whose vector for this model is not stored yet."""
        missing = [i for i, it in enumerate(fresh) if it.vector is None]
        vectors = np.zeros((len(fresh), index.dim), dtype=np.float32)
        for i, it in enumerate(fresh):
            if it.vector is not None:
                vectors[i] = np.frombuffer(it.vector, dtype=np.float32)
        if missing:
            hashes, embedded = self.embed_documents([fresh[i].unit.content for i in missing])
            self.store.put_vectors(self.embedder.name, list(zip(hashes, embedded, strict=True)))
            vectors[missing] = embedded
        start, previous = len(index), index.last
        index.append(
            [it.pk for it in fresh],
            [it.unit for it in fresh],
            vectors,
            [it.segmented.split() for it in fresh],
        )
        contents = [it.unit.content for it in fresh]
        self.add_turn_context(
            index, start, contents, [to_epoch(it.unit.created_at) for it in fresh], previous
        )


def _update_affect(state: NamespaceAffect, items: Sequence[ChangedUnit]) -> None:
    """New units join the slot and subject indexes; units superseded elsewhere are marked so here too."""
    for it in items:
        unit = it.unit
        if not state.knows(unit.id, it.pk):
            state.index_unit(unit)
            continue
        if unit.invalid_at is None or unit.id in state.superseded:
            continue
        state.superseded.add(unit.id)
        after = unit.metadata.get("superseded_by")
        if isinstance(after, str):
            state.successor[unit.id] = after
        for entries in state.slots.values():
            for entry in entries:
                if entry.unit_id == unit.id:
                    entry.current = False
