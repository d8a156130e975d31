"""The structure of a fact sentence: whose fact it is, which item it names, what its attribute phrase is and what kind
of change it announces. Read by the structural gate (`gate`) that every update or contradiction must pass.

- Subject: the owner the sentence opens with (a name, or the speaker: "I", "my", "我") and, when a possessive
  follows, what of theirs it is about ("Ken's brother", "小林的父母", "my sister's flat"). A relative named by a
  possessive is another person, so another subject.
- Items: identifiers that tell two things of one kind apart ("item 3", "order 12", "zq2q3zq", "#4").
- Attribute phrase: the sentence with its subject and values masked ("Alice lives in London." -> "_ lives in _."),
  embedded by the gate so that the same attribute in other words stays close and another attribute does not.
- Change kind: what the newer sentence does to the older value (replace, cancel, hand over, change by an amount,
  add to a set). These are cues read as the gate's features, never a decision on their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from psychoagent.memory.conflicts.facts import _STOP_EN, _zh_tagged, analyse, has_cjk, shared_entities
from psychoagent.text import TEXT_CACHE

__all__ = [
    "KIN_EN", "KIN_ZH", "Subject", "attribute_phrase", "change_kind", "item_ids", "subject_of", "subject_relation",
]  # fmt: skip

MASK = "_"
"""What stands where a subject or a value stood in an attribute phrase."""

KIN_EN = frozenset(
    "brother brothers sister sisters mother mom mum father dad parents son sons daughter daughters kid kids child "
    "children wife husband partner boyfriend girlfriend fiance fiancee friend friends roommate flatmate cousin aunt "
    "uncle grandma grandpa grandmother grandfather niece nephew neighbour neighbor twin in-laws colleague colleagues "
    "coworker flatmates".split()
)
"""Relatives and companions: a possessive naming one ("Ken's brother", "my sister") is another person. A closed
class of words (family and household), not a list of attributes."""
KIN_ZH = (
    "哥哥", "姐姐", "弟弟", "妹妹", "父母", "爸爸", "妈妈", "父亲", "母亲", "儿子", "女儿", "孩子", "丈夫", "妻子", "老公",
    "老婆", "朋友", "室友", "邻居", "男朋友", "女朋友", "爷爷", "奶奶", "外公", "外婆", "表哥", "表姐", "堂哥", "姐夫", "嫂子",
    "同事", "同学",
)  # fmt: skip
"""The same closed class in Chinese ("小林的父母", "我妹妹")."""

_SELF_WORDS = frozenset({"i", "i'm", "i've", "i'd", "my", "me", "we", "our", "us", "we're"})
_POSSESSIVE = re.compile(
    r"([A-Z][\w-]*(?:\s+[A-Z][\w-]*)?(?:['’]s|['’])|\b[Mm]y|\b[Oo]ur)\s+([A-Za-z][a-z-]*)"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+(?:[.:,]\d+)*")
_OBJECT_BEFORE = re.compile(r"\b(?:the|a|an|as|to|in|at|on|into|from|with|of|by|for)\s+$")
"""A name right after an article or a preposition is an object or a value ("buy the Lavazza beans", "as Word
documents", "to the Illy beans"), never whose fact the sentence gives (a closed class of function words)."""


@dataclass(frozen=True)
class Subject:
    """Whose fact a sentence gives: `owner` ("<self>", a lower-cased name, or "" when none is named) and `of`, the
    relative or thing of the owner it is about (after a possessive; "" for the owner's own fact)."""

    owner: str
    of: str = ""
    person: bool = False
    """True when `of` is a relative or companion (another person)."""
    deep: bool = False
    """True when the relative's own thing is meant ("my wife's manager", "我同事的房东"): always another subject."""


@lru_cache(maxsize=TEXT_CACHE)
def subject_of(text: str) -> Subject:
    """The subject a sentence opens with (see `Subject`)."""
    if has_cjk(text):
        return _subject_zh(text)
    view = analyse(text)
    lower = text.lower()
    first_name = min(
        (
            (at, e.lower())
            for e in view.entities
            if (at := lower.find(e.lower())) >= 0 and not _OBJECT_BEFORE.search(lower[:at])
        ),
        default=(len(text), ""),
    )
    words = [w.lower() for w in _WORD.findall(text)]
    self_at = next((i for i, w in enumerate(words) if w in _SELF_WORDS), None)
    self_pos = lower.find(words[self_at]) if self_at is not None else len(text)
    if first_name[1] and first_name[0] <= self_pos:
        owner, start = first_name[1], first_name[0]
    elif self_at is not None:
        owner, start = "<self>", self_pos
    else:
        return Subject("")
    m = _POSSESSIVE.match(text, start)
    if m is None:
        return Subject(owner)
    of = m.group(2).lower()
    if of in _STOP_EN:
        return Subject(owner)
    person = of in KIN_EN
    return Subject(owner, of, person, person and text[m.end() : m.end() + 2] in ("'s", "’s"))


def _subject_zh(text: str) -> Subject:
    """Chinese: the first person or name (jieba tags) or the speaker, and a relative or thing after 的 or 家."""
    tags = _zh_tagged(text)
    for i, (word, flag) in enumerate(tags):
        if word in ("我", "我们", "咱们"):
            owner = "<self>"
        elif flag.startswith("nr") or (i == 0 and flag in ("n", "nz", "ns", "nt")):
            owner = word
        else:
            continue
        rest = "".join(w for w, _ in tags[i + 1 : i + 6])
        rest = rest.lstrip("他她").removeprefix("的").removeprefix("家的").removeprefix("家")
        kin = next((k for k in KIN_ZH if rest.startswith(k)), "")
        if kin:
            return Subject(owner, kin, True, rest[len(kin) :].startswith("的"))
        after = [w for w, _ in tags[i + 1 : i + 3]]
        return Subject(owner, after[1] if len(after) == 2 and after[0] == "的" else "")
    return Subject("")


def subject_relation(old_text: str, new_text: str) -> str:
    """How the two sentences' subjects relate: "same", "other" (another person: a relative of the owner that the
    other sentence does not speak of), "named_apart" (different owners, neither named by the other), "detail" (one speaks of a thing of
    the other's subject: "Sofia's Panda" after "Sofia drives a Panda") or "unknown" (one names no subject)."""
    a, b = subject_of(old_text), subject_of(new_text)
    if not a.owner or not b.owner:
        return "unknown"
    if a.owner != b.owner:
        third = shared_entities(analyse(old_text).entities, analyse(new_text).entities)
        if a.owner not in new_text.lower() and b.owner not in old_text.lower() and not third:
            return "named_apart"  # with a third one named in both, two people tell of that one ("X swears that ...")
        named = {e.lower() for e in analyse(old_text).entities} if not has_cjk(old_text) else set()
        if b.owner in named and a.owner not in new_text.lower():
            return "value_subject"  # "The Royal Infirmary opened a wing" after "Amy works at the Royal Infirmary"
        return "unknown"
    if a.of == b.of:
        return "same"
    if a.deep or b.deep:
        return "other"
    for mine, theirs, text in ((a, b, new_text), (b, a, old_text)):
        # a relative of the owner the other sentence never speaks of, unless this sentence speaks of the other's
        # thing ("Lena's kids renamed the cat" after "Lena's cat is called Biscuit")
        mine_text = old_text if text is new_text else new_text
        if mine.person and mine.of not in text.lower() and not (theirs.of and theirs.of in mine_text.lower()):
            return "other"
    if (
        b.of
        and not a.of
        and not b.person
        and any(b.of in e.lower().split() for e in analyse(old_text).entities)
    ):
        return "value_detail"  # "Sofia's Panda needs brakes" after "Sofia drives a Panda": about the value itself
    return "detail" if (a.of and not b.of) or (b.of and not a.of) else "unknown"


_CODE = re.compile(r"(?<![\w-])(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z\d][\w-]*[A-Za-z\d](?![\w-])")
_NOT_CODE = re.compile(r"^\d+(?:st|nd|rd|th|am|pm|h|hr|hrs|min|mins|s|k|m|kg|km|g|ml|l|x|gb|mb|tb|p)?$", re.I)
_LABELLED = re.compile(r"\b([A-Za-z][a-z]+)\s+(?:no\.?\s*|#\s*)?(\d+)\b(?!\s*(?:[:.,/-]\d|%))")
_HASH = re.compile(r"(?:#|No\.\s?|编号|第)\s*(\d+)")


@lru_cache(maxsize=TEXT_CACHE)
def item_ids(text: str) -> frozenset[str]:
    """Identifiers of the item a sentence speaks of: codes mixing letters and digits ("zq2q3zq", "BA123"), numbers
    written "#4" or "No. 4", and a number right after a noun that is not a count of what follows ("item 3 token",
    "order 12 shipped"; not "costs 45 euros", "at 6 am", "ordered 30 sandwiches")."""
    ids = {m.group(0).lower() for m in _CODE.finditer(text) if not _NOT_CODE.match(m.group(0))}
    ids |= {"#" + m.group(1) for m in _HASH.finditer(text)}
    for m in _LABELLED.finditer(text):
        label = m.group(1).lower()
        if label in _STOP_EN or label.endswith(("ed", "s")) or label in _SELF_WORDS:
            continue  # a function word or a verb ("costs 45", "moved 3") before a value
        after = text[m.end() :].lstrip()
        following = _WORD.match(after)
        nxt = following.group(0).lower() if following else ""
        if nxt and ((nxt.endswith("s") and not nxt.endswith("ss")) or nxt in _UNITS):
            continue  # "3 tickets", "45 euros": a count or an amount
        ids.add(f"{label} {m.group(2)}")
    return frozenset(ids)


_UNITS = frozenset("am pm euro pound dollar yuan yen hour minute day week month year km kg percent".split())

_CHANGE_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("cancel", re.compile(
        r"\b(?:call(?:ed|s)? off|cancel(?:l?ed|s)?|scrapped|discontinued|(?:has |have )?ended|broke(?:n)? off|"
        r"no longer|stopped|quit|dropped|retired|resigned|(?:is|are|was) off\b|shut down|closed down)|取消|不办了|作罢|结束了?|停了|辞职|退休|调走|"
        r"分手|解除|停止|不再", re.I)),
    ("handover", re.compile(
        r"\b(?:took over|takes over|taking over|taken over|handed (?:over|on)|elected|appointed|new (?:captain|manager|head|"
        r"chair|lead|leader|coach|owner|boss)|replaced|succeeded|now (?:leads|runs|manages|heads|reports to))|接任|"
        r"接手|接替|换成了?|由\S{1,4}负责|新任|选了?\S{0,4}当", re.I)),
    ("relative", re.compile(
        r"\b(?:doubled|halved|tripled|twice as|half as|(?:\w+ )?(?:more|fewer|less|later|earlier) than|"
        r"(?:an? |one |two |three |\d+ )(?:hours?|days?|weeks?|more|fewer|less|later|earlier)\b|"
        r"(?:raised|cut|increased|reduced|lowered|up|down) by)|翻倍|翻了一番|减半|多了|少了|推迟|提前|延后|涨了|降了", re.I)),
    ("add", re.compile(
        r"\b(?:also|as well|another|a second(?!-)|an? (?:extra|additional)|in addition|besides)\b|"
        r"\btoo\b(?=\s*(?:[,;.!?]|$))|\badd(?:s|ed|ing)? (?:an?|one more)\b|"
        r"也(?![没不别])|还(?:养|会|买|订|学|跑|兼|办)|另(?:一|外)|第二|又(?:养|买|学|会|有|多|订|办|加|领|添|请)|"
        r"(?<![别不没])再(?:订|买|办|养|学|请|添|报|约)", re.I)),
    ("replace", re.compile(
        r"\b(?:now|instead|switched|changed|moved|anymore|any more|no more|renamed|these days|from now on|"
        r"starting|from (?:monday|next|today|tomorrow))\b|现在|改|换|搬|不再|转|如今", re.I)),
)  # fmt: skip


