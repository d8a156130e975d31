"""The natural-updates set is well formed and one item runs through the benchmark's protocol."""

from __future__ import annotations

import json
import random

from benchmarks.bench_natural import DATA, run_item
from psychoagent.embed import HashingEmbedder


def test_the_set_has_both_languages_both_kinds_and_enough_fillers() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    for kind, n in (("updates", 20), ("compatible", 10)):
        for lang in ("en", "zh"):
            items = [i for i in data[kind] if i["lang"] == lang]
            assert len(items) == n and all(i["old"] and i["new"] and i["q"] for i in items)
    assert all(len(set(data["fillers"][lang])) >= 12 for lang in ("en", "zh"))


def test_one_item_runs_and_reports_every_measure() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    out = run_item(data["updates"][0], data["fillers"]["en"], HashingEmbedder(384), random.Random(1))
    assert set(out) == {"both", "newer_first", "flagged", "wrong"}
    assert all(isinstance(v, bool) for v in out.values())
