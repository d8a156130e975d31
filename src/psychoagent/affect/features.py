"""Word-level features of a text for the continuous affect heads: lexicon norms, task and arousal words, punctuation.

English word norms come from VADER's lexicon (about 7,500 words rated -4..4 by people; Hutto & Gilbert 2014). The
valence/arousal norm packages on the registry did not fit (emotion-nrc-affect-lex: GPL plus NRC's research-only
terms, pins pandas 1.1; cognitive-signal: no norm list, pulls spaCy and sentence-transformers), so arousal has no
per-word norms here: its word-level signal is the head's fitted word weights (`head.py`) plus the hand-written
arousal words. Chinese uses the rule lexicon (its valence then rests on the e5 vector, see `heuristic.py`).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

import numpy as np

from psychoagent.affect import lexicon as lx
from psychoagent.affect.config import HeuristicConfig
from psychoagent.affect.scheme import LabelScheme

EN_WORD = re.compile(r"[A-Za-z][\w']*")
EN_NEGATORS = frozenset("not no never n't cannot without".split())

FEATURE_NAMES: tuple[str, ...] = (
    "sentiment",  # VADER compound + task words (English) or the rule lexicon (Chinese), in [-1, 1]
    "sentiment_abs",
    "vader_pos",  # share of positive / negative lexicon mass (VADER's pos, neg)
    "vader_neg",
    "norm_mean",  # mean VADER word norm over the words that have one (/4), and its mean magnitude
    "norm_abs",
    "norm_max",
    "norm_min",
    "task_words",  # success minus failure words, negation-aware
    "arousal_words",
    "exclamations",
    "questions",
    "capitals",
    "large_change",
    "log_words",
)
"""Names and order of the dense lexical features; the fitted heads store them and are checked against them."""


@lru_cache(maxsize=1)
def vader() -> Any:
    """VADER's analyser (loaded once: its lexicon takes about 0.1 s)."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def cut(text: str) -> list[str]:
    """Chinese words (jieba), blanks dropped."""
    from psychoagent.text import _jieba

    return [w for w in _jieba().lcut(text) if w.strip()]


def tokens(text: str, words: list[str] | None = None) -> list[str]:
    """Lower-cased words the fitted word weights are keyed by (jieba words for Chinese), plus ! and ?."""
    if words is None:
        words = cut(text) if lx.has_cjk(text) else [w.lower() for w in EN_WORD.findall(text)]
    marks = [m for m, wide in (("!", "！"), ("?", "？")) if m in text or wide in text]
    return [*words, *marks]


