"""Time expressions: written dates, relative phrases resolved against a memory's own time, 'when' questions."""

from __future__ import annotations

from datetime import UTC, datetime

from psychoagent.memory.index.temporal import (
    absolute_spans,
    asks_when,
    mentions_time,
    relative_spans,
    time_spans,
)


def day(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=UTC).timestamp()


SAT_20_MAY = datetime(2023, 5, 20, 13, 56, tzinfo=UTC)  # a Saturday


def test_written_dates_at_their_precision() -> None:
    assert absolute_spans("What did Ana do on 13 May, 2023?") == [(day(2023, 5, 13), day(2023, 5, 14))]
    assert absolute_spans("on October 13, 2023") == [(day(2023, 10, 13), day(2023, 10, 14))]
    assert absolute_spans("in July 2023") == [(day(2023, 7, 1), day(2023, 8, 1))]
    assert absolute_spans("back in 2022") == [(day(2022, 1, 1), day(2023, 1, 1))]
    assert absolute_spans("2023-02-01") == [(day(2023, 2, 1), day(2023, 2, 2))]
    assert absolute_spans("2023年5月13日她去了北京") == [(day(2023, 5, 13), day(2023, 5, 14))]
    # a day inside a longer date is not read a second time as a year
    assert len(absolute_spans("on 3 June, 2023")) == 1
    assert absolute_spans("I may go to the park") == []


def test_relative_phrases_resolve_against_the_memory_time() -> None:
    assert relative_spans("I went there yesterday", SAT_20_MAY) == [(day(2023, 5, 19), day(2023, 5, 20))]
    assert relative_spans("last Saturday was great", SAT_20_MAY) == [(day(2023, 5, 13), day(2023, 5, 14))]
    assert relative_spans("on Friday we met", SAT_20_MAY) == [(day(2023, 5, 19), day(2023, 5, 20))]
    assert relative_spans("last week", SAT_20_MAY) == [(day(2023, 5, 8), day(2023, 5, 15))]
    assert relative_spans("last weekend", SAT_20_MAY) == [(day(2023, 5, 13), day(2023, 5, 15))]
    assert relative_spans("last month", SAT_20_MAY) == [(day(2023, 4, 1), day(2023, 5, 1))]
    assert relative_spans("next month", SAT_20_MAY) == [(day(2023, 6, 1), day(2023, 7, 1))]
    assert relative_spans("last year", SAT_20_MAY) == [(day(2022, 1, 1), day(2023, 1, 1))]
    (lo, hi) = relative_spans("two weeks ago", SAT_20_MAY)[0]
    assert lo <= day(2023, 5, 6) < hi
    assert relative_spans("我昨天去了公园", SAT_20_MAY) == [(day(2023, 5, 19), day(2023, 5, 20))]
    assert relative_spans("nothing about time", SAT_20_MAY) == []


def test_time_spans_need_an_anchor_for_relative_phrases() -> None:
    assert time_spans("yesterday in May 2023") == [(day(2023, 5, 1), day(2023, 6, 1))]
    assert len(time_spans("yesterday in May 2023", SAT_20_MAY)) == 2


def test_when_questions_and_time_statements() -> None:
    assert asks_when("When did Caroline go to the support group?")
    assert asks_when("What year did she move?")
    assert asks_when("她什么时候搬家的？")
    assert not asks_when("What did Caroline research?")
    assert mentions_time("I went to a support group yesterday")
    assert mentions_time("We moved in 2019")
    assert not mentions_time("I love painting sunsets")
