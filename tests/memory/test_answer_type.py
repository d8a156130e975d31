"""The answer-type recall stage: a question asking where, who, when or how much ranks the facts that supply a place,
person, time or amount higher; a question without an answer type ranks as without the stage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from psychoagent import Memory
from psychoagent.memory.config import MemoryConfig, RecallConfig
from psychoagent.memory.recall.answer_words import asked_type, rule_supply

START = datetime(2026, 11, 1, 9, tzinfo=UTC)


def stored(facts: list[str], embedder: str | None = None, config: MemoryConfig | None = None) -> Memory:
    """A fresh memory with the facts observed a day apart."""
    mem = Memory(embedder=embedder, config=config)
    for i, fact in enumerate(facts):
        mem.observe(fact, timestamp=START + timedelta(days=i))
    return mem


@pytest.mark.parametrize(
    ("question", "kind"),
    [("Where does Alice live?", "place"), ("Which city did Ana move to?", "place"), ("Who is the captain?", "person"),
     ("When did Jon open the studio?", "time"), ("What time is the meeting?", "time"),
     ("How much is the membership?", "amount"), ("How many pets does Nate have?", "amount"),
     ("小林住在哪里？", "place"), ("球队队长是谁？", "person"), ("会议几点开始？", "time"),
     ("健身房会员多少钱？", "amount"), ("他有几只猫？", "amount"), ("What does Alice do for fun?", None),
     ("How does Alice want answers?", None), ("小林喜欢什么？", None)],
)  # fmt: skip
def test_question_words_fix_the_answer_type(question: str, kind: str | None) -> None:
    assert asked_type(question) == kind


def test_structure_rules_read_what_a_sentence_supplies() -> None:
    assert rule_supply("Alice moved to Paris last month.", "place") == 1.0
    assert rule_supply("Alice now wants detailed answers.", "place") == 0.0
    assert rule_supply("小林上个月搬到了上海。", "place") == 1.0
    assert rule_supply("The team elected Maria as captain.", "person") == 1.0
    assert rule_supply("It cost 55 dollars.", "amount") == 1.0
    assert rule_supply("Tom prefers the spinning classes.", "amount") == 0.0


ALICE = ["Alice lives in London.", "Alice prefers short answers.", "Alice moved to Paris last month.",
         "Alice now wants detailed answers."]  # fmt: skip


def test_where_ranks_the_move_above_a_newer_answer_preference() -> None:
    mem = stored(ALICE)
    hits = mem.recall("Where does Alice live?", k=4)
    assert hits[0].unit.content == "Alice moved to Paris last month."
    assert hits[0].parts["answer_supply"] > 0.5
    preference = next(h for h in hits if h.unit.content == "Alice now wants detailed answers.")
    assert preference.parts["answer_supply"] < 0.5
    assert (
        mem.recall("How does Alice want answers?", k=1)[0].unit.content == "Alice now wants detailed answers."
    )
    mem.close()


def test_chinese_where_and_how_much() -> None:
    mem = stored(
        ["小林住在北京。", "小林喜欢简短的回答。", "小林上个月搬到了上海。", "小林现在想要详细的回答。"]
    )
    assert mem.recall("小林住在哪里？", k=1)[0].unit.content == "小林上个月搬到了上海。"
    mem.close()
    mem = stored(
        [
            "健身房会员每月40元。",
            "小王喜欢健身房的瑜伽课。",
            "健身房会员涨到了55元。",
            "小王现在更喜欢动感单车课。",
        ]
    )
    assert mem.recall("健身房会员多少钱？", k=1)[0].unit.content == "健身房会员涨到了55元。"
    mem.close()


def test_the_stage_widens_the_moves_lead_over_the_preference() -> None:
    """The stage adds the place a fact supplies to its score: with it off, no part names it and the move's lead over
    the newer answer preference (topic similarity and recency favour the preference) is smaller."""
    leads = []
    for weight in (0.0, RecallConfig().answer_type_weight):
        mem = stored(ALICE, config=MemoryConfig(recall=RecallConfig(answer_type_weight=weight)))
        hits = {h.unit.content: h for h in mem.recall("Where does Alice live?", k=4)}
        move, preference = hits["Alice moved to Paris last month."], hits["Alice now wants detailed answers."]
        assert ("answer_supply" in move.parts) == (weight > 0)
        leads.append(move.score - preference.score)
        mem.close()
    assert leads[1] > leads[0]


def test_questions_without_an_answer_type_rank_as_before() -> None:
    facts = [*ALICE, "Bob bakes bread on Sundays.", "Bob paid 20 dollars for flour in Berlin."]
    on, off = (
        stored(facts, "hash"),
        stored(facts, "hash", MemoryConfig(recall=RecallConfig(answer_type_weight=0))),
    )
    for question in ("What does Alice prefer?", "Tell me about Bob's bread", "Alice answers"):
        now = START + timedelta(days=10)
        a, b = on.recall(question, k=6, now=now), off.recall(question, k=6, now=now)
        assert [(h.unit.id, h.score) for h in a] == [(h.unit.id, h.score) for h in b]
    on.close()
    off.close()
