"""Turn windows: a dialogue turn read together with the turn before it in its session.

A turn's meaning often lives in the turn before it ("Super good!" answers "How was the coconut ice cream?";
"What got you into running?" is about the shoes shown just before). Recall searches dialogue turns by the vector
of this window instead of the turn alone (`RecallConfig.turn_context`); the turn's own vector still serves every
other comparison (conflicts, answer types, appraisal).
"""

from __future__ import annotations

from collections.abc import Sequence

from psychoagent.memory.index.conversation import speaker_of

WINDOW_JOIN = "\n"
"""Separator of the previous turn and the turn in a window text."""


def turn_windows(
    contents: Sequence[str],
    created: Sequence[float | None],
    previous: tuple[str, float | None] | None,
    gap_seconds: float,
) -> list[tuple[int, str]]:
    """(position, window text) of each turn whose previous row is a turn of the same session.

    `previous` is the (content, created_at) of the row before `contents[0]`, None when there is none. A turn is a
    "Name: text" unit; two turns share a session when at most `gap_seconds` apart, as `linked_previous` reads it.
    """
    out: list[tuple[int, str]] = []
    prev_text, prev_time = previous if previous is not None else (None, None)
    prev_turn = prev_text is not None and speaker_of(prev_text) is not None
    for pos, (text, when) in enumerate(zip(contents, created, strict=True)):
        turn = speaker_of(text) is not None
        if (
            turn
            and prev_turn
            and prev_text is not None
            and when is not None
            and prev_time is not None
            and abs(when - prev_time) <= gap_seconds
        ):
            out.append((pos, prev_text + WINDOW_JOIN + text))
        prev_text, prev_time, prev_turn = text, when, turn
    return out
