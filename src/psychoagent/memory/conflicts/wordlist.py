"""Whether a capitalised opening word is a common English word rather than a name, read from a dictionary.

A sentence's first word is capitalised whatever it is, so its capital says nothing: "Scratch Lyon: Paris is right."
and "Support ticket TK-4370: ..." open with common words, "Frank reported ..." with a name. Webster's Second
International word list (public domain, through the `english-words` package) lists proper names capitalised and
common words in lower case; a word it lists in lower case only is read as a common word.
"""

from __future__ import annotations

from functools import lru_cache

from psychoagent.text import TEXT_CACHE

_SUFFIXES = ("ies", "es", "s", "ed", "ing")
"""Inflections the list does not hold as entries of their own ("things", "heads", "scratched")."""


@lru_cache(maxsize=1)
def _words() -> frozenset[str]:
    """The word list, loaded once per process (about 0.1 s, 236k entries, cased as the dictionary prints them)."""
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"]))


def _forms(lower: str) -> list[str]:
    """The word and what it may be an inflection of."""
    forms = [lower]
    for suffix in _SUFFIXES:
        if len(lower) > len(suffix) + 2 and lower.endswith(suffix):
            stem = lower[: -len(suffix)]
            forms += [stem + "y"] if suffix == "ies" else [stem, stem + "e"]
    return forms


@lru_cache(maxsize=TEXT_CACHE // 4)
def common_word(word: str) -> bool:
    """True when `word` (any case) is a common English word that the dictionary never lists as a name."""
    words = _words()
    for form in _forms(word.lower()):
        if form in words:
            return form.capitalize() not in words
    return False
