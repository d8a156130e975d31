"""Weights of the hybrid recall pipeline, each with its documented default and, where one exists, its source."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from psychoagent.config import ConfigModel, Count, NonNegative, NonNegativeInt, Positive, PositiveShare, Share

DEFAULT_DENSE_WEIGHT = 0.7
"""Dense weight for embedders that declare none (the middle of e5-small's plateau, docs/benchmarks.md)."""


class RecallConfig(ConfigModel):
    """Weights of the hybrid recall pipeline (dense + keyword fused, then optional recency and access factors)."""

    candidates: Count = 100
    """how many candidates each retriever (dense, keyword) contributes before scoring"""
    fusion: Literal["convex", "rrf"] = "convex"
    """how dense and keyword scores are fused. convex: weighted sum of min-max-normalised scores (Bruch et al.
    2023, 'An Analysis of Fusion Functions for Hybrid Retrieval', found it beats RRF); rrf: reciprocal rank
    fusion (Cormack et al. 2009)."""
    dense_weight: Share | None = None
    """weight of the dense part in convex fusion (keyword gets 1 - this); None uses the embedder's calibrated
    weight (e5-small 0.7, hash 0.5: the best recall@5 on the bilingual fixture, docs/benchmarks.md)"""
    keyword_signal: Literal["coverage", "bm25"] = "coverage"
    """keyword part of the fusion. coverage: IDF-weighted share of query terms a candidate contains, IDF taken
    within the candidate pool (robust to document length; hybrid >= dense alone on the fixture); bm25:
    FTS5's BM25 divided by the best candidate's. BM25 always selects the keyword candidates."""
    rrf_k: Positive = 60.0
    """RRF constant k from Cormack et al. 2009"""
    recency_weight: Share = 0.1
    """max share of the score recency can remove: factor = 1 - w + w * 0.5 ** (age / half-life)"""
    recency_half_life_days: Positive = 30.0
    """age at which the recency bonus halves"""
    access_weight: Share = 0.01
    """access reinforcement: factor = 1 + w * log1p(access count), capped. A tie-breaker: being returned is
    not being used, and at 0.05 units returned often crowded out later questions' evidence on LoCoMo-dev
    (any@5 0.750 vs 0.778 at 0.01, docs/benchmarks.md)"""
    access_cap: float = Field(1.2, ge=1.0)
    """upper bound of the access reinforcement factor"""
    track_access: bool = True
    """count each returned unit as accessed (persisted)"""
    access_flush_seconds: NonNegative = 1.0
    """access counts are written behind: before any other store call, on close and at most this long after a
    recall (one transaction for many recalls instead of one per recall; memory.stores.access); 0 writes
    each recall's counts at once. Read when the Memory is opened"""
    include_superseded: bool = True
    """superseded units stay retrievable (marked by invalid_at); False drops them"""
    superseded_factor: Share = 0.85
    """score factor applied to superseded units so the current fact ranks first"""
    # -- conversation structure (LoCoMo-dev ablation in docs/benchmarks.md) ---------------------------------
    session_gap_minutes: NonNegative = 60.0
    """units closer in time than this (and adjacent in insertion order) are neighbours in one session"""
    turn_context: bool = True
    """search each dialogue turn by the embedding of the turn before it in its session and itself
    (`index.context`; one more embedding per such turn at write time, kept in the store's vector cache):
    LoCoMo-dev any@5 / all@5 0.804 / 0.680 -> 0.836 / 0.705, on the conversations it was chosen on 0.772 / 0.660
    -> 0.807 / 0.681 and on the others 0.845 / 0.706 -> 0.873 / 0.736 (docs/benchmarks.md)"""
    neighbour_dense_weight: Share = 0.3
    """dense part = (1 - w) * own similarity + w * mean similarity of the session neighbours before and after"""
    neighbour_keyword_weight: Share = 0.5
    """a query term found only in a session neighbour counts this fraction of a match in keyword coverage"""
    reply_weight: Share = 0.3
    """a unit gains this share of the gap to a more relevant previous unit (an answer after its question)"""
    session_weight: NonNegative = 0.4
    """relevance += w * the best relevance within the unit's session (a relevant session lifts its turns)"""
    speaker_boost: NonNegative = 0.4
    """factor 1 + b for units spoken by the one speaker the query names ('Name: text' units)"""
    date_boost: NonNegative = 0.4
    """factor 1 + b for units dated on, or referring to, a date the query names"""
    when_boost: NonNegative = 0.1
    """factor 1 + b for units that state a time when the query asks when"""
    expand_weight: NonNegative = 0.1
    """multi-hop: factor 1 + w x the share of a top candidate's entities a unit of another session names
    (LoCoMo-dev all@5 0.678 -> 0.684; chosen in each leave-one-conversation-out fold, docs/benchmarks.md)"""
    expand_seeds: NonNegativeInt = 3
    """multi-hop: how many of the best candidates seed the expansion"""
    expand_max_share: PositiveShare = 0.005
    """multi-hop: a word is an entity when at most this share of the namespace's units (and at least 2) name
    it"""
    content_query_weight: Share = 0.3
    """a question that names a speaker is also asked without the name and function words (`recall.subquery`);
    its fused dense + keyword score takes this share of the base relevance (0: off, no second embedding).
    LoCoMo-dev any@5 / all@5 / all@10 0.834 / 0.705 / 0.753 -> 0.836 / 0.707 / 0.767; chosen on the tuning half
    (conversations 26, 30, 42: 0.807 / 0.681 -> 0.809 / 0.684; weights 0.2-0.7 and rank fusion tried,
    docs/benchmarks.md), other half 0.870 / 0.736 -> 0.870 / 0.736"""
    answer_type_weight: NonNegative = 0.3
    """a question asking for a place, person, time or amount ("where", "who", "when", "how much"; 哪里, 谁,
    什么时候, 多少) multiplies each candidate's score by 1 + w x how well it supplies one (`recall.answer_type`);
    0 turns the stage off"""
    answer_type_meaning: Share = 0.5
    """share of the meaning score (similarity to the type's prototype sentences against the others') in a
    candidate's supply; the rest is the structure rules' score (`recall.answer_words`)"""
    answer_type_keeps: Share = 0.5
    """the currency stage reads no pair as an update when the older candidate supplies the asked type by at least
    this much more than the newer one (0: it ignores the answer type)"""
    latest_candidates: NonNegativeInt = 8
    """the newest-statement stage (`recall.latest`) compares the best this many candidates (under 2: off)"""
    latest_relevance: Share = 0.6
    """a newer statement ranks above an older one when its query relevance is at least this share of the older's
    (it answers the question about as well) ..."""
    latest_similarity: Share = 0.5
    """... and the two are at least this similar (cosine normalised so the embedder's unrelated level is 0)"""
    latest_gap: float = Field(0.95, gt=0, lt=1)
    """the newer statement is then lifted to the older one's score divided by this (as
    `SafetyConfig.supersession_gap`)"""
    ann: Literal["ivf", "exact"] = "ivf"
    """dense search in namespaces of at least ann_min_rows units: a faiss IVF index (extra 'ann'; exact when
    faiss is missing) or always the exact numpy scan"""
    vector_dtype: Literal["float32", "float16"] = "float32"
    """how the in-memory index holds each unit's vector: float16 halves the largest part of a big namespace's
    memory (1,000,000 x 384: 0.7 GB instead of 1.5 GB) at the cost of rounding (a cosine moves by about 1e-3) and
    a slower exact scan (a block of rows is converted at a time; write-time detection goes through the IVF index
    where recall built one); the store keeps float32 either way"""
    overlap_min_rows: Count = 50_000
    """in namespaces of at least this many units the dense search runs on a helper thread while the keyword
    search runs (both release the GIL; same results): at a million units 3.8 and 5.7 ms one after the other
    (docs/benchmarks.md); below, a search is too short for the hand-over to pay"""
    ann_min_rows: Count = 20_000
    """below this many units the exact scan costs under a millisecond or so (FACTS.md)"""
    ann_lists_per_sqrt: Positive = 1.0
    """IVF clusters = this x sqrt(units) (faiss guideline: about sqrt(n) to 16 sqrt(n))"""
    ann_probes: Count | None = None
    """IVF clusters scanned per query; None: the codec's own (`memory.index.ann.PROBES`: 48 for pq2, 32 for
    the others; pq2 scans at least 18 % of the clusters, `PROBE_SHARE`). Recall@10 vs exact and latency at 100k
    and at a million units in docs/benchmarks.md"""
    ann_codec: Literal["pq2", "int8", "pq4", "float32"] = "pq2"
    """how the IVF index stores vectors: pq2 (faiss fast-scan product quantiser, a 4-bit code per pair of
    dimensions, of the vectors themselves; the best rows re-scored exactly: at 100k bench units recall@10
    0.928 against int8's 0.910, the dense search's thread CPU p50 / p95 0.33 / 0.40 ms against int8's
    0.53-0.66 / 0.82-1.04 at load 4, a quarter of int8's bytes, training 1.4-1.6 s against 0.5 s), int8
    (scalar quantiser, one 8-bit range for all dimensions, a quarter of float32's bytes; at 100k the scan
    took under half the CPU time of float32, recall@10 0.91 either way), pq4 (fast-scan product quantiser
    over residuals, 4 bits per dimension: training took about 50 s at 100k on 2 busy cores) or float32
    (IndexIVFFlat); docs/benchmarks.md"""
    ann_rerank: Count | None = None
    """a quantised IVF search fetches this many times the rows asked and keeps the best by exact cosine from
    the float32 matrix; None: the codec's own (`memory.index.ann.RERANK`: 8 for pq2, 2 for pq4, 1 for int8,
    whose own best rows lose nothing: at 100k with 32 probes recall@10 0.910 with 1 or 2)"""
    pair_decisions: NonNegativeInt = 65_536
    """pair decisions of the currency stage (comparable? update probability) kept across recalls, per pair
    scorer, so a question asked again reads no pair twice (0: none kept); each holds two references and two
    floats"""
