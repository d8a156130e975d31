"""The pair reader: the joint passage, the band it re-scores, its packaged weights and how memory uses it."""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from typing import Any

import numpy as np
import pytest

from psychoagent.embed import get_embedder
from psychoagent.memory import Memory
from psychoagent.memory.config import ConflictConfig
from psychoagent.memory.conflicts import answers
from psychoagent.memory.conflicts.detect import PairScorer, reader_for, scorer_for
from psychoagent.memory.conflicts.reader import JOINT_FEATURES, joint_features, joint_text, reread

T0 = dt.datetime(2026, 3, 1, 9, tzinfo=dt.UTC)


def test_joint_text_marks_order_in_the_pairs_language() -> None:
    assert joint_text("Wen drives a Golf.", "He sold it.") == "Earlier: Wen drives a Golf. Later: He sold it."
    assert joint_text("王磊住在杭州。", "他搬到苏州了。") == "之前：王磊住在杭州。 后来：他搬到苏州了。"


def test_joint_block_is_the_passage_its_offset_and_two_similarities() -> None:
    old, new, joint = np.eye(4)[0], np.eye(4)[1], np.array([0.6, 0.8, 0.0, 0.0])
    block = joint_features(old, new, joint)
    assert block.shape == (2 * 4 + 2,)
    np.testing.assert_allclose(block[:4], joint)
    np.testing.assert_allclose(block[4:8], [0.1, 0.3, 0.0, 0.0])
    np.testing.assert_allclose(block[8:], [0.6, 0.8])


class _Reader:
    joint_band = 0.3
    joint_weight = 1.0

    def __init__(self, width: int = 3 + 2 * 2 + 2) -> None:
        self.rows: list[np.ndarray] = []
        self.mean = np.arange(width, dtype=np.float64)

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        self.rows.append(features)
        return np.tile([0.05, 0.05, 0.8, 0.1], (len(features), 1))


def test_reread_rescores_only_pairs_in_its_band_and_embeds_each_passage_once() -> None:
    texts = [("A lives in Rome.", "A moved to Oslo."), ("A lives in Rome.", "The sky is blue.")]
    rows = [np.ones(3), np.zeros(3)]
    vecs = [(np.eye(2)[0], np.eye(2)[1])] * 2
    probs = np.array([[0.6, 0.1, 0.2, 0.1], [0.1, 0.1, 0.2, 0.6]])
    calls: list[list[str]] = []

    def embed(batch: list[str]) -> np.ndarray:
        calls.append(list(batch))
        return np.tile([1.0, 0.0], (len(batch), 1))

    reader = _Reader()
    assert reread(reader, texts, rows, vecs, probs, embed) == [0]
    np.testing.assert_allclose(probs[0], [0.05, 0.05, 0.8, 0.1])  # re-scored in place
    np.testing.assert_allclose(probs[1], [0.1, 0.1, 0.2, 0.6])  # below the band: the first stage stands
    assert calls == [[joint_text(*texts[0])]] and reader.rows[0].shape == (1, 3 + 2 * 2 + 2)
    probs[0] = [0.6, 0.1, 0.2, 0.1]
    reread(reader, texts, rows, vecs, probs, embed)
    assert len(calls) == 1  # cached by passage


def test_reread_reads_missing_write_time_blocks_at_the_readers_mean() -> None:
    """A briefing row has no span or swap block: those columns, between the row and the joint block, are filled
    with the reader's training mean."""
    texts = [("A lives in Rome.", "A moved to Oslo.")]
    probs = np.array([[0.6, 0.1, 0.2, 0.1]])
    reader = _Reader(width=3 + 2 + 2 * 2 + 2)
    reread(reader, texts, [np.ones(3)], [(np.eye(2)[0], np.eye(2)[1])], probs, lambda b: np.ones((len(b), 2)))
    row = reader.rows[0][0]
    np.testing.assert_allclose(row[:3], 1.0)
    np.testing.assert_allclose(row[3:5], [3.0, 4.0])  # the reader's mean of the missing columns
    np.testing.assert_allclose(row[5:], joint_features(np.eye(2)[0], np.eye(2)[1], np.ones(2)))


def test_the_briefing_reads_its_candidate_pairs_with_the_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two recalled facts the briefing compares (no record written between them) go through the reader too."""
    seen: list[tuple[str, str]] = []

    def spy(reader: Any, texts: Any, rows: Any, vecs: Any, probs: Any, embed: Any) -> list[int]:
        seen.extend(texts)
        return reread(reader, texts, rows, vecs, probs, embed)

    monkeypatch.setattr(answers, "reread", spy)
    mem = Memory(embedder=get_embedder("e5"))
    mem.observe("The electricity bill is due on the 28th.", timestamp=T0)
    mem.observe("Electricity bill is 142 pounds this quarter.", timestamp=T0 + dt.timedelta(days=1))
    mem.brief("When is the electricity bill due?", k=5, now=T0 + dt.timedelta(days=2))
    mem.close()
    assert (
        "The electricity bill is due on the 28th.",
        "Electricity bill is 142 pounds this quarter.",
    ) in seen


def test_packaged_reader_fits_the_e5_scorer_and_only_it() -> None:
    cfg = ConflictConfig()
    scorer = scorer_for(cfg, "e5-small")
    reader = reader_for(cfg, "e5-small", scorer)
    assert reader is not None and reader.reads_joint and 0.0 < reader.joint_band < 0.5
    assert 0.0 < reader.joint_weight < 1.0  # a second opinion, averaged with the first stage
    assert len(reader.mean) == len(scorer.mean) + 2 * scorer.vector_dim + 2
    assert reader_for(cfg, "hash-256", scorer_for(cfg, "hash-256")) is None
    assert reader_for(cfg.model_copy(update={"reader": False}), "e5-small", scorer) is None


def test_reader_weights_for_other_joint_features_are_refused() -> None:
    text = resources.files("psychoagent").joinpath("data/pair_reader_e5.json").read_text(encoding="utf-8")
    raw = json.loads(text)
    assert raw["joint"]["features"] == list(JOINT_FEATURES)
    raw["joint"] = {"features": ["something_else"], "band": 0.2}
    with pytest.raises(ValueError, match="joint features"):
        PairScorer(raw)


def test_memory_reads_a_pronoun_replacement_with_the_reader_and_keeps_a_second_fact() -> None:
    """With e5, a change with no shared word ("He sold it ...") supersedes the older fact; a detail of the same
    car recorded later stays beside it (both written through `Memory`, the reader on by default)."""
    embedder = get_embedder("e5")
    mem = Memory(embedder=embedder)
    car = mem.observe("Tomasz drives a silver Skoda Octavia.", timestamp=T0)
    mem.observe("Tomasz's Skoda had new brake pads fitted in May.", timestamp=T0 + dt.timedelta(days=1))
    detail = mem.get(car.id)
    assert detail is not None and detail.invalid_at is None  # a detail replaces nothing
    mem.observe("Tomasz sold the Skoda and bought a red Mazda 3.", timestamp=T0 + dt.timedelta(days=2))
    stale = mem.get(car.id)
    assert stale is not None and stale.invalid_at is not None
    mem.close()
