"""What a fact sentence states: subjects, values, content words and cue words (the input of the pair features).

A sentence is analysed once (cached): its subjects (people, places, organisations, things named with a capital or
tagged as proper nouns by jieba, and the speaker: I / my / 我 / 用户), its values (numbers, times, names that are
not shared), its content words, and cue words (negation, change, correction, source, relative change). The
comparisons of two sentences that several features need (shared subjects, a repeated old value, a pronoun subject,
a fact told through a source) live here too; `pairs` turns a pair into the scorer's feature vector.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from psychoagent.affect.changes import CHANGE_EN, CHANGE_ZH
from psychoagent.affect.lexicon import has_cjk, numbers, zh_number
from psychoagent.memory.conflicts.cues import ascii_lower, found, holds
from psychoagent.memory.conflicts.wordlist import common_word
from psychoagent.text import TEXT_CACHE

_WORD_EN = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.:,]\d+)*")
_CAP_EN = re.compile(r"\b[A-Z][a-zA-Z-]*[a-zA-Z]\b(?!-?\d)")
"""A capitalised word, not the letters of a code ("TK-4370", "LH2031": a value, read as its number)."""
_CODE_LETTERS = re.compile(r"([A-Za-z]+)-?\d")
_TIME_DIGITS = (
    r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\d{1,2}[点时](?:\d{1,2}分|半)?"
)
_TIME_ASCII = re.compile(_TIME_DIGITS, re.I)
_TIME = re.compile(
    _TIME_DIGITS
    # a clock hour in Chinese numerals ("七点", "下午三点半", "九点一刻"); a lone 一点 is "a little" unless a time of day
    # precedes it
    + r"|(?:(?<=上午|下午|晚上|早上|中午|凌晨|傍晚)一|十[一二]|[两三四五六七八九十])点(?:半|[一三]刻|[一二三四五六七八九十]{1,3}分)?",
    re.I,
)


def time_matches(text: str) -> Iterator[re.Match[str]]:
    """The times of day in a text (`_TIME`; an ASCII text is searched for the digit forms only, all it can hold)."""
    return (_TIME_ASCII if text.isascii() else _TIME).finditer(text)


_WEEKDAY = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
    r"august|september|october|november|december)\b|(周|星期|礼拜)[一二三四五六日天]|[一二三四五六七八九十]+月",
    re.I,
)
_SELF_EN = re.compile(r"\b(i|i'm|i've|my|me|mine|we|our|us)\b", re.I)
_SELF_ZH = re.compile(r"我|用户|咱")
_NEG_EN = re.compile(
    r"\b(no longer|not|never|none|no|stopped|quit|anymore|isn't|doesn't|don't|won't|can't|cannot|nor)\b|n't\b",
    re.I,
)
_NEG_ZH = re.compile(r"不再|不|没有|没|别|停止|戒|取消|无")
_NEG_ZH_WORDS = frozenset("不 不再 不是 没 没有 别 无 停止 取消 戒".split())
_NEG_ZH_LEADS = ("不", "没", "戒", "停止", "取消")


def _negated_zh(tagged: list[tuple[str, str]]) -> bool:
    """Whether a Chinese sentence that `_NEG_ZH` matches negates: a word that is a negator, or a verb or adverb
    opening with one ("不住", "没去", "不当"); the characters inside other words ("特别", "别人", "不好意思", "无线")
    negate nothing."""
    return any(
        w in _NEG_ZH_WORDS or (w.startswith(_NEG_ZH_LEADS) and f.startswith(("v", "d"))) for w, f in tagged
    )


_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
"""An e-mail address: its digits ("sunflower88@mail.com") are no number of the fact."""
_CHANGE_EN = re.compile(
    r"\b(now|new|moved?|moves|changed?|changes|switched|switch(?:es)?|transferred|rescheduled|postponed|pushed|"
    r"raised|increased|decreased|lowered|cut|reduced|replaced|updated|became|becomes|turned|instead|"
    r"upgraded|downgraded|renamed|relocated|left|joined|promoted|started|from)\b",
    re.I,
)
_CHANGE_ZH = re.compile(
    r"改|调|换|涨|降|搬|推迟|提前|提高|降低|更新|现在|如今|新的|变成|变为|成了|改名|升|跳槽|转"
)
_CORRECT_EN = re.compile(
    r"\b(actually|sorry|i meant|meant|correction|mistake|wrong|rather|in fact|mis\w+)\b", re.I
)
_CORRECT_ZH = re.compile(r"其实|更正|说错|搞错|纠正|应该是|不对|口误|写错|弄错")
_SOURCE_EN = re.compile(
    r"\b(according to|says|said|say|reports?|reported|claims?|claimed|states?|stated|told|shows?|lists?|"
    r"records?|insists?|believes?|thinks?)\b",
    re.I,
)
_SOURCE_ZH = re.compile(r"据|说|称|表示|显示|记录|写着|认为|坚持|告诉|根据|上写")
_RELATIVE_EN = re.compile(
    r"\b(more|fewer|less|another|extra|additional|again|added|plus|minus|dropped out|down|up)\b", re.I
)
_RELATIVE_ZH = re.compile(r"又|多了|少了|再|增加|减少|加了|退出|多来|少来")
_CUES = ("negation", "change", "correction", "source", "relative")
"""Names in `cues.LITERALS` of the five cue patterns, in the order `analyse` searches them."""
_STOP_EN = frozenset(
    "the a an and or to of in on at for with from by is are was were be been being has have had his her their "
    "its this that these those will would can could should into than then there here about after before over "
    "under also still who what when where which how does did do it he she they them him as so just very "
    "i i'm my me we our us you your now".split()
)
_STOP_ZH = frozenset(
    "我 我们 用户 现在 的 了 是 在 和 与 把 将 也 都 就 又 要 会 去 到 上 里 个 这 那 他 她 它 们 被 给 着 过 吗 呢 吧".split()
)
_ZH_PROPER = ("nr", "ns", "nt", "nz", "nrfg", "nrt")
_SUFFIXES = ("ing", "ed", "es", "s")


def _stem(word: str) -> str:
    """Crude English stem so that drives / drove / driving are close enough to share a predicate word."""
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@dataclass(frozen=True)
class FactView:
    """What one sentence states, as sets the pair features compare."""

    zh: bool
    entities: frozenset[str]
    numbers: frozenset[float]
    times: frozenset[str]
    content: frozenset[str]
    self_ref: bool
    negation: bool
    change: bool
    correction: bool
    source: bool
    relative: bool
    length: int
    speaker: str = ""
    """Who says it, for a chat turn written "Name: text" ("" when unknown): the one "I" refers to."""
    opens_with_person: bool = False
    """Chinese: the first word is a person's name (jieba 'nr'), the sentence's subject."""


_T = TypeVar("_T")
_EMPTY: frozenset[Any] = frozenset()


def _kept(values: frozenset[_T]) -> frozenset[_T]:
    """The set itself, or one shared empty set: a cached analysis keeps no empty set of its own (each would be one
    more object for the garbage collector to track)."""
    return values or _EMPTY


def _zh_tagged(text: str) -> list[tuple[str, str]]:
    from psychoagent.affect.changes import _tagged

    return _tagged(text)


@lru_cache(maxsize=TEXT_CACHE)
def analyse(text: str) -> FactView:
    """The fact view of a sentence (cached: every stored text is analysed once)."""
    zh = has_cjk(text)
    lower = ascii_lower(text)
    weekdays = () if lower is not None and not holds(lower, "weekday") else _WEEKDAY.finditer(text)
    times = frozenset(m.group(0).lower().replace(" ", "") for m in time_matches(text)) | frozenset(
        m.group(0).lower() for m in weekdays
    )
    if zh:
        tagged = _zh_tagged(text)
        entities = frozenset(w for w, f in tagged if f in _ZH_PROPER and len(w) >= 2)
        codes = {m.group(1) for m in _CODE_LETTERS.finditer(text)}
        entities |= frozenset(w.lower() for w, f in tagged if f == "eng" and w not in codes)
        content = frozenset(
            w for w, f in tagged
            if has_cjk(w) and w not in _STOP_ZH and w not in entities and not f.startswith(("m", "x", "u", "p", "c"))
        )  # fmt: skip
        self_ref = _SELF_ZH.search(text) is not None
        cues = (_NEG_ZH, _CHANGE_ZH, _CORRECT_ZH, _SOURCE_ZH, _RELATIVE_ZH)
        opens = bool(tagged) and tagged[0][1].startswith("nr")
    else:
        entities = frozenset(
            m.group(0).lower() for m in _CAP_EN.finditer(text)
            if m.group(0).lower() not in _NOT_NAMES and not _common_opening(text, m)
        )  # fmt: skip
        words = [w.lower().removesuffix("'s").rstrip("'") for w in _WORD_EN.findall(text)]
        ent_words = {p for e in entities for p in e.split()}
        content = frozenset(
            _stem(w) for w in words
            if w not in _STOP_EN and w not in ent_words and not w[0].isdigit() and len(w) > 2
        )  # fmt: skip
        self_ref = _SELF_EN.search(text) is not None
        cues = (_NEG_EN, _CHANGE_EN, _CORRECT_EN, _SOURCE_EN, _RELATIVE_EN)
        opens = False
    neg, chg, cor, src, rel = (found(p, name, text, lower) for p, name in zip(cues, _CUES, strict=True))
    if zh:
        neg = neg and _negated_zh(tagged)
    counted = frozenset(numbers(_ADDRESS.sub(" ", text) if "@" in text else text)) | _number_words(text, zh)
    content = frozenset(w for w in content if w not in _NUMBER_WORDS)
    return FactView(
        zh=zh, entities=_kept(entities), numbers=_kept(counted), times=_kept(times), content=_kept(content),
        self_ref=self_ref, negation=neg, change=chg, correction=cor, source=src, relative=rel, length=len(text),
        speaker=turn_speaker(text), opens_with_person=opens,
    )  # fmt: skip


def _common_opening(text: str, match: re.Match[str]) -> bool:
    """Whether a capitalised word is the text's first word and a common English word (`wordlist`): its
    capital is the sentence's, not a name's ("Scratch Lyon: Paris is right.", "Support ticket 7: ..."). A word
    that owns something ("Grandpa's flight") or is written in capitals ("IT changed ...") still names a subject."""
    word, end = match.group(0), match.end()
    if (
        text[: match.start()].strip(_OPENING_MARKS)
        or not word[1:].islower()
        or text[end : end + 1] in ("'", "’")
    ):
        return False
    return common_word(word)


_OPENING_MARKS = " \t\"'“‘(["


_NUMBER_WORDS = {
    w: float(i) for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
} | {"dozen": 12.0, "half": 0.5, "twice": 2.0}  # fmt: skip
_ZH_COUNT = re.compile(
    r"([一二两三四五六七八九十]{1,3})\s*(?:个|位|人|名|只|条|本|次|天|周|年|家|辆|台|杯|瓶|份|张|件|间|套|岁|小时|分钟)"
)


_ZH_ARTICLE = frozenset("个位只条本家辆台杯瓶份张件间套")
"""Classifiers after which a lone 一 is the indefinite article ("领养了一只鹦鹉": adopted a parrot), not the count
1, as English "a" is not one: two facts that each say "a ..." share no value."""


def _number_words(text: str, zh: bool) -> frozenset[float]:
    """Counts written as words: 'six people', '两位客人' (not the article 一只, 一个)."""
    if zh:
        return frozenset(
            zh_number(m.group(1)) or 0.0
            for m in _ZH_COUNT.finditer(text)
            if not (m.group(1) == "一" and text[m.end() - 1] in _ZH_ARTICLE)
        )
    return frozenset(_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in _NUMBER_WORDS)


_SPEAKER = re.compile(r"^\s*([A-Z][\w.'-]*(?: [A-Z][\w.'-]*)?|[\u4e00-\u9fff]{2,4})\s*[:：]\s")
"""A chat turn's speaker label: "Caroline: ...", "张伟：..."."""


