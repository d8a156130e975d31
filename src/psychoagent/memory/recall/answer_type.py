"""Recall stage: a question that asks for a place, a person, a time or an amount ranks the candidates that supply one
higher.

Topic similarity alone ranks "Alice now wants detailed answers." above "Alice moved to Paris last month." for
"Where does Alice live?": both are about Alice, and the preference is the newer. The question word says what the
answer must contain; each candidate's supply of that type is read by meaning (the candidate's vector against
prototype sentences of each type and of statements that supply none, as a contrast) and by structure
(`answer_words` rules), and the score is multiplied by 1 + w x supply. Questions without an answer type are left
as they are.
"""

from __future__ import annotations

import threading

import numpy as np

from psychoagent.embed import Embedder, normalise
from psychoagent.memory.config import RecallConfig
from psychoagent.memory.index.conversation import speaker_of
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.answer_words import TYPES, asked_type, rule_supply
from psychoagent.memory.recall.candidates import Candidates, RecallContext
from psychoagent.memory.state.namespace import Namespace

PROTOTYPES: dict[str, tuple[str, ...]] = {
    "place": ("She lives in a city in another country.", "We met at the restaurant downtown.",
              "He moved to a new town last year.", "They went to the beach and the museum.",
              "The party is at the community hall.", "他住在上海。", "我们在公园见面。", "聚会改在酒店办。"),
    "person": ("My sister and her friend came along.", "I talked to my mom and my boss.",
               "Her husband John helped her.", "The team elected Maria as captain.", "我和妈妈、朋友一起去的。",
               "新队长是小李。"),
    "time": ("It happened last Tuesday at 7 pm.", "We met in March 2023.", "The meeting is on Friday morning.",
             "She started two weeks ago.", "会议在周四下午三点。", "他去年五月搬家了。"),
    "amount": ("It cost 30 dollars.", "There were five of them.", "We paid 200 euros for two tickets.",
               "The budget is up to 14,000.", "花了三百块钱，一共五个人。", "预算是9万元。"),
    "none": ("I feel great about it.", "That sounds like fun!", "She prefers short answers.",
             "Thanks, that's so nice of you.", "He wants detailed reports.", "我觉得很好。", "她喜欢简短的回答。",
             "他想要详细的报告。"),
}  # fmt: skip
"""Sentences that supply each type, and sentences that supply none (the contrast class). Written for this stage;
with e5-small "Alice moved to Paris last month." is nearest the place sentences and "Alice now wants detailed
answers." nearest the 'none' ones."""

MEANING_MARGIN = 0.05
"""A candidate's meaning supply is 1 when its best similarity to the type's prototypes exceeds its best similarity
to every other class by this much, 0 when it falls short by this much, linear between (e5-small similarities of
sentences of one topic differ by a few hundredths)."""

_CLASSES = (*TYPES, "none")
_lock = threading.Lock()
_prototype_vectors: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}


def prototype_vectors(embedder: Embedder) -> tuple[np.ndarray, np.ndarray]:
    """The prototypes' unit vectors under `embedder` and the class index of each row, embedded once per embedder
    name and dimension in this process."""
    key = (embedder.name, int(embedder.dim))
    with _lock:
        found = _prototype_vectors.get(key)
    if found is not None:
        return found
    texts = [t for c in _CLASSES for t in PROTOTYPES[c]]
    classes = np.array([i for i, c in enumerate(_CLASSES) for _ in PROTOTYPES[c]], dtype=np.int64)
    vectors = normalise(np.asarray(embedder.embed_documents(texts), dtype=np.float32))
    with _lock:
        _prototype_vectors[key] = (vectors, classes)
    return vectors, classes


def meaning_supply(vectors: np.ndarray, prototypes: np.ndarray, classes: np.ndarray, kind: str) -> np.ndarray:
    """Per candidate vector: the contrast of its best similarity to `kind`'s prototypes against the best of every
    other class, mapped to [0, 1] by `MEANING_MARGIN`."""
    sims = vectors @ prototypes.T
    best = np.full((len(vectors), len(_CLASSES)), -np.inf)
    for c in range(len(_CLASSES)):
        best[:, c] = sims[:, classes == c].max(axis=1)
    target = _CLASSES.index(kind)
    others = np.delete(best, target, axis=1).max(axis=1)
    contrast = best[:, target] - others
    return np.clip((contrast + MEANING_MARGIN) / (2 * MEANING_MARGIN), 0.0, 1.0)


def _body(text: str) -> str:
    """A chat turn without its "Name:" prefix (the speaker is not what the turn supplies)."""
    name = speaker_of(text)
    return text.split(":", 1)[1] if name is not None and ":" in text else text


def supply(
    texts: list[str], vectors: np.ndarray, kind: str, embedder: Embedder | None, meaning_share: float
) -> np.ndarray:
    """How well each candidate supplies `kind`, in [0, 1]: (1 - m) x the rule score + m x the meaning score."""
    rules = np.fromiter((rule_supply(_body(t), kind) for t in texts), dtype=np.float64, count=len(texts))
    if meaning_share <= 0 or embedder is None or len(texts) == 0:
        return rules
    prototypes, classes = prototype_vectors(embedder)
    meaning = meaning_supply(vectors.astype(np.float32), prototypes, classes, kind)
    return (1.0 - meaning_share) * rules + meaning_share * meaning


class AnswerTypeStage:
    """Multiplies the score of each candidate by 1 + `answer_type_weight` x its supply of the type the question
    asks for (parts 'answer_supply' and 'answer_type'); a question without one is left alone."""

    def __init__(self, ns: Namespace) -> None:
        self.ns = ns

    def __call__(
        self, cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig
    ) -> None:
        if cfg.answer_type_weight == 0 or len(cands.rows) == 0:
            return
        kind = asked_type(ctx.query)
        if kind is None:
            return
        texts = self.ns.affect().facts.texts([index.ids[int(r)] for r in cands.rows])
        value = supply(texts, index.vector_rows(cands.rows), kind, self.ns.embedder, cfg.answer_type_meaning)
        if kind == "time":  # a stated date or relative time the index already parsed is a time
            value = np.maximum(value, np.where(index.conversation.has_time(cands.rows), 1.0, 0.0))
        cands.parts["answer_supply"] = value
        cands.multiply("answer_type", 1.0 + cfg.answer_type_weight * value)


def keeps_older(cands: Candidates, top: np.ndarray, cfg: RecallConfig) -> np.ndarray | None:
    """Pairs (older row, newer column) of `top` where only the older supplies the asked type well enough to stay
    the answer ("moved to Paris" vs "wants detailed answers" for "Where does Alice live?"); None when unasked."""
    supplied = cands.parts.get("answer_supply")
    if supplied is None or cfg.answer_type_keeps <= 0:
        return None
    own = supplied[top]
    result: np.ndarray = own[:, None] - own[None, :] >= cfg.answer_type_keeps
    return result
