"""Tokenisation for the keyword index: words for alphabetic scripts, jieba words for Chinese.

FTS5 stores the segmented text (space-separated tokens) under the ``porter unicode61`` tokenizer, so English
gets stemming and Chinese gets word-level BM25 (the trigram tokenizer cannot match two-character words).
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

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
    out: list[str] = []
    pos = 0
    for match in _CJK_RUN.finditer(text):
        out += _TOKEN.findall(text[pos : match.start()].lower())
        out += _cjk_words(match.group())
        pos = match.end()
    out += _TOKEN.findall(text[pos:].lower())
    return out


def segment(text: str) -> str:
    """Text as stored in the FTS index: tokens joined by spaces."""
    return " ".join(tokens(text))


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression (OR of quoted tokens) for a free-text query; None if nothing to search for."""
    seen: dict[str, None] = {}
    for tok in tokens(text):
        if tok in STOPWORDS or tok in ZH_STOPWORDS:
            continue
        seen.setdefault(tok.replace('"', ""), None)
    if not seen:
        return None
    return " OR ".join(f'"{tok}"' for tok in seen)