def turn_speaker(text: str) -> str:
    """Who says a chat turn written "Name: text" ("" for other texts), without the rest of the analysis."""
    said_by = _SPEAKER.match(text)
    return _speaker(said_by.group(1)) if said_by else ""


def _speaker(label: str) -> str:
    """The speaker a turn's label names, or "" for labels that are cues ("Update:", "更新一下：") or "Me", and for two
    words opening with a common one (a sentence's first words before a colon)."""
    label = label.strip()
    if has_cjk(label):
        return label if any(f.startswith("nr") for _, f in _zh_tagged(label)) else ""
    lowered = label.lower()
    if " " in label and common_word(label.split()[0]):
        return ""  # "Scratch Lyon: Porto is right.": a sentence opening with a common word, not a full name
    return "" if lowered in _SENTENCE_START | _STOP_EN | {"note", "fyi", "ps", "reminder"} else lowered


_QA = re.compile(r"[?？]\s*(?:A:|答[:：]|[\w\u4e00-\u9fff]+\s*[:：])|[?？][\"”]\s*\S")
"""A question followed by its answer in the same text ("Q: ... A: 2300", "我问：……？回答是……")."""

_OCCASION = re.compile(
    r"\b(today|yesterday|tonight|this morning|this afternoon|this evening|last night)\b|今天|昨天|今晚|今早|昨晚",
    re.I,
)
"""Words that tie a report to the moment it was said."""

