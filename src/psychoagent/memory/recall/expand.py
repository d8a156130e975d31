"""Multi-hop recall: retrieve, then expand through the entities the best hits name.

A question such as "Where did Ana move from?" may need several turns, often from different sessions ("I moved
from my home country" and "a gift from my grandma in my home country, Sweden"). The best candidates name the
entities involved (the namespace's rare words: places, things, people); candidates of other sessions that name
the same entities are likely the other hops, so their score rises by a bounded factor.
"""

from __future__ import annotations

import numpy as np

from psychoagent.memory.config import RecallConfig
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.candidates import Candidates, RecallContext


def entity_terms(index: NamespaceIndex, row: int, max_share: float) -> dict[str, float]:
    """The entity-like stems of a unit with their IDF: found in at most `max_share` of the namespace's units
    (at least 2) and in at least one other unit, so something can link to them."""
    n = len(index)
    limit = max(2.0, max_share * n)
    out: dict[str, float] = {}
    keywords = index.keywords
    for term in keywords.terms(row):
        df = keywords.frequency(term)
        if 2 <= df <= limit:
            out[term] = float(np.log1p(n / df))
    return out


def shared_entities(
    index: NamespaceIndex, seeds: np.ndarray, rows: np.ndarray, max_share: float
) -> np.ndarray:
    """Seeds x rows: the share of each seed's entity weight (IDF) that each row also names, in [0, 1]."""
    per_seed = [entity_terms(index, int(seed), max_share) for seed in seeds]
    vocab = list(dict.fromkeys(term for terms in per_seed for term in terms))
    out = np.zeros((len(seeds), len(rows)))
    if not vocab:
        return out
    column = {term: j for j, term in enumerate(vocab)}
    weights = np.zeros((len(seeds), len(vocab)))
    for i, terms in enumerate(per_seed):
        for term, idf in terms.items():
            weights[i, column[term]] = idf
    totals = weights.sum(axis=1, keepdims=True)
    named = index.keywords.matches(vocab, rows, stemmed=True).astype(np.float64)  # one lookup for all seeds
    return (weights / np.maximum(totals, 1e-12)) @ named.T


def entity_factor(shared: np.ndarray, other_session: np.ndarray, weight: float) -> np.ndarray:
    """1 + weight x the largest entity share with a seed of another session (a seed's own session already
    lifts its turns in the session stage); 1 for rows that share nothing."""
    if shared.size == 0:
        return np.ones(shared.shape[1] if shared.ndim == 2 else 0)
    return 1.0 + weight * np.max(np.where(other_session, shared, 0.0), axis=0)


def entity_stage(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Candidates naming the entities of one of the `expand_seeds` best candidates, in another session, rank
    higher (part 'entity')."""
    if cfg.expand_weight == 0 or cfg.expand_seeds == 0 or len(cands.rows) < 2:
        return
    seeds = np.argsort(-cands.score, kind="stable")[: cfg.expand_seeds]
    rows = cands.rows
    sessions = index.sessions(cfg.session_gap_minutes * 60.0)
    # a unit that is not a dialogue turn is a session of its own
    own = np.where(index.conversation.is_turn(rows), sessions[rows], -1 - rows)
    shared = shared_entities(index, rows[seeds], rows, cfg.expand_max_share)
    factor = entity_factor(shared, own[None, :] != own[seeds][:, None], cfg.expand_weight)
    if np.any(factor > 1.0):
        cands.multiply("entity", factor)
