"""Recall for many agents of a `PopulationMemory` at once: the stages of `Memory.recall` as 2-D array operations.

Agents x positions blocks replace per-agent candidate tables: dense similarity is gathered from one matrix
product per distinct query, the dense and keyword candidate pools are per-row top-n masks, and relevance
(convex fusion of min-max dense and pool-IDF keyword coverage), recency, access, validity, affect modulation
(conflict-first), the persona tilt, MMR diversity and exploration are masked arithmetic over the block. Units
are not dialogue turns, so each is a session of its own (reply and neighbour terms are zero, as for facts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from psychoagent.memory.config import AffectiveMemoryConfig, RecallConfig
from psychoagent.memory.population.memory import PopulationMemory
from psychoagent.memory.recall.modulate import decay_factor
from psychoagent.memory.recall.retrieve import access_factor, recency_factor

_RECALL_COLUMNS = ("text", "tick", "valence", "conflict", "invalid", "access", "risky", "actual")
"""The columns scoring reads (the other outcome fields are read only for the memories recalled)."""


@dataclass
class Request:
    """Who recalls what: agent slots, one query and k each, the current mood and (optional) risk preference."""

    slots: np.ndarray
    queries: list[str]
    k: np.ndarray
    mood_valence: np.ndarray
    mood_conflict: np.ndarray
    risk: np.ndarray | None = None
    modulated: bool = True
    window: int = 0
    """Scan only each agent's `window` latest memories (0: the whole history), so a recall's cost stops growing;
    of the older ones, the agent's `kept` latest own memories stay (public events beyond the window drop out)."""
    kept: int = 0


@dataclass
class Hits:
    """Per agent (request order): recalled positions best first and their scores."""

    positions: list[np.ndarray]
    scores: list[np.ndarray]


def _top_n(values: np.ndarray, n: int) -> np.ndarray:
    """Per row, True at exactly n entries: the n largest values, ties going to the lower position. The choice
    depends only on the row's own values (argpartition's choice among ties also depended on the row's padding,
    i.e. on which other agents were recalled in the same batch)."""
    v = np.where(np.isnan(values), -np.inf, values)
    kth = np.partition(v, v.shape[1] - n, axis=1)[:, v.shape[1] - n, None]
    above = v > kth
    tie = v == kth
    room = n - above.sum(axis=1, keepdims=True)
    return above | (tie & (np.cumsum(tie, axis=1) <= room))


def _top_mask(values: np.ndarray, n: int) -> np.ndarray:
    """Per row, True at the n largest finite values (all finite ones when a row has fewer)."""
    finite = np.isfinite(values)
    if values.shape[1] <= n:
        return finite
    return _top_n(values, n) & finite


