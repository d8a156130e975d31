"""Change statements without a known slot: 'Alice transferred to the Paris office' updates 'Alice works in the
Berlin office' although no attribute word names the slot.

A sentence is a change of an earlier one when it carries a change marker (moved, transferred, now, 改到, 调到...),
names the same person, and shares a topic word with it (office, appointment, 办公室, 预约). Less certain than a
slot clash, so such conflicts get a lower intensity (ConflictConfig.change_intensity).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from psychoagent.affect.lexicon import has_cjk
from psychoagent.text import TEXT_CACHE

CHANGE_EN = re.compile(
    r"\b(moved|moves|changed?|changes|switched|switches|transferred|rescheduled|postponed|pushed|raised|"
    r"increased|decreased|lowered|cut|reduced|grew|rose|fell|dropped|upgraded|downgraded|replaced|updated|"
    r"now|new|no longer|instead|actually|decided|anymore|left)\b",
    re.I,
)
CHANGE_ZH = re.compile(
    r"(改|调|换|涨|降|搬|推迟|提前|提高|降低|增加|减少|更新|现在|新的|不再|其实|变成|变为|决定)"
)
_STOP_EN = frozenset(
    "the a an and or to of in on at for with from by is are was were be been has have had his her their its "
    "this that these those will would can could should into than then there here about after before over under "
    "not no more most very just also still who what when where which how does did do "
    # units of measure say how a value is counted, not what it is about
    "dollars dollar yuan euros euro pounds percent people persons units items month months year years week weeks "
    "day days hours hour minutes".split()
)
_STOP_ZH = frozenset(
    "的 了 是 在 和 与 把 将 也 都 就 又 要 会 去 到 上 里 一 个 这 那 他 她 我 你 们 每月 每年 每天 每周 元 块 人 月 年".split()
)
_NAME_EN = re.compile(r"\b([A-Z][a-z][\w-]*)(?:'s)?\b")
_SENTENCE_START_SKIP = frozenset(
    "The A An This That These Those Change Actually Now Today Yesterday Tomorrow Please Note Update".split()
)


@dataclass(frozen=True)
class ChangeSignature:
    """Who a sentence is about, its topic words and whether it announces a change."""

    entity: str | None
    topics: frozenset[str]
    marker: str | None


def _tagged(text: str) -> list[tuple[str, str]]:
    """jieba part-of-speech tags: person names come out as 'nr', places 'ns', times 't', numbers 'm'."""
    from psychoagent.text import _jieba

    _jieba()  # configures jieba's logging once
    import jieba.posseg

    return [(w.word, w.flag) for w in jieba.posseg.lcut(text) if w.word.strip()]


_VALUE_FLAGS = ("nr", "ns", "t", "m", "eng", "x")


@lru_cache(maxsize=TEXT_CACHE // 2)
def signature(text: str) -> ChangeSignature:
    """The change signature of a sentence (cached: each stored text is analysed once)."""
    if has_cjk(text):
        tagged = _tagged(text)
        entity = next((w for w, f in tagged if f == "nr" and 2 <= len(w) <= 3), None)
        m = CHANGE_ZH.search(text)
        topics = frozenset(
            w for w, f in tagged
            if len(w) >= 2 and has_cjk(w) and not f.startswith(_VALUE_FLAGS) and w not in _STOP_ZH
            and not CHANGE_ZH.search(w)
        )  # fmt: skip
        return ChangeSignature(entity, topics, m.group(0) if m else None)
    names = [n for n in _NAME_EN.findall(text) if n not in _SENTENCE_START_SKIP]
    entity = names[0].lower() if names else None
    m = CHANGE_EN.search(text)
    words = re.findall(r"[A-Za-z][\w-]*", text)
    topics = frozenset(
        w.lower() for w in words
        if w.islower() and len(w) >= 3 and w not in _STOP_EN and not CHANGE_EN.fullmatch(w)
    )  # fmt: skip
    return ChangeSignature(entity, topics, m.group(0).lower() if m else None)


def may_change(text: str) -> bool:
    """Cheap pre-check: does the text carry a change marker at all?"""
    return (CHANGE_ZH if has_cjk(text) else CHANGE_EN).search(text) is not None


def is_change_of(new: ChangeSignature, old: ChangeSignature) -> bool:
    """True when `new` announces a change and is about the same person and topic as `old`."""
    return bool(new.marker and new.entity and new.entity == old.entity and new.topics & old.topics)
