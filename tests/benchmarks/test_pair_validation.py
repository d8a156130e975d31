"""Pair-level validation: the AUC and flag rates it reports, and that validation sets are never fitted on."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.pair_data import NATURAL_DEV, VALIDATION
from benchmarks.pair_validation import auc, rates
from psychoagent.memory.conflicts.detect import PairScorer


def test_auc_counts_pairs_ranked_right_and_ties_half() -> None:
    assert auc(np.array([0.9, 0.8, 0.1]), np.array([True, True, False])) == 1.0
    assert auc(np.array([0.2, 0.5, 0.5]), np.array([True, False, True])) == pytest.approx(0.25)
    assert np.isnan(auc(np.array([0.3]), np.array([True])))


def test_rates_flag_at_the_scorers_thresholds_by_label() -> None:
    scorer = PairScorer.load(embedder="e5-small")
    probs = np.array([
        [0.7, 0.1, 0.1, 0.1],  # update, flagged
        [0.1, 0.2, 0.6, 0.1],  # contradiction, missed
        [0.6, 0.0, 0.3, 0.1],  # compatible, flagged
        [0.2, 0.1, 0.6, 0.1],  # compatible, not flagged
        [0.1, 0.1, 0.1, 0.7],  # unrelated, not flagged
    ])  # fmt: skip
    r = rates(scorer, probs, np.array([0, 1, 2, 2, 3]))
    assert (r["changes"], r["compatible"], r["unrelated"]) == (0.5, 0.5, 0.0)
    assert r["n_changes"] == 2 and r["n_compatible"] == 2
    # change mass 0.8, 0.3 against 0.6, 0.3: three wins of four, a tie
    assert r["auc"] == pytest.approx(0.625)


def test_rates_flag_update_and_contradiction_near_certain_together_as_the_write_path_does() -> None:
    scorer = PairScorer.load(embedder="e5-small")
    probs = np.array([[0.45, 0.46, 0.05, 0.04], [0.40, 0.40, 0.15, 0.05]])  # mass 0.91 and 0.80
    assert rates(scorer, probs, np.array([2, 2]))["compatible"] == 0.5


def test_no_validation_set_is_fitted_on() -> None:
    assert not set(VALIDATION) & set(NATURAL_DEV)
    assert {"natural_dev4", "natural_dev10"} <= set(VALIDATION)
