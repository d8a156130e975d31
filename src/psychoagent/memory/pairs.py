"""What a fact sentence states, and how two of them relate: the features of the update/contradiction scorer.

A sentence is analysed once (cached): its subjects (people, places, organisations, things named with a capital or
tagged as proper nouns by jieba, and the speaker: I / my / 我 / 用户), its values (numbers, times, names that are
not shared), its content words, and cue words (negation, change, correction, source, relative change). A pair of
sentences becomes a fixed-length feature vector (`FEATURES`); the learned scorer in `memory.detect` turns it into
probabilities of update / contradiction / elaboration / unrelated. Cue words are features, never the decision.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from psychoagent.affect.changes import is_change_of, signature
from psychoagent.affect.lexicon import has_cjk, numbers, zh_number
from psychoagent.affect.slots import extract_slots

_WORD_EN = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.:,]\d+)*")
_CAP_EN = re.compile(r"\b[A-Z][a-zA-Z-]+")
_TIME = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\d{1,2}[点时](?:\d{1,2}分|半)?", re.I
)
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


def _zh_tagged(text: str) -> list[tuple[str, str]]:
    from psychoagent.affect.changes import _tagged

    return _tagged(text)


@lru_cache(maxsize=32768)
def analyse(text: str) -> FactView:
    """The fact view of a sentence (cached: every stored text is analysed once)."""
    zh = has_cjk(text)
    weekdays = () if text.isascii() and not _holds(text.lower(), _WEEKDAY) else _WEEKDAY.finditer(text)
    times = frozenset(m.group(0).lower().replace(" ", "") for m in _TIME.finditer(text)) | frozenset(
        m.group(0).lower() for m in weekdays
    )
    if zh:
        tagged = _zh_tagged(text)
        entities = frozenset(w for w, f in tagged if f in _ZH_PROPER and len(w) >= 2)
        entities |= frozenset(w.lower() for w, f in tagged if f == "eng")
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
            if m.group(0).lower() not in _STOP_EN | _SENTENCE_START | _CALENDAR | _NUMBER_WORDS.keys()
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
    ascii_lower = text.lower() if text.isascii() else None
    neg, chg, cor, src, rel = (_found(p, text, ascii_lower) for p in cues)
    counted = frozenset(numbers(text)) | _number_words(text, zh)
    content = frozenset(w for w in content if w not in _NUMBER_WORDS)
    return FactView(
        zh=zh, entities=entities, numbers=counted, times=times, content=content,
        self_ref=self_ref, negation=neg, change=chg, correction=cor, source=src, relative=rel, length=len(text),
        speaker=turn_speaker(text), opens_with_person=opens,
    )  # fmt: skip


_NUMBER_WORDS = {
    w: float(i) for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
} | {"dozen": 12.0, "half": 0.5, "twice": 2.0}  # fmt: skip
_ZH_COUNT = re.compile(
    r"([一二两三四五六七八九十]{1,3})\s*(?:个|位|人|名|只|条|本|次|天|周|年|家|辆|台|杯|瓶|份|张|件|间|套|岁|点|小时|分钟)"
)


def _number_words(text: str, zh: bool) -> frozenset[float]:
    """Counts written as words: 'six people', '两位客人'."""
    if zh:
        return frozenset(zh_number(m.group(1)) or 0.0 for m in _ZH_COUNT.finditer(text))
    return frozenset(_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in _NUMBER_WORDS)


_SPEAKER = re.compile(r"^\s*([A-Z][\w.'-]*(?: [A-Z][\w.'-]*)?|[\u4e00-\u9fff]{2,4})\s*[:：]\s")
"""A chat turn's speaker label: "Caroline: ...", "张伟：..."."""


def turn_speaker(text: str) -> str:
    """Who says a chat turn written "Name: text" ("" for other texts): `analyse(text).speaker`, without the rest
    of the analysis."""
    said_by = _SPEAKER.match(text)
    return _speaker(said_by.group(1)) if said_by else ""


def _speaker(label: str) -> str:
    """The speaker a turn's label names, or "" for labels that are cues ("Update:", "更新一下：") or "Me"."""
    label = label.strip()
    if has_cjk(label):
        return label if any(f.startswith("nr") for _, f in _zh_tagged(label)) else ""
    lowered = label.lower()
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

