"""The literal-word pre-check of the cue patterns in `memory.facts` gives what the full regex search gives."""

from __future__ import annotations

import re

import pytest

from psychoagent.affect.changes import CHANGE_EN, may_change
from psychoagent.memory.conflicts import facts
from psychoagent.memory.conflicts.cues import LITERALS, found
from psychoagent.memory.conflicts.facts import analyse

PATTERNS: dict[str, re.Pattern[str]] = {
    "negation": facts._NEG_EN, "change": facts._CHANGE_EN, "correction": facts._CORRECT_EN,
    "source": facts._SOURCE_EN, "relative": facts._RELATIVE_EN, "occasion": facts._OCCASION,
    "reports": facts._REPORTS_EN, "weekday": facts._WEEKDAY, "change_marker": CHANGE_EN,
}  # fmt: skip

TEXTS = [
    "NOW I MOVED to Paris",
    "I'M NOT sure anymore",
    "no-one came",
    "Monday at 9am",
    "MAY 5 works",
    "Sorry, I meant 4200",
    "it is UP to you",
    "Dropped Out of school",
    "He thinks so",
    "TODAY is fine",
    "Dec 3 meeting",
    "I'm in fact late",
    "The record shows 12 people",
    "Ünïcode text, NOT ascii, today",
    "ſtopped by the office",  # a long s: re.IGNORECASE matches it to 's'
    "the KELVIN sign: \u212aeep it",
    "event 4: w77 w15 w134",
    "Mister Smith said so",
    "nothing here at all",
    "用户说预算改到3000元",
]


def test_every_cue_has_its_pattern() -> None:
    assert set(PATTERNS) == set(LITERALS)


@pytest.mark.parametrize("name", list(LITERALS))
def test_pre_check_agrees_with_the_search(name: str) -> None:
    pattern = PATTERNS[name]
    for text in TEXTS:
        lower = text.lower() if text.isascii() else None
        assert found(pattern, name, text, lower) == (pattern.search(text) is not None), (
            pattern.pattern,
            text,
        )


def test_every_match_holds_a_literal_word() -> None:
    """What makes the pre-check exact: each match of a pattern in these texts contains one of its words."""
    for name, words in LITERALS.items():
        pattern = PATTERNS[name]
        for text in TEXTS:
            for m in pattern.finditer(text):
                if text.isascii():
                    assert any(w in m.group(0).lower() for w in words), (pattern.pattern, m.group(0))


def alternatives(pattern: re.Pattern[str]) -> list[str]:
    """The words a pattern's alternation lists, regex syntax removed ("moved?" -> "move", "mis\\w+" -> "mis")."""
    source = re.sub(r"\\b|\(\?:|[()]", " ", pattern.pattern)
    words = []
    for alternative in source.split("|"):
        word = re.sub(r"\\w\+|\\s\*|.\?|\[[^]]*\][+*]?", "", alternative).strip()
        if word and word.isascii():
            words.append(word.lower())
    return words


def test_each_alternative_of_a_pattern_holds_one_of_its_words() -> None:
    """Guards the table against a pattern that gains a word: every ASCII alternative must contain a listed word."""
    for name, words in LITERALS.items():
        pattern = PATTERNS[name]
        listed = alternatives(pattern)
        assert listed, pattern.pattern
        for alternative in listed:
            assert any(w in alternative for w in words), (pattern.pattern, alternative)


def test_the_surface_change_marker_is_may_change() -> None:
    for text in [
        *TEXTS,
        "We switched to decaf",
        "Leftover rice",
        "她现在住在上海",
        "Déménagé: moved to Lyon",
    ]:
        assert facts._surface.__wrapped__(text).change_marker == may_change(text), text


def test_non_ascii_text_is_always_searched() -> None:
    # 'ſ' is not 's' for str.lower(), but the case-insensitive regex matches it: the search must run
    assert analyse("I ſtopped smoking").negation == (facts._NEG_EN.search("I ſtopped smoking") is not None)
    assert analyse("I ſtopped smoking").negation
