"""Threshold choice by cross-validation and the recombined training pairs of the pair scorer."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from benchmarks import pair_cv
from benchmarks.conflict_gen import generate, split
from benchmarks.fit_pairs import person_sources


def _item(family: str, label: str, lang: str = "en") -> SimpleNamespace:
    return SimpleNamespace(family=family, label=label, lang=lang, old="a", new="b")


def test_choose_takes_the_most_permissive_thresholds_that_keep_compatible_pairs_rare() -> None:
    items = [_item("implicit", "update", lang) for lang in ("en", "zh") for _ in range(10)]
    items += [_item("elaboration", "elaboration", lang) for lang in ("en", "zh") for _ in range(20)]
    probs = np.zeros((len(items), 4))
    probs[:20, 0] = np.tile(
        np.linspace(0.31, 0.69, 10), 2
    )  # changes, update probability spread over the grid
    probs[:20, 2] = 1 - probs[:20, 0]
    probs[20:, 2] = 0.9
    probs[20, 0], probs[40, 0] = 0.52, 0.52  # one compatible pair per language looks like an update (5 %)
    probs[20, 2], probs[40, 2] = 0.48, 0.48
    chosen = pair_cv.choose(items, probs, mass=0.95)
    assert (
        chosen is not None and chosen["update"] == 0.3
    )  # the lowest grid point keeps the compatible rate at 5 %: every change found
    assert chosen["cv_flagged"] == 1.0
    probs[21, 0], probs[21, 2] = 0.56, 0.44  # a second one (10 %): the threshold must leave one of them out
    chosen = pair_cv.choose(items, probs, mass=0.95)
    assert (
        chosen is not None and chosen["update"] > 0.52 and chosen["cv_compatible_by_language"]["en"] <= 0.05
    )


def test_person_sources_recombine_dev_source_conflicts_with_people() -> None:
    dev, _ = split(generate(0))
    pairs = person_sources(dev, seed=0)
    sources = [i for i in dev if i.family == "source_conflict"]
    assert len(pairs) == len(sources) and {label for *_, label in pairs} == {"contradiction"}
    old, new, _ = pairs[0]
    assert (old, new) != (sources[0].old, sources[0].new)
    assert sources[0].subject in old and sources[0].subject in new  # the fact's subject stays
