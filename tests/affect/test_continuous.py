"""Continuous affect: scores and their label bands, the shipped heads, which head a memory gets, score order."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from psychoagent import Memory
from psychoagent.affect import HeuristicAppraiser, OutcomeEvent, appraise_outcome
from psychoagent.affect.features import FEATURE_NAMES
from psychoagent.affect.head import load_heads
from psychoagent.cli import app
from psychoagent.types import SCORE_BANDS, Affect

HASH = {"embedder": "hash-256"}


@pytest.fixture(scope="module")
def appraiser() -> HeuristicAppraiser:
    return HeuristicAppraiser()


def test_labels_alone_still_validate_and_old_json_loads() -> None:
    affect = Affect(valence=1, arousal=2)
    assert (affect.valence_score, affect.arousal_score) == (1.0, 2.0)
    old = '{"valence": -2, "arousal": 3, "conflict_intensity": 1, "conflict_parties": [], "reason": "x"}'
    loaded = Affect.model_validate_json(old)
    assert (loaded.valence, loaded.valence_score, loaded.arousal, loaded.arousal_score) == (-2, -2.0, 3, 3.0)
    assert Affect().valence_score == 0.0 and Affect.neutral().arousal_score == 1.0


def test_scores_alone_set_the_labels_and_disagreement_is_an_error() -> None:
    affect = Affect(valence_score=-0.7, arousal_score=2.35)
    assert (affect.valence, affect.arousal) == (-1, 3)
    with pytest.raises(ValueError, match="valence_score"):
        Affect(valence=2, valence_score=0.1)
    with pytest.raises(ValueError, match="arousal_score"):
        Affect(arousal_score=3.5)
    coerced = Affect(valence=1.0, arousal="3")  # numbers as JSON may bring them: the score follows the label
    assert (coerced.valence_score, coerced.arousal_score) == (1.0, 3.0)


@given(st.floats(-2, 2), st.floats(1, 3))
def test_labels_are_the_bands_of_the_scores(valence: float, arousal: float) -> None:
    affect = Affect(valence_score=valence, arousal_score=arousal)
    assert affect.valence == SCORE_BANDS.valence_label(valence)
    assert affect.arousal == SCORE_BANDS.arousal_label(arousal)
    assert Affect.model_validate_json(affect.model_dump_json()) == affect


def test_clamping_a_label_moves_the_score_into_its_band() -> None:
    affect = Affect(valence_score=0.3, arousal_score=2.1).with_labels(valence=-1, arousal=3)
    assert (affect.valence, affect.valence_score, affect.arousal, affect.arousal_score) == (-1, -1.0, 3, 3.0)
    kept = Affect(valence_score=-0.8).with_labels(valence=-1)
    assert kept.valence_score == -0.8


SENTENCES = [
    "Great news: the deployment succeeded and the client is happy.",
    "The payment failed and the customer is furious.",
    "URGENT: the server crashed unexpectedly!",
    "The user read the weekly report.",
    "今天真开心，项目成功了！",
    "任务失败了，客户非常生气。",
    "紧急：服务器突然崩溃了！",
    "会议室在三楼。",
]


@pytest.mark.parametrize("context", [None, HASH], ids=["combined", "lexical"])
def test_appraised_scores_are_in_range_and_banded(appraiser: HeuristicAppraiser, context: object) -> None:
    for text in SENTENCES:
        affect = appraiser.appraise(text, context=context)
        assert -2 <= affect.valence_score <= 2 and 1 <= affect.arousal_score <= 3
        assert affect.valence == SCORE_BANDS.valence_label(affect.valence_score)
        assert affect.arousal == SCORE_BANDS.arousal_label(affect.arousal_score)


@pytest.mark.parametrize("context", [None, HASH], ids=["combined", "lexical"])
@pytest.mark.parametrize(
    ("positive", "negative", "calm", "alarming"),
    [
        ("I am so happy, we won the award and everyone is celebrating!",
         "My dog died this morning and I feel terrible.",
         "The meeting notes were filed in the usual folder.",
         "Help! The building is on fire and people are trapped!"),
        ("今天真开心，我们获奖了，大家都在庆祝！", "任务失败了，客户非常生气。", "会议纪要已经放在文件夹里。",
         "紧急！大楼着火了，有人被困！"),
    ],
    ids=["en", "zh"],
)  # fmt: skip
def test_scores_order_clear_sentences(
    appraiser: HeuristicAppraiser, context: object, positive: str, negative: str, calm: str, alarming: str
) -> None:
    score = {t: appraiser.appraise(t, context=context) for t in (positive, negative, calm, alarming)}
    assert score[positive].valence_score > score[calm].valence_score > score[negative].valence_score
    assert score[alarming].arousal_score > score[calm].arousal_score


def test_heads_load_from_package_data_alone() -> None:
    heads = load_heads()
    assert heads.embedder == "e5-small" and heads.dim == 384
    assert heads.lexical.vector is None and heads.combined.vector is not None
    assert heads.combined.vector.shape == (2, 384)
    assert tuple(heads.meta["features"]) == FEATURE_NAMES
    assert "EmoBank" in heads.meta["training_data"]["name"]
    assert heads.meta["training_data"]["licence"] == "CC BY-SA 4.0"
    assert heads.meta["dev_pearson_r"]["combined/valence"] > 0


def test_heads_reject_features_they_were_not_fitted_on(tmp_path) -> None:
    from importlib import resources

    data = resources.files("psychoagent") / "data"
    meta = json.loads((data / "affect_head.json").read_text(encoding="utf-8"))
    meta["features"] = ["something", "else"]
    bad = tmp_path / "meta.json"
    bad.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match="refit"):
        load_heads(meta=bad)


class FakeE5:
    """Stands in for the e5 embedder (same name and size) and counts how often it embeds."""

    name, dim = "e5-small", 384

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.texts: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        self.texts.extend(texts)
        rng = np.random.default_rng(len(texts))
        vectors = rng.normal(size=(len(texts), self.dim)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    embed_queries = embed_documents


def _no_embedding(texts: list[str]) -> np.ndarray:
    raise AssertionError("the appraiser must not embed inside a memory")


def test_hash_memory_uses_the_lexical_head_and_never_embeds_for_appraisal(monkeypatch) -> None:
    mem = Memory(embedder="hash")
    monkeypatch.setattr(mem.appraiser, "_embed", _no_embedding)
    units = mem.observe_many(
        ["The payment failed and the customer is furious.", "All tests passed, great work!"]
    )
    units.append(mem.observe("URGENT: the server crashed unexpectedly!"))
    assert all("lexical head" in u.affect.reason or "Rule" in u.affect.reason for u in units)
    assert units[0].affect.valence_score < 0 < units[1].affect.valence_score
    assert "lexical head" in mem.appraise("The report was filed.").reason
    assert mem.recall("payment", k=1, context="The payment failed again!")  # context appraised, no embedding


def test_e5_memory_passes_its_vectors_in_one_batch(monkeypatch) -> None:
    embedder = FakeE5()
    mem = Memory(embedder=embedder)
    monkeypatch.setattr(mem.appraiser, "_embed", _no_embedding)
    texts = [f"Report {i} was filed on time." for i in range(5)]
    units = mem.observe_many(texts)
    # one batch for appraisal; storing found the units' vectors cached and embedded only the value-swapped older
    # sentences the e5 pair scorer reads ("Report 0 was filed on time." with the newer report's number)
    assert embedder.calls[0] == 5 and embedder.texts[:5] == texts
    assert not set(embedder.texts[5:]) & set(texts)
    assert all("combined head" in u.affect.reason for u in units)
    assert "combined head" in mem.observe("One more report was filed.").affect.reason


def test_outcome_scores_are_bands_of_the_integer_results() -> None:
    for actual in (40, 70, 95, 100, 104, 130, 250):
        for stake in (0.0, 0.01, 0.1, 0.3, 1.0):
            affect = appraise_outcome(OutcomeEvent(expected=100, actual=actual, stake=stake))
            assert affect.valence == SCORE_BANDS.valence_label(affect.valence_score)
            assert affect.arousal == SCORE_BANDS.arousal_label(affect.arousal_score)
    worse = appraise_outcome(OutcomeEvent(expected=100, actual=60, stake=0.2))
    bad = appraise_outcome(OutcomeEvent(expected=100, actual=80, stake=0.2))
    assert worse.valence_score < bad.valence_score < 0 and worse.arousal_score > bad.arousal_score


def test_cli_prints_both_scores() -> None:
    result = CliRunner().invoke(app, ["appraise", "The payment failed and the customer is furious."])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["valence_score"] < 0 and 1 <= data["arousal_score"] <= 3
    assert data["valence"] == SCORE_BANDS.valence_label(data["valence_score"])


def test_standalone_batch_embeds_once_and_cache_size_zero_works() -> None:
    from psychoagent.affect.config import AffectConfig, HeuristicConfig

    appraiser = HeuristicAppraiser()
    fake = FakeE5()
    appraiser._embedder = fake
    texts = ["The shipment arrived.", "The shipment was lost!", "The shipment arrived."]
    appraiser.prepare(texts)
    affects = [appraiser.appraise(t) for t in texts]
    assert fake.calls == [2] and all("combined head" in a.reason for a in affects)
    uncached = HeuristicAppraiser(AffectConfig(heuristic=HeuristicConfig(vector_cache=0)))
    uncached._embedder = FakeE5()
    assert "combined head" in uncached.appraise("The shipment arrived.").reason
    off = HeuristicAppraiser(AffectConfig(heuristic=HeuristicConfig(embed_missing=False)))
    off._embedder = None
    assert "lexical head" in off.appraise("The shipment arrived.").reason and off._embedder is None


def test_goal_conflict_demands_attention(appraiser: HeuristicAppraiser) -> None:
    affect = appraiser.appraise(
        "The user raised the budget from 1000 to 3000 yuan.", ["Keep the total budget under 2000 yuan"], HASH
    )
    assert affect.conflict_intensity >= 3 and affect.valence <= -1 and affect.arousal >= 2
