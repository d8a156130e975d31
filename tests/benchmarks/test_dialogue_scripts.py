"""The scripted conversations of the end-to-end benchmark are scorable: keys sit in the right turns only."""

from __future__ import annotations

from collections import Counter

from benchmarks.bench_dialogue import mentions, sessions
from benchmarks.dialogue_scripts import CONTROLS, CONVERSATIONS, FILLERS


def test_enough_conversations_in_both_languages() -> None:
    langs = Counter(c.lang for c in CONVERSATIONS)
    assert len(CONVERSATIONS) >= 20 and langs["en"] == langs["zh"]
    assert len({c.domain for c in CONVERSATIONS}) >= 8
    assert len({c.id for c in CONVERSATIONS}) == len(CONVERSATIONS)


def test_keys_identify_each_instruction() -> None:
    for c in CONVERSATIONS:
        assert mentions(c.later, c.latest), c.id
        assert mentions(c.earlier, c.earlier_keys), c.id
        assert not mentions(c.earlier, c.latest), c.id
        assert not mentions(c.request, c.latest) and not mentions(c.request, c.earlier_keys), c.id


def test_fillers_carry_no_key_and_sessions_keep_the_order() -> None:
    for i, c in enumerate(CONVERSATIONS):
        turns = [t for s in sessions(c, i) for t in s]
        for text in turns:
            if text not in (c.earlier, c.later):
                assert not mentions(text, c.latest + c.earlier_keys), (c.id, text)
                assert text in FILLERS[c.lang]
        assert turns.index(c.earlier) < turns.index(c.later)
    assert sessions(CONVERSATIONS[0], 0) == sessions(CONVERSATIONS[0], 0)


def test_controls_pair_with_the_contradicting_conversations() -> None:
    """Each control keeps a conversation's domain and request; its later instruction names none of the earlier's
    keys, and its keys sit in their own instruction only (so 'both in briefing' and false alarms are readable)."""
    contra = {(c.lang, c.domain) for c in CONVERSATIONS}
    assert len({c.id for c in CONTROLS}) == len(CONTROLS) and not {c.id for c in CONTROLS} & {
        c.id for c in CONVERSATIONS
    }
    assert Counter(c.lang for c in CONTROLS)["en"] == Counter(c.lang for c in CONTROLS)["zh"] >= 10
    for i, c in enumerate(CONTROLS):
        assert (c.lang, c.domain) in contra, c.id
        assert mentions(c.later, c.latest) and mentions(c.earlier, c.earlier_keys), c.id
        assert not mentions(c.earlier, c.latest) and not mentions(c.later, c.earlier_keys), c.id
        for text in (t for s in sessions(c, i) for t in s):
            if text not in (c.earlier, c.later):
                assert not mentions(text, c.latest + c.earlier_keys), (c.id, text)
