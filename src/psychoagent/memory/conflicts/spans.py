"""The differing words of a fact pair and what their embeddings say: a new value of the same kind, or a detail.

The content words only the older sentence has are its value ("pharmacist", "Berlin"), those only the newer one
has are the new value and its wording ("works", "carpenter"). Embedded one word at a time (each word once per
process, cached; at write time only, one batched call for the words of the pairs that reach the scorer), they
give scalar features of meaning: an old word and a new word of one kind (two jobs, two cities, two weekdays) point
to a changed value, new words that all echo the older sentence to a paraphrase, new words of no kind the older
sentence had to an added detail. Read by the write-time scorer (`detect`); recall's scorer does without.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TypeVar

import numpy as np

from psychoagent.embed import normalised_similarity
from psychoagent.memory.conflicts.facts import _STOP_EN, _STOP_ZH, has_cjk
from psychoagent.text import TEXT_CACHE

__all__ = [
    "SPAN_FEATURES",
    "SWAP_FEATURES",
    "Embed",
    "TextVectors",
    "WordVectors",
    "cache_for",
    "content_words",
    "differing_words",
    "span_features",
    "swap_features",
]

SPAN_FEATURES: tuple[str, ...] = (
    "value_match", "old_words_none", "new_words_none", "old_words_echoed", "new_words_echoed",
    "new_words_novel", "old_matched_by_new",
)  # fmt: skip
"""Names of the span features, in order (appended after the other features in the write-time scorer)."""

MAX_WORDS = 8
"""Differing words read per side (the first ones): a long new sentence's detail words say little more."""

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def sentence_words(text: str) -> tuple[str, ...]:
    """The sentence's content words in order, lower-cased, each once: English words of three letters or more
    outside the stop list, Chinese jieba words of two characters or more outside it (uncached: for query texts,
    which are seldom asked twice; stored texts go through `content_words`)."""
    if has_cjk(text):
        import jieba

        words = [w for w in jieba.lcut(text) if len(w) >= 2 and has_cjk(w) and w not in _STOP_ZH]
        words += [w.lower() for w in _WORD.findall(text) if len(w) > 2 and w.lower() not in _STOP_EN]
    else:
        words = [w.lower().removesuffix("'s").rstrip("'’") for w in _WORD.findall(text)]
        words = [w for w in words if len(w) > 2 and w not in _STOP_EN]
    return tuple(dict.fromkeys(words))


content_words = lru_cache(maxsize=TEXT_CACHE)(sentence_words)
"""`sentence_words` of a stored text, cached: the pair checks read the same texts again and again."""


