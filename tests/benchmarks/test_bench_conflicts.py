"""Scoring of the conflict benchmark: the shared embedding cache is transparent, the rates count what they say."""

from __future__ import annotations

import math

import numpy as np

from benchmarks.bench_conflicts import Outcome, SharedCache, rates
from psychoagent.embed import get_embedder


def test_shared_cache_forwards_calibration_and_vectors() -> None:
    inner = get_embedder("hash")
    cache = SharedCache(inner)
    assert cache.name == inner.name and cache.similarity_floor == inner.similarity_floor
    assert cache.dense_weight == inner.dense_weight
    texts = ["Ken drives a red Toyota.", "肯开一辆红色丰田。"]
    assert np.allclose(cache.embed_documents(texts), inner.embed_documents(texts))
    assert np.allclose(cache.embed_queries(texts[:1]), inner.embed_queries(texts[:1]))


def _o(label: str, **kw: bool) -> Outcome:
    flags = {"both_in_top5": False, "newer_first": False, "flagged": False, "recorded": False,
             "old_superseded": False} | kw  # fmt: skip
    return Outcome(id="x", lang="en", domain="d", family="f", label=label, split="test", **flags)


def test_rates_separate_updates_contradictions_and_compatible_pairs() -> None:
    rows = [
        _o("update", newer_first=True, flagged=True),
        _o("update", newer_first=False, flagged=False),
        _o("contradiction", flagged=True, old_superseded=True),
        _o("elaboration", old_superseded=True),
        _o("unrelated", flagged=True),
        _o("elaboration"),
        _o("elaboration"),
    ]
    r = rates(rows)
    assert r["newer_first"] == 0.5 and r["flagged_update"] == 0.5
    assert r["flagged_contradiction"] == 1.0 and r["contradiction_both_current"] == 0.0
    assert math.isclose(float(r["flagged"]), 2 / 3)
    assert r["false_flag"] == 0.5  # superseded or flagged in the briefing both count as wrong
    assert math.isnan(float(rates([_o("elaboration")])["newer_first"]))
