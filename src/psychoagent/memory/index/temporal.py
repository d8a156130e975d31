"""Time expressions in memories and questions: absolute dates and relative ones resolved against an anchor.

A memory saying "I went there last Saturday", stored with the timestamp 2023-05-20, is about 2023-05-13; a
question "What did Ana do on 13 May, 2023?" names that day. `time_spans` turns both into epoch intervals so recall
can match them; `mentions_time` and `asks_when` let questions that ask for a time prefer memories that state one.
English month names, ISO dates and the common relative phrases are handled; Chinese dates (2023年5月13日) too.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

Span = tuple[float, float]
"""[start, end) in epoch seconds."""

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MON = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_NUM_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
              "eight": 8, "nine": 9, "ten": 10, "a few": 3, "few": 3, "a couple of": 2, "couple of": 2,
              "several": 4}  # fmt: skip
_NUM = (
    r"(\d{1,3}|a few|a couple of|couple of|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
)

_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MON},?\s+(\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MON}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
_MONTH_YEAR = re.compile(rf"\b{_MON},?\s+(\d{{4}})\b")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_ZH_DATE = re.compile(r"(\d{4})年(?:(\d{1,2})月(?:(\d{1,2})[日号])?)?")
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
_RELATIVE = re.compile(
    r"\b(yesterday|today|tonight|this morning|this afternoon|this evening|last night|the other day|"
    r"(?:last|this|next|past) (?:week|weekend|month|year|summer|winter|spring|fall|autumn)|"
    rf"{_NUM} (?:day|week|month|year)s? ago|"
    r"(?:last|this|next|on) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"recently|lately|just now)\b"
)
_ZH_RELATIVE = re.compile(r"(昨天|今天|前天|上周|上个月|去年|今年|下周|下个月|明年|最近|刚才)")
_ASKS_WHEN = re.compile(
    r"^\s*(when|what (?:year|month|day|date|time)|which (?:year|month|day|date)|how long ago|"
    r"in which (?:year|month))\b|什么时候|何时|哪年|哪一年|几月|哪天",
    re.IGNORECASE,
)
DAY = 86400.0


def _day(year: int, month: int, day: int) -> Span | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None
    return (start.timestamp(), start.timestamp() + DAY)


def _month(year: int, month: int) -> Span | None:
    if not 1 <= month <= 12:
        return None
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return (start.timestamp(), end.timestamp())


def _year(year: int) -> Span:
    return (datetime(year, 1, 1, tzinfo=UTC).timestamp(), datetime(year + 1, 1, 1, tzinfo=UTC).timestamp())


def absolute_spans(text: str) -> list[Span]:
    """Dates written out in the text (day, month or year precision), most precise reading of each."""
    low = text.lower()
    spans: list[Span | None] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        if any(a < m.end() and m.start() < b for a, b in taken):
            return False
        taken.append(m.span())
        return True

    for m in _DAY_MONTH_YEAR.finditer(low):
        if free(m):
            spans.append(_day(int(m.group(3)), _MONTHS[m.group(2)], int(m.group(1))))
    for m in _MONTH_DAY_YEAR.finditer(low):
        if free(m):
            spans.append(_day(int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2))))
    for m in _ISO.finditer(low):
        if free(m):
            spans.append(_day(int(m.group(1)), int(m.group(2)), int(m.group(3))))
    for m in _MONTH_YEAR.finditer(low):
        if free(m):
            spans.append(_month(int(m.group(2)), _MONTHS[m.group(1)]))
    for m in _ZH_DATE.finditer(text):
        if free(m):
            year, month, day = m.group(1), m.group(2), m.group(3)
            if day:
                spans.append(_day(int(year), int(month), int(day)))
            elif month:
                spans.append(_month(int(year), int(month)))
            else:
                spans.append(_year(int(year)))
    for m in _YEAR.finditer(low):
        if free(m):
            spans.append(_year(int(m.group(1))))
    return [s for s in spans if s is not None]


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUM_WORDS.get(word, 1)


def _relative_span(phrase: str, anchor: datetime) -> Span | None:
    """One relative phrase resolved against the anchor's day (weeks start on Monday)."""
    day0 = anchor.replace(hour=0, minute=0, second=0, microsecond=0)
    t = day0.timestamp()
    if phrase in (
        "today",
        "tonight",
        "this morning",
        "this afternoon",
        "this evening",
        "just now",
        "今天",
        "刚才",
    ):
        return (t, t + DAY)
    if phrase in ("yesterday", "last night", "昨天"):
        return (t - DAY, t)
    if phrase == "前天":
        return (t - 2 * DAY, t - DAY)
    if phrase in ("recently", "lately", "the other day", "最近"):
        return (t - 14 * DAY, t + DAY)
    words = phrase.split()
    if words[-1] == "ago":
        n, unit = _count(" ".join(words[:-2])), words[-2].rstrip("s")
        size = {"day": DAY, "week": 7 * DAY, "month": 30 * DAY, "year": 365 * DAY}[unit]
        centre = t - n * size
        return (centre - size / 2, centre + size / 2 + DAY)
    which, unit = (words[0], words[1]) if len(words) == 2 else ("", phrase)
    which = {"上周": "last", "上个月": "last", "去年": "last", "下周": "next", "下个月": "next", "明年": "next",
             "今年": "this"}.get(phrase, which)  # fmt: skip
    unit = {"上周": "week", "下周": "week", "上个月": "month", "下个月": "month", "去年": "year", "明年": "year",
            "今年": "year"}.get(phrase, unit)  # fmt: skip
    step = {"last": -1, "past": -1, "this": 0, "on": 0, "next": 1}.get(which, 0)
    if unit in _WEEKDAYS:
        delta = (anchor.weekday() - _WEEKDAYS[unit]) % 7 or (7 if step < 0 else 0)
        start = t - delta * DAY if step <= 0 else t + ((_WEEKDAYS[unit] - anchor.weekday()) % 7 or 7) * DAY
        return (start, start + DAY)
    if unit in ("week", "weekend"):
        monday = t - anchor.weekday() * DAY + step * 7 * DAY
        return (monday + 5 * DAY, monday + 7 * DAY) if unit == "weekend" else (monday, monday + 7 * DAY)
    if unit == "month":
        month_index = anchor.year * 12 + anchor.month - 1 + step
        return _month(month_index // 12, month_index % 12 + 1)
    if unit == "year":
        return _year(anchor.year + step)
    # seasons: the three months around the season's middle month in the anchor's year (northern hemisphere)
    middle = {"winter": 1, "spring": 4, "summer": 7, "fall": 10, "autumn": 10}[unit]
    year = anchor.year + step if step else anchor.year
    start_span, end_span = _month(*_shift(year, middle - 1)), _month(*_shift(year, middle + 1))
    return (start_span[0], end_span[1]) if start_span and end_span else None


def _shift(year: int, month: int) -> tuple[int, int]:
    index = year * 12 + month - 1
    return index // 12, index % 12 + 1


def relative_spans(text: str, anchor: datetime) -> list[Span]:
    """Relative time phrases ("yesterday", "last Saturday", "two weeks ago", "上周") resolved against anchor."""
    out = [_relative_span(m.group(1), anchor) for m in _RELATIVE.finditer(text.lower())]
    out += [_relative_span(m.group(1), anchor) for m in _ZH_RELATIVE.finditer(text)]
    return [s for s in out if s is not None]


def time_spans(text: str, anchor: datetime | None = None) -> list[Span]:
    """Every time the text refers to: written dates, and relative phrases when an anchor (its own time) is known."""
    spans = absolute_spans(text)
    if anchor is not None:
        spans += relative_spans(text, anchor)
    return spans


_RELATIVE_WORDS = (
    "day",
    "tonight",
    "this ",
    "last ",
    "next ",
    "past ",
    " ago",
    "recently",
    "lately",
    "just now",
)
"""Every phrase `_RELATIVE` matches contains one of these (weekdays, "yesterday" and "today" end in "day")."""
_FOUR_DIGITS = re.compile(r"\d{4}")
"""Month-year, year, ISO and Chinese dates all contain four digits in a row."""


def mentions_time(text: str) -> bool:
    """Does the text state when something happened (a date, a year or a relative time phrase)?

    Cheap necessary conditions run first (a substring test, a short search), since most texts state no time.
    """
    low = text.lower()
    if any(word in low for word in _RELATIVE_WORDS) and _RELATIVE.search(low):
        return True
    if not text.isascii() and _ZH_RELATIVE.search(text):
        return True
    return _FOUR_DIGITS.search(text) is not None and bool(
        _MONTH_YEAR.search(low) or _YEAR.search(low) or _ISO.search(low) or _ZH_DATE.search(text)
    )


def asks_when(query: str) -> bool:
    """Does the question ask for a time ("When did...", "What year...", "什么时候...")?"""
    return bool(_ASKS_WHEN.search(query))


def overlaps(spans: list[Span], start: float, end: float) -> bool:
    """Does any span intersect [start, end)?"""
    return any(a < end and start < b for a, b in spans)


def day_of(epoch: float) -> Span:
    """The UTC day containing an epoch time."""
    start = datetime.fromtimestamp(epoch, tz=UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return (start.timestamp(), (start + timedelta(days=1)).timestamp())
