"""The second-stage pair scorer: decides the pairs the first one is unsure about, by masked-predicate similarity.

Only pairs that share a subject and whose first-stage update or contradiction probability falls inside the band
stored with the weights reach it (write time only; recall keeps the first stage). It reads the first stage's
probabilities, the subject features of `pairs` and the masked-predicate features of `masked`
(two more embedder texts per pair, batched and cached). Weights ship in `psychoagent/data/pair_scorer_masked.json`
(fitted by `benchmarks/fit_masked.py` on the dev scenarios).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from psychoagent.memory.conflicts.masked import MASK_FEATURES, MaskedVectors, mask_pair, masked_features
from psychoagent.memory.conflicts.pairs import FEATURES
from psychoagent.memory.conflicts.spans import cache_for

__all__ = ["SECOND_FEATURES", "SecondStage", "decide", "second_row", "shares_subject"]

_SUBJECT = ("dense", "shared_entity", "self_both", "other_subjects", "first_named_apart", "subject_swap",
            "refers_back", "zh", "change_new", "negation_new", "correction_new", "source_new")  # fmt: skip
_AT = [FEATURES.index(name) for name in _SUBJECT]

SECOND_FEATURES: tuple[str, ...] = (
    "p_update",
    "p_contradiction",
    "conflict_logit",
    *_SUBJECT,
    *MASK_FEATURES,
)
"""Names of the second stage's features, in order (its weights are stored against these names)."""


def shares_subject(first: np.ndarray) -> bool:
    """Whether a pair's first-stage features say both sentences are about one subject (a shared name, the
    speaker in both, or a newer sentence pointing back by pronoun)."""
    return bool(
        first[FEATURES.index("shared_entity")]
        or first[FEATURES.index("self_both")]
        or first[FEATURES.index("refers_back")]
    )


def second_row(first: np.ndarray, probs: np.ndarray, masked: np.ndarray) -> np.ndarray:
    """SECOND_FEATURES of a pair from its first-stage feature row, probabilities and masked features."""
    mass = float(np.clip(probs[0] + probs[1], 1e-6, 1 - 1e-6))
    head = [float(probs[0]), float(probs[1]), float(np.log(mass / (1 - mass)))]
    return np.concatenate([head, first[_AT], masked]).astype(np.float64)


class SecondStage:
    """Softmax regression over standardised SECOND_FEATURES with the band of first-stage probabilities it
    decides and its own thresholds (weights loaded from JSON; numpy inference)."""

    def __init__(self, weights: dict[str, Any]) -> None:
        if tuple(weights["features"]) != SECOND_FEATURES:
            raise ValueError(
                "second-stage weights were fitted for other features: "
                f"{sorted(set(weights['features']) ^ set(SECOND_FEATURES))}"
            )
        self.mean = np.asarray(weights["mean"], dtype=np.float64)
        self.scale = np.asarray(weights["scale"], dtype=np.float64)
        self.coef = np.asarray(weights["coef"], dtype=np.float64)
        self.intercept = np.asarray(weights["intercept"], dtype=np.float64)
        self.embedder: str = weights["embedder"]
        """The embedder whose vectors (full and masked sentences) it was fitted on."""
        low, high = weights["band"]
        self.band = (float(low), float(high))
        """First-stage max(update, contradiction) probability range whose pairs it decides (chosen on dev)."""
        self.update_threshold = float(weights["thresholds"]["update"])
        self.contradiction_threshold = float(weights["thresholds"]["contradiction"])
        self.meta: dict[str, Any] = dict(weights.get("meta", {}))

    @classmethod
    def load(cls, path: str | Path | None = None) -> SecondStage:
        """The packaged second stage, or one fitted elsewhere, from `path`."""
        return _load(str(Path(path).resolve()) if path is not None else "")

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Rows of label probabilities (update, contradiction, elaboration, unrelated)."""
        x = (np.atleast_2d(rows) - self.mean) / self.scale
        logits = x @ self.coef.T + self.intercept
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def in_band(self, probs: np.ndarray, first: np.ndarray) -> bool:
        """Whether this pair is one it decides."""
        low, high = self.band
        return low <= max(float(probs[0]), float(probs[1])) < high and shares_subject(first)


@lru_cache(maxsize=4)
def _load(path: str) -> SecondStage:
    if not path:
        text = (
            resources.files("psychoagent")
            .joinpath("data/pair_scorer_masked.json")
            .read_text(encoding="utf-8")
        )
    else:
        text = Path(path).read_text(encoding="utf-8")
    return SecondStage(json.loads(text))


_MASKED: dict[Callable[[list[str]], np.ndarray], MaskedVectors] = {}


def masked_vectors(embed: Callable[[list[str]], np.ndarray]) -> MaskedVectors:
    """The masked-sentence vector cache of this embedder (one per embedder for the process)."""
    return cache_for(_MASKED, embed, MaskedVectors)


def decide(
    stage: SecondStage,
    pairs: Sequence[tuple[str, str]],
    firsts: Sequence[np.ndarray],
    probs: np.ndarray,
    vectors: Sequence[tuple[np.ndarray, np.ndarray]],
    embed: Callable[[list[str]], np.ndarray],
    floor: float | None,
) -> list[str | bool | None]:
    """For each (older, newer) pair: False when the second stage does not decide it, else its label ("update",
    "contradiction") or None (no conflict). The masked sentences of the decided pairs are embedded in one call."""
    chosen = [i for i in range(len(pairs)) if stage.in_band(probs[i], firsts[i])]
    out: list[str | bool | None] = [False] * len(pairs)
    if not chosen:
        return out
    masks = {i: mask_pair(*pairs[i]) for i in chosen}
    cache = masked_vectors(embed)
    cache.need([t for m in masks.values() for t in m[:2]])
    rows = []
    for i in chosen:
        mo, mn, share_old, share_new = masks[i]
        first = firsts[i]
        subject = 1.0 if shares_subject(first) else 0.0
        other = float(first[FEATURES.index("other_subjects")])
        old_vec, new_vec = vectors[i]
        m = masked_features(old_vec, new_vec, cache.vectors[mo], cache.vectors[mn], (share_old, share_new),
                            subject, other, floor)  # fmt: skip
        rows.append(second_row(first, probs[i], m))
    p = stage.probabilities(np.stack(rows))
    for i, q in zip(chosen, p, strict=True):
        label = "update" if q[0] >= q[1] else "contradiction"
        threshold = stage.update_threshold if label == "update" else stage.contradiction_threshold
        out[i] = label if q[0 if label == "update" else 1] >= threshold else None
    return out
