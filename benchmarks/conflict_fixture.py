"""Generated conflict scenarios, English and Chinese: a fact, distractors, a later contradicting fact, a query.

Each scenario is built from a template (attribute, phrasing of the old and new fact, the question) filled with a
random entity and two different values; the distractors between the two facts mix unrelated events with hard
negatives: the same attribute for another entity or another object. The tables are data/conflict_fixture.yaml.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

TABLE = yaml.safe_load((Path(__file__).parent / "data" / "conflict_fixture.yaml").read_text(encoding="utf-8"))
"""Value pools, unrelated events and template sets (data/conflict_fixture.yaml)."""

Template = tuple[str, str, str]
"""(old fact, new fact, query); {n} entity, {a}/{b} old/new value, {ca}/{cb}, {da}/{db}, {ha}/{hb}, {o} object."""


def _pool(key: str, lang: str) -> tuple[str, ...]:
    return tuple(TABLE["pools"][key][lang])


def _templates(split: str, lang: str) -> tuple[Template, ...]:
    return tuple((t["old"], t["new"], t["question"]) for t in TABLE["templates"][split][lang])


NAMES_EN, NAMES_ZH = _pool("names", "en"), _pool("names", "zh")
CITIES_EN, CITIES_ZH = _pool("cities", "en"), _pool("cities", "zh")
DAYS_EN, DAYS_ZH = _pool("days", "en"), _pool("days", "zh")
ITEMS_EN, ITEMS_ZH = _pool("items", "en"), _pool("items", "zh")
HOTELS: tuple[str, ...] = tuple(TABLE["pools"]["hotels"])
DISTRACTORS_EN: tuple[str, ...] = tuple(TABLE["distractors"]["en"])
DISTRACTORS_ZH: tuple[str, ...] = tuple(TABLE["distractors"]["zh"])
SETS: dict[str, tuple[tuple[Template, ...], tuple[Template, ...]]] = {
    split: (_templates(split, "en"), _templates(split, "zh")) for split in TABLE["templates"]
}
"""Template sets by name: 'main' and the held-out phrasings 'heldout-a' and 'heldout-b' (English, Chinese)."""
TEMPLATES_EN, TEMPLATES_ZH = SETS["main"]


@dataclass
class Scenario:
    """Old fact, distractors, new fact and query; `lang` is 'en' or 'zh', `split` 'main' or 'heldout'."""

    lang: str
    old: str
    new: str
    distractors: list[str]
    query: str
    split: str = "main"


def _fill(template: str, n: str, a: int, b: int, pick: dict[str, str]) -> str:
    return template.format(n=n, a=a, b=b, **pick)


def build(
    n_per_lang: int = 120, seed: int = 7, n_fillers: int = 8, n_hard: int = 3, split: str = "main"
) -> list[Scenario]:
    """`n_per_lang` scenarios per language from one template set ('main', 'heldout-a', 'heldout-b').

    Between the two facts: `n_fillers` unrelated events, `n_hard` hard negatives (the same template for other
    people or objects, with other values) and one other fact about the same person, shuffled.
    """
    rng = np.random.default_rng(seed)
    out: list[Scenario] = []
    en, zh = SETS[split]
    for lang, templates, names, cities, days, items, fillers in (
        ("en", en, NAMES_EN, CITIES_EN, DAYS_EN, ITEMS_EN, DISTRACTORS_EN),
        ("zh", zh, NAMES_ZH, CITIES_ZH, DAYS_ZH, ITEMS_ZH, DISTRACTORS_ZH),
    ):
        for i in range(n_per_lang):
            old_t, new_t, query_t = templates[i % len(templates)]
            people = [str(x) for x in rng.choice(names, size=n_hard + 1, replace=False)]
            objects = [str(x) for x in rng.choice(items, size=min(len(items), n_hard + 1), replace=False)]

            def pick(cities: tuple[str, ...] = cities, days: tuple[str, ...] = days) -> dict[str, str]:
                c = [str(x) for x in rng.choice(cities, size=2, replace=False)]
                d = [str(x) for x in rng.choice(days, size=2, replace=False)]
                h = [str(x) for x in rng.choice(HOTELS, size=2, replace=False)]
                return {"ca": c[0], "cb": c[1], "da": d[0], "db": d[1], "ha": h[0], "hb": h[1]}

            def money() -> tuple[int, int]:
                a, b = (int(x) * 100 for x in rng.choice(np.arange(5, 60), size=2, replace=False))
                return a, b

            mine = {**pick(), "o": objects[0]}
            a, b = money()
            distractors = [str(x) for x in rng.choice(fillers, size=n_fillers, replace=False)]
            for j in range(1, n_hard + 1):
                distractors.append(
                    _fill(old_t, people[j], *money(), {**pick(), "o": objects[j % len(objects)]})
                )
            other_t = templates[(i + 1 + int(rng.integers(0, len(templates) - 1))) % len(templates)][0]
            distractors.append(_fill(other_t, people[0], *money(), {**pick(), "o": objects[-1]}))
            order = rng.permutation(len(distractors))
            out.append(Scenario(lang, _fill(old_t, people[0], a, b, mine), _fill(new_t, people[0], a, b, mine),
                                [distractors[k] for k in order], _fill(query_t, people[0], a, b, mine), split))  # fmt: skip
    return out
