"""Literal words of the English cue patterns in `facts` (and of the change rule's marker), for a pre-check that skips their regex search.

Every match of a case-insensitive cue pattern contains one of its words, lower-cased; an ASCII text holding none of
them cannot match, and the search (tens of microseconds for these alternations) is skipped. Non-ASCII texts are
always searched (`re.IGNORECASE` folds characters that `str.lower` does not). Tests keep the table complete.
"""

from __future__ import annotations

import re

LITERALS: dict[str, tuple[str, ...]] = {
    "negation": ("no", "never", "stopped", "quit", "anymore", "n't"),
    "change": (
        "now", "new", "move", "change", "switch", "transferred", "rescheduled", "postponed", "pushed", "raised",
        "increased", "decreased", "lowered", "cut", "reduced", "replaced", "updated", "became", "becomes", "turned",
        "instead", "upgraded", "downgraded", "renamed", "relocated", "left", "joined", "promoted", "started", "from",
    ),
    "correction": ("actually", "sorry", "meant", "correction", "wrong", "rather", "in fact", "mis"),
    "source": (
        "according to", "say", "said", "report", "claim", "state", "told", "show", "list", "record", "insist",
        "believe", "think",
    ),
    "relative": (
        "more", "fewer", "less", "another", "extra", "additional", "again", "added", "plus", "minus", "dropped out",
        "down", "up",
    ),
    "occasion": ("today", "yesterday", "tonight", "this morning", "this afternoon", "this evening", "last night"),
    "reports": (
        "according to", "says", "said", "claims", "claimed", "states", "stated", "insists", "believes", "thinks",
        "has it that",
    ),
    "weekday": ("day", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    "change_marker": (  # `affect.changes.CHANGE_EN`, the change rule's marker (read once per text)
        "move", "change", "switch", "transferred", "rescheduled", "postponed", "pushed", "raised", "increased",
        "decreased", "lowered", "cut", "reduced", "grew", "rose", "fell", "dropped", "upgraded", "downgraded",
        "replaced", "updated", "now", "new", "no longer", "instead", "actually", "decided", "anymore", "left",
    ),
}  # fmt: skip


def ascii_lower(text: str) -> str | None:
    """The lower-cased text the pre-check reads, or None for a non-ASCII text (always searched)."""
    return text.lower() if text.isascii() else None


_SEARCH = {name: re.compile("|".join(map(re.escape, words))).search for name, words in LITERALS.items()}
"""One literal alternation per cue: a substring test of every word at once, in C."""


def holds(lower: str, name: str) -> bool:
    """Whether a lower-cased ASCII text holds one of the words of cue `name`."""
    return _SEARCH[name](lower) is not None


def found(pattern: re.Pattern[str], name: str, text: str, ascii_lower: str | None) -> bool:
    """`pattern.search(text) is not None`, without the search when the text is ASCII (`ascii_lower` is its
    lower-cased form) and holds none of the words of cue `name`."""
    if ascii_lower is not None and not holds(ascii_lower, name):
        return False
    return pattern.search(text) is not None
