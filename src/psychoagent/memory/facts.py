"""What a fact sentence states: subjects, values, content words and cue words (the input of the pair features).

A sentence is analysed once (cached): its subjects (people, places, organisations, things named with a capital or
tagged as proper nouns by jieba, and the speaker: I / my / 我 / 用户), its values (numbers, times, names that are
not shared), its content words, and cue words (negation, change, correction, source, relative change). The
comparisons of two sentences that several features need (shared subjects, a repeated old value, a pronoun subject,
a fact told through a source) live here too; `memory.pairs` turns a pair into the scorer's feature vector.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from psychoagent.affect.lexicon import has_cjk, numbers, zh_number

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
    times = frozenset(m.group(0).lower().replace(" ", "") for m in _TIME.finditer(text)) | frozenset(
        m.group(0).lower() for m in _WEEKDAY.finditer(text)
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
    neg, chg, cor, src, rel = (p.search(text) is not None for p in cues)
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
    """Who says a chat turn written "Name: text" ("" for other texts), without the rest of the analysis."""
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
    return _Surface(
        folded=" ".join(text.split()).lower(), lower=text.lower(), asks=any(mark in text for mark in "?？"),
        qa=_QA.search(text) is not None, occasion=_OCCASION.search(text) is not None,
        reports=(_REPORTS_ZH if zh else _REPORTS_EN).search(text) is not None,
        self_at=found.start() if found else -1, number_text={x: str(x) for x in analyse(text).numbers},
    )  # fmt: skip


_PRONOUN_EN = re.compile(r"\b(he|she|it|his|her|its|him)\b", re.I)
_PRONOUN_ZH = re.compile(r"[他她它]")


@lru_cache(maxsize=32768)
def refers_back(text: str) -> bool:
    """Whether the sentence's subject is a pronoun standing for someone named earlier ("She moved to Lyon",
    "他的航班改到了十点"): a pronoun before any name."""
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


_NUMBER_SPAN = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\d+(?:[-.,]\d+)*")
"""A number, or an identifier written with digits and dashes (a phone number) or an e-mail address."""
_ZH_DAYPART = frozenset({"上午", "下午", "晚上", "早上", "中午", "凌晨", "傍晚"})
_ZH_NOT_VALUE = ("v", "c", "u", "p", "x", "r", "e", "y", "a", "m")
"""jieba tags of words that are never the value of a correction (verbs, conjunctions, particles, pronouns...)."""

Span = tuple[int, str, str, str]
"""(position, kind, key, surface): kind '#' a number or identifier, '@' a time or day, '=' a named thing."""


def _number_key(token: str) -> str:
    try:
        return f"{float(token.replace(',', '')):g}"
    except ValueError:
        return token.lower()  # a phone number or an address is its own key


@lru_cache(maxsize=32768)
def _value_spans(text: str, loose: bool = False) -> tuple[Span, ...]:
    """The values a sentence gives, in order; adjacent words of one name ("Eastport Lions") are one span. `loose`
    also counts Chinese noun-like words as named things (jieba often misses a name in a short reply: "是大连")."""
    view, lower = analyse(text), text.lower()
    out: list[Span] = [
        (m.start(), "#", _number_key(m.group(0)), m.group(0)) for m in _NUMBER_SPAN.finditer(text)
    ]
    for pattern in (_TIME, _WEEKDAY):
        for m in pattern.finditer(text):
            start = m.start()
            if view.zh and text[max(0, start - 2) : start] in _ZH_DAYPART:
                start -= 2  # "下午4点": the part of the day belongs to the time
            out.append((start, "@", m.group(0).lower().replace(" ", ""), text[start : m.end()]))
    named = set(view.entities)
    if view.zh and loose:
        named |= {w for w, f in _zh_tagged(text) if len(w) >= 2 and has_cjk(w) and not f.startswith(_ZH_NOT_VALUE)
                  and _CORRECT_ZH.search(w) is None and w not in _STOP_ZH}  # fmt: skip
    taken = [(a, a + len(surface)) for a, _, _, surface in out]
    words = sorted((lower.find(e), e) for e in named if e in lower)
    for at, entity in words:
        if any(a <= at < b for a, b in taken):
            continue
        if out and out[-1][1] == "=" and text[out[-1][0] + len(out[-1][3]) : at] == " ":
            start, _, key, _surface_text = out.pop()
            out.append((start, "=", f"{key} {entity}", text[start : at + len(entity)]))
        else:
            out.append((at, "=", entity, text[at : at + len(entity)]))
    times = [(a, a + len(surface)) for a, kind, _, surface in out if kind == "@"]
    # a number inside a time ("4" of "4 pm") is part of that time
    return tuple(sorted(x for x in out if x[1] != "#" or not any(a <= x[0] < b for a, b in times)))


def _subject_and_repeated(old_text: str, new_text: str) -> tuple[str | None, list[tuple[str, str]]]:
    """The older sentence's first-named thing, and the (kind, key) of its other values the newer one repeats."""
    old_spans, entities = _value_spans(old_text), analyse(old_text).entities
    named = [key for _, kind, key, _ in old_spans if kind == "=" and any(e in key for e in entities)]
    subject = named[0] if named else None
    new_keys = {(kind, key) for _, kind, key, _ in _value_spans(new_text)}
    repeated = [(kind, key) for _, kind, key, _ in old_spans if (kind, key) in new_keys and key != subject]
    return subject, list(dict.fromkeys(repeated))


