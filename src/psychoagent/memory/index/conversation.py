"""What a conversation gives recall besides each turn's text: its neighbours, its session, its speaker, its times.

A turn's meaning often lives in the turn before it ("Super good!" answers "How was the ice cream?"), a question
names the person it is about, and a memory's relative times ("last Saturday") resolve against its timestamp. This
module keeps those per-row facts of one namespace next to the vector index, derived only from the stored text
and timestamp, so they are rebuilt identically when a file is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from psychoagent.memory.index.packing import pack_strings, unpack_strings
from psychoagent.memory.index.temporal import mentions_time, time_spans

_SPEAKER = re.compile(
    r"^\s*([A-Z][^\W\d_]*(?:[ .'\-][A-Za-z][^\W\d_]*){0,2}|[\u3400-\u9fff]{1,4})\s*[:：]\s*\S"
)
"""A turn starts with a name of at most three words (letters only) or up to four Chinese characters, then a colon."""
_WORD = re.compile(r"[\w']+", re.UNICODE)
ALIAS_MIN_CHARS = 3
"""A question word of at least this many letters that starts a speaker's name refers to them ("Mel" -> Melanie)."""


def speaker_of(text: str) -> str | None:
    """The speaker of a chat turn written as "Name: text" (the transcript convention), else None."""
    m = _SPEAKER.match(text)
    return m.group(1).strip() if m else None


