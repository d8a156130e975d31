"""The values a sentence names (numbers, times, names, places) and the value-only corrections that repeat them.

"Sorry, I meant 4200, not 5000" names no subject: it stands for the older sentence with one value swapped, which
`resolve_ellipsis` rebuilds so the pair features read the fact the correction means.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import cast

from psychoagent.affect.lexicon import has_cjk
from psychoagent.memory.conflicts.cues import holds
from psychoagent.memory.conflicts.facts import (
    _CORRECT_EN,
    _CORRECT_ZH,
    _NEG_EN,
    _NEG_ZH,
    _OPENING_MARKS,
    _STOP_ZH,
    _WEEKDAY,
    _zh_tagged,
    analyse,
    entity_at,
    names_someone_by_pronoun,
    time_matches,
)
from psychoagent.text import TEXT_CACHE


def names_old_value(old_text: str, new_text: str) -> bool:
    """Whether the newer sentence repeats a value of the older one other than its subject: a number or time, a
    name the older one gives after its first ("not Paris, Lyon"), or, in Chinese when the newer one does not open
    with a person's name, a content word ("不是科技园，是老城区")."""
    o, n = analyse(old_text), analyse(new_text)
    if (o.numbers & n.numbers) or (o.times & n.times):
        return True
    lower_old, lower_new = old_text.lower(), new_text.lower()
    named = sorted((entity_at(old_text, lower_old, e), e) for e in o.entities if e in lower_old)
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


@lru_cache(maxsize=TEXT_CACHE)
def _number_key(token: str) -> str:
    """The key of a number span: its value ('3,000' -> '3000'), or the token itself (cached: tokens recur)."""
    try:
        return f"{float(token.replace(',', '')):g}"
    except ValueError:
        return token.lower()  # a phone number or an address is its own key


Packed = tuple[str | int, ...]
"""Spans kept flat, column by column: the kinds (one character each), then the positions, the keys, the surfaces.
A cached sentence holds one object instead of one tuple per value, so the analysis caches grow the garbage
collector's young generations less (a collection cost about 1 ms, every 27 recalls at 100k units)."""


def _value_spans(text: str, loose: bool = False) -> list[Span]:
    """The values a sentence gives, in order; adjacent words of one name ("Eastport Lions") are one span. `loose`
    also counts Chinese noun-like words as named things (jieba often misses a name in a short reply: "是大连")."""
    kinds, starts, keys, surfaces = _unpack(_loose_spans(text) if loose else _packed_spans(text))
    return list(zip(starts, kinds, keys, surfaces, strict=True))


@lru_cache(maxsize=TEXT_CACHE)
def _packed_spans(text: str) -> Packed:
    """`_value_spans(text)`, packed (cached by the text alone: a one-string key is no object of its own)."""
    return _pack(text, loose=False)


