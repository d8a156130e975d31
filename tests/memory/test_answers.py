"""The briefing's answer rule: two recalled facts about one subject that answer the question alike and that the pair
scorer leans to read as a change are shown as a conflict without a stored record."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent import Memory
from psychoagent.affect.config import AffectiveMemoryConfig, ConflictConfig
from psychoagent.memory import answers


class _Leaning:
    """A pair scorer reading every pair as update 0.35, contradiction 0.15 (below the write thresholds)."""

    vector_dim = 0

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        return np.tile([0.35, 0.15, 0.45, 0.05], (len(np.atleast_2d(rows)), 1))


def _memory(newer: str, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """The older and the newer fact stored with detection off (no record), detection on for the briefing."""
    mem = Memory(embedder="hash", affect_config=AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False)))
    mem.observe("Ruth works as a software engineer.", timestamp="2024-05-01T00:00:00Z")
    mem.observe(newer, timestamp="2024-06-01T00:00:00Z")
    mem.affect_config = AffectiveMemoryConfig()
    monkeypatch.setattr(answers, "scorer_for", lambda conf, name: _Leaning())
    return mem


def test_two_answers_to_the_question_about_one_subject_are_shown_as_a_conflict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mem = _memory("Ruth works as a nurse.", monkeypatch)
    assert mem.conflicts() == []
    brief = mem.brief("Ruth works as what?", k=2)
    (record,) = brief.conflicts
    assert record.kind == "update" and record.metadata["detected"] == "briefing"
    assert "software engineer" in record.description_a and "nurse" in record.description_b
    assert mem.conflicts() == []  # transient: nothing stored


def test_a_newer_fact_that_answers_another_question_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    mem = _memory("Ruth lives in Lisbon near the river.", monkeypatch)
    assert mem.brief("Ruth works as what?", k=2).conflicts == []


def test_below_the_mass_or_with_detection_off_nothing_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    mem = _memory("Ruth works as a nurse.", monkeypatch)
    mem.affect_config.conflicts.brief_conflict_mass = 0.6
    assert mem.brief("Ruth works as what?", k=2).conflicts == []
    mem.affect_config = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
    assert mem.brief("Ruth works as what?", k=2).conflicts == []
