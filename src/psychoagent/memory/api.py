"""`Memory`: the facade of one agent's memory. Each public method checks its arguments (`memory.arguments`) and
delegates to a room of memory, handing it the namespace (`state.Namespace`): the write path, recall and the
briefing, consolidation."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from psychoagent.embed import get_embedder
from psychoagent.forward import Forward
from psychoagent.memory import arguments as check
from psychoagent.memory.config import AffectiveMemoryConfig, MemoryConfig
from psychoagent.memory.conflicts.records import ConflictLog
from psychoagent.memory.consolidate.run import consolidate
from psychoagent.memory.consolidate.tiers import ConsolidationReport
from psychoagent.memory.contracts import Appraiser, Embedder, MemoryStore, PairJudge
from psychoagent.memory.index.graph import neighbourhood
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.inputs import check_finite, resolve_appraiser
from psychoagent.memory.recall.answer_type import AnswerTypeStage
from psychoagent.memory.recall.brief import brief
from psychoagent.memory.recall.candidates import Stage
from psychoagent.memory.recall.currency import CurrencyStage
from psychoagent.memory.recall.latest import latest_stage
from psychoagent.memory.recall.modulate import AffectStage
from psychoagent.memory.recall.retrieve import default_pipeline, drop_forgotten, top_k
from psychoagent.memory.recall.run import Selector, run_recall
from psychoagent.memory.recall.safety import AffectSelector
from psychoagent.memory.state.affect import NamespaceAffect
from psychoagent.memory.state.monitor import AffectMonitor
from psychoagent.memory.state.namespace import Namespace
from psychoagent.memory.state.shared import Shared
from psychoagent.memory.stores import open_store
from psychoagent.memory.write import forget as forgetting
from psychoagent.memory.write import observe as writing
from psychoagent.memory.write import supersede as superseding
from psychoagent.memory.write.units import appraise
from psychoagent.types import Affect, Briefing, ConflictRecord, Edge, EdgeType, MemoryUnit, Recall, utcnow


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
        if _shared is None:
            config = config or MemoryConfig()
            store = store if store is not None else open_store(path, config.store)
            _shared = Shared(store, get_embedder(embedder), config)
        if affect_config is None:  # the config's affect settings when given there, else the defaults
            given = config is not None and "affect" in config.model_fields_set
            affect_config = config.affect if given and config is not None else AffectiveMemoryConfig()
        self._shared = _shared
        self._ns = Namespace(_shared, namespace, affect_config, resolve_appraiser(appraiser))
        self.pipeline: list[Stage] = [drop_forgotten, *default_pipeline()]
        self.selector: Selector = lambda cands, index, ctx: top_k(cands, ctx.k)
        self._install_affect()
        self._check_embedder()

    # -- plumbing -------------------------------------------------------------------------------------------
    namespace = Forward[str]("_ns", "name", doc="The agent (namespace) this view reads and writes.")
    store = Forward[MemoryStore](
        "_shared", doc="The `MemoryStore` (SQLite file, in-memory or PostgreSQL) views share."
    )
    embedder = Forward[Embedder]("_shared")
    config = Forward[MemoryConfig]("_shared")
    appraiser = Forward[Appraiser | None]("_ns", writable=True)
    pair_judge = Forward[PairJudge | None](
        "_ns",
        writable=True,
        doc="Optional referee (`memory.conflicts.judge.LLMPairJudge`) for pairs the scorer is unsure about.",
    )
    affect_config = Forward[AffectiveMemoryConfig]("_ns", writable=True)

    def _check_embedder(self) -> None:
        """Remember which embedder wrote the file; a different one later re-embeds lazily (vectors keyed by model)."""
        if self.store.get_meta("embedder") is None:
            self.store.set_meta("embedder", self.embedder.name)

    @property
    def similarity_floor(self) -> float | None:
        """Cosine similarity an unrelated text typically reaches with this embedder (normalisation floor)."""
        return self._ns.similarity_floor

    @property
    def dense_weight(self) -> float:
        """Weight of the dense part in convex fusion: the config's, else the embedder's calibrated one."""
        return self._ns.dense_weight

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
        """Close the file (writing the index snapshots of large namespaces first, `StoreConfig.index_snapshot_rows`);
        the object cannot be used afterwards."""
        self._shared.save_snapshots()
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- embedding and index ------------------------------------------------------------------------------
    def embed_documents(self, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Content hashes and unit vectors for texts, served from the LRU, then SQLite, then the embedder."""
        return self._ns.embed_documents(texts)

    def _index(self) -> NamespaceIndex:
        """The namespace's in-memory index, loaded from the store on first use (reloaded after another process
        wrote to the file)."""
        return self._ns.index()

    # -- writing (memory.write) ------------------------------------------------------------------------------
    def add_units(self, units: Sequence[MemoryUnit]) -> list[MemoryUnit]:
        """Store fully built units in one transaction (all or nothing) and index them."""
        return writing.store_units(self._ns, units)

    def _drop_caches(self) -> None:
        """Forget this namespace's in-process index, graph and affect state; they reload from the file."""
        self._ns.drop_caches()

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
        check.check_observe(self._ns, text, goals, timestamp, sources, metadata, id, kind, affect)
        args = {"goals": goals, "timestamp": timestamp, "sources": sources, "metadata": metadata, "id": id,
                "kind": kind, "affect": affect}  # fmt: skip
        return writing.observe(self._ns, text, args)

    def observe_many(self, items: Iterable[str | Mapping[str, Any]]) -> list[MemoryUnit]:
        """Observe a batch in one transaction: each item is a text or a dict of `observe` keyword arguments."""
        return writing.observe_batch(self._ns, check.check_observe_many(self._ns, items))

    def update(self, unit: MemoryUnit) -> MemoryUnit:
        """Persist changed mutable fields of a stored unit (affect, tier, validity, metadata...) of this namespace."""
        check.check_update(unit)
        if unit.namespace != self.namespace:
            raise ValueError(
                f"unit {unit.id!r} belongs to namespace {unit.namespace!r}, not {self.namespace!r}"
            )
        check_finite(unit.metadata, "metadata")
        return self._ns.update(unit)

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
        check.check_supersede(self.namespace, old_id, new, timestamp, reason)
        return superseding.supersede(self._ns, old_id, new, timestamp, reason)

    def forget(self, id: str, *, reason: str = "") -> MemoryUnit:
        """Erase a unit's content for privacy and keep a tombstone (`metadata.forgotten_at`) in the graph."""
        check.check_forget(id, reason)
        return forgetting.forget(self._ns, id, reason=reason)

    # -- graph ----------------------------------------------------------------------------------------------
    def add_edges(self, edges: Sequence[Edge]) -> None:
        self._ns.add_edges(edges)

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
        return self._ns.graph()

    def neighbours(
        self, node: str | Sequence[str], depth: int = 2, types: Sequence[str] | None = None
    ) -> dict[str, int]:
        """Ids within `depth` hops of `node` in the provenance graph -> hop count."""
        check.check_int("depth", depth, 0)
        return neighbourhood(self.graph(), node, depth, types)

    # -- reading --------------------------------------------------------------------------------------------
    def get(self, id: str) -> MemoryUnit | None:
        check.check_ref("id", id)
        return self._ns.get(id)

    def get_many(self, ids: Sequence[str]) -> list[MemoryUnit]:
        check.check_list_of("ids", ids, check.check_ref)
        return self._ns.get_many(ids)

    def units(self, kind: str | None = None) -> list[MemoryUnit]:
        """Every unit of the namespace in insertion order; with `kind`, only those of that kind (read by the store,
        so a chat adapter lists its messages without reading the whole namespace)."""
        if kind is not None:
            check.check_text("kind", kind)
        return self._ns.units(kind)

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
        check.check_recall(
            query,
            k,
            where,
            context,
            now,
            at,
            affect_state,
            policy,
            rng,
            extras,
            check.extra_keys(self.pipeline),
        )
        return run_recall(
            self._ns, self.pipeline, self.selector, query, k=k, where=where, context=context, now=now, at=at,
            affect_state=affect_state, persona=persona, policy=policy, rng=rng, extras=extras,
        )  # fmt: skip

    # -- affect: conflicts, modulation, briefings, consolidation --------------------------------------------
    def _install_affect(self) -> None:
        """Bind the affect stage and the safety selector to this view (replacing copies bound to another)."""
        own = (AnswerTypeStage, AffectStage, CurrencyStage)
        self.pipeline = [s for s in self.pipeline if not isinstance(s, own)] + [
            AnswerTypeStage(self._ns),
            AffectStage(self._ns),
            CurrencyStage(self._ns),
        ]
        # the newest of the statements that answer alike goes last, after every stage that reorders by score
        self.pipeline = [s for s in self.pipeline if s is not latest_stage] + [latest_stage]
        if isinstance(self.selector, AffectSelector) or getattr(self.selector, "__name__", "") == "<lambda>":
            self.selector = AffectSelector(self._ns)

    def affect_state_of_namespace(self) -> NamespaceAffect:
        """In-process affect state of this namespace (slot index, successes, monitor, recall tracker)."""
        return self._ns.affect()

    @property
    def monitor(self) -> AffectMonitor:
        """The affect baseline monitor of this namespace; `monitor.subscribe(fn)` to get warnings."""
        monitor = self.affect_state_of_namespace().monitor
        assert monitor is not None
        return monitor

    def exploration_rng(self) -> np.random.Generator:
        """Seeded generator used for exploration when a recall gets no rng (SafetyConfig.seed)."""
        return self._ns.exploration_rng()

    def appraise(self, event: Any, goals: Sequence[str] = (), context: Any = None) -> Affect:
        """Appraise an event with this memory's appraiser (neutral if it has none); without a context the appraiser
        is told this memory's embedder (and given its vector when it takes them)."""
        check.check_list_of("goals", goals)
        return appraise(self._ns, event, goals, context)

    def conflicts(self, ids: Sequence[str] | None = None, status: str | None = None) -> list[ConflictRecord]:
        """Stored conflict records (oldest first), optionally those touching `ids` or with a status."""
        check.check_conflicts(ids, status)
        return ConflictLog(self.store).list(self.namespace, ids=ids, status=status)

    def resolve_conflict(self, conflict_id: str, resolution: str) -> ConflictRecord:
        """Mark a conflict resolved with how; both sides stay stored (`NotFound` for an unknown id)."""
        check.check_ref("conflict_id", conflict_id)
        check.check_text("resolution", resolution, max_chars=check.LIMITS.max_text_chars)
        return ConflictLog(self.store).resolve(self.namespace, conflict_id, resolution, utcnow())

    def brief(self, query: str, *, k: int = 5, context: str | None = None, **kwargs: Any) -> Briefing:
        """Conflict-aware briefing: recalled memories, conflicts with both sides (newest current), a strategy
        and a step-by-step prompt section. kwargs: affect_state, policy, now, rng, model, max_words."""
        check.check_brief(query, k, context, kwargs, check.extra_keys(self.pipeline))
        return brief(self._ns, self.recall, query, k=k, context=context, **kwargs)

    def consolidate(self, now: datetime | str | float | None = None) -> ConsolidationReport:
        """Re-tier units (bounded working memory) and summarise routine ones, keeping and linking originals."""
        check.check_time("now", now)
        return consolidate(self._ns, now, self.add_units)