@lru_cache(maxsize=TEXT_CACHE // 4)
def _loose_spans(text: str) -> Packed:
    """`_value_spans(text, loose=True)`, packed (asked only of elliptic corrections)."""
    return _pack(text, loose=True)


def _pack(text: str, loose: bool) -> Packed:
    view, lower = analyse(text), text.lower()
    out: list[Span] = [
        (m.start(), "#", _number_key(m.group(0)), m.group(0)) for m in _NUMBER_SPAN.finditer(text)
    ]
    # an ASCII text without a weekday or month word has no _WEEKDAY match (the pre-check `analyse` uses too)
    day = not text.isascii() or holds(lower, "weekday")
    for m in (*time_matches(text), *(_WEEKDAY.finditer(text) if day else ())):
        start = m.start()
        if view.zh and text[max(0, start - 2) : start] in _ZH_DAYPART:
            start -= 2  # "下午4点": the part of the day belongs to the time
        out.append((start, "@", m.group(0).lower().replace(" ", ""), text[start : m.end()]))
    named = set(view.entities)
    if view.zh and loose:
        named |= {w for w, f in _zh_tagged(text) if len(w) >= 2 and has_cjk(w) and not f.startswith(_ZH_NOT_VALUE)
                  and _CORRECT_ZH.search(w) is None and w not in _STOP_ZH}  # fmt: skip
    taken = [(a, a + len(surface)) for a, _, _, surface in out]
    words = sorted((entity_at(text, lower, e), e) for e in named if e in lower)
    for at, entity in words:
        if any(a <= at < b for a, b in taken):
            continue
        end = out[-1][0] + len(out[-1][3]) if out and out[-1][1] == "=" else -1
        gap = text[end:at] if 0 <= end <= at else None
        # one name written in two words: "Eastport Lions", and in Chinese with nothing between ("绿野" "农业")
        if gap == " " or (gap == "" and view.zh):
            start, _, key, _surface_text = out.pop()
            out.append((start, "=", f"{key}{gap}{entity}", text[start : at + len(entity)]))
        else:
            out.append((at, "=", entity, text[at : at + len(entity)]))
    times = [(a, a + len(surface)) for a, kind, _, surface in out if kind == "@"]
    # a number inside a time ("4" of "4 pm") is part of that time
    kept = (
        sorted(x for x in out if x[1] != "#" or not any(a <= x[0] < b for a, b in times))
        if times
        else sorted(out)
    )
    return ("".join(x[1] for x in kept), *(x[0] for x in kept), *(x[2] for x in kept), *(x[3] for x in kept))


@lru_cache(maxsize=TEXT_CACHE)
def first_named(text: str) -> str | None:
    """The key of the sentence's first value that holds one of its entities (its first-named thing)."""
    entities = analyse(text).entities
    return next(
        (key for _, kind, key, _ in _value_spans(text) if kind == "=" and any(e in key for e in entities)),
        None,
    )


Columns = tuple[str, tuple[int, ...], tuple[str, ...], tuple[str, ...]]
"""A text's spans as columns: kinds (one character each), positions, keys, surfaces."""


def _columns(text: str) -> Columns:
    """`_value_spans(text)` as its columns: kinds (one character each), positions, keys, surfaces (no tuple per
    span: the pair checks below read one or two columns of every text in every pair)."""
    return _unpack(_packed_spans(text))


def _unpack(packed: Packed) -> Columns:
    """The columns of packed spans (`_pack`)."""
    kinds = str(packed[0])
    n = len(kinds)
    return cast(Columns, (kinds, packed[1 : n + 1], packed[n + 1 : 2 * n + 1], packed[2 * n + 1 :]))


@lru_cache(maxsize=TEXT_CACHE)
def _span_keys(text: str) -> frozenset[str]:
    """Kind and key of every value the sentence names, as one string each ('#3000', '=lyon')."""
    kinds, _, keys, _ = _columns(text)
    return frozenset(map(str.__add__, kinds, keys))


def _subject_and_repeated(old_text: str, new_text: str) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """The older sentence's first-named thing, and the (kind, key) of its other values the newer one repeats (not
    cached: it reads cached per-text spans, and a cached pair result kept three objects alive per pair)."""
    subject, new_keys = first_named(old_text), _span_keys(new_text)
    kinds, _, keys, _ = _columns(old_text)
    repeated = [
        (kind, key)
        for kind, key in zip(kinds, keys, strict=True)
        if kind + key in new_keys and key != subject
    ]
    return subject, tuple(dict.fromkeys(repeated))


def opens_with_name(text: str) -> bool:
    """Whether the text's first word is a name ("Ivan named his dog Max.", "陈静对鸡蛋过敏。"): the sentence then
    speaks about what it names first, its own subject, and leaves no subject out."""
    kinds, starts, _, _ = _columns(text)
    return bool(kinds) and kinds[0] == "=" and not text[: starts[0]].strip(_OPENING_MARKS)


def elliptic(old_text: str, new_text: str) -> bool:
    """Whether the newer sentence leaves its subject out and names a value of the older one instead ("Sorry, I
    meant 4200, not 5000", "Oops, not Lyon - Porto", "把周一划掉，周五才对"): it repeats an old value, does not name
    the older one's first-named subject, and does not restate the older one's predicate about a name of its own.
    Two sentences that share no value, or a newer one whose subject is a person's pronoun, are not (read from per-text
    caches): only the other pairs are looked up, and kept, in the pair cache."""
    if _span_keys(new_text).isdisjoint(_span_keys(old_text)) or names_someone_by_pronoun(new_text):
        return False
    return _elliptic(old_text, new_text)


@lru_cache(maxsize=TEXT_CACHE)
def _elliptic(old_text: str, new_text: str) -> bool:
    """`elliptic` of a pair that shares a value (cached: recall scores the same pairs again)."""
    subject, repeated = _subject_and_repeated(old_text, new_text)
    if not repeated:
        return False
    o, n = analyse(old_text), analyse(new_text)
    if o.self_ref and n.self_ref:
        return False  # both about the speaker: the subject is shared, not left out
    kinds, starts, keys, surfaces = _columns(new_text)
    if subject is not None and any(
        k == "=" and (subject in key or key in subject) for k, key in zip(kinds, keys, strict=True)
    ):
        return False  # it names the older one's subject: not elliptic
    # beyond its values and cue words it says little: no predicate of the older one again ("Ken lives in Lyon" is
    # another subject's fact) and at most two words of its own (outside its values, not a cue word)
    inside: list[tuple[int, int]] | None = None
    lower = new_text.lower()
    said = 0
    for w in n.content:
        if len(w) > 1 and not _cue_word(w, n.zh):
            if inside is None:
                inside = [(a, a + len(surface)) for a, surface in zip(starts, surfaces, strict=True)]
            at = lower.find(w)
            if not any(a <= at < b for a, b in inside):
                said += 1
                if w in o.content or said > 2:
                    return False
    return True


@lru_cache(maxsize=TEXT_CACHE)
def _cue_word(word: str, zh: bool) -> bool:
    """Whether a content word is a correction or negation cue (cached: the same words come back in many pairs)."""
    cue, neg = (_CORRECT_ZH, _NEG_ZH) if zh else (_CORRECT_EN, _NEG_EN)
    return cue.search(word) is not None or neg.search(word) is not None


@lru_cache(maxsize=TEXT_CACHE // 4)
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
    # two new values of that kind leave it open which one replaces the old ("Leila sees Dr. Chen" after "Priya's
    # doctor is Dr. Moreau" names its own subject and another doctor): no single reading
    if (
        not fresh
        or sum(k == kind and (k, value) not in old_keys for _, k, value, _ in _value_spans(new_text)) > 1
    ):
        return None
    surface = next(s for _, k, value, s in old_spans if (k, value) == (kind, key))
    at = old_text.find(surface)
    return old_text[:at] + fresh[0] + old_text[at + len(surface) :] if at >= 0 else None


@lru_cache(maxsize=TEXT_CACHE // 4)
def swapped(old_text: str, new_text: str) -> str | None:
    """The older sentence with its last value the newer one lacks replaced by the newer one's last value of the
    same kind that the older one lacks, subjects left out ("Hannah lives in Seattle." + "Hannah has a flat in
    Valencia." -> "Hannah lives in Valencia."): a restated predicate with the new value reads close to the newer
    sentence. None when no value of one kind differs on both sides, and when the swap would only restate the newer
    sentence of the subject itself while that one says it of someone or something the subject has ("Rafael lives
    in Porto." + "Rafael's brother lives in Lisbon."): the value then belongs to another holder."""
    old_spans, new_spans = _value_spans(old_text, loose=True), _value_spans(new_text, loose=True)
    old_keys, new_keys = {(k, v) for _, k, v, _ in old_spans}, {(k, v) for _, k, v, _ in new_spans}
    subjects = {first_named(old_text), first_named(new_text)}
    gone = [s for s in old_spans if (s[1], s[2]) not in new_keys and s[2] not in subjects]
    fresh = [s for s in new_spans if (s[1], s[2]) not in old_keys and s[2] not in subjects]
    pairs = [(a, b) for a in gone for b in fresh if a[1] == b[1]]
    if not pairs:
        return None
    (at, _, _, surface), (_, _, _, value) = pairs[-1]
    out = old_text[:at] + value + old_text[at + len(surface) :]
    bare = _unpossessed(new_text)
    return None if bare != new_text and _bare(out) == _bare(bare) else out


_POSSESSIVE_EN = re.compile(r"\s*(?:'s|’s|')\s+[a-z]+")
_NOT_WORD = re.compile(r"[\W_]+")


def _bare(text: str) -> str:
    """The sentence's letters and digits only, lower-cased: two sentences that differ in punctuation compare equal."""
    return _NOT_WORD.sub("", text.lower())


def _unpossessed(text: str) -> str:
    """The sentence with the thing its first-named subject has left out ("Rafael's brother lives in Lisbon" ->
    "Rafael lives in Lisbon", "孙浩的哥哥住在上海" -> "孙浩住在上海"); the sentence itself when it has none."""
    subject = first_named(text)
    if subject is None:
        return text
    lower = text.lower()
    at = lower.find(subject) + len(subject)
    if not has_cjk(text):
        m = _POSSESSIVE_EN.match(lower, at)
        return text[:at] + text[m.end() :] if m and at >= len(subject) else text
    words = [w for w, _ in _zh_tagged(text)]
    for i, w in enumerate(words[:-2]):
        if w == subject and words[i + 1] == "的":
            return text.replace(subject + "的" + words[i + 2], subject, 1)
    return text