FEATURES: tuple[str, ...] = (
    "dense", "dense_sq", "shared_entity", "self_both", "entity_jaccard", "content_jaccard", "content_in_new",
    "content_in_old", "old_only_content", "new_only_content", "numbers_both", "numbers_differ", "numbers_shared",
    "times_differ", "times_shared", "old_values_dropped", "new_values_added", "old_value_kept", "negation_new",
    "negation_old", "change_new", "correction_new", "source_new", "source_old", "relative_new", "slot_clash",
    "change_rule", "log_length_ratio", "zh", "subject_x_dense", "subject_x_dropped", "subject_x_change",
    "subject_x_negation", "dense_x_differ", "dropped_x_added", "content_x_differ", "no_subject_x_dense",
    "other_subjects", "replacement", "old_value_repeated", "new_has_subject", "dense_x_content",
    "near_paraphrase", "old_covered", "framed_old", "framed_new", "framed_both", "framed_both_x_differ",
    "old_value_named", "old_value_named_x_added", "old_value_named_x_negation", "refers_back",
)  # fmt: skip
"""Names of the pair features, in order (the scorer's weights are stored against these names)."""


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


@lru_cache(maxsize=32768)
def _surface(text: str) -> _Surface:
    zh = has_cjk(text)
    found = (_SELF_ZH if zh else _SELF_EN).search(text)
    ascii_lower = text.lower() if text.isascii() else None
    return _Surface(
        folded=" ".join(text.split()).lower(), lower=text.lower(), asks=any(mark in text for mark in "?？"),
        qa=("?" in text or "？" in text) and _QA.search(text) is not None,
        occasion=_found(_OCCASION, text, ascii_lower),
        reports=_found(_REPORTS_ZH if zh else _REPORTS_EN, text, ascii_lower),
        self_at=found.start() if found else -1, number_text={x: str(x) for x in analyse(text).numbers},
    )  # fmt: skip


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def pair_features(old_text: str, new_text: str, dense: float) -> np.ndarray:
    """Feature vector of (older fact, newer fact) given their dense similarity normalised to [0, 1]."""
    o, n = analyse(old_text), analyse(new_text)
    shared_ent = shared_entities(o.entities, n.entities)
    self_both = o.self_ref and n.self_ref
    subject = 1.0 if shared_ent or self_both else 0.0
    o_text, n_text = _surface(old_text).number_text, _surface(new_text).number_text
    old_vals = (o.entities - n.entities) | {o_text[x] for x in o.numbers - n.numbers} | (o.times - n.times)
    new_vals = (n.entities - o.entities) | {n_text[x] for x in n.numbers - o.numbers} | (n.times - o.times)
    kept = bool((o.entities - shared_ent - n.entities) == set() and (o.entities - shared_ent)) or bool(
        o.numbers & n.numbers
    )
    inter = len(o.content & n.content)
    numbers_differ = 1.0 if o.numbers and n.numbers and o.numbers != n.numbers else 0.0
    times_differ = 1.0 if o.times and n.times and o.times != n.times else 0.0
    differ = max(numbers_differ, times_differ, 1.0 if old_vals and new_vals else 0.0)
    dropped = min(len(old_vals), 3) / 3.0
    added = min(len(new_vals), 3) / 3.0
    clash = slot_clash(old_text, new_text)
    change_rule = 1.0 if is_change_of(signature(new_text), signature(old_text)) else 0.0
    content_j = _jaccard(o.content, n.content)
    # everything the old sentence states (names, numbers, times, content words) is said again by the new one
    covered = (
        1.0
        if o.entities <= n.entities
        and o.numbers <= n.numbers
        and o.times <= n.times
        and (len(o.content & n.content) >= max(1, len(o.content) - 1))
        else 0.0
    )
    # both name someone, but nobody in common: another entity's value, not a change of this one
    other_subjects = 1.0 if o.entities and n.entities and not shared_ent and not self_both else 0.0
    repeated = 1.0 if (o.numbers & n.numbers) or (o.times & n.times) else 0.0
    # the new sentence names the old value and another one: "from 5000 to 4200", "not 5000 - 4200"
    fresh = (n.numbers - o.numbers) | {t for t in n.times - o.times}
    replacement = 1.0 if repeated and fresh else 0.0
    where = shared_ent if shared_ent else (frozenset({"<self>"}) if self_both else frozenset())
    framed_old, framed_new = (
        framed(old_text, where, o.entities - shared_ent),
        framed(new_text, where, n.entities - shared_ent),
    )
    # the newer sentence repeats a value of the older one besides its subject ("not 5000 - 4200", "不是盒马")
    named = 1.0 if names_old_value(old_text, new_text) else 0.0
    values = (
        dense, dense * dense, 1.0 if shared_ent else 0.0, 1.0 if self_both else 0.0,
        _jaccard(o.entities, n.entities), content_j, inter / max(len(n.content), 1),
        inter / max(len(o.content), 1), min(len(o.content - n.content), 4) / 4.0,
        min(len(n.content - o.content), 4) / 4.0, 1.0 if o.numbers and n.numbers else 0.0, numbers_differ,
        1.0 if o.numbers & n.numbers else 0.0, times_differ, 1.0 if o.times & n.times else 0.0, dropped, added,
        1.0 if kept else 0.0, float(n.negation), float(o.negation), float(n.change), float(n.correction),
        float(n.source), float(o.source), float(n.relative), clash, change_rule,
        math.log((n.length + 1) / (o.length + 1)), 1.0 if n.zh else 0.0, subject * dense, subject * dropped,
        subject * float(n.change), subject * float(n.negation), dense * differ, dropped * added, content_j * differ,
        (1.0 - subject) * dense, other_subjects, replacement, repeated, 1.0 if n.entities or n.self_ref else 0.0,
        dense * content_j, max(0.0, dense - 0.85) / 0.15, covered, framed_old, framed_new,
        framed_old * framed_new, framed_old * framed_new * differ, named, named * added,
        named * float(n.negation), 1.0 if refers_back(new_text) else 0.0,
    )  # fmt: skip
    return np.asarray(values, dtype=np.float64)


