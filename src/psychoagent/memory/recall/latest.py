"""Recall stage: of two statements that answer the question alike and say much the same thing, the newer ranks first.

"Book a steakhouse for team dinners" and, weeks later, "team dinners should be at a vegetarian place" both answer
"Book a restaurant for Thursday's team dinner"; the older often matches the request's words better. Whether the
newer replaces the older or adds to it, it is the user's latest word on the question, so it comes first. The
stage needs no pair classifier: both must be among the best candidates and answer the question at least
`latest_relevance` as well as the best one and the older one, and be each other's nearest candidate in meaning
(normalised similarity at least `latest_similarity`). The newer is then lifted just above the older (part 'latest'), so no third candidate
changes place against the older; nothing is dropped. Two chat
turns are utterances in one dialogue, not standing statements, and are left to the conversation stages; so are
questions whose answer type only the older supplies (`answer_type`).
"""

from __future__ import annotations

import numpy as np

from psychoagent.embed import normalised_similarity
from psychoagent.memory.config import RecallConfig
from psychoagent.memory.conflicts.records import UNCHECKED_KINDS
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.answer_type import keeps_older
from psychoagent.memory.recall.candidates import Candidates, RecallContext


def newer_first_pairs(
    created: np.ndarray, relevance: np.ndarray, similarity: np.ndarray, share: float, floor: float
) -> np.ndarray:
    """Boolean matrix [older, newer]: the two are each other's most similar candidate and at least `floor`
    similar, and both answer the question at least `share` as well as the best candidate and the older does.

    Nearest neighbours, not a similarity level alone: sentences about one person are all alike to an embedder
    (more so in Chinese), and the statement a newer one revises is the one it is closest to."""
    n = len(created)
    if n < 2:
        return np.zeros((n, n), dtype=bool)
    others = np.where(np.eye(n, dtype=bool), -np.inf, similarity)
    nearest = others.argmax(axis=1)
    mutual = np.zeros((n, n), dtype=bool)
    both = nearest[nearest] == np.arange(n)
    mutual[np.flatnonzero(both), nearest[both]] = True
    strong = relevance >= share * max(float(relevance.max()), 1e-12)
    return (
        mutual
        & (created[:, None] < created[None, :])
        & (relevance[None, :] >= share * relevance[:, None])
        & (strong[:, None] & strong[None, :])
        & (similarity >= floor)
    )


def latest_stage(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Lift each newer statement just above the best older one it pairs with (see module doc)."""
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
    vectors = index.vector_rows(rows)
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
    kept = keeps_older(cands, top, cfg)
    if kept is not None:
        pairs &= ~kept
    if not pairs.any():
        return
    factor = np.ones(len(cands.rows))
    for older, newer in zip(
        *np.nonzero(pairs), strict=True
    ):  # mutual nearest pairs: each candidate in one at most
        i, j = int(top[older]), int(top[newer])
        target = float(cands.score[i]) / cfg.latest_gap
        if target > cands.score[j] > 0:
            factor[j] = target / cands.score[j]
    if (factor > 1.0).any():
        cands.multiply("latest", factor)