@lru_cache(maxsize=TEXT_CACHE)
def change_kind(text: str) -> frozenset[str]:
    """The change cues of a (newer) sentence: any of "cancel", "handover", "relative", "add", "replace"."""
    return frozenset(kind for kind, cue in _CHANGE_CUES if cue.search(text))


@lru_cache(maxsize=TEXT_CACHE)
def attribute_phrase(text: str) -> str:
    """The sentence with its subject and values masked (names, numbers, times, codes, e-mail addresses): what is
    said of the subject, whatever the subject and the value ("Alice lives in London." -> "_ lives in _.")."""
    if has_cjk(text):
        parts: list[str] = []
        for word, flag in _zh_tagged(text):
            masked = flag.startswith(("nr", "ns", "nt", "nz", "m", "t", "eng")) or word in ("我", "我们")
            if masked:
                if not parts or parts[-1] != MASK:
                    parts.append(MASK)
            else:
                parts.append(word)
        return "".join(parts)
    view = analyse(text)
    out = text
    for name in sorted(view.entities, key=len, reverse=True):
        out = re.sub(rf"(?i)\b{re.escape(name)}\b", MASK, out)
    out = _CODE.sub(MASK, out)
    out = re.sub(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\d+(?:[.:,]\d+)*(?:\s?(?:am|pm))?", MASK, out, flags=re.I)
    out = re.sub(r"(?i)\b(?:i|my|me|we|our|us)\b", MASK, out)
    return re.sub(rf"{re.escape(MASK)}(?:['’]s)?(?:\s+{re.escape(MASK)}(?:['’]s)?)+", MASK, out)
