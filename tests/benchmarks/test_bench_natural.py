"""The natural sets are well formed, cover every kind, share nothing, and the benchmark's tables count per kind.

Only the schema of the held-out set is read here; the memory runs on small synthetic items, never on a set's items.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest

from benchmarks.bench_natural import (
    COMPATIBLE_KINDS,
    DATA,
    LANGS,
    SECTIONS,
    UPDATE_KINDS,
    DataError,
    kind_counts,
    kind_table,
    language_table,
    load,
    run_item,
    run_set,
    validate,
)
from benchmarks.dialogue_scripts import CONTROLS, CONVERSATIONS, FILLERS
from psychoagent.embed import HashingEmbedder

DIR = DATA.parent
SETS = (
    "natural_updates", "natural_dev", "natural_dev2", "natural_dev3", "natural_dev4", "natural_dev5", "natural_dev6",
    "natural_dev7", "natural_dev8", "natural_dev9", "natural_dev10", "natural_dev11", "natural_dev12",
    "natural_dev13", "natural_dev14", "natural_dev15", "natural_dev16", "natural_dev17", "natural_dev18",
    "natural_dev19", "natural_untouched",
)  # fmt: skip
KINDED = {
    "natural_dev2": (40, 5),
    "natural_dev3": (64, 8),
    "natural_dev4": (64, 8),
    "natural_dev5": (64, 8),
    "natural_dev6": (64, 8),
    **{f"natural_dev{n}": (64, 8) for n in range(7, 20)},
    "natural_untouched": (60, 6),
}  # per language: items a section, items a kind


def _read(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DIR / f"{name}.json").read_text(encoding="utf-8"))
    return data


def test_the_first_set_has_both_languages_both_kinds_and_enough_fillers() -> None:
    data = _read("natural_updates")
    for kind, n in (("updates", 20), ("compatible", 10)):
        for lang in LANGS:
            items = [i for i in data[kind] if i["lang"] == lang]
            assert len(items) == n and all(i["old"] and i["new"] and i["q"] for i in items)
    assert all(len(set(data["fillers"][lang])) >= 12 for lang in LANGS)


@pytest.mark.parametrize("name", SETS)
def test_every_set_loads_and_the_later_sets_name_a_kind_for_every_item(name: str) -> None:
    data = load(DIR / f"{name}.json")
    validate(data, require_kind=name in KINDED)


@pytest.mark.parametrize("name", sorted(KINDED))
def test_the_kinded_sets_cover_every_kind_in_each_language(name: str) -> None:
    data = _read(name)
    least, per_kind = KINDED[name]
    for section, kinds in (("updates", UPDATE_KINDS), ("compatible", COMPATIBLE_KINDS)):
        counts = Counter((i["lang"], i["kind"]) for i in data[section])
        for lang in LANGS:
            assert sum(n for (lg, _), n in counts.items() if lg == lang) >= least, (section, lang)
            for kind in kinds:
                assert counts[(lang, kind)] >= per_kind, (name, section, lang, kind)
    assert all(len(set(data["fillers"][lang])) >= 14 for lang in LANGS)


@pytest.mark.parametrize("name", SETS)
def test_no_set_repeats_an_item_or_a_filler_and_the_later_ones_no_sentence(name: str) -> None:
    data = _read(name)
    items = [(i["lang"], i["old"], i["new"]) for s in SECTIONS for i in data[s]]
    sentences = [t for s in SECTIONS for i in data[s] for t in (i["old"], i["new"])]
    fillers = [f for lang in LANGS for f in data["fillers"][lang]]
    assert len(set(items)) == len(items)
    assert name not in KINDED or len(set(sentences)) == len(sentences)
    assert len(set(fillers)) == len(fillers) and not set(fillers) & set(sentences)


INSTRUCTION_SETS = ("instruction_dev2", "instruction_dev3", "instruction_dev4")
"""Plain-word instruction pairs the pair scorer is fitted on (kinds of their own, so not bench_natural sets)."""


@pytest.mark.parametrize("name", INSTRUCTION_SETS)
def test_the_instruction_sets_share_no_sentence_with_the_dialogue_benchmark(name: str) -> None:
    data = _read(name)
    texts = {t for s in SECTIONS for i in data[s] for t in (i["old"], i["new"], i["q"])}
    assert len(data["updates"]) >= 90 and len(data["compatible"]) >= 90
    assert all(len(set(data["fillers"][lang])) >= 12 for lang in LANGS)
    scripts = {t for c in CONVERSATIONS + CONTROLS for t in (c.earlier, c.later, c.request)}
    assert not texts & (scripts | {f for lang in LANGS for f in FILLERS[lang]})


CORRECTION_SETS = ("natural_corr1", "natural_corr2")
"""Plain-word short corrections and confirmations (kinds of their own): dev data for a head on plain words alone."""


@pytest.mark.parametrize("name", CORRECTION_SETS)
def test_the_correction_sets_hold_32_of_each_kind_per_language(name: str) -> None:
    data = _read(name)
    kinds = {
        "updates": ("elliptic_correction", "restated_value"),
        "compatible": ("confirmation", "elliptic_addition"),
    }
    for section, names in kinds.items():
        for lang in LANGS:
            items = [i for i in data[section] if i["lang"] == lang]
            assert all(i["old"] and i["new"] and i["q"] for i in items)
            assert sorted(i["kind"] for i in items) == sorted(names * 32)
    sentences = [i[f] for s in SECTIONS for i in data[s] for f in ("old", "new")]
    assert len(set(sentences)) == len(sentences)


def test_no_sentence_or_filler_is_shared_between_sets() -> None:
    seen: dict[str, str] = {}
    for name in SETS + INSTRUCTION_SETS + CORRECTION_SETS:
        data = _read(name)
        texts = {t for s in SECTIONS for i in data[s] for t in (i["old"], i["new"])}
        texts |= {f for lang in LANGS for f in data["fillers"][lang]}
        for text in texts:
            assert text not in seen, f"{text!r} is in both {seen[text]} and {name}"
            seen[text] = name


def _tiny() -> dict[str, Any]:
    fillers = [f"Filler fact number {n} is about the weather on day {n}." for n in range(12)]
    return {
        "updates": [
            {"lang": "en", "old": "Zed lives in Oslo.", "new": "Zed moved to Rome.", "q": "Where does Zed live?",
             "kind": "replace"},
            {"lang": "en", "old": "The gala is on Monday.", "new": "The gala is called off.",
             "q": "When is the gala?", "kind": "cancellation"},
            {"lang": "en", "old": "Yan's rent is 500.", "new": "Yan's rent is 600.", "q": "What is Yan's rent?",
             "kind": "replace"},
        ],
        "compatible": [
            {"lang": "en", "old": "Vic has a cat.", "new": "Vic also has a dog.", "q": "What pets does Vic have?",
             "kind": "set_member"},
        ],
        "fillers": {"en": fillers},
    }  # fmt: skip


def test_the_kind_table_counts_each_kind_and_language_on_synthetic_items() -> None:
    data = _tiny()
    validate(data, require_kind=True)
    rows = run_set(data, HashingEmbedder(384), seed=1)
    counts = kind_counts(rows)
    assert set(counts) == {("updates", "replace", "en"), ("updates", "cancellation", "en"),
                           ("compatible", "set_member", "en")}  # fmt: skip
    replace = counts[("updates", "replace", "en")]
    assert replace["n"] == 2 and 0 <= replace["newer_first"] <= 2 and 0 <= replace["flagged"] <= 2
    expected = sum(o["newer_first"] for s, i, o in rows if i["kind"] == "replace")
    assert replace["newer_first"] == expected
    table = kind_table(rows)
    assert (
        "| updates | replace | en | 2 |" in table and "| compatible | set_member | en | 1 | – | – |" in table
    )
    assert len(table.splitlines()) == 2 + 3
    assert "| en | 3 |" in language_table(rows) and "| zh | 0 |" in language_table(rows)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["compatible"][0].pop("kind"), "compatible[0]: missing or empty field 'kind'"),
        (lambda d: d["updates"][2].update(q=""), "updates[2]: missing or empty field 'q'"),
        (lambda d: d["updates"][1].update(kind="set_member"), "updates[1]: field 'kind' is 'set_member'"),
        (lambda d: d["updates"][0].update(lang="fr"), "updates[0]: field 'lang' is 'fr'"),
        (lambda d: d["fillers"]["en"].pop(), "fillers['en']: fewer than 12"),
    ],
)
def test_a_malformed_set_is_refused_with_the_item_and_field(change: Any, message: str) -> None:
    data = copy.deepcopy(_tiny())
    change(data)
    with pytest.raises(DataError, match=message.replace("[", r"\[").replace("]", r"\]")):
        validate(data)


def test_one_item_runs_and_reports_every_measure() -> None:
    data = _tiny()
    out = run_item(data["updates"][0], data["fillers"]["en"], HashingEmbedder(384), random.Random(1))
    assert set(out) == {"both", "newer_first", "flagged", "wrong"}
    assert all(isinstance(v, bool) for v in out.values())