def comparable(old_text: str, new_text: str) -> bool:
    """Whether two facts can be about the same subject at all: not when both name someone and nobody in common
    (and the speaker is not in both), and not when they are the same sentence (a repetition changes nothing)."""
    so, sn = _surface(old_text), _surface(new_text)
    if so.folded == sn.folded:
        return False
    o, n = analyse(old_text), analyse(new_text)
    if o.speaker or n.speaker:
        return False  # a chat turn ("Name: ...") is an utterance, not a stated fact: greetings, stories, questions
    if (so.asks or sn.asks) and not (sn.qa or so.qa):
        return False  # a question asks, it states no fact
    if so.occasion and sn.occasion:
        return False  # each tied to the day it was said ("today", "yesterday"): two occasions, not one changed fact
    shared = shared_entities(o.entities, n.entities)
    if not (o.entities and n.entities and not shared and not (o.self_ref and n.self_ref)):
        return True
    return refers_back(new_text) or names_old_value(old_text, new_text)


_PRONOUN_EN = re.compile(r"\b(he|she|it|his|her|its|him)\b", re.I)
_PRONOUN_ZH = re.compile(r"[他她它]")


@lru_cache(maxsize=32768)
def refers_back(text: str) -> bool:
    """Whether the sentence's subject is a pronoun standing for someone named earlier ("She moved to Lyon",
    "他的航班改到了十点"): a pronoun before any name (cached: every recalled pair asks it of its newer text)."""
    view = analyse(text)
    found = (_PRONOUN_ZH if view.zh else _PRONOUN_EN).search(text)
    if found is None:
        return False
    lower = text.lower()
    first_name = min((lower.find(e) for e in view.entities if e in lower), default=len(text))
    return found.start() < first_name


def names_old_value(old_text: str, new_text: str) -> bool:
    """Whether the newer sentence repeats a value of the older one other than its subject: a number or time, a
    name the older one gives after its first ("not Paris, Lyon"), or, in Chinese when the newer one does not open
    with a person's name, a content word ("不是科技园，是老城区")."""
    o, n = analyse(old_text), analyse(new_text)
    if (o.numbers & n.numbers) or (o.times & n.times):
        return True
    lower_old, lower_new = old_text.lower(), new_text.lower()
    named = sorted((lower_old.find(e), e) for e in o.entities if e in lower_old)
    if any(e in lower_new for _, e in named[1:]):
        return True
    if o.zh and not n.opens_with_person:
        return any(len(w) >= 2 and w in new_text for w in o.content)
    return False


