"""The currency stage's subject check gives what comparing `facts.subjects` key sets gives, on generated facts in
both languages and on sentences built to meet its corner cases."""

from __future__ import annotations

import itertools

from benchmarks.conflict_gen import generate
from psychoagent.memory.conflicts.facts import subjects
from psychoagent.memory.conflicts.subject_keys import share_subject

CORNERS = [
    "The balance is 0 dollars.",
    "The balance is -0 dollars.",
    "it costs 1234567.",
    "it costs 1234568.",  # another number, the same '#1.23457e+06' key
    "I moved to Lyon at 9:30am.",
    "We meet at 9:30am in Porto.",
    "Ana lives in Lyon.",
    "Ana's rent is 900.",
    "I think so.",
    "My rent is 900.",
    "会议改到周五下午3点。",
    "会议在周五下午3点。",
    "张伟住在大连。",
    "张伟搬到了上海。",
    "",
    "event 7: w5 w0 w12",
    "event 9: w0 w3",
]


def test_the_check_agrees_with_the_key_sets() -> None:
    items = generate(seed=0)[::12]
    texts = CORNERS + [t for item in items for t in (item.old, item.new, *item.distractors_before[:2])]
    checked = 0
    for a, b in itertools.product(texts[:80], texts):
        expected = bool(subjects(a) & subjects(b)) if a and b else False
        assert share_subject(a, b) is expected, (a, b)
        checked += expected
    assert checked > 100  # many pairs share a key: both answers were exercised
    assert share_subject("it costs 1234567.", "it costs 1234568.")  # found by the key sets, not the numbers
