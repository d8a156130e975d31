"""`Memory`: the facade that ties store, embedder, index, graph and the recall pipeline together."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from psychoagent.embed import Embedder, get_embedder
from psychoagent.memory import affective, write
from psychoagent.memory import arguments as check
from psychoagent.memory.config import AffectiveMemoryConfig, MemoryConfig
from psychoagent.memory.conflicts import ConflictLog, NamespaceAffect
from psychoagent.memory.consolidate import ConsolidationReport
from psychoagent.memory.currency import CurrencyStage
from psychoagent.memory.forget import drop_forgotten
from psychoagent.memory.graph import build_graph, neighbourhood
from psychoagent.memory.index import NamespaceIndex
from psychoagent.memory.inputs import Appraiser, check_finite, resolve_appraiser
from psychoagent.memory.judge import PairJudge
from psychoagent.memory.modulate import AffectStage
from psychoagent.memory.monitor import AffectMonitor
from psychoagent.memory.recall_run import run_recall
from psychoagent.memory.retrieve import (
    DEFAULT_DENSE_WEIGHT,
    Candidates,
    RecallContext,
    Stage,
    default_pipeline,
    top_k,
)
from psychoagent.memory.safety import AffectSelector
from psychoagent.memory.shared import Shared
from psychoagent.memory.stores import MemoryStore, open_store
from psychoagent.types import (
    Affect,
    Briefing,
    ConflictRecord,
    Edge,
    EdgeType,
    MemoryUnit,
    Recall,
    utcnow,
)

log = logging.getLogger(__name__)

Selector = Callable[[Candidates, NamespaceIndex, RecallContext], np.ndarray]
"""Picks the final k positions from scored candidates (default: top-k by score)."""


class Memory:
    """Affect-aware long-term memory of one agent (namespace) over a `MemoryStore`: a SQLite file, in memory with
    path=None, a ``postgresql://`` URL, or a store passed as `store=`.

    >>> m = Memory(embedder="hash")
    >>> unit = m.observe("Alice moved to Berlin")
    >>> m.recall("Where does Alice live?", k=1)[0].unit.content
    'Alice moved to Berlin'
    """

    def __init__(
        self,
        path: str | Path | None = None,
        namespace: str = "default",
        embedder: str | Embedder | None = None,
        config: MemoryConfig | None = None,
        appraiser: Appraiser | str | None = "heuristic",
        *,
        affect_config: AffectiveMemoryConfig | None = None,
        store: MemoryStore | None = None,
        _shared: Shared | None = None,
    ) -> None:
        check.check_open(path, namespace, embedder, config, appraiser, affect_config)
        if store is not None and path is not None:
            raise check.InvalidArgument("store", "give either path or store, not both")
        self.namespace = namespace
        if _shared is None:
            config = config or MemoryConfig()
            store = store if store is not None else open_store(path, config.store)
            _shared = Shared(store, get_embedder(embedder), config)
        self._shared = _shared
        self.appraiser: Appraiser | None = resolve_appraiser(appraiser)
        self.pair_judge: PairJudge | None = None
        """Optional referee (e.g. `memory.judge.LLMPairJudge`) for pairs the update scorer is unsure about."""
        if affect_config is None:  # the config's affect settings when given there, else the defaults
            given = config is not None and "affect" in config.model_fields_set
            affect_config = config.affect if given and config is not None else AffectiveMemoryConfig()
        self.affect_config = affect_config
        self.pipeline: list[Stage] = [drop_forgotten, *default_pipeline()]
        self.selector: Selector = lambda cands, index, ctx: top_k(cands, ctx.k)
        self._install_affect()
        self._check_embedder()

    # -- plumbing -------------------------------------------------------------------------------------------
    @property
    def store(self) -> MemoryStore:
        """The injected `MemoryStore` (SQLite file, in-memory SQLite or PostgreSQL) every view shares."""
        return self._shared.store

    @property
    def embedder(self) -> Embedder:
        return self._shared.embedder

    @property
    def config(self) -> MemoryConfig:
        return self._shared.config

    def _check_embedder(self) -> None:
        """Remember which embedder wrote the file; a different one later re-embeds lazily (vectors keyed by model)."""
        if self.store.get_meta("embedder") is None:
            self.store.set_meta("embedder", self.embedder.name)

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

    def for_namespace(self, namespace: str) -> Memory:
        """Another agent's view of the same file, sharing store, embedder and caches."""
        check.check_namespace(namespace)
        view = Memory(
            namespace=namespace,
            appraiser=self.appraiser,
            affect_config=self.affect_config,
            _shared=self._shared,
        )
        view.pair_judge = self.pair_judge
        view.pipeline = list(self.pipeline)
        view.selector = self.selector
        view._install_affect()
        return view

    def namespaces(self) -> list[str]:
        return self.store.namespaces()

    def __len__(self) -> int:
        return self.store.count(self.namespace)

    def close(self) -> None:
        """Close the file; the object cannot be used afterwards."""
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- embedding and index ------------------------------------------------------------------------------
    def embed_documents(self, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Content hashes and unit vectors for texts, served from the LRU, then SQLite, then the embedder."""
        return self._shared.embed_documents(texts)

    def _index(self) -> NamespaceIndex:
        """The namespace's in-memory index, loaded from the store on first use (reloaded after another process
        wrote to the file)."""
        self._shared.refresh()
        return self._shared.index(self.namespace)

    # -- writing (memory.write) ------------------------------------------------------------------------------
    def add_units(self, units: Sequence[MemoryUnit]) -> list[MemoryUnit]:
        """Store fully built units in one transaction (all or nothing) and index them."""
        return write.store_units(self, units)

    def _drop_caches(self) -> None:
        """Forget this namespace's in-process index, graph and affect state; they reload from the file."""
        write.drop_caches(self)

    def observe(
        self,
        text: str,
        *,
        goals: Sequence[str] = (),
        timestamp: datetime | str | float | None = None,
        sources: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
        id: str | None = None,
        kind: str = "episodic",
        affect: Affect | None = None,
    ) -> MemoryUnit:
        """Appraise (if an appraiser is set), encode and store one event; returns the stored unit."""
        check.check_observe(self, text, goals, timestamp, sources, metadata, id, kind, affect)
        unit = write.build_unit(
            self, text, goals=goals, timestamp=timestamp, sources=sources, metadata=metadata, id=id, kind=kind,
            affect=affect,
        )  # fmt: skip
        return write.store_units(self, [unit])[0]

    def observe_many(self, items: Iterable[str | Mapping[str, Any]]) -> list[MemoryUnit]:
        """Observe a batch in one transaction: each item is a text or a dict of `observe` keyword arguments."""
        return write.observe_batch(self, check.check_observe_many(self, items))

    def update(self, unit: MemoryUnit) -> MemoryUnit:
        """Persist changed mutable fields of a stored unit (affect, tier, validity, metadata...) of this namespace."""
        check.check_update(unit)
        if unit.namespace != self.namespace:
            raise ValueError(
                f"unit {unit.id!r} belongs to namespace {unit.namespace!r}, not {self.namespace!r}"
            )
        check_finite(unit.metadata, "metadata")
        self.store.update_unit(unit)
        self._index().update(unit)
        return unit

    def supersede(
        self,
        old_id: str,
        new: str | MemoryUnit,
        *,
        timestamp: datetime | str | float | None = None,
        reason: str = "",
    ) -> MemoryUnit:
        """Mark `old_id` as no longer valid from the time of `new` (a text to observe, or an existing unit id);
        both units are kept and linked by a `supersedes` edge. Returns the new unit."""
        check.check_supersede(self, old_id, new, timestamp, reason)
        old = self.get(old_id)
        if old is None:
            raise KeyError(f"no unit {old_id!r} in namespace {self.namespace!r}")
        if isinstance(new, MemoryUnit):
            new_unit = new
        else:
            existing = self.get(new)
            with affective.detection_off(self):  # the caller states the supersession; no second detection
                new_unit = existing if existing is not None else self.observe(new, timestamp=timestamp)
        when = new_unit.valid_at or new_unit.created_at
        old.invalid_at = when
        if reason:
            old.metadata["superseded_reason"] = reason
        old.metadata["superseded_by"] = new_unit.id
        self.update(old)
        state = self.affect_state_of_namespace()
        state.superseded.add(old.id)
        state.successor[old.id] = new_unit.id
        self.add_edges([Edge(src=new_unit.id, dst=old.id, type="supersedes", created_at=when)])
        return new_unit

    def forget(self, id: str, *, reason: str = "") -> MemoryUnit:
        """Erase a unit's content for privacy and keep a tombstone (`metadata.forgotten_at`) in the graph."""
        check.check_forget(id, reason)
        from psychoagent.memory.forget import forget

        return forget(self, id, reason=reason)

    # -- graph ----------------------------------------------------------------------------------------------
    def add_edges(self, edges: Sequence[Edge]) -> None:
        self.store.add_edges(self.namespace, edges)
        self._shared.graphs.pop(self.namespace, None)

    def link(
        self, src: str, dst: str, type: EdgeType = "related", weight: float = 1.0, **metadata: Any
    ) -> None:
        """Add one typed edge src -> dst."""
        check.check_link(src, dst, type, weight, metadata)
        self.add_edges([Edge(src=src, dst=dst, type=type, weight=weight, metadata=metadata)])

    def edges(self, node: str | None = None) -> list[Edge]:
        return self.store.edges(self.namespace, node)

    def graph(self) -> Any:
        """The namespace's edges as a networkx MultiDiGraph (cached until the next edge write)."""
        graph = self._shared.graphs.get(self.namespace)
        if graph is None:
            graph = build_graph(self.store.edges(self.namespace))
            self._shared.graphs[self.namespace] = graph
        return graph

    def neighbours(
        self, node: str | Sequence[str], depth: int = 2, types: Sequence[str] | None = None
    ) -> dict[str, int]:
        """Ids within `depth` hops of `node` in the provenance graph -> hop count."""
        check.check_int("depth", depth, 0)
        return neighbourhood(self.graph(), node, depth, types)

    # -- reading --------------------------------------------------------------------------------------------
    def get(self, id: str) -> MemoryUnit | None:
        check.check_ref("id", id)
        units = self.store.get_units(self.namespace, [id])
        return units[0] if units else None

    def get_many(self, ids: Sequence[str]) -> list[MemoryUnit]:
        check.check_list_of("ids", ids, check.check_ref)
        return self.store.get_units(self.namespace, ids)

    def units(self) -> list[MemoryUnit]:
        """Every unit of the namespace in insertion order."""
        return list(self.store.iter_units(self.namespace))

    def recall(
        self,
        query: str,
        *,
        k: int = 5,
        where: dict[str, Any] | str | None = None,
        context: str | None = None,
        now: datetime | str | float | None = None,
        at: datetime | str | float | None = None,
        affect_state: Affect | None = None,
        persona: Any = None,
        policy: str | None = None,
        rng: np.random.Generator | None = None,
        **extras: Any,
    ) -> list[Recall]:
        """Hybrid recall: dense + BM25 candidates, filtered by `where`, scored by the pipeline, best first.

        Every result carries `parts`, the named components of its score. An unknown namespace returns [].
        `at=` answers what was true then: only units observed by then and valid at that time (superseded later
        counts as current), ranked as of that moment.
        """
        check.check_recall(query, k, where, context, now, at, affect_state, policy, rng, extras)
        return run_recall(
            self, query, k=k, where=where, context=context, now=now, at=at, affect_state=affect_state,
            persona=persona, policy=policy, rng=rng, extras=extras,
        )  # fmt: skip

    # -- affect: conflicts, modulation, briefings, consolidation --------------------------------------------
    def _install_affect(self) -> None:
        """Bind the affect stage and the safety selector to this view (replacing copies bound to another)."""
        own = (AffectStage, CurrencyStage)
        self.pipeline = [s for s in self.pipeline if not isinstance(s, own)] + [
            AffectStage(self),
            CurrencyStage(self),
        ]
        if isinstance(self.selector, AffectSelector) or getattr(self.selector, "__name__", "") == "<lambda>":
            self.selector = AffectSelector(self)

    def affect_state_of_namespace(self) -> NamespaceAffect:
        """In-process affect state of this namespace (slot index, successes, monitor, recall tracker)."""
        return affective.namespace_state(self)

    @property
    def monitor(self) -> AffectMonitor:
        """The affect baseline monitor of this namespace; `monitor.subscribe(fn)` to get warnings."""
        monitor = self.affect_state_of_namespace().monitor
        assert monitor is not None
        return monitor

    def exploration_rng(self) -> np.random.Generator:
        """Seeded generator used for exploration when a recall gets no rng (SafetyConfig.seed)."""
        state = self.affect_state_of_namespace()
        if state.rng is None:
            state.rng = np.random.default_rng(self.affect_config.safety.seed)
        return state.rng

    def appraise(self, event: Any, goals: Sequence[str] = (), context: Any = None) -> Affect:
        """Appraise an event with this memory's appraiser (neutral if it has none); without a context the appraiser
        is told this memory's embedder (and given its vector when it takes them)."""
        check.check_list_of("goals", goals)
        if self.appraiser is None:
            return Affect.neutral()
        if context is None:
            takes = isinstance(event, str) and event.strip() and write.takes_vectors(self)
            context = {
                "embedder": self.embedder.name,
                "vector": self.embed_documents([event])[1][0] if takes else None,
            }
        return self.appraiser.appraise(event, goals, context)

    def conflicts(self, ids: Sequence[str] | None = None, status: str | None = None) -> list[ConflictRecord]:
        """Stored conflict records (oldest first), optionally those touching `ids` or with a status."""
        check.check_conflicts(ids, status)
        return ConflictLog(self.store).list(self.namespace, ids=ids, status=status)

    def resolve_conflict(self, conflict_id: str, resolution: str) -> ConflictRecord:
        """Mark a conflict resolved with how; both sides stay stored."""
        return ConflictLog(self.store).resolve(self.namespace, conflict_id, resolution, utcnow())

    def brief(self, query: str, *, k: int = 5, context: str | None = None, **kwargs: Any) -> Briefing:
        """Conflict-aware briefing: recalled memories, conflicts with both sides (newest current), a strategy
        and a step-by-step prompt section. kwargs: affect_state, policy, now, rng, model, max_words."""
        check.check_brief(query, k, context, kwargs)
        return affective.brief(self, query, k=k, context=context, **kwargs)

    def consolidate(self, now: datetime | str | float | None = None) -> ConsolidationReport:
        """Re-tier units (bounded working memory) and summarise routine ones, keeping and linking originals."""
        check.check_time("now", now)
        return affective.consolidate(self, now)