_SENTENCE_START = frozenset(
    "actually now today yesterday tomorrow please note update sorry correction after before since from "
    "according last next this that every change heads quick things new just wait oops let while if q a "
    "meanwhile however also so but and then yes no okay ok well by".split()
)
"""Capitalised words that start sentences rather than name someone (kept out of the entities)."""
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december".split()
)
_NOT_NAMES = _STOP_EN | _SENTENCE_START | _CALENDAR | _NUMBER_WORDS.keys()
"""Capitalised words that are not a name: stop words, sentence starters, the calendar, numbers written out."""


@dataclass(frozen=True)
class _Surface:
    """Per-text regex results that pair features and `comparable` read for every pair a text is in (cached, so a
    text met in many pairs is searched once)."""

    folded: str
    lower: str
    asks: bool
    qa: bool
    occasion: bool
    reports: bool
    self_at: int
    number_text: dict[float, str]
    change_marker: bool
    """`affect.changes.may_change`: the text carries a change marker (the change rule reads only such texts; an
    ASCII text without one of its words is not searched)."""


@lru_cache(maxsize=TEXT_CACHE)
def _surface(text: str) -> _Surface:
    zh = has_cjk(text)
    self_at = (_SELF_ZH if zh else _SELF_EN).search(text)
    lower = ascii_lower(text)
    return _Surface(
        folded=" ".join(text.split()).lower(), lower=text.lower(), asks=any(mark in text for mark in "?？"),
        qa=("?" in text or "？" in text) and _QA.search(text) is not None,
        occasion=found(_OCCASION, "occasion", text, lower),
        reports=found(_REPORTS_ZH if zh else _REPORTS_EN, "reports", text, lower),
        self_at=self_at.start() if self_at else -1, number_text={x: str(x) for x in analyse(text).numbers},
        change_marker=found(CHANGE_ZH if zh else CHANGE_EN, "change_marker", text, lower),
    )  # fmt: skip


