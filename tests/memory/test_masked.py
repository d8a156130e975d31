"""Masked-predicate similarity and the second-stage scorer (`memory.masked`, `memory.second_stage`)."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

from psychoagent import Memory
from psychoagent.embed import get_embedder
from psychoagent.memory.config import AffectiveMemoryConfig
from psychoagent.memory.conflicts.detect import PairScorer, normalised_similarity, second_for
from psychoagent.memory.conflicts.masked import MASK, mask_pair
from psychoagent.memory.conflicts.pairs import FEATURES, pair_features, vector_features
from psychoagent.memory.conflicts.second_stage import SECOND_FEATURES, SecondStage, decide, shares_subject

T0, T1, T2 = "2024-03-01T09:00:00Z", "2024-04-01T09:00:00Z", "2024-05-01T09:00:00Z"


def test_the_differing_words_become_one_placeholder_in_english() -> None:
    old, new, share_old, share_new = mask_pair(
        "Tom works as a pharmacist.", "Tom is employed as a carpenter."
    )
    assert old == f"Tom {MASK['en']} as a {MASK['en']}." and new == f"Tom is {MASK['en']} as a {MASK['en']}."
    assert share_old == pytest.approx(2 / 3) and share_new == pytest.approx(2 / 3)
    old, new, _, _ = mask_pair("Tom's Toyota is red.", "Tom's Toyota had its tyres changed.")
    assert old == f"Tom's Toyota is {MASK['en']}." and new == f"Tom's Toyota had its {MASK['en']}."


def test_the_differing_words_become_one_placeholder_in_chinese_and_names_stay() -> None:
    old, new, _, _ = mask_pair("汤姆是一名药剂师。", "汤姆现在在做木匠。")
    assert old.startswith("汤姆") and new.startswith("汤姆")
    assert "药剂师" not in old and "木匠" not in new and MASK["zh"] in old and MASK["zh"] in new
    old, new, _, _ = mask_pair("张伟住在北京。", "张伟搬到了上海。")  # jieba cuts "张伟住": the name stays
    assert "张伟" in old and "张伟" in new and "北京" not in old and "上海" not in new


def test_second_stage_weights_load_from_the_package_without_the_data_sets() -> None:
    stage = SecondStage.load()
    assert len(stage.mean) == len(SECOND_FEATURES) and stage.coef.shape == (4, len(SECOND_FEATURES))
    low, high = stage.band
    assert 0.0 <= low < high <= 1.0
    assert stage.meta.get("fitted_by") == "benchmarks/fit_masked.py"
    raw = json.loads(resources.files("psychoagent").joinpath("data/pair_scorer_masked.json").read_text())
    assert raw["embedder"] == stage.embedder == "e5-small"


def test_second_stage_refuses_weights_for_other_features(tmp_path) -> None:
    path = tmp_path / "w.json"
    weights = json.loads(resources.files("psychoagent").joinpath("data/pair_scorer_masked.json").read_text())
    weights["features"] = ["x"]
    path.write_text(json.dumps(weights))
    with pytest.raises(ValueError, match="other features"):
        SecondStage.load(path)


def test_the_hashing_embedder_gets_no_second_stage() -> None:
    cfg = AffectiveMemoryConfig().conflicts.model_copy(update={"second_stage": True})
    assert second_for(cfg, "hash-256") is None
    assert second_for(cfg, "e5-small") is not None
    assert second_for(cfg.model_copy(update={"detect_changes": False}), "e5-small") is None


def test_a_pair_about_two_people_is_not_handed_to_the_second_stage() -> None:
    from psychoagent.memory.conflicts.pairs import pair_features

    assert shares_subject(pair_features("Tom works as a pharmacist.", "Tom is employed as a carpenter.", 0.8))
    assert not shares_subject(
        pair_features("Tom works as a pharmacist.", "Anna is employed as a carpenter.", 0.8)
    )


def _decided(old: str, new: str, second: bool, embedder: str = "e5") -> tuple[bool, bool]:
    """(conflict record between the two, older one superseded) after old, an unrelated fact, new."""
    config = AffectiveMemoryConfig()
    config = config.model_copy(
        update={"conflicts": config.conflicts.model_copy(update={"second_stage": second})}
    )
    mem = Memory(embedder=embedder, affect_config=config)
    first = mem.observe(old, timestamp=T0)
    mem.observe("The printer on the third floor is out of toner.", timestamp=T1)
    later = mem.observe(new, timestamp=T2)
    records = [r for r in mem.conflicts() if {r.side_a, r.side_b} == {first.id, later.id}]
    stale = mem.get(first.id)
    assert stale is not None and len(mem) == 3  # nothing deleted
    return bool(records), stale.invalid_at is not None


def _first_stage(
    pairs: list[tuple[str, str]],
) -> tuple[list[np.ndarray], np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """First-stage feature rows, probabilities and the pairs' e5 vectors, as the write path computes them."""
    embedder = get_embedder("e5")
    scorer = PairScorer.load(None, embedder.name)
    rows, vecs = [], []
    for old, new in pairs:
        v = embedder.embed_documents([old, new])
        dense = float(normalised_similarity(float(v[0] @ v[1]), embedder.similarity_floor))
        rows.append(np.concatenate([pair_features(old, new, dense), vector_features(v[0], v[1])]))
        vecs.append((v[0], v[1]))
    return [r[: len(FEATURES)] for r in rows], scorer.probabilities(np.stack(rows)), vecs