@lru_cache(maxsize=32768)
def elliptic(old_text: str, new_text: str) -> bool:
    """Whether the newer sentence leaves its subject out and names a value of the older one instead ("Sorry, I
    meant 4200, not 5000", "Oops, not Lyon - Porto", "把周一划掉，周五才对"): it repeats an old value, does not name
    the older one's first-named subject, and does not restate the older one's predicate about a name of its own."""
    if refers_back(new_text):
        return False
    subject, repeated = _subject_and_repeated(old_text, new_text)
    if not repeated:
        return False
    new_spans = _value_spans(new_text)
    if subject is not None and any(
        subject in key or key in subject for _, k, key, _ in new_spans if k == "="
    ):
        return False  # it names the older one's subject: not elliptic
    o, n = analyse(old_text), analyse(new_text)
    if o.self_ref and n.self_ref:
        return False  # both about the speaker: the subject is shared, not left out
    # beyond its values and cue words it says little: no predicate of the older one again ("Ken lives in Lyon" is
    # another subject's fact) and at most two words of its own
    inside = [(a, a + len(surface)) for a, _, _, surface in new_spans]
    cue, neg = (_CORRECT_ZH, _NEG_ZH) if n.zh else (_CORRECT_EN, _NEG_EN)
    said = {w for w in n.content if cue.search(w) is None and neg.search(w) is None and len(w) > 1
            and not any(a <= new_text.lower().find(w) < b for a, b in inside)}  # fmt: skip
    return not (said & o.content) and len(said) <= 2


@lru_cache(maxsize=8192)
def resolve_ellipsis(old_text: str, new_text: str) -> str | None:
    """The full sentence an elliptic correction stands for: the older sentence with the value it repeats replaced
    by the one new value of the same kind ("Ines' budget is 3000 dollars." + "Sorry, I meant 3400, not 3000." ->
    "Ines' budget is 3400 dollars."); None when the newer sentence is not elliptic or the values are ambiguous."""
    if not elliptic(old_text, new_text):
        return None
    _, repeated = _subject_and_repeated(old_text, new_text)
    if len(repeated) != 1:
        return None
    kind, key = repeated[0]
    old_spans = _value_spans(old_text)
    old_keys = {(k, value) for _, k, value, _ in old_spans}
    fresh = [
        s for _, k, value, s in _value_spans(new_text, loose=True) if k == kind and (k, value) not in old_keys
    ]
    if not fresh:
        return None
    surface = next(s for _, k, value, s in old_spans if (k, value) == (kind, key))
    at = old_text.find(surface)
    return old_text[:at] + fresh[0] + old_text[at + len(surface) :] if at >= 0 else None


def shared_entities(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    """Entities named in both; a Chinese name also matches inside a longer jieba word ("冯晓" in "冯晓住")."""
    exact = a & b
    cjk = {
        min(x, y, key=len) for x in a - exact for y in b - exact
        if has_cjk(x) and has_cjk(y) and min(len(x), len(y)) >= 2 and (x in y or y in x)
    }  # fmt: skip
    return exact | frozenset(cjk)


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
