"""Feedback-loop safety of modulated recall (seed 5.4): MMR diversity, exploration, conflict partners.

Plain recall (no affect state) keeps the plain top-k. When recall is modulated, the final list is chosen by maximal
marginal relevance (Carbonell & Goldstein 1998); with probability epsilon, or when recent modulated recalls were
dominated by negative memories, the last slot goes to the best non-negative memory by unmodulated score; and the
other side of a recalled conflict is pulled in so contradictions are seen together.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.candidates import Candidates, RecallContext
from psychoagent.memory.recall.modulate import unmodulated
from psychoagent.memory.recall.retrieve import top_k
from psychoagent.memory.state.namespace import Namespace


def mmr(relevance: np.ndarray, vectors: np.ndarray, k: int, lam: float) -> tuple[list[int], np.ndarray]:
    """Greedy MMR over candidates: positions picked, and each candidate's max similarity to earlier picks."""
    n = len(relevance)
    if n == 0 or k <= 0:
        return [], np.zeros(n)
    top = float(relevance.max())
    rel = relevance / top if top > 0 else np.ones(n)
    sims = vectors @ vectors.T
    chosen: list[int] = []
    max_sim = np.zeros(n)
    penalty = np.zeros(n)
    for _ in range(min(k, n)):
        value = lam * rel - (1.0 - lam) * max_sim
        if chosen:
            value[chosen] = -np.inf
        best = int(np.argmax(value))
        penalty[best] = max_sim[best]
        chosen.append(best)
        max_sim = np.maximum(max_sim, sims[best])
    return chosen, penalty


def conflict_links(graph: Any, uid: str) -> list[tuple[str, str, str]]:
    """(src, dst, type) of the `supersedes` and `contradicts` edges touching a unit, from the cached graph."""
    if uid not in graph:
        return []
    links = [(uid, d, k) for _, d, k in graph.out_edges(uid, keys=True) if k in _CONFLICT_EDGES]
    return links + [(s, uid, k) for s, _, k in graph.in_edges(uid, keys=True) if k in _CONFLICT_EDGES]


_CONFLICT_EDGES = ("supersedes", "contradicts")


class AffectSelector:
    """Final picker: top-k for plain recall; MMR + exploration + conflict partners for modulated recall."""

    def __init__(self, ns: Namespace) -> None:
        self.ns = ns

    def __call__(self, cands: Candidates, index: NamespaceIndex, ctx: RecallContext) -> np.ndarray:
        modulated = ctx.affect_state is not None and ctx.policy not in (None, "none")
        if not modulated or len(cands.rows) == 0:
            return top_k(cands, ctx.k)
        safety = self.ns.affect_config.safety
        state = self.ns.affect()
        self._order_supersessions(cands, index, ctx.now)
        pool = top_k(cands, ctx.k * safety.mmr_pool)
        if ctx.extras.get("mmr", True):
            picks, penalty = mmr(
                cands.score[pool], index.vector_rows(cands.rows[pool]), ctx.k, safety.mmr_lambda
            )
            chosen = [int(pool[p]) for p in picks]
            diversity = np.zeros(len(cands.rows))
            diversity[pool] = penalty
            cands.parts["diversity"] = diversity
        else:
            chosen = [int(p) for p in pool[: ctx.k]]
        chosen = self._partners(cands, index, chosen, ctx.k)
        chosen = self._explore(cands, index, ctx, chosen, state.recent_negative)
        valence = index.column("valence")[cands.rows[chosen]] if chosen else np.zeros(0)
        state.recent_negative.append(float((valence < 0).mean()) if len(valence) else 0.0)
        del state.recent_negative[: -safety.negative_window]
        return np.asarray(chosen, dtype=np.int64)

    def _order_supersessions(self, cands: Candidates, index: NamespaceIndex, now: float) -> None:
        """A superseded unit scores just below the unit that superseded it when both are candidates (a bounded
        factor in (0, 1], part 'supersession'): the current fact comes first, the stale one stays next to it."""
        invalid = index.column("invalid_at")[cands.rows]
        stale = np.flatnonzero(~np.isnan(invalid) & (invalid <= now))
        if len(stale) == 0:
            return
        position = {int(r): i for i, r in enumerate(cands.rows)}
        factor = np.ones(len(cands.rows))
        gap = self.ns.affect_config.safety.supersession_gap
        graph = self.ns.graph()
        for pos in stale:
            uid = index.ids[int(cands.rows[pos])]
            for src, dst, kind in conflict_links(graph, uid):
                if kind != "supersedes" or dst != uid:
                    continue
                row = index.row_of.get(src)
                newer = position.get(row) if row is not None else None
                if newer is None or cands.score[pos] <= 0:
                    continue
                target = cands.score[newer] * gap
                if cands.score[pos] > target:
                    factor[pos] = min(factor[pos], target / cands.score[pos])
        if (factor < 1.0).any():
            cands.multiply("supersession", factor)

    def _partners(self, cands: Candidates, index: NamespaceIndex, chosen: list[int], k: int) -> list[int]:
        """Swap in the other side of a chosen unit's conflict (if it is a candidate) for the weakest non-conflict pick."""
        if not self.ns.affect_config.fusion.include_partners or len(chosen) < 2:
            return chosen
        position = {int(r): i for i, r in enumerate(cands.rows)}
        ids = [index.ids[int(cands.rows[c])] for c in chosen]
        partners: list[int] = []
        involved: set[int] = set()
        graph = self.ns.graph()
        for uid in ids:
            for src, dst, _ in conflict_links(graph, uid):
                other = dst if src == uid else src
                row = index.row_of.get(other)
                if row is None or row not in position:
                    continue
                involved.add(chosen[ids.index(uid)])
                if position[row] not in chosen and position[row] not in partners:
                    partners.append(position[row])
        for partner in partners:
            replaceable = [c for c in reversed(chosen) if c not in involved]
            if not replaceable:
                break
            chosen[chosen.index(replaceable[0])] = partner
            involved.add(partner)
        return sorted(chosen, key=lambda c: -cands.score[c])

    def _explore(
        self,
        cands: Candidates,
        index: NamespaceIndex,
        ctx: RecallContext,
        chosen: list[int],
        recent: list[float],
    ) -> list[int]:
        safety = self.ns.affect_config.safety
        if not ctx.extras.get("explore", True) or safety.explore_slots == 0 or not chosen:
            return chosen
        rng = ctx.rng if ctx.rng is not None else self.ns.exploration_rng()
        dominated = bool(recent) and float(np.mean(recent)) > safety.negative_share
        if not dominated and not rng.random() < safety.epsilon:
            return chosen
        plain = unmodulated(cands)
        valence = index.column("valence")[cands.rows]
        order = [int(i) for i in np.argsort(-plain, kind="stable") if int(i) not in chosen]
        picks = [i for i in order if valence[i] >= 0][: safety.explore_slots]
        if not picks:
            return chosen
        explored = np.zeros(len(cands.rows))
        for j, pick in enumerate(picks):
            chosen[len(chosen) - 1 - j] = pick
            explored[pick] = 1.0
        cands.parts["explored"] = explored
        return chosen
