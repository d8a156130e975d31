"""Tuning knobs of the memory core, each with its documented default and, where one exists, its source, and
`ConfigModel`, the base every tuning model of the package derives from.

Subsystems with many knobs of their own keep their config models next to their code: `psychoagent.affect.config`
(appraisal, conflicts, modulation, safety, fusion), `psychoagent.persona.config` (EvolutionConfig and presets),
`psychoagent.llm.config`, `psychoagent.econ.config`, `psychoagent.econ.markets.config` and `psychoagent.agent.config`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class ConfigModel(BaseModel):
    """The one base of every tuning model in the package: unknown keys are errors, assignments are validated and
    NaN or infinity is refused, so a misspelt or broken setting fails where it is given."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class FrozenConfigModel(ConfigModel):
    """A tuning model that cannot change once built (presets shared between agents)."""

    model_config = ConfigDict(frozen=True)


Share = Annotated[float, Field(ge=0.0, le=1.0)]
"""A fraction, probability or weight in [0, 1]."""

PositiveShare = Annotated[float, Field(gt=0.0, le=1.0)]
"""A fraction in (0, 1]: a rate or share that must not be zero."""

NonNegative = Annotated[float, Field(ge=0.0)]
"""A weight, scale or amount that may be zero."""

Positive = Annotated[float, Field(gt=0.0)]
"""A scale, time or amount that must be above zero."""

Count = Annotated[int, Field(ge=1)]
"""A size, limit or number of steps: at least one."""

NonNegativeInt = Annotated[int, Field(ge=0)]
"""A count that may be zero (0 often switches the feature off)."""

ConflictLevel = Annotated[int, Field(ge=0, le=4)]
"""A conflict intensity on the 0..4 scale of `Affect.conflict_intensity`."""


class StoreConfig(ConfigModel):
    """How the SQLite store trades durability for speed."""

    synchronous: Literal["OFF", "NORMAL", "FULL", "EXTRA"] = Field(
        "NORMAL",
        description=(
            "SQLite synchronous level with WAL. NORMAL: a committed batch survives a crash or kill of the process "
            "(the WAL is in the OS page cache) but the last commits may be lost on power failure or OS crash; the "
            "file is never corrupted. FULL also survives power failure at the cost of an fsync per commit."
        ),
    )
    busy_timeout_ms: int = Field(
        5000, ge=0, description="how long a writer waits for another connection's lock"
    )
    cache_size_kib: int = Field(65536, ge=1024, description="SQLite page cache per connection (KiB)")
    page_size: Literal[4096, 8192, 16384, 32768, 65536] = Field(
        16384,
        description=(
            "SQLite page size in bytes of a NEW file (an existing file keeps its own). A 1.5 KB vector row fits "
            "twice in SQLite's default 4 KiB page and ten times in 16 KiB: fewer pages to write to the WAL and to "
            "checkpoint; the file store's write cost fell to about that of the in-memory store (docs/benchmarks.md)"
        ),
    )
    wal_autocheckpoint_pages: int = Field(
        2500,
        ge=0,
        description=(
            "WAL pages after which a commit copies the WAL into the file (SQLite's default is 1000; 2500 pages of "
            "16 KiB is a 40 MB WAL): fewer, larger checkpoints, each with its fsyncs. It does not change what a "
            "commit guarantees; 0 turns automatic checkpoints off"
        ),
    )
    background_checkpoint_rows: int = Field(
        12_000,
        ge=0,
        description=(
            "SQLite file: rows written (units, keyword rows and vectors count one each) after which a thread of "
            "the store copies the WAL into the file, off the write path: a commit then never waits for a "
            "checkpoint's writes and fsyncs (the writing thread's fsync waits fell from 66-77 to 9-20 ms per 20,000 "
            "units, docs/benchmarks.md). 12,000 rows are about 4,000 units, a WAL of some 15 MB with 384-d vectors; "
            "`wal_autocheckpoint_pages` stays the backstop in the committing connection. 0: checkpoints only there"
        ),
    )
    pool_size: int = Field(
        4, ge=1, description="PostgreSQL store: most connections one process keeps open (one per busy thread)"
    )
    hnsw: Literal["on_search", "on_write"] = Field(
        "on_search",
        description=(
            "PostgreSQL store: when the pgvector HNSW index of an embedding model is created. on_search: by the "
            "first in-database vector search (recall reads the in-memory index, and keeping HNSW up to date made "
            "writes about 5x slower here); on_write: with the model's first vectors."
        ),
    )