_PRONOUN_EN = re.compile(r"\b(he|she|it|his|her|its|him)\b", re.I)
_PRONOUN_ZH = re.compile(r"[他她它]")
_PERSON_EN = re.compile(r"\b(?:he|she|his|her|him)\b", re.I)
_PERSON_ZH = re.compile(r"[他她]")
"""The pronouns above that stand for a person (not "it")."""


@lru_cache(maxsize=TEXT_CACHE)
def refers_back(text: str) -> bool:
    """Whether the sentence's subject is a pronoun standing for someone named earlier ("She moved to Lyon",
    "他的航班改到了十点"): a pronoun before any name."""
    view = analyse(text)
    hit = (_PRONOUN_ZH if view.zh else _PRONOUN_EN).search(text)
    if hit is None:
        return False
    lower = text.lower()
    first_name = min((entity_at(text, lower, e) for e in view.entities if e in lower), default=len(text))
    return hit.start() < first_name


def names_someone_by_pronoun(text: str) -> bool:
    """Whether the sentence's subject is a pronoun for a person ("She pays 4200 now"): it names its subject. A bare
    "it" ("My bad, it's 45 and not 30") stands for the value being corrected, and names nobody."""
    return refers_back(text) and (_PERSON_ZH if has_cjk(text) else _PERSON_EN).search(text) is not None


