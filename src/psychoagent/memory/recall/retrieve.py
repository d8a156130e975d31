"""Recall as a pipeline of pure scoring functions over a candidate table.

Candidates come from dense top-N and keyword (BM25) top-N. Each stage adds one named part to every candidate and
either sets the base relevance or multiplies the score by a bounded factor, so a new signal (affect, persona,
diversity) is one more stage. ``Recall.parts`` exposes every part.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from psychoagent.memory.config import RecallConfig
from psychoagent.memory.contracts import TOMBSTONE_KIND
from psychoagent.memory.index.ann import dense_top
from psychoagent.memory.index.conversation import linked_previous
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.candidates import Candidates, RecallContext, Stage
from psychoagent.memory.recall.expand import entity_stage
from psychoagent.memory.recall.overlap import in_background
from psychoagent.memory.recall.stages import conversation_stage, speaker_stage, temporal_stage
from psychoagent.memory.recall.subquery import fuse_content
from psychoagent.text import STOPWORDS, ZH_STOPWORDS, stem, tokens

SECONDS_PER_DAY = 86400.0


def query_terms(query: str) -> list[str]:
    """Keyword terms of a query (stopwords removed), one per stem ("paint painting" -> ["paint"])."""
    kept = [t for t in tokens(query) if t not in STOPWORDS and t not in ZH_STOPWORDS]
    return list({stem(t): t for t in reversed(kept)}.values())[::-1]


# ---- pure functions ----------------------------------------------------------------------------------------


def minmax(values: np.ndarray, floor: float | None = None) -> np.ndarray:
    """Scale to [0, 1] between min (or `floor` when lower) and max; a constant vector maps to 1 where positive.

    A fixed floor is the 'theoretical minimum' variant of Bruch et al. 2023 (TM2C2): with few candidates, plain
    min-max would blow tiny similarity differences up to the full [0, 1] range.
    """
    if values.size == 0:
        return values.astype(np.float64)
    lo, hi = float(values.min()), float(values.max())
    if floor is not None:
        lo = min(lo, floor)
    if hi - lo < 1e-12:
        return np.where(values > 0, 1.0, 0.0)
    return (values - lo) / (hi - lo)


def convex_fusion(
    dense: np.ndarray, keyword: np.ndarray, dense_weight: float, dense_floor: float | None = None
) -> np.ndarray:
    """w * minmax(dense, floor) + (1 - w) * keyword / max(keyword): candidates with no keyword hit get 0 there."""
    kw_max = float(keyword.max()) if keyword.size else 0.0
    kw = keyword / kw_max if kw_max > 0 else np.zeros_like(keyword, dtype=np.float64)
    return dense_weight * minmax(dense, dense_floor) + (1.0 - dense_weight) * kw


def keyword_coverage(matched: np.ndarray) -> np.ndarray:
    """Share of the query's information each candidate contains: sum of matched terms' IDF over all terms' IDF.

    `matched` is candidates x query terms. IDF is computed within the candidate pool, so a term every candidate
    shares (the person's name in "What does Alice do for fun?") carries little weight, and document length does
    not matter, unlike BM25.
    """
    n = matched.shape[0]
    if matched.size == 0:
        return np.zeros(n)
    idf = np.log1p(n / (1.0 + matched.sum(axis=0)))
    total = float(idf.sum())
    return matched @ idf / total if total > 0 else np.zeros(n)


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """`np.unique` of a small integer array (sort and drop repeats: a few times faster for a few hundred rows)."""
    out = np.sort(values)
    return out[np.concatenate(([True], out[1:] != out[:-1]))] if len(out) else out


def ranks(values: np.ndarray, present: np.ndarray | None = None) -> np.ndarray:
    """1-based rank of each value (highest first); absent entries get rank inf."""
    order = np.argsort(-values, kind="stable")
    out = np.empty(len(values), dtype=np.float64)
    out[order] = np.arange(1, len(values) + 1)
    if present is not None:
        out[~present] = np.inf
    return out


def rrf_fusion(dense: np.ndarray, keyword: np.ndarray, k: float) -> np.ndarray:
    """Reciprocal rank fusion: sum over retrievers of 1 / (k + rank), scaled so the best possible is 1."""
    fused = 1.0 / (k + ranks(dense)) + 1.0 / (k + ranks(keyword, keyword > 0))
    return fused / (2.0 / (k + 1.0))


def recency_factor(age_seconds: np.ndarray, half_life_days: float, weight: float) -> np.ndarray:
    """1 - w + w * 0.5 ** (age / half-life): in [1 - w, 1], geometric in age; future times count as age 0."""
    age_days = np.clip(age_seconds, 0.0, None) / SECONDS_PER_DAY
    return 1.0 - weight + weight * np.power(0.5, age_days / half_life_days)


def access_factor(access_count: np.ndarray, weight: float, cap: float) -> np.ndarray:
    """1 + w * log1p(count), capped: memories used often come back a little more easily."""
    return np.minimum(1.0 + weight * np.log1p(np.clip(access_count, 0, None)), cap)


def validity_factor(invalid_at: np.ndarray, now: float, factor: float) -> np.ndarray:
    """`factor` for units superseded before `now`, 1 for current ones."""
    superseded = ~np.isnan(invalid_at) & (invalid_at <= now)
    return np.where(superseded, factor, 1.0)


# ---- the pipeline -----------------------------------------------------------------------------------------


def neighbour_mean(
    own: np.ndarray, before: np.ndarray, after: np.ndarray, has_before: np.ndarray, has_after: np.ndarray
) -> np.ndarray:
    """Mean of the values of the linked neighbours before and after each row; the row's own value if it has none."""
    count = has_before.astype(np.float64) + has_after
    total = np.where(has_before, before, 0.0) + np.where(has_after, after, 0.0)
    return np.where(count > 0, total / np.maximum(count, 1.0), own)


def neighbour_coverage(
    own: np.ndarray, before: np.ndarray | None, after: np.ndarray | None, weight: float
) -> np.ndarray:
    """Keyword coverage where a term found only in a session neighbour counts `weight` of a match.

    All three are candidates x terms boolean matrices (neighbours already masked to linked ones; None: no
    candidate has one); IDF comes from the candidates' own matches, as in `keyword_coverage`.
    """
    n = own.shape[0]
    if own.size == 0:
        return np.zeros(n)
    if before is None or after is None:
        found = own.astype(np.float64)  # what the maximum with no neighbour match gives
    else:
        found = np.maximum(own, weight * (before | after))
    idf = np.log1p(n / (1.0 + own.sum(axis=0)))
    total = float(idf.sum())
    return found @ idf / total if total > 0 else np.zeros(n)


def gather_candidates(
    index: NamespaceIndex,
    ctx: RecallContext,
    mask: np.ndarray | None,
    n: int,
    keyword_signal: str = "coverage",
    cfg: RecallConfig | None = None,
    content: RecallContext | None = None,
) -> Candidates:
    """Union of dense top-n and BM25 top-n (both within the mask) and the units right after them in their session,
    with raw dense, neighbour-smoothed dense (`dense_context`), bm25 and keyword parts.

    The keyword part is the pool-IDF coverage of the query terms, crediting terms found in session neighbours
    (default), or BM25 itself. A `content` sub-query (`recall.subquery`) adds its own top-n and its parts
    `content_dense` and `content_keyword`.
    """
    cfg = cfg or RecallConfig()
    if len(index) == 0:
        return Candidates(rows=np.zeros(0, dtype=np.int64), score=np.zeros(0))
    searches = [ctx] if content is None else [ctx, content]
    found_rows, keyword_hits = [], []
    for c in searches:
        terms = query_terms(c.query)
        # a large namespace's dense search overlaps the keyword search (`recall.overlap`)
        dense = (
            in_background(partial(dense_top, index, c.query_vector, mask, n, cfg))
            if len(index) >= cfg.overlap_min_rows
            else None
        )
        kw_rows, kw_scores = index.keywords.search(terms, mask, n)
        rows_dense = dense.result() if dense is not None else dense_top(index, c.query_vector, mask, n, cfg)
        found_rows += [rows_dense, kw_rows]
        keyword_hits.append((terms, kw_rows, kw_scores))
    rows = sorted_unique(np.concatenate(found_rows))
    created = index.column("created_at")
    gap = cfg.session_gap_minutes * 60.0
    turns = index.conversation.turn_flags()
    # only dialogue turns have linked neighbours: without any, no candidate has one
    any_turn = index.conversation.any_turn()
    if cfg.reply_weight > 0 and len(rows) and any_turn:
        after = rows[rows + 1 < len(index)] + 1
        after = after[linked_previous(created, after, gap, turns)]
        if mask is not None:
            after = after[mask[after]]
        rows = sorted_unique(np.concatenate([rows, after]))
    nxt = np.minimum(rows + 1, len(index) - 1)
    prv = np.maximum(rows - 1, 0)
    if any_turn:
        has_before = linked_previous(created, rows, gap, turns)
        has_after = (rows + 1 < len(index)) & linked_previous(created, nxt, gap, turns)
    else:
        has_before = has_after = np.zeros(len(rows), dtype=bool)
    # candidates without a linked neighbour (every unit that is not a dialogue turn) read nothing of neighbours
    linked = bool(has_before.any() or has_after.any())
    parts: dict[str, np.ndarray] = {}
    for c, (terms, kw_rows, kw_scores), prefix in zip(searches, keyword_hits, ("", "content_"), strict=False):
        bm25 = np.zeros(len(rows))
        bm25[np.searchsorted(rows, kw_rows)] = kw_scores
        vectors, q = index.search_vectors, c.query_vector
        dense = (vectors[rows] @ q).astype(np.float64)
        a = cfg.neighbour_dense_weight
        if a > 0 and linked:
            dense_ctx = (1.0 - a) * dense + a * neighbour_mean(
                dense, vectors[prv] @ q, vectors[nxt] @ q, has_before, has_after
            )
        elif a > 0:
            dense_ctx = (1.0 - a) * dense + a * dense  # no neighbours: the neighbour mean is the own value
        else:
            dense_ctx = dense
        if keyword_signal == "coverage":
            m = len(rows)
            if cfg.neighbour_keyword_weight > 0:
                # one postings lookup per term for the candidates and both neighbours
                found = index.keywords.matches(terms, np.concatenate([rows, prv, nxt]) if linked else rows)
                own = found[:m]
                if linked:
                    before = found[m : 2 * m] & has_before[:, None]
                    after_m = found[2 * m :] & has_after[:, None]
                    keyword = neighbour_coverage(own, before, after_m, cfg.neighbour_keyword_weight)
                else:
                    keyword = neighbour_coverage(own, None, None, cfg.neighbour_keyword_weight)
            else:
                keyword = keyword_coverage(index.keywords.matches(terms, rows))
        else:
            keyword = bm25
        if prefix:
            parts.update({"content_dense": dense_ctx, "content_keyword": keyword})
        else:
            parts.update({"dense": dense, "dense_context": dense_ctx, "bm25": bm25, "keyword": keyword})
    return Candidates(rows=rows, parts=parts, score=np.zeros(len(rows)))


def relevance_stage(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Fuse dense and keyword parts into the base relevance (convex or RRF, see RecallConfig.fusion)."""
    dense, keyword = cands.parts.get("dense_context", cands.parts["dense"]), cands.parts["keyword"]
    fused = _fuse(dense, keyword, ctx, cfg)
    if "content_keyword" in cands.parts:
        own = _fuse(cands.parts["content_dense"], cands.parts["content_keyword"], ctx, cfg)
        cands.parts["content"] = own
        fused = fuse_content(fused, own, cfg.content_query_weight)
    cands.parts["relevance"] = fused
    cands.score = fused.copy()


def _fuse(dense: np.ndarray, keyword: np.ndarray, ctx: RecallContext, cfg: RecallConfig) -> np.ndarray:
    """Dense and keyword parts fused as `RecallConfig.fusion` says."""
    if cfg.fusion == "rrf":
        return rrf_fusion(dense, keyword, cfg.rrf_k)
    return convex_fusion(dense, keyword, ctx.dense_weight, ctx.dense_floor)


def recency_stage(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Newer memories keep more of their score (geometric decay with a half-life)."""
    if cfg.recency_weight > 0:
        age = ctx.now - index.column("created_at")[cands.rows]
        cands.multiply("recency", recency_factor(age, cfg.recency_half_life_days, cfg.recency_weight))


def access_stage(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Memories recalled often are reinforced (bounded)."""
    if cfg.access_weight > 0:
        counts = index.column("access_count")[cands.rows]
        cands.multiply("access", access_factor(counts, cfg.access_weight, cfg.access_cap))


def validity_stage(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Superseded facts stay retrievable but rank below the fact that replaced them."""
    invalid = index.column("invalid_at")[cands.rows]
    if not cfg.include_superseded:
        keep = np.isnan(invalid) | (invalid > ctx.now)
        cands.rows = cands.rows[keep]
        cands.parts = {name: values[keep] for name, values in cands.parts.items()}
        cands.score = cands.score[keep]
        invalid = invalid[keep]
    cands.multiply("validity", validity_factor(invalid, ctx.now, cfg.superseded_factor))


def drop_forgotten(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Recall stage: tombstones are never recalled (they have no content to offer)."""
    keep = index.column("kind")[cands.rows] != TOMBSTONE_KIND
    if bool(np.all(keep)):
        return
    cands.rows = cands.rows[keep]
    cands.parts = {name: values[keep] for name, values in cands.parts.items()}
    cands.score = cands.score[keep]


def default_pipeline() -> list[Stage]:
    """The stages every recall runs, in order: relevance, conversation (replies, sessions), speaker, time,
    recency, access, validity."""
    return [relevance_stage, conversation_stage, speaker_stage, temporal_stage, entity_stage, recency_stage,
            access_stage, validity_stage]  # fmt: skip


def top_k(cands: Candidates, k: int) -> np.ndarray:
    """Positions (into the candidate arrays) of the k best scores, best first, ties broken by row (older first)."""
    if len(cands.rows) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((cands.rows, -cands.score))
    return order[:k]


def finite_or_zero(value: float) -> float:
    """Parts are exported as plain floats; NaN never leaves the pipeline."""
    return value if math.isfinite(value) else 0.0
