"""Recall stages that use a conversation's structure: replies, sessions, speakers and times.

Each stage is a pure function of the candidate table, the index and the request, like those in `retrieve`; each
writes its own named part. Their weights are `RecallConfig` fields; the LoCoMo ablation in docs/benchmarks.md
says what each contributes.
"""

from __future__ import annotations

import numpy as np

from psychoagent.memory.config import RecallConfig
from psychoagent.memory.index.conversation import linked_previous
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.index.temporal import absolute_spans, asks_when, relative_spans
from psychoagent.memory.recall.candidates import Candidates, RecallContext
from psychoagent.types import to_datetime


def reply_lift(relevance: np.ndarray, previous: np.ndarray, weight: float) -> np.ndarray:
    """What a unit gains from a more relevant previous unit: weight * max(previous - own, 0)."""
    return weight * np.maximum(previous - relevance, 0.0)


def session_best(relevance: np.ndarray, sessions: np.ndarray) -> np.ndarray:
    """For each candidate, the best relevance among the candidates of its session."""
    if len(relevance) == 0:
        return relevance
    keys, inverse = np.unique(sessions, return_inverse=True)
    best = np.full(len(keys), -np.inf)
    np.maximum.at(best, inverse, relevance)
    return best[inverse]


def conversation_stage(
    cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig
) -> None:
    """An answer borrows relevance from the turn before it; a relevant session lifts its other turns.

    Only dialogue turns ("Name: text" units) have neighbours and sessions: a batch of unrelated facts stored
    together is not a conversation.
    """
    if len(cands.rows) == 0 or (cfg.reply_weight == 0 and cfg.session_weight == 0):
        return
    gap = cfg.session_gap_minutes * 60.0
    rows, relevance = cands.rows, cands.score
    # without a dialogue turn in the namespace no candidate is a turn or has a linked previous unit
    any_turn = index.conversation.any_turn()
    turns = index.conversation.is_turn(rows) if any_turn else np.zeros(len(rows), dtype=bool)
    if cfg.reply_weight > 0:
        if any_turn:
            linked = linked_previous(index.column("created_at"), rows, gap, index.conversation.turn_flags())
            where = np.searchsorted(rows, rows - 1)
            found = linked & (where < len(rows)) & (rows[np.minimum(where, len(rows) - 1)] == rows - 1)
            previous = np.where(found, relevance[np.minimum(where, len(rows) - 1)], 0.0)
        else:
            previous = np.zeros(len(rows))
        lift = reply_lift(relevance, previous, cfg.reply_weight)
        cands.parts["reply"] = lift
        relevance = relevance + lift
    if cfg.session_weight > 0:
        # a unit that is not a dialogue turn is a session of its own, so the bonus never favours turns over facts
        if turns.any():
            sessions = np.where(turns, index.sessions(gap)[rows], -1 - rows)
            best = session_best(relevance, sessions)
        else:
            best = relevance  # every candidate its own session: its own relevance is its session's best
        bonus = cfg.session_weight * best
        cands.parts["session"] = bonus
        relevance = relevance + bonus
    cands.score = relevance


def speaker_stage(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Units spoken by the one speaker the query names rank higher (a question about Ana is mostly answered
    by Ana)."""
    if cfg.speaker_boost == 0 or len(cands.rows) == 0:
        return
    named = index.conversation.named_speakers(ctx.query)
    if len(named) == 1:
        spoken = index.conversation.speakers(cands.rows) == named[0]
        cands.multiply("speaker", np.where(spoken, 1.0 + cfg.speaker_boost, 1.0))


def temporal_stage(cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig) -> None:
    """Units dated on, or referring to, a time the query names rank higher; so do units that state a time when
    the query asks when."""
    if len(cands.rows) == 0:
        return
    factor = np.ones(len(cands.rows))
    if cfg.date_boost > 0:
        now = to_datetime(ctx.now)
        spans = absolute_spans(ctx.query) + (relative_spans(ctx.query, now) if now is not None else [])
        if spans:
            created = index.column("created_at")[cands.rows]
            hit = np.zeros(len(cands.rows), dtype=bool)
            for lo, hi in spans:
                hit |= (created >= lo) & (created < hi)
            hit |= np.isin(cands.rows, index.conversation.rows_in_spans(spans))
            factor *= np.where(hit, 1.0 + cfg.date_boost, 1.0)
    if cfg.when_boost > 0 and asks_when(ctx.query):
        factor *= np.where(index.conversation.has_time(cands.rows), 1.0 + cfg.when_boost, 1.0)
    if not np.all(factor == 1.0):
        cands.multiply("time", factor)
