"""The conflict scenario generator: deterministic, large and varied enough, labelled consistently, split cleanly."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from benchmarks.conflict_gen import (
    COMPATIBLE,
    DOMAINS,
    HELD_OUT_DOMAINS,
    HELD_OUT_FAMILIES,
    SLOTS,
    UPDATE,
    Item,
    generate,
    split,
)
from benchmarks.conflict_gen.lexicon import NAMES


@pytest.fixture(scope="module")
def items() -> list[Item]:
    return generate(0)


def test_same_seed_same_items_other_seed_other_items(items: list[Item]) -> None:
    again = generate(0)
    assert [i.to_dict() for i in again] == [i.to_dict() for i in items]
    other = generate(1)
    assert [i.new for i in other] != [i.new for i in items]


def test_size_and_balance(items: list[Item]) -> None:
    conflicting = [i for i in items if i.conflicting]
    compatible = [i for i in items if not i.conflicting]
    assert len(conflicting) >= 600 and len(compatible) >= 600
    for group in (conflicting, compatible):
        by_lang = Counter(i.lang for i in group)
        assert by_lang["en"] == by_lang["zh"]
    assert len(DOMAINS) >= 20 and len(UPDATE) >= 10
    for lang in ("en", "zh"):
        assert {s.domain for s in SLOTS[lang]} == set(DOMAINS)
        got = {(i.domain, i.family) for i in items if i.lang == lang}
        assert {d for d, _ in got} == set(DOMAINS)
        assert {f for _, f in got} >= set(UPDATE) | set(COMPATIBLE)


def test_items_are_well_formed(items: list[Item]) -> None:
    assert len({i.id for i in items}) == len(items)
    for i in items:
        texts = [i.old, i.new, i.question, *i.distractors_before, *i.distractors_after]
        assert not any(re.search(r"[{}]", t) for t in texts), i.id
        assert len(i.distractors_before) == len(i.distractors_after) == 6
        stamps = [t for _, t in i.timeline()]
        assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
        assert i.answer_old in i.old, i.id
        if i.conflicting:
            assert i.answer_new != i.answer_old and i.answer_new in i.new, i.id
        else:
            assert i.answer_new == i.answer_old, i.id
        if i.lang == "en":
            assert all(t[0].isupper() or t[0].isdigit() or t[0] == '"' for t in texts), i.id
        else:
            assert all(re.search(r"[\u4e00-\u9fff]", t) for t in texts), i.id


def test_distractors_come_from_other_domains(items: list[Item]) -> None:
    # capitalised English values (places, firms, hotels, ...) of the scenario's own domain never appear in them
    values = {(s.domain, v) for lang in SLOTS for s in SLOTS[lang] for v in s.values}
    for i in items[::5]:
        elsewhere = {v for d, v in values if d != i.domain}
        own = {v for d, v in values if d == i.domain and v not in elsewhere and len(v) > 2 and v.lower() != v}
        for text in i.distractors_before + i.distractors_after:
            assert not any(re.search(rf"(?<![A-Za-z]){re.escape(v)}(?![A-Za-z])", text) for v in own), (
                i.id,
                text,
            )


def _skeleton(i: Item) -> str:
    text = i.new.replace(i.answer_new, "<v>").replace(i.answer_old, "<o>")
    for name in (n for g in NAMES[i.lang].values() for n in g):
        text = text.replace(name, "<n>")
    return re.sub(r"\d+", "<d>", text)


def test_phrasing_varies_within_each_family(items: list[Item]) -> None:
    for lang in ("en", "zh"):
        for family in UPDATE:
            rows = [i for i in items if i.lang == lang and i.family == family]
            skeletons = Counter(_skeleton(i) for i in rows)
            assert len(skeletons) >= min(15, len(rows) // 2), (lang, family, len(skeletons))
            assert skeletons.most_common(1)[0][1] <= max(3, len(rows) // 4), (lang, family)


def test_split_holds_out_families_and_domains(items: list[Item]) -> None:
    dev, test = split(items)
    assert len(dev) + len(test) == len(items) and not {i.id for i in dev} & {i.id for i in test}
    assert all(i.family not in HELD_OUT_FAMILIES and i.domain not in HELD_OUT_DOMAINS for i in dev)
    assert all(i.family in HELD_OUT_FAMILIES or i.domain in HELD_OUT_DOMAINS for i in test)
    assert 0.2 <= len(HELD_OUT_DOMAINS) / len(DOMAINS) <= 0.4
    for part in (dev, test):
        labels = Counter((i.lang, i.label) for i in part)
        assert all(
            labels[(lang, lab)] > 0
            for lang in ("en", "zh")
            for lab in ("update", "contradiction", "elaboration")
        )
    assert {i.family for i in test} >= HELD_OUT_FAMILIES
