"""The value-swapped older sentence (`values.swapped`) and the swap features a write-time scorer reads."""

from __future__ import annotations

import numpy as np

from psychoagent.memory.conflicts.detect import LABELS, PairScorer
from psychoagent.memory.conflicts.pairs import FEATURES
from psychoagent.memory.conflicts.spans import SWAP_FEATURES, swap_features
from psychoagent.memory.conflicts.values import swapped


def test_the_older_sentence_takes_the_new_value_of_the_same_kind() -> None:
    assert (
        swapped("Hannah lives in Seattle.", "Hannah has a flat in Valencia.") == "Hannah lives in Valencia."
    )
    assert swapped("Tom can be reached on 555-0117.", "Tom's phone number is 555-0142.") == (
        "Tom can be reached on 555-0142."
    )
    assert swapped("周斌是一名护士。", "周斌被聘为建筑师。") == "周斌是一名建筑师。"
    # a Chinese name of two words with nothing between them is one value, swapped whole
    assert swapped("黄欣的东家是绿野农业。", "黄欣入职了北方保险。") == "黄欣的东家是北方保险。"
    assert swapped("宋浩在中央广场办公室上班。", "宋浩调到了机场园区。") == "宋浩在机场园区上班。"


def test_no_swap_without_a_differing_value_of_one_kind_on_both_sides() -> None:
    assert swapped("Anna has a flat in Lyon.", "Anna's place in Lyon has a small balcony.") is None
    assert swapped("Tom lives in Berlin.", "Tom lives in Berlin.") is None


def test_no_swap_onto_the_subject_of_a_fact_about_someone_it_has() -> None:
    # the swap would restate the newer sentence of Rafael himself: the value is his brother's
    assert swapped("Rafael lives in Porto.", "Rafael's brother lives in Lisbon.") is None
    assert swapped("孙浩住在杭州。", "孙浩的哥哥住在上海。") is None
    # a thing the older sentence names too, or an attribute worded as a possession, still swaps
    assert swapped("Rafael's brother lives in Porto.", "Rafael's brother lives in Lisbon.") == (
        "Rafael's brother lives in Lisbon."
    )
    assert swapped("You can call Chloe on 555-0142.", "Chloe's phone number is 555-0178.") == (
        "You can call Chloe on 555-0178."
    )


def test_swap_features_read_how_much_closer_the_swap_comes() -> None:
    old, new = np.array([1.0, 0.0]), np.array([0.6, 0.8])
    assert np.array_equal(swap_features(old, new, None), np.zeros(len(SWAP_FEATURES)))
    plan, gain, fill = swap_features(old, new, np.array([0.0, 1.0]))
    assert plan == 1.0 and np.isclose(gain, 0.8 - 0.6) and np.isclose(fill, 0.8)
    assert np.isclose(swap_features(old, new, np.array([0.0, 1.0]), floor=0.6)[2], 0.5)


def test_rows_without_the_swap_block_are_read_at_its_training_mean() -> None:
    d = len(FEATURES) + len(SWAP_FEATURES)
    coef = np.zeros((len(LABELS), d))
    coef[0, -2] = 3.0  # swap_gain raises the update logit
    weights = {"features": list(FEATURES), "labels": list(LABELS), "mean": [0.0] * d, "scale": [1.0] * d,
               "coef": coef.tolist(), "intercept": [0.0] * len(LABELS), "swaps": {"features": list(SWAP_FEATURES)}}  # fmt: skip
    scorer = PairScorer(weights)
    assert scorer.reads_swaps
    narrow = np.zeros((1, len(FEATURES)))
    full = np.zeros((1, d))
    assert np.allclose(scorer.probabilities(narrow), scorer.probabilities(full))
    full[0, -2] = 1.0
    assert scorer.probabilities(full)[0, 0] > scorer.probabilities(narrow)[0, 0]
