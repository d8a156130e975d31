"""Recall stage: among recalled facts about the same subject and attribute, the current one ranks first, even when
no conflict record was written at storage time (the pair scorer judged the pair below the write threshold)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from psychoagent.memory.config import RecallConfig
from psychoagent.memory.conflicts.answers import answers_alike
from psychoagent.memory.conflicts.detect import LABELS, normalised_similarity, scorer_for
from psychoagent.memory.conflicts.gate import blocked_by_rules
from psychoagent.memory.conflicts.pairs import comparable, scored_row, turn_speaker
from psychoagent.memory.conflicts.records import UNCHECKED_KINDS
from psychoagent.memory.conflicts.subject_keys import share_subject
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.answer_type import keeps_older
from psychoagent.memory.recall.candidates import Candidates, RecallContext
from psychoagent.memory.recall.pair_cache import NOT_COMPARABLE, PairKey, decisions_for
from psychoagent.memory.recall.successors import lift_successors
from psychoagent.memory.state.namespace import Namespace

_UPDATE = LABELS.index("update")


def _cap(cands: Candidates, factor: np.ndarray, old: int, new: int, gap: float) -> None:
    """Lower the factor of candidate `old` so that it scores just below candidate `new`."""
    if cands.score[old] <= 0:
        return
    target = cands.score[new] * gap
    if cands.score[old] > target:
        factor[old] = min(factor[old], target / cands.score[old])


class CurrencyStage:
    """Scores the best few candidates pairwise; an older fact the scorer reads as updated by a newer candidate
    gets a bounded factor (part 'currency') that puts it just below the newer one."""

    def __init__(self, ns: Namespace) -> None:
        self.ns = ns

    def __call__(
        self, cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig
    ) -> None:
        settings = self.ns.affect_config
        conf = settings.conflicts
        if len(cands.rows) < 2:
            return
        lift_successors(
            self.ns.affect().successor, cands, index, ctx
        )  # the successor takes a stale fact's place
        self._successors_first(cands, index, ctx)
        if not (conf.detect and conf.detect_changes) or conf.recall_pairs < 2:
            return
        top = np.argsort(-cands.score, kind="stable")[: conf.recall_pairs]
        rows = cands.rows[top]
        invalid = index.column("invalid_at")[rows]
        kinds = index.column("kind")[rows]
        checked = np.fromiter((kind not in UNCHECKED_KINDS for kind in kinds), dtype=bool, count=len(kinds))
        live = (np.isnan(invalid) | (invalid > ctx.now)) & checked
        if live.sum() < 2:
            return
        created = index.column("created_at")[rows]
        vectors = index.vector_rows(rows)
        dense = normalised_similarity(vectors @ vectors.T, self.ns.similarity_floor)
        gap = settings.safety.supersession_gap
        score = cands.score[top]
        # a pair (older a, newer b) can only change the ranking when a still scores above gap x b's score (see
        # `_cap`), so pairs already in order are never scored; the other conditions are those of the loop below
        with np.errstate(invalid="ignore"):
            open_pair = (
                (live[:, None] & live[None, :])
                & ~(created[:, None] >= created[None, :])
                & ~(dense < conf.min_similarity)
                & (score[:, None] > 0)
                & (score[:, None] > score[None, :] * gap)
            )
        kept = keeps_older(cands, top, cfg)  # a newer fact that does not supply the asked type is no update
        if kept is not None:
            open_pair &= ~kept
        if not open_pair.any():
            return
        texts = self.ns.affect().facts.texts([index.ids[r] for r in rows.tolist()])
        scorer = scorer_for(conf, self.ns.embedder.name)
        vecs = vectors if scorer.vector_dim else None
        similarity = dense.tolist()  # Python floats: pair keys and features read them one by one
        # a chat turn is an utterance, never a side of a comparable pair: its text needs no analysis
        said = [bool(turn_speaker(text)) for text in texts]

        def pairable(a: int, b: int) -> bool:
            """Whether older a and newer b can be about the same subject at all (no chat turn, a shared key, no rule
            of the structural gate against it: two items, a relative, an added member)."""
            return (
                not said[b]
                and share_subject(texts[a], texts[b])
                and comparable(texts[a], texts[b])
                and not (conf.gate and blocked_by_rules(texts[a], texts[b]))
            )

        known = decisions_for(scorer, cfg.pair_decisions) if cfg.pair_decisions else None

        def features(a: int, b: int) -> np.ndarray:
            pair = (vecs[a], vecs[b]) if vecs is not None else None
            return scored_row(texts[a], texts[b], similarity[a][b], pair)

        # The cap of older a is the lowest newer score among its updates (times the gap, see `_cap`): its newer
        # candidates are read from the lowest score up and the first update found sets the cap, so the others need
        # no scoring. Each round scores the next comparable pair of every older candidate still open, in one batch.
        queue: dict[int, Iterator[int]] = {}
        by_score = np.argsort(score, kind="stable").tolist()  # lowest first, ties in candidate order
        for older, row in enumerate(open_pair.tolist()):
            if not said[older] and any(row):
                queue[older] = iter([b for b in by_score if row[b]])
        factor = np.ones(len(cands.rows))
        threshold, close_threshold = conf.recall_update_threshold, conf.recall_close_threshold
        relevance = cands.parts.get("relevance")
        # a newer fact that answers the query about as well as the older one needs less evidence of an update:
        # two answers to one question about one subject are more likely one changed value than two attributes
        close = (
            answers_alike(
                relevance[top][:, None], relevance[top][None, :], conf.recall_close_relevance
            ).tolist()
            if relevance is not None and close_threshold < threshold
            else None
        )

        def updated(a: int, b: int, p: float) -> bool:
            return p >= threshold or (close is not None and p >= close_threshold and close[a][b])

        while queue:
            batch: list[tuple[int, int, PairKey]] = []
            for a, newer_left in list(queue.items()):
                for b in newer_left:
                    key = (texts[a], texts[b], similarity[a][b])
                    p_known = known.get(key) if known is not None else None
                    if p_known is None:
                        if pairable(a, b):
                            batch.append((a, b, key))
                            break
                        if known is not None:
                            known.put(key, NOT_COMPARABLE)
                    elif updated(a, b, p_known):  # read before: an update
                        _cap(cands, factor, int(top[a]), int(top[b]), gap)
                        del queue[a]
                        break
                else:
                    del queue[a]  # no newer candidate left: no update of a
            if not batch:
                break
            p_update = scorer.probabilities(np.stack([features(a, b) for a, b, _ in batch]))[:, _UPDATE]
            for (a, b, key), p in zip(batch, p_update, strict=True):
                if known is not None:
                    known.put(key, float(p))
                if updated(a, b, float(p)):
                    _cap(cands, factor, int(top[a]), int(top[b]), gap)
                    del queue[a]
        if (factor < 1.0).any():
            cands.multiply("currency", factor)
            # the pair reading may have lowered a successor below the unit it superseded: order them again
            self._successors_first(cands, index, ctx, part="succession")

    def _successors_first(
        self, cands: Candidates, index: NamespaceIndex, ctx: RecallContext, part: str = "supersession"
    ) -> None:
        """A unit superseded by a stored update scores just below its successor when both are candidates; along a
        chain (A superseded by B, B by C) the newest is capped first, so each version stays below the next."""
        successor = self.ns.affect().successor
        if not successor:
            return
        position = {int(r): i for i, r in enumerate(cands.rows)}
        invalid = index.column("invalid_at")[cands.rows]
        pairs = []
        for pos in np.flatnonzero(~np.isnan(invalid) & (invalid <= ctx.now)):
            newer_row = index.row_of.get(successor.get(index.ids[int(cands.rows[pos])], ""))
            newer = position.get(newer_row) if newer_row is not None else None
            if newer is not None:
                pairs.append((int(pos), newer))
        if not pairs:
            return
        created = index.column("created_at")[cands.rows]
        pairs.sort(key=lambda pair: -created[pair[0]])  # newest superseded unit first
        factor = np.ones(len(cands.rows))
        gap = self.ns.affect_config.safety.supersession_gap
        scored = cands.score.copy()
        for old, new in pairs:
            target = scored[new] * gap
            if scored[old] > 0 and scored[old] > target:
                factor[old] = target / cands.score[old]
                scored[old] = target
        if (factor < 1.0).any():
            cands.multiply(part, factor)