class RecallConfig(ConfigModel):
    """Weights of the hybrid recall pipeline (dense + keyword fused, then optional recency and access factors)."""

    candidates: int = Field(
        100,
        ge=1,
        description="how many candidates each retriever (dense, keyword) contributes before scoring",
    )
    fusion: Literal["convex", "rrf"] = Field(
        "convex",
        description=(
            "how dense and keyword scores are fused. convex: weighted sum of min-max-normalised scores "
            "(Bruch et al. 2023, 'An Analysis of Fusion Functions for Hybrid Retrieval', found it beats RRF); "
            "rrf: reciprocal rank fusion (Cormack et al. 2009)."
        ),
    )
    dense_weight: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description=(
            "weight of the dense part in convex fusion (keyword gets 1 - this); None uses the embedder's "
            "calibrated weight (e5-small 0.7, hash 0.5: the best recall@5 on the bilingual fixture, docs/benchmarks.md)"
        ),
    )
    keyword_signal: Literal["coverage", "bm25"] = Field(
        "coverage",
        description=(
            "keyword part of the fusion. coverage: IDF-weighted share of query terms a candidate contains, IDF "
            "taken within the candidate pool (robust to document length; hybrid >= dense alone on the fixture); "
            "bm25: FTS5's BM25 divided by the best candidate's. BM25 always selects the keyword candidates."
        ),
    )
    rrf_k: float = Field(60.0, gt=0, description="RRF constant k from Cormack et al. 2009")
    recency_weight: float = Field(
        0.1,
        ge=0.0,
        le=1.0,
        description="max share of the score recency can remove: factor = 1 - w + w * 0.5 ** (age / half-life)",
    )
    recency_half_life_days: float = Field(30.0, gt=0, description="age at which the recency bonus halves")
    access_weight: float = Field(
        0.01,
        ge=0.0,
        le=1.0,
        description=(
            "access reinforcement: factor = 1 + w * log1p(access count), capped. A tie-breaker: being returned is "
            "not being used, and at 0.05 units returned often crowded out later questions' evidence on LoCoMo-dev "
            "(any@5 0.750 vs 0.778 at 0.01, docs/benchmarks.md)"
        ),
    )
    access_cap: float = Field(1.2, ge=1.0, description="upper bound of the access reinforcement factor")
    track_access: bool = Field(True, description="count each returned unit as accessed (persisted)")
    access_flush_seconds: float = Field(
        1.0,
        ge=0.0,
        description=(
            "access counts are written behind: before any other store call, on close and at most this long after "
            "a recall (one transaction for many recalls instead of one per recall; memory.access); 0 writes each "
            "recall's counts at once. Read when the Memory is opened"
        ),
    )
    include_superseded: bool = Field(
        True, description="superseded units stay retrievable (marked by invalid_at); False drops them"
    )
    superseded_factor: float = Field(
        0.85,
        ge=0.0,
        le=1.0,
        description="score factor applied to superseded units so the current fact ranks first",
    )
    # -- conversation structure (LoCoMo-dev ablation in docs/benchmarks.md) ---------------------------------
    session_gap_minutes: float = Field(
        60.0,
        ge=0.0,
        description="units closer in time than this (and adjacent in insertion order) are neighbours in one session",
    )
    neighbour_dense_weight: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description="dense part = (1 - w) * own similarity + w * mean similarity of the session neighbours before and after",
    )
    neighbour_keyword_weight: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="a query term found only in a session neighbour counts this fraction of a match in keyword coverage",
    )
    reply_weight: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description="a unit gains this share of the gap to a more relevant previous unit (an answer after its question)",
    )
    session_weight: float = Field(
        0.4,
        ge=0.0,
        description="relevance += w * the best relevance within the unit's session (a relevant session lifts its turns)",
    )
    speaker_boost: float = Field(
        0.4,
        ge=0.0,
        description="factor 1 + b for units spoken by the one speaker the query names ('Name: text' units)",
    )
    date_boost: float = Field(
        0.4,
        ge=0.0,
        description="factor 1 + b for units dated on, or referring to, a date the query names",
    )
    when_boost: float = Field(
        0.1,
        ge=0.0,
        description="factor 1 + b for units that state a time when the query asks when",
    )
    expand_weight: float = Field(
        0.1,
        ge=0.0,
        description=(
            "multi-hop: factor 1 + w x the share of a top candidate's entities a unit of another session names "
            "(LoCoMo-dev all@5 0.678 -> 0.684; chosen in each leave-one-conversation-out fold, docs/benchmarks.md)"
        ),
    )
    expand_seeds: int = Field(
        3, ge=0, description="multi-hop: how many of the best candidates seed the expansion"
    )
    expand_max_share: float = Field(
        0.005,
        gt=0.0,
        le=1.0,
        description="multi-hop: a word is an entity when at most this share of the namespace's units (and at least 2) name it",
    )
    ann: Literal["ivf", "exact"] = Field(
        "ivf",
        description=(
            "dense search in namespaces of at least ann_min_rows units: a faiss IVF index (extra 'ann'; exact "
            "when faiss is missing) or always the exact numpy scan"
        ),
    )
    ann_min_rows: int = Field(
        20_000,
        ge=1,
        description="below this many units the exact scan costs under a millisecond or so (FACTS.md)",
    )
    ann_lists_per_sqrt: float = Field(
        1.0,
        gt=0,
        description="IVF clusters = this x sqrt(units) (faiss guideline: about sqrt(n) to 16 sqrt(n))",
    )
    ann_probes: int | None = Field(
        None,
        ge=1,
        description=(
            "IVF clusters scanned per query; None: the codec's own (`memory.ann.PROBES`: 48 for pq2, 32 for the "
            "others). Recall@10 vs exact and latency at 100k in docs/benchmarks.md"
        ),
    )
    ann_codec: Literal["pq2", "int8", "pq4", "float32"] = Field(
        "pq2",
        description=(
            "how the IVF index stores vectors: pq2 (faiss fast-scan product quantiser, a 4-bit code per pair of "
            "dimensions, of the vectors themselves; the best rows re-scored exactly: at 100k bench units recall@10 "
            "0.928 against int8's 0.910, the dense search's thread CPU p50 / p95 0.33 / 0.40 ms against int8's "
            "0.53-0.66 / 0.82-1.04 at load 4, a quarter of int8's bytes, training 1.4-1.6 s against 0.5 s), int8 "
            "(scalar quantiser, one 8-bit range for all dimensions, a quarter of float32's bytes; at 100k the scan "
            "took under half the CPU time of float32, recall@10 0.91 either way), pq4 (fast-scan product quantiser "
            "over residuals, 4 bits per dimension: training took about 50 s at 100k on 2 busy cores) or float32 "
            "(IndexIVFFlat); docs/benchmarks.md"
        ),
    )
    ann_rerank: int | None = Field(
        None,
        ge=1,
        description=(
            "a quantised IVF search fetches this many times the rows asked and keeps the best by exact cosine from "
            "the float32 matrix; None: the codec's own (`memory.ann.RERANK`: 5 for pq2, 2 for pq4, 1 for int8, "
            "whose own best rows lose nothing: at 100k with 32 probes recall@10 0.910 with 1 or 2)"
        ),
    )
    pair_decisions: int = Field(
        65_536,
        ge=0,
        description=(
            "pair decisions of the currency stage (comparable? update probability) kept across recalls, per pair "
            "scorer, so a question asked again reads no pair twice (0: none kept); each holds two references and "
            "two floats"
        ),
    )


class MemoryConfig(ConfigModel):
    """All knobs of a `Memory`: store durability and recall weights."""

    store: StoreConfig = Field(default_factory=StoreConfig)
    recall: RecallConfig = Field(default_factory=RecallConfig)
    embed_cache_size: int = Field(
        10000,
        ge=0,
        description="texts whose embeddings are kept in process memory (the SQLite cache is unbounded)",
    )