class ConversationIndex:
    """Per-row speaker code, time spans and 'states a time' flag of one namespace, in index row order."""

    def __init__(self) -> None:
        self.speaker_names: list[str] = []
        self._speaker_code: dict[str, int] = {}
        self._speakers: list[int] = []
        self._has_time: list[bool] = []
        self._span_rows: list[int] = []
        self._span_lo: list[float] = []
        self._span_hi: list[float] = []
        self._arrays: dict[str, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._speakers)

    def add(self, contents: Sequence[str], created_at: Sequence[float | None]) -> None:
        """Append rows: parse speaker and time expressions of each text against its own timestamp."""
        for content, created in zip(contents, created_at, strict=True):
            row = len(self._speakers)
            name = speaker_of(content)
            code = -1
            if name is not None:
                code = self._speaker_code.setdefault(name.lower(), len(self.speaker_names))
                if code == len(self.speaker_names):
                    self.speaker_names.append(name.lower())
            self._speakers.append(code)
            has_time = mentions_time(content)
            self._has_time.append(has_time)
            if has_time:
                anchor = None if created is None else datetime.fromtimestamp(created, tz=UTC)
                for lo, hi in time_spans(content, anchor):
                    self._span_rows.append(row)
                    self._span_lo.append(lo)
                    self._span_hi.append(hi)
        self._arrays = None

    def remove(self, row: int) -> None:
        """Forget a row's speaker and time facts (the row stays, with none); a speaker no other row names is
        forgotten too."""
        if row >= len(self._speakers):
            return
        code = self._speakers[row]
        self._speakers[row] = -1
        self._has_time[row] = False
        if row in self._span_rows:
            keep = [i for i, r in enumerate(self._span_rows) if r != row]
            self._span_rows = [self._span_rows[i] for i in keep]
            self._span_lo = [self._span_lo[i] for i in keep]
            self._span_hi = [self._span_hi[i] for i in keep]
        if code >= 0 and code not in self._speakers:
            self._speaker_code.pop(self.speaker_names[code], None)
            self.speaker_names[code] = ""  # codes are positions: the slot stays, nameless
        self._arrays = None

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Speaker codes, time flags and spans as flat arrays (an index snapshot; `from_arrays`)."""
        names, offsets = pack_strings(self.speaker_names)
        return {
            "names": names, "name_offsets": offsets, "speakers": np.asarray(self._speakers, dtype=np.int64),
            "has_time": np.asarray(self._has_time, dtype=bool),
            "span_rows": np.asarray(self._span_rows, dtype=np.int64),
            "span_lo": np.asarray(self._span_lo, dtype=np.float64),
            "span_hi": np.asarray(self._span_hi, dtype=np.float64),
        }  # fmt: skip

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> ConversationIndex:
        """The index `to_arrays` flattened."""
        index = cls()
        index.speaker_names = unpack_strings(arrays["names"], arrays["name_offsets"])
        index._speaker_code = {name: code for code, name in enumerate(index.speaker_names) if name}
        index._speakers = arrays["speakers"].tolist()
        index._has_time = arrays["has_time"].tolist()
        index._span_rows = arrays["span_rows"].tolist()
        index._span_lo = arrays["span_lo"].tolist()
        index._span_hi = arrays["span_hi"].tolist()
        return index

    def _get(self, name: str) -> np.ndarray:
        if self._arrays is None:
            self._arrays = {
                "speaker": np.asarray(self._speakers, dtype=np.int64),
                "turn": np.asarray(self._speakers, dtype=np.int64) >= 0,
                "has_time": np.asarray(self._has_time, dtype=bool),
                "span_rows": np.asarray(self._span_rows, dtype=np.int64),
                "span_lo": np.asarray(self._span_lo, dtype=np.float64),
                "span_hi": np.asarray(self._span_hi, dtype=np.float64),
            }
            self._arrays["any_turn"] = np.asarray([self._arrays["turn"].any()])
        return self._arrays[name]

    def speakers(self, rows: np.ndarray) -> np.ndarray:
        """Speaker code of each row (-1: none)."""
        return self._get("speaker")[rows]

    def is_turn(self, rows: np.ndarray) -> np.ndarray:
        """Whether each row is a dialogue turn ("Name: text"); only turns have neighbours and sessions."""
        return self._get("turn")[rows]

    def turn_flags(self) -> np.ndarray:
        """`is_turn` of every row (read-only view)."""
        return self._get("turn")

    def any_turn(self) -> bool:
        """Whether any row is a dialogue turn (without one, no row has a linked neighbour)."""
        return bool(self._get("any_turn")[0])

    def has_time(self, rows: np.ndarray) -> np.ndarray:
        """Whether each row's text states a time."""
        return self._get("has_time")[rows]

    def named_speakers(self, query: str) -> list[int]:
        """Codes of the speakers a question names, by full name or a prefix alias of at least 3 letters."""
        low = query.lower()
        proper = [w.lower() for w in _WORD.findall(query) if w[:1].isupper() and len(w) >= ALIAS_MIN_CHARS]
        named = []
        for code, name in enumerate(self.speaker_names):
            if not name:
                continue
            first = name.split()[0] if name.split() else name
            if re.search(rf"\b{re.escape(name)}\b", low) or any(first.startswith(w) for w in proper):
                named.append(code)
        return named

    def rows_in_spans(self, spans: Sequence[tuple[float, float]]) -> np.ndarray:
        """Rows whose text refers to a time overlapping any of the spans."""
        if not spans or len(self._span_rows) == 0:
            return np.zeros(0, dtype=np.int64)
        lo, hi = self._get("span_lo"), self._get("span_hi")
        hit = np.zeros(len(lo), dtype=bool)
        for start, end in spans:
            hit |= (lo < end) & (start < hi)
        return np.unique(self._get("span_rows")[hit])


def linked_previous(
    created_at: np.ndarray, rows: np.ndarray, gap_seconds: float, turns: np.ndarray | None = None
) -> np.ndarray:
    """For each row, whether row - 1 belongs to the same conversation session (at most `gap_seconds` earlier and,
    when `turns` (a per-row flag of the whole index) is given, both rows are dialogue turns)."""
    prev = np.maximum(rows - 1, 0)
    with np.errstate(invalid="ignore"):
        close = np.abs(created_at[rows] - created_at[prev]) <= gap_seconds
    if turns is not None:
        close &= turns[rows] & turns[prev]
    return (rows > 0) & close


def session_ids(created_at: np.ndarray, gap_seconds: float) -> np.ndarray:
    """Session number of every row: a new session starts where the time gap to the previous row exceeds the gap."""
    if len(created_at) == 0:
        return np.zeros(0, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        breaks = ~(np.abs(np.diff(created_at)) <= gap_seconds)
    return np.concatenate([[0], np.cumsum(breaks)]).astype(np.int64)
