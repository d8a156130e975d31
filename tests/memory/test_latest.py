"""The newest-statement stage: of two statements that answer a request alike, the newer ranks first, with no pair
classifier and no conflict record; chat turns and unrelated statements keep their order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from psychoagent import Memory
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig, MemoryConfig, RecallConfig
from psychoagent.memory.recall.latest import newer_first_pairs

START = datetime(2024, 3, 4, 9, tzinfo=UTC)
EARLIER = "For team dinners, book a steakhouse, everyone loves the grill."
LATER = "The team voted that team dinners should be at a vegetarian place from now on."
FILLERS = ["Remind me to call my mother on Sunday.", "Add milk and eggs to the shopping list.",
           "The plumber is coming on Wednesday afternoon.", "Note that Tom's birthday is on the 14th."]  # fmt: skip
REQUEST = "Book a restaurant for Thursday's team dinner."


def stored(texts: list[str], **recall: int) -> Memory:
    """A fresh e5 memory, conflict detection off (no record, no superseding), the texts a week apart."""
    config = MemoryConfig(recall=RecallConfig(**recall))  # type: ignore[arg-type]
    mem = Memory(config=config, affect_config=AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False)))
    for i, text in enumerate(texts):
        mem.observe(text, timestamp=START + timedelta(days=7 * i))
    return mem


def test_pairs_are_mutual_nearest_statements_that_both_answer_well() -> None:
    created = np.array([1.0, 2.0, 3.0])
    relevance = np.array([1.0, 0.7, 0.3])
    similarity = np.array([[1.0, 0.8, 0.55], [0.8, 1.0, 0.6], [0.55, 0.6, 1.0]])
    pairs = newer_first_pairs(created, relevance, similarity, share=0.6, floor=0.5)
    assert pairs[0, 1]  # each other's nearest, the newer answers 0.7 as well
    assert not pairs[1, 0]  # never the older above the newer
    assert not pairs[1, 2] and not pairs[0, 2]  # 2 is nobody's nearest and answers much less well
    assert pairs.sum() == 1
    assert not newer_first_pairs(
        created, relevance, similarity, share=0.6, floor=0.9
    ).any()  # not similar enough
    weak = newer_first_pairs(created, np.array([1.0, 0.5, 0.3]), similarity, share=0.6, floor=0.5)
    assert not weak.any()  # the newer answers only half as well


def test_the_later_instruction_ranks_first() -> None:
    mem = stored([FILLERS[0], EARLIER, FILLERS[1], FILLERS[2], LATER, FILLERS[3]])
    order = [h.unit.content for h in mem.recall(REQUEST, k=5, now=START + timedelta(days=60))]
    assert order.index(LATER) < order.index(EARLIER)
    assert order[:2] == [LATER, EARLIER]  # the older one stays, right below
    mem.close()
    off = stored([FILLERS[0], EARLIER, FILLERS[1], FILLERS[2], LATER, FILLERS[3]], latest_candidates=0)
    order = [h.unit.content for h in off.recall(REQUEST, k=5, now=START + timedelta(days=60))]
    assert order.index(EARLIER) < order.index(LATER)  # what the stage changes
    off.close()


def test_two_chat_turns_keep_their_order() -> None:
    turns = [f"Ana: {EARLIER}", f"Ben: {LATER}"]
    with_stage, without = stored(turns), stored(turns, latest_candidates=0)
    now = START + timedelta(days=60)
    assert [h.unit.id for h in with_stage.recall(REQUEST, k=2, now=now)] == [
        h.unit.id for h in without.recall(REQUEST, k=2, now=now)
    ]
    with_stage.close()
    without.close()
