"""Recall stage: of two statements that answer the question alike and say much the same thing, the newer ranks first.

"Book a steakhouse for team dinners" and, weeks later, "team dinners should be at a vegetarian place" both answer
"Book a restaurant for Thursday's team dinner"; the older often matches the request's words better. Whether the
newer replaces the older or adds to it, it is the user's latest word on the question, so it comes first. The
stage needs no pair classifier: both must be among the best candidates, the newer at least `latest_relevance` as
relevant to the question as the older, and the two close in meaning (normalised similarity at least
`latest_similarity`). The older then scores just below the newer (part 'latest'); nothing is dropped. Two chat
turns are utterances in one dialogue, not standing statements, and are left to the conversation stages; so are
questions whose answer type only the older supplies (`answer_type`).
"""

from __future__ import annotations

import numpy as np

from psychoagent.embed import normalised_similarity
from psychoagent.memory.config import RecallConfig
from psychoagent.memory.conflicts.records import UNCHECKED_KINDS
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.candidates import Candidates, RecallContext


def newer_first_pairs(
    created: np.ndarray, relevance: np.ndarray, similarity: np.ndarray, share: float, floor: float
) -> np.ndarray:
    """Boolean matrix [older, newer]: the newer answers at least `share` as well and is at least `floor` similar."""
    return (
        (created[:, None] < created[None, :])
        & (relevance[None, :] >= share * relevance[:, None])
        & (relevance[None, :] > 0)
        & (similarity >= floor)
    )


def latest_stage(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Cap each older statement just below the lowest-scored newer one it pairs with (see module doc)."""
    if cfg.latest_candidates < 2 or len(cands.rows) < 2 or "relevance" not in cands.parts:
        return
    top = np.argsort(-cands.score, kind="stable")[: cfg.latest_candidates]
    rows = cands.rows[top]
    invalid = index.column("invalid_at")[rows]
    kinds = index.column("kind")[rows]
    keep = (np.isnan(invalid) | (invalid > ctx.now)) & np.fromiter(
        (k not in UNCHECKED_KINDS for k in kinds), dtype=bool, count=len(kinds)
    )
    if keep.sum() < 2:
        return
    top, rows = top[keep], rows[keep]
    vectors = index.vectors[rows]
    similarity = normalised_similarity(vectors @ vectors.T, ctx.dense_floor)
    pairs = newer_first_pairs(
        index.column("created_at")[rows],
        cands.parts["relevance"][top],
        similarity,
        cfg.latest_relevance,
        cfg.latest_similarity,
    )
    turn = index.conversation.is_turn(rows)
    pairs &= ~(turn[:, None] & turn[None, :])
    supplied = cands.parts.get("answer_supply")
    if supplied is not None and cfg.answer_type_keeps > 0:
        own = supplied[top]
        pairs &= ~(own[:, None] - own[None, :] >= cfg.answer_type_keeps)
    if not pairs.any():
        return
    score = cands.score.copy()
    factor = np.ones(len(cands.rows))
    # newest first: a chain (a < b < c) caps b below c before a below b, so each stays below the next
    for newer in np.argsort(-index.column("created_at")[rows], kind="stable"):
        for older in np.flatnonzero(pairs[:, newer]):
            i, j = int(top[older]), int(top[newer])
            target = score[j] * cfg.latest_gap
            if score[i] > target > 0:
                factor[i] *= target / score[i]
                score[i] = target
    if (factor < 1.0).any():
        cands.multiply("latest", factor)
