"""The differing words of a fact pair and the span features built from their embeddings (`memory.spans`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from psychoagent.memory.conflicts.detect import LABELS, Candidate, PairScorer, judge
from psychoagent.memory.conflicts.pairs import FEATURES
from psychoagent.memory.conflicts.spans import (
    SPAN_FEATURES,
    WordVectors,
    content_words,
    differing_words,
    span_features,
)

_KINDS = {"job": ("pharmacist", "carpenter", "schoolteacher", "药剂师", "木匠"), "city": ("berlin", "lisbon")}


def _fake_embed(calls: list[list[str]]) -> WordVectors:
    """Word vectors where words of one kind (jobs, cities) lie close and every other word points its own way."""

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        rows = []
        for text in texts:
            v = np.zeros(64)
            kind = next((i for i, (_, words) in enumerate(_KINDS.items()) if text in words), None)
            if kind is not None:
                v[kind] = 3.0
            v[8 + sum(map(ord, text)) % 56] += 1.0
            rows.append(v / np.linalg.norm(v))
        return np.asarray(rows)

    return WordVectors(embed)


def test_differing_words_are_each_sides_own_content_words_in_both_languages() -> None:
    assert differing_words("Tom is a pharmacist.", "Tom now works as a carpenter.") == (
        ("pharmacist",),
        ("works", "carpenter"),
    )
    assert differing_words("Tom is a pharmacist.", "Tom is a pharmacist at the Main Street clinic.")[0] == ()
    old, new = differing_words("汤姆是药剂师。", "汤姆现在当木匠了。")
    assert "药剂师" in old and "木匠" in new
    assert "the" not in content_words("The meeting is on Tuesday.")


def test_two_values_of_one_kind_match_and_an_added_detail_does_not() -> None:
    calls: list[list[str]] = []
    words = _fake_embed(calls)
    job = ("Tom is a pharmacist.", "Tom now works as a carpenter.")
    detail = ("Tom is a pharmacist.", "Tom is a pharmacist who likes chess.")
    other = ("Tom lives in Berlin.", "Tom now works as a carpenter.")
    for pair in (job, detail, other):
        words.need([*content_words(pair[0]), *content_words(pair[1])])
    f = {name: dict(zip(SPAN_FEATURES, span_features(*pair, words), strict=True))
         for name, pair in (("job", job), ("detail", detail), ("other", other))}  # fmt: skip
    assert f["job"]["value_match"] > 0.8 > f["other"]["value_match"]
    assert f["job"]["old_matched_by_new"] == 1.0
    assert f["detail"]["old_words_none"] == 1.0 and f["detail"]["value_match"] == 0.0
    assert f["job"]["old_words_none"] == 0.0 and f["job"]["new_words_none"] == 0.0
    seen = [w for call in calls for w in call]
    assert len(seen) == len(set(seen))  # each word embedded once


def _scorer_with_spans(tmp_path, names: list[str]) -> PairScorer:
    """A scorer whose only nonzero weight lets the span feature value_match raise the update logit."""
    width = len(FEATURES) + len(SPAN_FEATURES)
    coef = np.zeros((len(LABELS), width))
    coef[0, len(FEATURES) + SPAN_FEATURES.index("value_match")] = 20.0
    weights = {"features": list(FEATURES), "labels": list(LABELS), "mean": [0.0] * width, "scale": [1.0] * width,
               "coef": coef.tolist(), "intercept": [-10.0, -5.0, 0.0, 0.0], "spans": {"features": names}}  # fmt: skip
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(weights))
    return PairScorer.load(path)


def test_a_scorer_reading_spans_refuses_other_span_features_and_needs_the_embedder(tmp_path) -> None:
    with pytest.raises(ValueError, match="span features"):
        _scorer_with_spans(tmp_path, ["value_match"])
    scorer = _scorer_with_spans(tmp_path, list(SPAN_FEATURES))
    assert scorer.reads_spans
    cand = Candidate("a", "Tom is a pharmacist.", 0.0, 0.6)
    with pytest.raises(ValueError, match="embedded words"):
        judge(scorer, "Tom now works as a carpenter.", 1.0, [cand], 0.5, 0.5)
    calls: list[list[str]] = []
    embed = _fake_embed(calls).embed
    verdicts = judge(scorer, "Tom now works as a carpenter.", 1.0, [cand], 0.5, 0.5, embed=embed)
    assert [v.label for v in verdicts] == ["update"]
    unrelated = Candidate("b", "Tom lives in Berlin.", 0.0, 0.6)
    assert judge(scorer, "Tom now works as a carpenter.", 1.0, [unrelated], 0.5, 0.5, embed=embed) == []


def test_rows_without_the_span_block_are_read_at_its_training_mean(tmp_path) -> None:
    scorer = _scorer_with_spans(tmp_path, list(SPAN_FEATURES))
    narrow = np.zeros((1, len(FEATURES)))
    full = np.concatenate([narrow, np.zeros((1, len(SPAN_FEATURES)))], axis=1)
    assert np.allclose(scorer.probabilities(narrow), scorer.probabilities(full))  # the mean is 0 here
    full[0, len(FEATURES) + SPAN_FEATURES.index("value_match")] = 1.0
    assert scorer.probabilities(full)[0, 0] > scorer.probabilities(narrow)[0, 0]