def differing_words(old_text: str, new_text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(words only the older sentence has, words only the newer one has), at most MAX_WORDS each."""
    old, new = content_words(old_text), content_words(new_text)
    in_old, in_new = set(old), set(new)
    return (
        tuple(w for w in old if w not in in_new)[:MAX_WORDS],
        tuple(w for w in new if w not in in_old)[:MAX_WORDS],
    )


Embed = Callable[[list[str]], np.ndarray]
"""Embeds document texts into unit vectors (the memory's embedder), for sentences no unit holds."""


class TextVectors:
    """Vectors of short texts (words, masked sentences) by one embedder, each text embedded once (a bounded
    in-process cache: cleared when it would grow past `limit`, by default two per text of the per-text caches)."""

    def __init__(self, embed: Embed, limit: int = 2 * TEXT_CACHE) -> None:
        self.embed = embed
        self.limit = limit
        self.vectors: dict[str, np.ndarray] = {}

    def need(self, texts: Sequence[str]) -> None:
        """Embed the texts not yet known, in one call."""
        todo = sorted({t for t in texts if t not in self.vectors})
        if not todo:
            return
        if len(self.vectors) + len(todo) > self.limit:
            self.vectors.clear()
        self.vectors.update(zip(todo, np.asarray(self.embed(todo), dtype=np.float64), strict=True))


_T = TypeVar("_T", bound=TextVectors)


def cache_for(caches: dict[Embed, _T], embed: Embed, make: Callable[[Embed], _T]) -> _T:
    """The cache of this embedder in `caches`, made by `make` on first use (one per embedder for the process; a
    handful at most, so more than four starts afresh)."""
    if embed not in caches:
        if len(caches) >= 4:
            caches.clear()
        caches[embed] = make(embed)
    return caches[embed]


class WordVectors(TextVectors):
    """Unit vectors of single words by one embedder, each word embedded once."""

    def __init__(self, embed: Embed, limit: int = 200_000) -> None:
        super().__init__(embed, limit)
        self.center: np.ndarray | None = None
        """The mean word vector a scorer's span features were fitted with (None: vectors as embedded)."""

    def matrix(self, words: Sequence[str], center: np.ndarray | None = None) -> np.ndarray:
        """Rows of the words' vectors; with `center`, that common direction taken out and each row renormalised
        (single words' embeddings all lie close together: about 0.9 cosine for any two)."""
        if not words:
            return np.zeros((0, 0))
        m = np.stack([self.vectors[w] for w in words])
        if center is None:
            return m
        m = m - center
        return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)


def pair_words(old_text: str, new_text: str) -> list[str]:
    """Every word `span_features` reads for this pair (both sentences' content words)."""
    return [*content_words(old_text), *content_words(new_text)]


def _best(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """For each row of a, its highest cosine with a row of b (0 when b is empty)."""
    if not len(a) or not len(b):
        return np.zeros(len(a))
    return (a @ b.T).max(axis=1)


def _matched_by_new(
    o: np.ndarray, new_all: np.ndarray, new_words: Sequence[str], new_own: frozenset[str]
) -> float:
    """Share of the older sentence's own words whose closest word in the newer sentence is one of its own new
    words (a value put in the old value's place), not a word both share."""
    if not len(o) or not len(new_all):
        return 0.0
    closest = (o @ new_all.T).argmax(axis=1)
    return float(np.mean([new_words[int(i)] in new_own for i in closest]))


def span_features(
    old_text: str, new_text: str, words: WordVectors, center: np.ndarray | None = None
) -> np.ndarray:
    """SPAN_FEATURES of a pair; every word of `pair_words` must be in `words` already (`WordVectors.need`).
    `center`: the mean word vector the scorer was fitted with, taken out of every word's vector."""
    old_own, new_own = differing_words(old_text, new_text)
    o, n = words.matrix(old_own, center), words.matrix(new_own, center)
    old_all = words.matrix(content_words(old_text), center)
    new_all = words.matrix(content_words(new_text), center)
    match = float((o @ n.T).max()) if len(o) and len(n) else 0.0
    old_echo = float(_best(o, new_all).mean()) if len(o) and len(new_all) else 0.0
    new_echo = _best(n, old_all) if len(n) and len(old_all) else np.zeros(0)
    values = (
        match, 0.0 if len(o) else 1.0, 0.0 if len(n) else 1.0, old_echo,
        float(new_echo.mean()) if len(new_echo) else 0.0, float(1.0 - new_echo.min()) if len(new_echo) else 0.0,
        _matched_by_new(o, new_all, content_words(new_text), frozenset(new_own)),
    )  # fmt: skip
    return np.asarray(values, dtype=np.float64)


SWAP_FEATURES: tuple[str, ...] = ("swap_plan", "swap_gain", "swap_fill")
"""Names of the value-swap features (`values.swapped`), appended last in a write-time scorer that reads them."""


def swap_features(
    old: np.ndarray, new: np.ndarray, swap: np.ndarray | None, floor: float | None = None
) -> np.ndarray:
    """SWAP_FEATURES from the unit vectors of the older, the newer and the swapped older sentence (None: no value
    of one kind differs): how much closer to the newer sentence the older one comes with the new value put in
    place of its own, and how close it then is (cosine normalised so the embedder's unrelated level is 0)."""
    if swap is None:
        return np.zeros(len(SWAP_FEATURES))
    fill = float(swap @ new)
    return np.array([1.0, fill - float(old @ new), float(normalised_similarity(fill, floor))])
