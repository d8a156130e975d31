"""Multi-hop expansion on a small hand-made conversation: the second hop is found through the entity it shares
with the first."""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.expand import entity_factor, entity_terms
from tests.memory.test_conversation import FILLER, MAY_20, chat, ids

MOVED = "Ana: I moved here from my home country four years ago."
NECKLACE = "Ana: This necklace is a gift from my grandma back in my home country, Sweden."
ANA_FILLER = [
    "Ana: I baked bread with my neighbour this morning.",
    "Ana: My cat sleeps on the sofa all day.",
    "Ana: I painted the kitchen a pale green.",
]


def sessions() -> list:
    """Three sessions: the move, unrelated chat, and the necklace that names the country a week later."""
    return [
        (MAY_20, [*FILLER[:2], MOVED, *ANA_FILLER[:1]]),
        (MAY_20 + timedelta(days=3), [*ANA_FILLER[1:], *FILLER[2:4]]),
        (MAY_20 + timedelta(days=7), [*FILLER[4:], NECKLACE]),
    ]


def test_the_second_hop_is_found_through_a_shared_entity() -> None:
    query = "Where did Ana move from?"  # the answer-type stage off: this test isolates the expansion
    assert "D3:3" not in ids(chat(sessions(), expand_weight=0.0, answer_type_weight=0.0), query, k=6)
    hits = chat(sessions(), expand_weight=1.0, answer_type_weight=0.0).recall(query, k=4)
    assert hits[0].unit.id == "D1:3" and hits[0].parts["entity"] == 1.0  # the first hop, a seed
    assert hits[3].unit.id == "D3:3" and hits[3].parts["entity"] > 1.5  # shares 'home country' with it


def test_entities_are_the_rare_words_a_unit_shares() -> None:
    mem = chat(sessions())
    index: NamespaceIndex = mem._index()
    row = index.row_of["D1:3"]
    terms = entity_terms(index, row, max_share=0.005)
    assert {"home", "countri"} <= set(terms)  # shared with the necklace turn
    assert "ana" not in terms and "my" not in terms  # words of many units are not entities
    assert "moved" not in terms and "move" not in terms  # a word of this unit only links to nothing


def test_entity_factor_ignores_seeds_of_the_same_session() -> None:
    shared = np.array([[1.0, 0.5, 0.0], [0.0, 0.2, 1.0]])
    other = np.array([[False, True, True], [True, True, False]])
    assert entity_factor(shared, other, 0.5).tolist() == [1.0, 1.25, 1.0]
