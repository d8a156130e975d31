"""Word alignment of a fact pair: the newer sentence restating the older one with one short run of words replaced.

"Ruth works as a software engineer." + "Sorry, my mistake earlier: Ruth works as a nurse." align word for word
except "software engineer" / "nurse", after a lead the older sentence lacks. When that run closes the older
sentence's content and the two share a predicate word besides the subject, the run is the value of one attribute
and it changed, even for values no name, number or time marks (jobs, colours, diets). A restatement in other
words changes its predicate and keeps its value after it ("Marco's instrument is the flute." / "Marco plays the
flute."); two attributes of one person share no predicate word ("Priya plays the piano." / "Priya's diet is
gluten-free."). A feature of the pair scorer (`pairs`), not a decision.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from psychoagent.memory.conflicts.facts import has_cjk
from psychoagent.memory.conflicts.spans import content_words
from psychoagent.text import TEXT_CACHE

__all__ = ["RUN_LONGEST", "aligned_change", "tokens"]

RUN_LONGEST = 3
"""Most words the replaced run may have on either side: a value is a word or a short phrase ("software engineer",
"old town office"); a longer run is a reworded predicate."""

_TOKEN_EN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*|[^\sA-Za-z0-9]")
_SIGNS = frozenset(".。!！?？,，;；:：、—–-\"“”'‘’()（）")


@lru_cache(maxsize=TEXT_CACHE)
def tokens(text: str) -> tuple[str, ...]:
    """The sentence's words and signs in order, lower-cased (Chinese by jieba; an English possessive cut, so
    "Omar's" and "Omar" align)."""
    if has_cjk(text):
        import jieba

        return tuple(w.lower() for w in jieba.lcut(text) if not w.isspace())
    return tuple(
        m.group().lower().removesuffix("'s").removesuffix("’s").rstrip("'’") for m in _TOKEN_EN.finditer(text)
    )


def _signs(words: tuple[str, ...]) -> bool:
    return all(w in _SIGNS for w in words)


@lru_cache(maxsize=TEXT_CACHE)
def aligned_change(old_text: str, new_text: str, subject: str | None) -> bool:
    """True when the newer sentence is the older one (after an optional lead) with one short run replaced, that
    run holds the older sentence's last content word and a content word on each side that the other sentence
    lacks, a content word besides `subject` (the first-named subject, lower-cased) is shared, and the run is not
    the subject."""
    old_words, new_words = content_words(old_text), content_words(new_text)
    old_set, new_set = set(old_words), set(new_words)
    # the conditions on words alone first (most pairs fail them), the alignment only for the rest
    if not (old_set - new_set and new_set - old_set and (old_set & new_set) - {subject}):
        return False
    old, new = tokens(old_text), tokens(new_text)
    ops = [
        op
        for op in SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
        if op[0] != "equal" and not _signs(old[op[1] : op[2]] + new[op[3] : op[4]])
    ]
    if ops and ops[0][0] == "insert" and ops[0][1] == 0:
        ops = ops[1:]  # a lead ("Update:", "Sorry, my mistake earlier:")
    if len(ops) != 1 or ops[0][0] != "replace":
        return False
    _, i1, i2, j1, j2 = ops[0]
    if i2 - i1 > RUN_LONGEST or j2 - j1 > RUN_LONGEST:
        return False
    run_old, run_new = set(old[i1:i2]), set(new[j1:j2])
    if subject is not None and (subject in run_old or subject in run_new):
        return False
    if not (run_old - new_set & old_set and run_new - old_set & new_set):
        return False
    # the value is where the run is, not a reworded predicate before a kept value
    return old_words[-1] in run_old