def test_the_second_stage_decides_an_unseen_implicit_rewording_with_one_embedder_call() -> None:
    pairs = [
        ("Mirela's home is in Cluj.", "Mirela has her home in Timișoara."),  # same attribute, other words
        ("Mirela's home is in Cluj.", "Dorin has his home in Timișoara."),  # another person: not handed over
    ]
    firsts, probs, vecs = _first_stage(pairs)
    stage = SecondStage.load()
    assert stage.in_band(probs[0], firsts[0]) and not stage.in_band(probs[1], firsts[1])
    calls: list[list[str]] = []
    embedder = get_embedder("e5")

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return embedder.embed_documents(texts)

    verdicts = decide(stage, pairs, firsts, probs, vecs, embed, embedder.similarity_floor)
    assert verdicts[0] in ("update", "contradiction", None) and verdicts[1] is False
    assert calls == [sorted(mask_pair(*pairs[0])[:2])]  # both masked sentences, one call
    decide(stage, pairs, firsts, probs, vecs, embed, embedder.similarity_floor)
    assert len(calls) == 1  # cached by masked text


def test_an_added_detail_stays_compatible_with_the_second_stage_on() -> None:
    assert _decided("Henrik drives a green Saab.", "Henrik's Saab got new winter tyres.", second=True) == (
        False,
        False,
    )


@pytest.mark.xfail(
    reason="known limit: a job change with no shared word but the subject; since the scorer learns from plain-word "
    "dev pairs, in which 'now' often adds a present fact to a past one, its first-stage update probability is 0.26"
)
def test_a_job_change_in_other_words_is_an_update_with_the_second_stage_on() -> None:
    assert _decided(
        "Henrik earns his living as a baker.", "Henrik makes a living as a bus driver now.", True
    ) == (
        True,
        True,
    )


def test_the_hashing_path_never_masks_and_decides_as_without_the_second_stage(monkeypatch) -> None:
    from psychoagent.memory.conflicts import second_stage

    calls: list[tuple[str, str]] = []
    real = second_stage.mask_pair
    monkeypatch.setattr(second_stage, "mask_pair", lambda *a: calls.append(a) or real(*a))
    pairs = [
        ("Henrik earns his living as a baker.", "Henrik makes a living as a bus driver now."),
        ("Henrik drives a green Saab.", "Henrik's Saab got new winter tyres."),
        ("Ada lives in Rome.", "Ada moved to Oslo."),
    ]
    for old, new in pairs:
        assert _decided(old, new, True, "hash") == _decided(old, new, False, "hash")
    assert calls == []