def shared_entities(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    """Entities named in both; a Chinese name also matches inside a longer jieba word ("冯晓" in "冯晓住")."""
    exact = a & b
    cjk = {
        min(x, y, key=len) for x in a - exact for y in b - exact
        if has_cjk(x) and has_cjk(y) and min(len(x), len(y)) >= 2 and (x in y or y in x)
    }  # fmt: skip
    return exact | frozenset(cjk)


def vector_features(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Embedding interactions of a pair: which meaning dimensions they share (product) and where they differ."""
    return np.concatenate([old * new, np.abs(old - new)]).astype(np.float64)


def slot_clash(old_text: str, new_text: str) -> float:
    """1 when the rule-based slot extractor finds the same slot with different values."""
    old_slots = extract_slots(old_text)
    if not old_slots:
        return 0.0
    return 1.0 if any(s.contradicts(o) for s in extract_slots(new_text) for o in old_slots) else 0.0


@lru_cache(maxsize=32768)
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

_LITERALS: dict[re.Pattern[str], tuple[str, ...]] = {
    _NEG_EN: ("no", "never", "stopped", "quit", "anymore", "n't"),
    _CHANGE_EN: (
        "now", "new", "move", "change", "switch", "transferred", "rescheduled", "postponed", "pushed", "raised",
        "increased", "decreased", "lowered", "cut", "reduced", "replaced", "updated", "became", "becomes", "turned",
        "instead", "upgraded", "downgraded", "renamed", "relocated", "left", "joined", "promoted", "started", "from",
    ),
    _CORRECT_EN: ("actually", "sorry", "meant", "correction", "wrong", "rather", "in fact", "mis"),
    _SOURCE_EN: (
        "according to", "say", "said", "report", "claim", "state", "told", "show", "list", "record", "insist",
        "believe", "think",
    ),
    _RELATIVE_EN: (
        "more", "fewer", "less", "another", "extra", "additional", "again", "added", "plus", "minus", "dropped out",
        "down", "up",
    ),
    _OCCASION: ("today", "yesterday", "tonight", "this morning", "this afternoon", "this evening", "last night"),
    _REPORTS_EN: (
        "according to", "says", "said", "claims", "claimed", "states", "stated", "insists", "believes", "thinks",
        "has it that",
    ),
    _WEEKDAY: ("day", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
}  # fmt: skip
"""For case-insensitive patterns: words one of which every match contains, lower-cased. In an ASCII text with
none of them the pattern cannot match, and the search (tens of microseconds for these alternations) is skipped."""


def _holds(lower: str, pattern: re.Pattern[str]) -> bool:
    """Whether a lower-cased ASCII text holds one of the pattern's literal words (see `_LITERALS`)."""
    return any(word in lower for word in _LITERALS[pattern])


def _found(pattern: re.Pattern[str], text: str, ascii_lower: str | None) -> bool:
    """`pattern.search(text) is not None`, without the search when the text is ASCII (`ascii_lower` its lower-cased
    form) and holds none of the pattern's literal words."""
    if ascii_lower is not None and pattern in _LITERALS and not _holds(ascii_lower, pattern):
        return False
    return pattern.search(text) is not None


_BOUNDARY = re.compile(r"(?:\bthat|[,:;，：；—–-])$", re.I)
"""A clause that ends before the fact it introduces: "Tom insists that ...", "According to X, ...", "据说："."""


def framed(text: str, subject: frozenset[str], others: frozenset[str]) -> float:
    """1 when the sentence states its fact through someone or something else: it names a source ("the passport
    says", "合同上写的"), or before the first mention of the shared subject stand another name or a clause ending
    in 'that', a comma or a colon ("Tom is sure that ...", "胡军坚持说陈刚...")."""
    surface = _surface(text)
    if surface.reports:
        return 1.0
    lower = surface.lower
    if "<self>" in subject:
        pos = surface.self_at
    else:
        pos = min((lower.find(s) for s in subject if s in lower), default=-1)
    if pos <= 0:
        return 0.0
    prefix = lower[:pos].strip()
    return 1.0 if any(e in prefix for e in others) or _BOUNDARY.search(prefix) else 0.0
