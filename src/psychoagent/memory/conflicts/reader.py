"""The pair reader: the two facts embedded as one passage, so the embedder reads how they bear on each other.

Two separate sentence vectors say what each fact is about; they cannot say whether the newer one replaces the
older one ("Tomasz drives a Skoda" / "He sold it and takes the train"). Embedded together ("Earlier: ... Later:
..."), the encoder's attention runs across both sentences. The reader is a pair scorer (`detect.PairScorer`)
fitted with that joint vector as one more block (`fit_pairs --joint`): it re-scores, at write time and in the
briefing's comparisons (`answers`), the pairs whose first-stage update or contradiction probability reaches its
band (`joint_band`), one embedded text per such pair, and its probabilities are averaged with the first stage's
(a second opinion: fitted mostly on plain-word pairs, alone it reads a source conflict of two documents, "per the
sheet 500k" / "the contract says 800k", as compatible). Weights ship in `psychoagent/data/pair_reader_e5.json`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from psychoagent.memory.conflicts.facts import has_cjk
from psychoagent.memory.conflicts.spans import TextVectors, cache_for

__all__ = ["JOINT_FEATURES", "Reader", "joint_features", "joint_text", "reread"]

Embed = Callable[[list[str]], Any]

JOINT_FEATURES: tuple[str, ...] = ("joint_vector", "joint_minus_mean", "joint_dot_old", "joint_dot_new")
"""The joint block, in order: the pair's vector, that vector less the mean of the two sentence vectors, and its
similarity to each (the block's width is twice the embedding dimension plus two)."""


class Reader(Protocol):
    """What `reread` needs of a scorer that reads the joint block (`detect.PairScorer` fitted with `--joint`)."""

    joint_band: float
    joint_weight: float
    mean: np.ndarray

    def probabilities(self, features: np.ndarray) -> np.ndarray: ...


def joint_text(old_text: str, new_text: str) -> str:
    """The pair as one passage, older first, marked in the pair's language (the form the reader was fitted on)."""
    if has_cjk(old_text) or has_cjk(new_text):
        return f"之前：{old_text} 后来：{new_text}"
    return f"Earlier: {old_text} Later: {new_text}"


def joint_features(old_vec: np.ndarray, new_vec: np.ndarray, joint_vec: np.ndarray) -> np.ndarray:
    """The joint block of a pair (JOINT_FEATURES) from the older, the newer and the joint passage's vectors."""
    old = np.asarray(old_vec, dtype=np.float64)
    new = np.asarray(new_vec, dtype=np.float64)
    joint = np.asarray(joint_vec, dtype=np.float64)
    return np.concatenate([joint, joint - (old + new) / 2, [float(joint @ old), float(joint @ new)]])


_JOINTS: dict[Embed, TextVectors] = {}


def reread(
    reader: Reader,
    texts: Sequence[tuple[str, str]],
    rows: Sequence[np.ndarray],
    pair_vecs: Sequence[tuple[np.ndarray, np.ndarray]],
    probs: np.ndarray,
    embed: Embed,
) -> list[int]:
    """Re-score in place (`probs`) the pairs whose update or contradiction probability reaches the reader's band,
    their joint passages embedded in one call (and cached): the reader's probabilities averaged with the first
    stage's, the reader weighing `joint_weight`; return the indices it re-scored. Rows without the write-time
    blocks (a briefing embeds no differing words) read those columns at the reader's training mean."""
    asked = [i for i, p in enumerate(probs) if max(float(p[0]), float(p[1])) >= reader.joint_band]
    if not asked:
        return []
    passages = [joint_text(*texts[i]) for i in asked]
    cache = cache_for(_JOINTS, embed, TextVectors)
    cache.need(passages)
    block = [
        np.concatenate([rows[i], joint_features(*pair_vecs[i], cache.vectors[t])])
        for i, t in zip(asked, passages, strict=True)
    ]
    gap = len(reader.mean) - len(block[0])
    if gap > 0:  # the missing write-time blocks sit between the row and the joint block
        start = len(rows[asked[0]])
        fill = reader.mean[start : start + gap]
        block = [np.concatenate([b[:start], fill, b[start:]]) for b in block]
    weight = reader.joint_weight
    probs[asked] = (1.0 - weight) * probs[asked] + weight * reader.probabilities(np.stack(block))
    return asked
