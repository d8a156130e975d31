"""Recall: the current successor of a recalled superseded fact takes that fact's place in the ranking.

A correction that names only values ("Sorry, I meant 4200, not 5000") or a change told in other words matches a
question less well than the fact it replaced, so a query finds the stale fact and misses its successor. When
detection (or `supersede()`) linked the two, the successor is what the query was after: among the candidates it
is lifted to at least the superseded fact's score (part `successor`) in plain recall; the stale fact is then put
just below it by the supersession ordering that follows.
"""

from __future__ import annotations

import numpy as np

from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.candidates import Candidates, RecallContext


def successor_lift(
    scores: np.ndarray, stale: np.ndarray, successor_of: dict[int, int], hops: int = 3
) -> np.ndarray:
    """Factors (>= 1) that raise each stale candidate's current successor (followed through at most `hops`
    supersessions) to the stale one's score. `stale[i]` says whether candidate `i` is superseded; `successor_of`
    maps a candidate position to its successor's position (only successors that are candidates)."""
    target = scores.astype(np.float64).copy()
    for pos in np.flatnonzero(stale):
        best, nxt, seen = float(scores[pos]), successor_of.get(int(pos)), {int(pos)}
        steps = 0
        while nxt is not None and nxt not in seen and steps < hops:
            seen.add(nxt)
            target[nxt] = max(target[nxt], best)
            nxt, steps = successor_of.get(nxt), steps + 1
    factor = np.ones(len(scores))
    positive = scores > 0
    factor[positive] = np.maximum(1.0, target[positive] / scores[positive])
    return factor


def lift_successors(
    successor: dict[str, str], cands: Candidates, index: NamespaceIndex, ctx: RecallContext
) -> None:
    """Apply `successor_lift` to the candidates: units superseded as of the recall time pass their score to the
    unit that superseded them (`successor`: unit id -> its successor's id) when it is a candidate. Plain recall
    only: modulated recall already brings the other side of a recalled supersession in (the safety selector's
    conflict partners) and keeps its exploration."""
    if ctx.affect_state is not None and ctx.policy not in (None, "none"):
        return
    if not successor or len(cands.rows) < 2:
        return
    invalid = index.column("invalid_at")[cands.rows]
    stale = ~np.isnan(invalid) & (invalid <= ctx.now)
    if not stale.any():
        return
    position = {int(r): i for i, r in enumerate(cands.rows)}
    links: dict[int, int] = {}
    for pos, row in enumerate(cands.rows):
        newer = index.row_of.get(successor.get(index.ids[int(row)], ""))
        if newer is not None and newer in position:
            links[pos] = position[newer]
    if not links:
        return
    factor = successor_lift(cands.score, stale, links)
    if (factor > 1.0).any():
        cands.multiply("successor", factor)
