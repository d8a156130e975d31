"""Masked-predicate similarity: does the newer sentence say the same attribute as the older one, in any wording?

The content words only one sentence of a pair has (`spans.content_words`) are replaced by one neutral
placeholder in each sentence ("Tom works as a pharmacist." -> "Tom _ as a _."), and the two masked sentences are
compared by their embeddings: the same attribute worded differently keeps them close, a detail added about
something else does not. Read by the second-stage scorer (`second_stage`) on the pairs the first one is
unsure about, at write time only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from psychoagent.memory.conflicts.facts import _STOP_ZH, analyse, has_cjk, shared_entities
from psychoagent.memory.conflicts.spans import TextVectors, content_words
from psychoagent.text import TEXT_CACHE

__all__ = ["MASK", "MASK_FEATURES", "MaskedVectors", "mask_pair", "masked_features"]

MASK = {"en": "_", "zh": "_"}
"""The placeholder put where a differing word stood (one for a run of them)."""

MASK_FEATURES: tuple[str, ...] = (
    "masked_sim", "masked_new_vs_new", "masked_old_vs_old", "template_fit_new", "template_fit_old",
    "masked_old_share", "masked_new_share", "masked_sim_x_subject", "masked_sim_x_other", "template_x_subject",
)  # fmt: skip
"""Names of the masked-predicate features, in order."""

_TOKEN = re.compile(r"[^\W\d_][\w'’-]*")
_ASCII = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def _mask_en(text: str, drop: frozenset[str], keep: frozenset[str]) -> tuple[str, int]:
    """Text with the words holding a word of `drop` (as `content_words` writes them: ASCII letter runs, so
    "Timișoara" holds "timi" and "oara") replaced, runs of placeholders collapsed."""
    count = 0

    def swap(m: re.Match[str]) -> str:
        nonlocal count
        word = m.group(0)
        keys = {w.lower().removesuffix("'s").rstrip("'’") for w in _ASCII.findall(word)}
        if keys & drop and not keys & keep:
            count += 1
            return MASK["en"] + ("'s" if word.lower().endswith("'s") else "")
        return word

    out = _TOKEN.sub(swap, text)
    out = re.sub(rf"{re.escape(MASK['en'])}(?:\s+{re.escape(MASK['en'])})+", MASK["en"], out)
    return out, count


def _mask_zh(text: str, drop: frozenset[str], keep: frozenset[str]) -> tuple[str, int]:
    """Chinese text (jieba words) with the words in `drop` replaced, runs collapsed; a word holding a name in
    `keep` stays (jieba joins a name to the next character now and then: "张伟住")."""
    import jieba

    parts: list[str] = []
    count = 0
    for word in jieba.lcut(text):
        key = word.lower() if not has_cjk(word) else word
        held = any(name in word for name in keep)
        if key in drop and not held and (not has_cjk(word) or (len(word) >= 2 and word not in _STOP_ZH)):
            count += 1
            if parts and parts[-1] == MASK["zh"]:
                continue
            parts.append(MASK["zh"])
        else:
            parts.append(word)
    return "".join(parts), count


def mask_pair(old_text: str, new_text: str) -> tuple[str, str, float, float]:
    """(masked older, masked newer, share of the older's content words masked, share of the newer's): every
    content word only one of the two sentences has becomes the placeholder."""
    old, new = content_words(old_text), content_words(new_text)
    keep = shared_entities(analyse(old_text).entities, analyse(new_text).entities)
    keep = frozenset(k.lower() for k in keep) | keep
    drop_old = frozenset(old) - frozenset(new)
    drop_new = frozenset(new) - frozenset(old)
    out = []
    for text, drop in ((old_text, drop_old), (new_text, drop_new)):
        masked, _ = (_mask_zh if has_cjk(text) else _mask_en)(text, drop, keep)
        out.append(masked)
    share_old = len(drop_old) / max(len(old), 1)
    share_new = len(drop_new) / max(len(new), 1)
    return out[0], out[1], share_old, share_new


class MaskedVectors(TextVectors):
    """Unit vectors of masked sentences by one embedder, each text embedded once (a bounded in-process cache)."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray], limit: int = 2 * TEXT_CACHE) -> None:
        super().__init__(embed, limit)


def masked_features(
    old_vec: np.ndarray,
    new_vec: np.ndarray,
    masked_old: np.ndarray,
    masked_new: np.ndarray,
    shares: tuple[float, float],
    subject: float,
    other: float,
    floor: float | None,
) -> np.ndarray:
    """MASK_FEATURES of a pair from the four unit vectors (full older, full newer, masked older, masked newer),
    the masked shares, whether the pair shares a subject and whether it names other subjects. Cosines are
    normalised so that the embedder's unrelated-text level is 0."""
    base = 0.0 if floor is None else float(floor)

    def norm(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.clip((float(a @ b) - base) / max(1.0 - base, 1e-9), 0.0, 1.0))

    sim = norm(masked_old, masked_new)
    fit_new = float(masked_old @ new_vec) - float(
        masked_old @ old_vec
    )  # the newer fills the older's template
    fit_old = float(masked_new @ old_vec) - float(masked_new @ new_vec)
    values = (
        sim, norm(masked_new, new_vec), norm(masked_old, old_vec), fit_new, fit_old, shares[0], shares[1],
        sim * subject, sim * other, fit_new * subject,
    )  # fmt: skip
    return np.asarray(values, dtype=np.float64)
