"""One namespace of a memory as its rooms see it: the shared resources (store, embedder, indexes, caches) with the
namespace's name, affect settings, appraiser and pair judge.

The `Memory` facade owns one and hands it to the write path, the recall stages and consolidation; they read and
change the namespace through it and never reach back into the facade.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from psychoagent.forward import Forward
from psychoagent.memory.config import DEFAULT_DENSE_WEIGHT, AffectiveMemoryConfig, MemoryConfig
from psychoagent.memory.contracts import (
    TOMBSTONE_KIND,
    Appraiser,
    Edge,
    Embedder,
    MemoryStore,
    MemoryUnit,
    PairJudge,
)
from psychoagent.memory.index.graph import add_edges, build_graph
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.state.affect import NamespaceAffect
from psychoagent.memory.state.monitor import AffectMonitor
from psychoagent.memory.state.shared import Shared


class Namespace:
    """A namespace of a memory's shared resources, with its own affect settings, appraiser and pair judge."""

    def __init__(
        self,
        shared: Shared,
        name: str,
        affect_config: AffectiveMemoryConfig,
        appraiser: Appraiser | None,
        pair_judge: PairJudge | None = None,
    ) -> None:
        self.shared = shared
        self.name = name
        self.affect_config = affect_config
        self.appraiser = appraiser
        self.pair_judge = pair_judge

    # -- resources ------------------------------------------------------------------------------------------
    store = Forward[MemoryStore]("shared")
    embedder = Forward[Embedder]("shared")
    config = Forward[MemoryConfig]("shared")

    @property
    def similarity_floor(self) -> float | None:
        """Cosine similarity an unrelated text typically reaches with this embedder (normalisation floor)."""
        floor = getattr(self.embedder, "similarity_floor", None)
        return None if floor is None else float(floor)

    @property
    def dense_weight(self) -> float:
        """Weight of the dense part in convex fusion: the config's, else the embedder's calibrated one."""
        if self.config.recall.dense_weight is not None:
            return self.config.recall.dense_weight
        return float(getattr(self.embedder, "dense_weight", DEFAULT_DENSE_WEIGHT))

    def takes_vectors(self) -> bool:
        """True when the appraiser can use this memory's passage vectors (computed and cached here anyway)."""
        return getattr(self.appraiser, "vector_embedder", None) == self.embedder.name

    def embed_documents(self, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Content hashes and unit vectors for texts, served from the LRU, then the store, then the embedder."""
        return self.shared.embed_documents(texts)

    def index(self) -> NamespaceIndex:
        """The namespace's in-memory index, loaded from the store on first use (reloaded after another process
        wrote to the file)."""
        self.shared.refresh()
        return self.shared.index(self.name)

    def forgotten(self, unit_id: str) -> None:
        """Take a unit this process just forgot out of the in-process state: its index row is blanked in place and
        its slot, subject and fact entries dropped, so a forget costs no reload; the index reloads (without
        tombstones) once enough rows are blanked, or when the row cannot be blanked alone."""
        shared = self.shared  # the graph stays: a tombstone keeps its edges
        index = shared.indexes.get(self.name)
        if index is not None and (not index.forget(unit_id) or index.reload_due()):
            self.drop_caches()
            return
        state = shared.affect.get(self.name)
        if state is not None:
            state.forget(unit_id)

    def drop_caches(self) -> None:
        """Forget this namespace's in-process index, graph and affect state; they reload from the store."""
        shared = self.shared
        for cache in (shared.indexes, shared.graphs, shared.affect):
            cache.pop(self.name, None)

    # -- units and edges ------------------------------------------------------------------------------------
    def get(self, id: str) -> MemoryUnit | None:
        units = self.store.get_units(self.name, [id])
        return units[0] if units else None

    def get_many(self, ids: Sequence[str]) -> list[MemoryUnit]:
        return self.store.get_units(self.name, ids)

    def units(self, kind: str | None = None, live: bool = False) -> list[MemoryUnit]:
        """Every unit of the namespace (of one kind when given, without tombstones when `live`) in insertion
        order."""
        return list(self.store.iter_units(self.name, kind, live=live))

    def update(self, unit: MemoryUnit) -> MemoryUnit:
        """Persist changed mutable fields of a stored unit of this namespace and index them."""
        self.store.update_unit(unit)
        self.index().update(unit)
        return unit

    def add_edges(self, edges: Sequence[Edge]) -> None:
        """Store edges and add them to the cached graph (rebuilding it per write cost a pass over every edge)."""
        self.store.add_edges(self.name, edges)
        graph = self.shared.graphs.get(self.name)
        if graph is not None:
            add_edges(graph, edges)

    def graph(self) -> Any:
        """The namespace's edges as a networkx MultiDiGraph (cached until the next edge write)."""
        graph = self.shared.graphs.get(self.name)
        if graph is None:
            graph = build_graph(self.store.edges(self.name))
            self.shared.graphs[self.name] = graph
        return graph

    # -- affect state ---------------------------------------------------------------------------------------
    def affect(self) -> NamespaceAffect:
        """The namespace's affect state, built from the stored units on first use."""
        states = self.shared.affect
        state = states.get(self.name)
        if state is None:
            state = NamespaceAffect(monitor=AffectMonitor(self.name, self.affect_config.monitor))
            states[self.name] = state
        if not state.loaded:
            state.loaded = True
            self._load_affect(state)
        return state

    def _load_affect(self, state: NamespaceAffect) -> None:
        """Fill a new affect state from the namespace's index columns: superseded units and their successors,
        whether any unit is positive, the monitor's window; texts are read only when asked for (`Facts`) and
        the slot and subject indexes read the loaded units on their first use (`NamespaceAffect.load_rest`)."""
        index, name, store = self.index(), self.name, self.store
        n = len(index)
        kinds, valence = index.column("kind"), index.column("valence")
        live = kinds != TOMBSTONE_KIND
        state.loaded_upto = int(index.pks[:n].max()) if n else -1
        state.facts.fetch = lambda ids: {
            f.id: (f.created_at, f.content, f.kind) for f in store.unit_facts(name, ids)
        }
        upto = state.loaded_upto
        state.load_rest = lambda: store.unit_facts(name, upto_pk=upto)
        stale = np.flatnonzero(live & ~np.isnan(index.column("invalid_at")))
        for f in store.unit_facts(name, [index.ids[row] for row in stale.tolist()]):
            state.superseded.add(f.id)
            after = f.metadata.get("superseded_by")
            if isinstance(after, str):
                state.successor[f.id] = after
        state.any_positive = bool((valence[live] > 0).any())
        assert state.monitor is not None
        if not state.monitor_primed:
            state.monitor.observe_values(
                zip(kinds[live].tolist(), valence[live].astype(int).tolist(), strict=True)
            )

    @contextmanager
    def detection_off(self) -> Iterator[None]:
        """Store without conflict detection inside the block (the caller links the units itself)."""
        state = self.affect()
        state.paused += 1
        try:
            yield
        finally:
            state.paused -= 1

    def exploration_rng(self) -> np.random.Generator:
        """Seeded generator used for exploration when a recall gets no rng (SafetyConfig.seed)."""
        state = self.affect()
        if state.rng is None:
            state.rng = np.random.default_rng(self.affect_config.safety.seed)
        return state.rng
