"""The briefing's answer rule: two recalled facts about one subject that answer the question alike and that the pair
scorer leans to read as a change are shown as a conflict without a stored record."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent import Memory
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig
from psychoagent.memory.conflicts import answer_words, answers


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
    mem.affect_config.conflicts.brief_answer_mass = 0.6
    assert mem.brief("Ruth works as what?", k=2).conflicts == []
    mem.affect_config = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
    assert mem.brief("Ruth works as what?", k=2).conflicts == []


@pytest.mark.parametrize(
    ("old", "new", "question", "replaced"),
    [
        (
            "Felix follows a gluten-free diet.",
            "Felix's diet is vegetarian.",
            "What diet does Felix follow?",
            True,
        ),
        (
            "Ken drives a red Toyota.",
            "Ken's Toyota had its tyres changed.",
            "What car does Ken drive?",
            False,
        ),
        ("Tom can be reached on 555-0117.", "Tom's phone number is 555-0142.", "How do I call Tom?", True),
        (
            "Leo can be reached on 555-0160.",
            "Leo's number 555-0160 also works on WhatsApp.",
            "Leo's number?",
            False,
        ),
        ("Mia's email is a.b@post.net.", "Mia's email is c.d@mail.com.", "What is Mia's email?", True),
        ("赵敏的专业是计算机。", "赵敏在大学学生物。", "赵敏的专业是什么？", True),
        ("韩雪是夜枭公会的成员。", "韩雪每周六带夜枭的团打副本。", "韩雪在哪个公会？", False),
        ("孙杰平时去盒马采购。", "孙杰办了盒马的会员卡。", "孙杰每周在哪里买菜？", False),
        ("Ruth works as a nurse.", "Ruth works as a nurse.", "What is Ruth's job?", False),
    ],
)
def test_replaces_answer_reads_the_words_beyond_the_question(
    old: str, new: str, question: str, replaced: bool
) -> None:
    assert answer_words.replaces_answer(old, new, question) is replaced


class _Unsure:
    """A pair scorer reading every pair as update 0.3, contradiction 0.05: between the two briefing masses."""

    vector_dim = 0

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        return np.tile([0.3, 0.05, 0.6, 0.05], (len(np.atleast_2d(rows)), 1))


@pytest.mark.parametrize(
    ("newer", "replaced"),
    [("Ruth works as a nurse.", True), ("Ruth works long hours as an engineer.", False)],
)
def test_a_replaced_answer_needs_less_evidence_than_a_kept_one(
    newer: str, replaced: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = _memory(newer, monkeypatch)
    (leaning,) = mem.brief("Ruth works as what?", k=2).conflicts  # both answer the question: the gate passes
    assert leaning.metadata["answer_replaced"] is replaced
    monkeypatch.setattr(answers, "scorer_for", lambda conf, name: _Unsure())
    assert bool(mem.brief("Ruth works as what?", k=2).conflicts) is replaced


def test_the_speakers_own_facts_share_their_subject() -> None:
    """Instructions to the assistant and "I"/"my" facts are the speaker's; a named person or a relative is not."""
    assert answers.speakers_own(
        "For team dinners, book a steakhouse.", "My team wants a vegetarian place now."
    )
    assert not answers.speakers_own("Book a steakhouse for dinner.", "Ruth wants a vegetarian place now.")
    assert not answers.speakers_own("I live in Leeds.", "My sister lives in York.")


def test_a_replaced_answer_may_be_less_relevant_to_the_request() -> None:
    """The newer fact that replaces the older one's answer needs brief_replaced_relevance of its relevance, the
    others recall_close_relevance."""
    conf = ConflictConfig()
    assert conf.brief_replaced_relevance < conf.recall_close_relevance
    assert answers.answers_alike(1.0, 0.76, conf.brief_replaced_relevance)
    assert not answers.answers_alike(1.0, 0.76, conf.recall_close_relevance)