def entity_at(text: str, lower: str, entity: str) -> int:
    """Where an entity (lower-cased, as `analyse` gives it) is named in `text` (`lower` is `text.lower()`): its first
    whole-word occurrence written with a capital ("Bank" in "Raj banks with Harbor Bank"), else its first whole-word
    one, else its first occurrence at all (a Chinese name inside a longer word); -1 when absent."""
    first = at = lower.find(entity)
    if at < 0 or has_cjk(entity):
        return at
    whole, end = -1, len(entity)
    while at >= 0:
        if not (at and lower[at - 1].isalnum()) and not lower[at + end : at + end + 1].isalnum():
            if text[at].isupper():
                return at
            if whole < 0:
                whole = at
        at = lower.find(entity, at + 1)
    return whole if whole >= 0 else first


def shared_entities(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    """Entities named in both; a Chinese name also matches inside a longer jieba word ("冯晓" in "冯晓住")."""
    exact = a & b
    cjk = {
        min(x, y, key=len) for x in a - exact for y in b - exact
        if has_cjk(x) and has_cjk(y) and min(len(x), len(y)) >= 2 and (x in y or y in x)
    }  # fmt: skip
    return exact | frozenset(cjk)


@lru_cache(maxsize=TEXT_CACHE)
def subjects(text: str) -> frozenset[str]:
    """Keys of a sentence for the candidate index: its named entities, '<self>' for the speaker, and its numbers
    and times ('#5000', '@9:30am'), so that "Sorry, I meant 4200, not 5000" meets the fact that said 5000 (cached:
    recall reads the keys of its best candidates on every query)."""
    view = analyse(text)
    values = {f"#{x:g}" for x in view.numbers} | {f"@{t}" for t in view.times}
    return view.entities | ({"<self>"} if view.self_ref else frozenset()) | frozenset(values)


_REPORTS_EN = re.compile(
    r"\b(according to|says|said|claims|claimed|states|stated|insists|believes|thinks|has it that)\b", re.I
)
_REPORTS_ZH = re.compile(r"据|称|表示|显示|写着|写的|认为|坚持|根据|说(?!错)")
"""Reporting verbs only (not nouns such as "report" or "record"): the fact is someone's or something's claim."""
_BOUNDARY = re.compile(r"\bthat$", re.I)
"""A that-clause opening the fact ("Tom insists that ...", "I heard that ..."). A lead clause ending in a comma, colon
or dash frames the fact only when it names someone or a reporting verb ("According to X, ...", "据说："): without
one it is the speaker's own aside ("Update: ...", "Sorry, my mistake earlier: ...", "In the campaign, ...")."""


def framed(text: str, subject: frozenset[str], others: frozenset[str]) -> float:
    """1 when the sentence states its fact through someone or something else: it names a source ("the passport
    says", "合同上写的"), or before the first mention of the shared subject stand another name or a clause ending
    in 'that' ("Tom is sure that ...", "胡军坚持说陈刚...")."""
    surface = _surface(text)
    if surface.reports:
        return 1.0
    lower = surface.lower
    if "<self>" in subject:
        pos = surface.self_at
    else:
        pos = min((entity_at(text, lower, s) for s in subject if s in lower), default=-1)
    if pos <= 0:
        return 0.0
    prefix = lower[:pos].strip()
    return 1.0 if any(e in prefix for e in others) or _BOUNDARY.search(prefix) else 0.0