class _Queries:
    """The distinct queries of a request with their cached dense similarities and keyword matches per text."""

    def __init__(self, pop: PopulationMemory, req: Request) -> None:
        uniq, self.which = np.unique(np.asarray(req.queries, dtype=object), return_inverse=True)
        self.cached = [pop.table.query(str(q)) for q in uniq]
        self.n_terms = max(max((len(c[1]) for c in self.cached), default=0), 1)
        self.terms = np.zeros((len(req.slots), self.n_terms), dtype=bool)
        for q, (_, words, _, _) in enumerate(self.cached):
            self.terms[self.which == q, : len(words)] = True

    def dense_and_counts(self, text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Dense similarity and the number of query terms matched (agents x columns of text ids)."""
        safe = np.maximum(text, 0)
        dense = np.zeros(text.shape, dtype=np.float64)
        counts = np.zeros(text.shape, dtype=np.int64)
        for q, (_, words, sims, hits) in enumerate(self.cached):
            rows = np.flatnonzero(self.which == q)
            dense[rows] = sims[safe[rows]]
            if words:
                counts[rows] = hits.sum(axis=1)[safe[rows]]
        return dense, counts

    def matches(self, text: np.ndarray) -> np.ndarray:
        """Keyword matches (agents x columns x terms; False beyond each query's terms)."""
        safe = np.maximum(text, 0)
        match = np.zeros((*text.shape, self.n_terms), dtype=bool)
        for q, (_, words, _, hits) in enumerate(self.cached):
            if words:
                rows = np.flatnonzero(self.which == q)
                match[rows, :, : len(words)] = hits[safe[rows]]
        return match


def _compact(cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's candidate columns in ascending order, padded: (columns, mask), agents x most candidates."""
    rows, cols = np.nonzero(cand)
    per_row = cand.sum(axis=1)
    out = np.zeros((cand.shape[0], max(int(per_row.max()), 1)), dtype=np.int64)
    ok = np.zeros(out.shape, dtype=bool)
    rank = np.arange(len(rows)) - (np.cumsum(per_row) - per_row)[rows]
    out[rows, rank] = cols
    ok[rows, rank] = True
    return out, ok


def recall_many(pop: PopulationMemory, req: Request, tick: int, cfg: RecallConfig,
                affect: AffectiveMemoryConfig, dense_weight: float, dense_floor: float | None,
                persona_weight: float, rng: np.random.Generator) -> Hits:  # fmt: skip
    """Recall for every agent of the request in one pass (see the module doc for the stages)."""
    slots = req.slots
    counts = pop.count[slots]
    width = int(counts.max()) if len(slots) else 0
    if width == 0:
        empty = [np.zeros(0, dtype=np.int64) for _ in slots]
        return Hits(empty, [np.zeros(0) for _ in slots])
    if 0 < req.window < width:
        at, valid = _scanned(pop, slots, counts, req.window, req.kept)
        text = pop.cols["text"][slots[:, None], at]
    else:
        at = np.broadcast_to(np.arange(width), (len(slots), width))
        valid = at < counts[:, None]
        text = pop.cols["text"][slots, :width]
    queries = _Queries(pop, req)
    dense, matched = queries.dense_and_counts(text)
    kmax = int(req.k.max())
    n = max(cfg.candidates, kmax * affect.modulation.pool_factor)
    dense = np.where(valid, dense, -np.inf)
    keyword_pick = np.where(valid & (matched > 0), matched + 1e-3 * dense, -np.inf)
    cand = valid & (_top_mask(dense, n) | _top_mask(keyword_pick, n))
    # the rest scores only the candidates: each row's candidate columns, in position order (ties go to the older)
    idx, cand = _compact(cand)
    at = np.take_along_axis(at, idx, axis=1)
    """Column j of row d is now memory position at[d, j]."""
    text = np.take_along_axis(text, idx, axis=1)
    dense = np.take_along_axis(dense, idx, axis=1)
    match, terms = queries.matches(text), queries.terms
    c = {name: pop.cols[name][slots[:, None], at] for name in _RECALL_COLUMNS if name != "text"}
    c["text"] = text
    # relevance: convex fusion of min-max dense (with the embedder's floor) and pool-IDF keyword coverage
    d_in = np.where(cand, dense, np.nan)
    with np.errstate(all="ignore"):
        lo, hi = np.nanmin(d_in, axis=1), np.nanmax(d_in, axis=1)
    lo = np.minimum(lo, dense_floor) if dense_floor is not None else lo
    span = (hi - lo)[:, None]
    flat = span < 1e-12
    mm = np.where(flat, (dense > 0).astype(np.float64), (dense - lo[:, None]) / np.where(flat, 1.0, span))
    pool_match = match & cand[:, :, None]
    idf = np.log1p(cand.sum(axis=1)[:, None] / (1.0 + pool_match.sum(axis=1))) * terms
    total = idf.sum(axis=1)
    weighted = np.zeros(dense.shape)
    for t in range(
        idf.shape[1]
    ):  # terms in order: the IDF-weighted count of the query terms each memory holds
        weighted += np.where(pool_match[:, :, t], idf[:, t, None], 0.0)
    coverage = weighted / np.where(total > 0, total, 1.0)[:, None]
    kw_max = np.where(cand, coverage, 0.0).max(axis=1)
    keyword = np.where(kw_max[:, None] > 0, coverage / np.where(kw_max > 0, kw_max, 1.0)[:, None], 0.0)
    score = (dense_weight * mm + (1.0 - dense_weight) * keyword) * (1.0 + cfg.session_weight)
    age = (tick - c["tick"]).astype(np.float64) * pop.seconds_per_tick
    if cfg.recency_weight > 0:
        score *= recency_factor(age, cfg.recency_half_life_days, cfg.recency_weight)
    if cfg.access_weight > 0:
        score *= access_factor(c["access"].astype(np.float64), cfg.access_weight, cfg.access_cap)
    stale = ~np.isnan(c["invalid"]) & (c["invalid"] <= tick)
    score *= np.where(stale, cfg.superseded_factor, 1.0)
    affect_factor = np.ones_like(score)
    if req.modulated:
        mod = affect.modulation
        decay = decay_factor(age, np.zeros(1), affect.decay.half_life_days, affect.decay.success_half_count)
        conflict = c["conflict"] * decay
        valence = c["valence"] * decay
        high = (req.mood_conflict >= mod.conflict_state_threshold)[:, None]
        affect_factor *= np.where(high, np.minimum(1.0 + mod.conflict_weight * np.clip(conflict, 0, 4) / 4.0,
                                                   mod.max_factor), 1.0)  # fmt: skip
        negative = (req.mood_valence < 0)[:, None]
        affect_factor *= np.where(negative, np.minimum(1.0 + mod.lesson_weight * np.clip(-valence, 0, 2) / 2.0,
                                                       mod.max_factor), 1.0)  # fmt: skip
        score *= affect_factor
    if req.risk is not None:
        tilt = (persona_weight * (2.0 * req.risk - 1.0))[:, None]
        actual = c["actual"]
        factor = np.where(
            c["risky"] & (actual > 0), 1.0 + tilt, np.where(c["risky"] & (actual < 0), 1.0 - tilt, 1.0)
        )
        score *= np.maximum(factor, 0.05)
    _successors_first(pop, c["text"], cand, stale, score, affect.safety.supersession_gap)
    score = np.where(cand, score, -np.inf)
    if req.modulated:
        chosen = _mmr(pop, c["text"], score, req.k, kmax * affect.safety.mmr_pool, affect.safety.mmr_lambda)
        _explore(pop, req, chosen, score / affect_factor, c["valence"], cand, affect, rng)
    else:
        chosen = [row for row in _ordered_top(score, kmax)]
        chosen = [ch[: int(k)] for ch, k in zip(chosen, req.k, strict=True)]
    rows = np.repeat(np.arange(len(chosen)), [len(ch) for ch in chosen])
    cols = np.concatenate([*chosen, np.zeros(0, dtype=np.int64)]).astype(np.int64)
    kept = np.isfinite(score[rows, cols])
    rows, cols = rows[kept], cols[kept]
    found = score[rows, cols]
    positions = at[rows, cols]
    pop.cols["access"][slots[rows], positions] += 1.0  # (agent, memory) pairs are distinct within a request
    cuts = np.cumsum(np.bincount(rows, minlength=len(chosen)))[:-1]
    return Hits(np.split(positions, cuts), np.split(found, cuts))


def _scanned(pop: PopulationMemory, slots: np.ndarray, counts: np.ndarray, window: int,
             kept: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Positions each agent's recall scans (agents x columns, ascending; padding is position 0 marked invalid):
    up to `kept` of its own memories older than its `window` latest memories, then those latest memories."""
    start = np.maximum(counts - window, 0)
    recent = start[:, None] + np.arange(window)[None, :]
    ok = recent < counts[:, None]
    if kept <= 0:
        return np.where(ok, recent, 0), ok
    own_n = pop.own_count[slots]
    own = pop.own[slots, : max(int(own_n.max()), 1)]
    older = ((own < start[:, None]) & (np.arange(own.shape[1])[None, :] < own_n[:, None])).sum(axis=1)
    rank = older[:, None] - kept + np.arange(kept)[None, :]
    old_ok = rank >= 0
    old_at = np.take_along_axis(own, np.clip(rank, 0, own.shape[1] - 1), axis=1)
    at = np.concatenate([np.where(old_ok, old_at, 0), np.where(ok, recent, 0)], axis=1)
    return at, np.concatenate([old_ok, ok], axis=1)


def _ordered_top(score: np.ndarray, n: int) -> np.ndarray:
    """Positions of the n best scores per row, best first, ties to the older memory (lower position)."""
    n = min(n, score.shape[1])
    part = (
        np.nonzero(_top_n(score, n))[1].reshape(score.shape[0], n)
        if score.shape[1] > n
        else np.tile(np.arange(score.shape[1]), (score.shape[0], 1))
    )
    vals = np.take_along_axis(score, part, axis=1)
    order = np.lexsort((part, -vals), axis=1)
    return np.take_along_axis(part, order, axis=1)


def _successors_first(pop: PopulationMemory, text: np.ndarray, cand: np.ndarray, stale: np.ndarray,
                      score: np.ndarray, gap: float) -> None:  # fmt: skip
    """A superseded memory scores at most `gap` times its successor when the agent has both as candidates."""
    rows, cols = np.nonzero(stale & cand)
    if len(rows) == 0 or not pop.successor:
        return
    succ = np.array([pop.successor.get(int(t), -1) for t in text[rows, cols]], dtype=np.int64)
    n_text = max(len(pop.table), 1)
    cr, cc = np.nonzero(cand)
    keys = cr.astype(np.int64) * n_text + text[cr, cc]
    order = np.argsort(keys, kind="stable")
    want = rows.astype(np.int64) * n_text + succ
    at = np.minimum(np.searchsorted(keys[order], want), len(keys) - 1)
    found = (succ >= 0) & (keys[order][at] == want)
    for r, col, j in zip(rows[found], cols[found], order[at][found], strict=True):
        target = score[cr[j], cc[j]] * gap
        if score[r, col] > target > 0:
            score[r, col] = target


def _mmr(pop: PopulationMemory, text: np.ndarray, score: np.ndarray, k: np.ndarray, pool_size: int,
         lam: float) -> list[np.ndarray]:  # fmt: skip
    """Greedy maximal marginal relevance over each agent's best `pool_size` candidates, all agents at once."""
    pool = _ordered_top(score, pool_size)
    rel = np.take_along_axis(score, pool, axis=1)
    ok = np.isfinite(rel)
    top = np.where(ok, rel, -np.inf).max(axis=1, keepdims=True)
    rel = np.where(top > 0, rel / np.where(top > 0, top, 1.0), 1.0)
    vecs = pop.table.vectors[np.maximum(np.take_along_axis(text, pool, axis=1), 0)].astype(np.float32)
    sims = np.einsum("dpe,dqe->dpq", vecs, vecs)
    n_agents, size = pool.shape
    max_sim = np.zeros((n_agents, size))
    taken = ~ok
    picks = np.full((n_agents, int(k.max())), -1, dtype=np.int64)
    every = np.arange(n_agents)
    for step in range(picks.shape[1]):
        value = np.where(taken, -np.inf, lam * rel - (1.0 - lam) * max_sim)
        best = np.argmax(value, axis=1)
        live = np.isfinite(value[every, best]) & (step < k)
        picks[live, step] = pool[every[live], best[live]]
        taken[every[live], best[live]] = True
        max_sim = np.where(live[:, None], np.maximum(max_sim, sims[every, best]), max_sim)
    return [row[row >= 0] for row in picks]


def _explore(pop: PopulationMemory, req: Request, chosen: list[np.ndarray], plain: np.ndarray,
             valence: np.ndarray, cand: np.ndarray, affect: AffectiveMemoryConfig,
             rng: np.random.Generator) -> None:  # fmt: skip
    """With probability epsilon, or when recent recalls were mostly negative, the last pick becomes the best
    non-negative memory by unmodulated score; then the agents' negativity trackers are updated."""
    safety = affect.safety
    window = safety.negative_window
    if pop.recent_negative is None or pop.recent_negative.shape[1] != window:
        pop.recent_negative = np.full((len(pop.agent_ids), window), np.nan)
    history = pop.recent_negative[req.slots]
    seen = np.isfinite(history).any(axis=1)
    mean = np.where(seen, np.nanmean(np.where(seen[:, None], history, 0.0), axis=1), 0.0)
    draws = rng.random(len(chosen))
    explore = (seen & (mean > safety.negative_share)) | (draws < safety.epsilon)
    shares = np.zeros(len(chosen))
    for d, ch in enumerate(chosen):
        if explore[d] and safety.explore_slots and len(ch):
            options = np.where(cand[d] & (valence[d] >= 0), plain[d], -np.inf)
            options[ch] = -np.inf
            best = int(np.argmax(options))
            if np.isfinite(options[best]):
                ch[len(ch) - 1] = best
        shares[d] = float((valence[d, ch] < 0).mean()) if len(ch) else 0.0
    pop.recent_negative[req.slots] = np.concatenate([history[:, 1:], shares[:, None]], axis=1)