class TextFeatures:
    """Computes the lexical features of a text under one label scheme (its extra positive/negative/arousal words)."""

    def __init__(self, config: HeuristicConfig, scheme: LabelScheme) -> None:
        self.config, self.scheme = config, scheme
        self._pos_en = lx.SUCCESS_EN | {w for w in scheme.positive_words if not lx.has_cjk(w)}
        self._neg_en = lx.FAILURE_EN | {w for w in scheme.negative_words if not lx.has_cjk(w)}
        self._pos_zh = lx.SUCCESS_ZH + tuple(w for w in scheme.positive_words if lx.has_cjk(w))
        self._neg_zh = lx.FAILURE_ZH + tuple(w for w in scheme.negative_words if lx.has_cjk(w))
        self._arousal_en = lx.AROUSAL_EN | set(scheme.arousal_words)
        self._arousal_zh = (*lx.AROUSAL_ZH, *scheme.arousal_words)

    def task_words_en(self, words: list[str]) -> float:
        """Success minus failure words; a negator up to three words before flips the word."""
        total = 0.0
        for i, word in enumerate(words):
            sign = 1.0 if word in self._pos_en else -1.0 if word in self._neg_en else 0.0
            if sign and any(w in EN_NEGATORS or w.endswith("n't") for w in words[max(0, i - 3) : i]):
                sign = -sign
            total += sign
        return total

    def task_words_zh(self, words: list[str]) -> float:
        """Success minus failure words with Chinese negators and intensifiers."""
        cfg = self.config
        total = 0.0
        for i, tok in enumerate(words):
            sign = (
                1.0
                if any(w in tok for w in self._pos_zh)
                else -1.0
                if any(w in tok for w in self._neg_zh)
                else 0.0
            )
            if not sign:
                continue
            if any(t in lx.NEGATORS_ZH for t in words[max(0, i - cfg.negation_window) : i]):
                sign = -sign
            if i > 0 and words[i - 1] in lx.INTENSIFIERS_ZH:
                sign *= cfg.intensifier_factor
            total += sign
        return total

    def sentiment(self, text: str) -> float:
        """Signed sentiment score in [-1, 1] (the label-only appraiser's score, kept as a feature)."""
        if lx.has_cjk(text):
            return self._sentiment_zh(cut(text))
        compound = float(vader().polarity_scores(text)["compound"])
        return self._sentiment_en(compound, [w.lower() for w in EN_WORD.findall(text)])

    def _sentiment_zh(self, words: list[str]) -> float:
        cfg = self.config
        return max(-1.0, min(1.0, cfg.task_word_weight * self.task_words_zh(words)))

    def _sentiment_en(self, compound: float, words: list[str]) -> float:
        return max(-1.0, min(1.0, compound + self.config.task_word_weight * self.task_words_en(words)))

    def arousal_cues(self, text: str, score: float) -> list[str]:
        """Named arousal cues: intensity words (at most two), capitals, exclamation, strong sentiment, big change."""
        cfg = self.config
        cues: list[str] = []
        if lx.has_cjk(text):
            hits = sum(1 for w in self._arousal_zh if w in text)
        else:
            words = EN_WORD.findall(text)
            hits = len({w.lower() for w in words} & self._arousal_en)
            if any(len(w) >= 3 and w.isupper() for w in words):
                cues.append("capitals")
        cues += ["intensity words"] * min(2, hits)
        if "!" in text or "！" in text:
            cues.append("exclamation")
        if abs(score) >= cfg.arousal_sentiment:
            cues.append("strong sentiment")
        if self.large_change(text):
            cues.append("large change")
        return cues

    def large_change(self, text: str) -> bool:
        moved = lx.change(text)
        return bool(
            moved
            and moved[0]
            and abs(moved[1] - moved[0]) / abs(moved[0]) >= self.config.arousal_change_ratio
        )

    def vector(self, text: str) -> tuple[np.ndarray, float, list[str]]:
        """The dense features in FEATURE_NAMES order, the sentiment score and the tokens (one pass over the text)."""
        if lx.has_cjk(text):
            words = cut(text)
            score = self._sentiment_zh(words)
            pos = neg = 0.0
            norms: list[float] = []
            task = self.task_words_zh(words)
            arousal = sum(1 for w in self._arousal_zh if w in text)
            capitals = 0.0
        else:
            raw = EN_WORD.findall(text)
            words = [w.lower() for w in raw]
            polarity = vader().polarity_scores(text)
            score = self._sentiment_en(float(polarity["compound"]), words)
            pos, neg = float(polarity["pos"]), float(polarity["neg"])
            lexicon = vader().lexicon
            norms = [lexicon[w] / 4.0 for w in words if w in lexicon]
            task = self.task_words_en(words)
            arousal = len(set(words) & self._arousal_en)
            capitals = float(sum(1 for w in raw if len(w) >= 3 and w.isupper()))
        values = (
            score,
            abs(score),
            pos,
            neg,
            sum(norms) / len(norms) if norms else 0.0,
            sum(abs(n) for n in norms) / len(norms) if norms else 0.0,
            max(norms, default=0.0),
            min(norms, default=0.0),
            task,
            float(min(arousal, 3)),
            float(min(3, text.count("!") + text.count("！"))),
            float(min(3, text.count("?") + text.count("？"))),
            min(capitals, 3.0),
            float(self.large_change(text)),
            math.log1p(len(words)),
        )
        return np.asarray(values, dtype=np.float64), score, tokens(text, words)
