"""Tokenisation for the keyword index: words for alphabetic scripts, jieba words for Chinese.

The segmented text (space-separated tokens) feeds the in-memory BM25 index and is kept durably in SQLite FTS5;
jieba words give Chinese word-level matching (FTS5's trigram tokenizer cannot match two-character words).
"""

from __future__ import annotations

import logging
import os
import re
from functools import lru_cache
from typing import Any

TEXT_CACHE_ENV = "PSYCHOAGENT_TEXT_CACHE"
DEFAULT_TEXT_CACHE = 32_768
"""Texts each per-text analysis cache keeps (conflict checks, affect slots) unless `PSYCHOAGENT_TEXT_CACHE` says
otherwise: sized for bulk writes, where a new unit is checked against recent ones (about 5 KiB a text over all the
caches, so at most about 160 MiB); `psychoagent serve` takes a smaller number (`--text-cache`)."""


def text_cache_size() -> int:
    """Entries of each per-text cache: the environment's `PSYCHOAGENT_TEXT_CACHE`, else `DEFAULT_TEXT_CACHE`;
    read once, when the caches are made (the first import of the analysis modules)."""
    raw = os.environ.get(TEXT_CACHE_ENV, "").strip()
    if not raw:
        return DEFAULT_TEXT_CACHE
    if not raw.isdigit() or int(raw) < 64:
        raise ValueError(f"{TEXT_CACHE_ENV} must be a whole number of at least 64, got {raw!r}")
    return int(raw)


TEXT_CACHE = text_cache_size()
"""Entries of each per-text cache in this process (`text_cache_size`)."""

_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_TOKEN = re.compile(r"[\w]+", re.UNICODE)

# Very frequent English function words: dropped from keyword *queries* only (documents keep them).
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have he her him his how i in is it its me my "
    "of on or our she so than that the their them then there these they this to us was we were what when where "
    "which who whom why will with you your".split()
)
ZH_STOPWORDS = frozenset(
    "的 了 是 在 和 与 也 就 都 而 及 着 吗 呢 吧 啊 什么 怎么 哪里 哪儿 谁 我 你 他 她 它 们".split()
)


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


def _cjk_words(run: str) -> list[str]:
    return [w for w in _jieba().cut_for_search(run) if w.strip()]


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens; Chinese runs are segmented with jieba (search mode: words and sub-words)."""
    if text.isascii():  # no Chinese run to look for
        return _TOKEN.findall(text.lower())
    out: list[str] = []
    pos = 0
    for match in _CJK_RUN.finditer(text):
        out += _TOKEN.findall(text[pos : match.start()].lower())
        out += _cjk_words(match.group())
        pos = match.end()
    out += _TOKEN.findall(text[pos:].lower())
    return out


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


_ASCII_WORD = re.compile(r"[a-z]+")


@lru_cache(maxsize=200_000)
def stem(token: str) -> str:
    """English Snowball stem of a lower-case ASCII word ("painted", "painting" -> "paint"); other tokens unchanged.

    Matching stems instead of surface forms found the evidence turn of more LoCoMo questions (docs/benchmarks.md).
    """
    return str(_stemmer().stemWord(token)) if _ASCII_WORD.fullmatch(token) else token


def segment(text: str) -> str:
    """Text as stored in the FTS index: tokens joined by spaces."""
    return " ".join(tokens(text))
