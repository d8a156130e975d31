"""Which words of a fact answer a question, and whether a newer fact replaces the older one's answer.

Of the words and values (numbers, e-mail addresses) a fact has beyond the question's, the older fact's answer is
its last one in English (the value ends the clause) or any of its values and two-character runs in Chinese. A newer
fact that drops it and adds words of its own gives another answer to the same question ("What diet does Felix
follow?": "gluten-free" -> "vegetarian"); one that keeps it adds a detail. Read by the briefing's answer rule
(`answers`), which knows the question.
"""

from __future__ import annotations

import re

from psychoagent.memory.conflicts.facts import has_cjk
from psychoagent.memory.conflicts.spans import content_words, sentence_words
from psychoagent.text import stem

__all__ = ["replaces_answer"]

_TOKEN = re.compile(r"[\w.+-]+@[\w.-]+\w|\d[\d.,:/%-]*\d|\d|[A-Za-z][A-Za-z'’-]*")
"""An e-mail address, a number or an English word, in the order they are written."""


def _is_value(token: str) -> bool:
    """A number or an address (kept as written), not a word."""
    return not token[0].isalpha() or "@" in token


def _answer_words(text: str, asked: set[str]) -> list[str]:
    """The fact's content words (stemmed) and values (numbers, addresses) that the question lacks, in order: its
    answer to the question."""
    words = content_words(text)
    if has_cjk(text):
        found = [*words, *(t for t in _TOKEN.findall(text) if _is_value(t))]
    else:
        found = []
        for m in _TOKEN.finditer(text):
            token = m.group(0)
            if not _is_value(token):
                token = token.lower().removesuffix("'s").rstrip("'’")
                if token not in words:
                    continue
                token = stem(token)
            found.append(token)
    return [w for w in dict.fromkeys(found) if w not in asked]


def replaces_answer(old_text: str, new_text: str, query: str) -> bool:
    """Whether the newer fact drops the older fact's answer to the question and answers with words of its own
    ("What diet does Felix follow?": "gluten-free" -> "vegetarian"); a detail added to a kept value ("Ken's Toyota
    had its tyres changed" after "Ken drives a red Toyota") keeps it. English: the answer's last word (the value
    ends the clause); Chinese: any of its values or two-character runs (a predicate noun may follow the value,
    "是夜枭公会的成员", and jieba may cut a name apart)."""
    asked = {stem(w) for w in sentence_words(query)}
    old_words, new_words = _answer_words(old_text, asked), _answer_words(new_text, asked)
    if not old_words or not new_words or not set(new_words) - set(old_words):
        return False
    if has_cjk(old_text):
        kept = _answer_pairs(old_text, query) | {w for w in old_words if _is_value(w)}
        return not any(part in new_text for part in kept)
    return old_words[-1] not in new_words


_FUNCTION_ZH = frozenset("的了是在和与把被给将也都就又要会去到上里一个这那他她我你们每")
"""Characters of Chinese function words: a two-character run holding one carries no value."""


def _answer_pairs(text: str, query: str) -> set[str]:
    """The two-character runs of a Chinese fact that the question lacks, function words left out: jieba cuts an
    unknown name apart or glues it to a verb ("去盒马采购"), so a kept value is found by its characters."""
    asked = {query[i : i + 2] for i in range(len(query) - 1)}
    runs = (text[i : i + 2] for i in range(len(text) - 1))
    return {
        r for r in runs if has_cjk(r[0]) and has_cjk(r[1]) and not set(r) & _FUNCTION_ZH and r not in asked
    }
