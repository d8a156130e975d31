"""The structural gate: subjects, items, change cues and attribute phrases of fact sentences, the rules that rule a
conflict out, and what the memory does with them (distinct items supersede nothing; a move is no conflict with an
answer preference)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psychoagent import Memory
from psychoagent.memory.conflicts.detect import PairScorer
from psychoagent.memory.conflicts.gate import Gate, blocked_by_rules
from psychoagent.memory.conflicts.structure import (
    attribute_phrase,
    change_kind,
    item_ids,
    subject_of,
    subject_relation,
)
from psychoagent.memory.write import updates


def test_a_possessive_relative_is_another_subject() -> None:
    assert subject_of("Ken's brother works in Leeds.").of == "brother"
    assert subject_of("Ken's brother works in Leeds.").person
    assert subject_of("My sister's flat is in Rome.").owner == "<self>"
    assert subject_of("小林的父母住在上海。").of == "父母"
    assert subject_relation("Ken works in York.", "Ken's brother works in Leeds.") == "other"
    assert subject_relation("小林住在北京。", "小林的父母住在上海。") == "other"
    assert subject_relation("I live in Porto.", "My sister's flat is in Lisbon.") == "other"


def test_the_same_subject_and_a_thing_of_it() -> None:
    assert subject_relation("Alice lives in London.", "Alice moved to Paris last month.") == "same"
    assert subject_relation("Sofia drives a Fiat Panda.", "Sofia's Panda needs new brakes.") == "value_detail"
    assert subject_relation("Victor lives in a flat in Gdynia.", "Victor's flat has a balcony.") == "detail"
    # a relative who acts on the other sentence's thing does not make it another subject's fact
    assert (
        subject_relation("Lena's cat is called Biscuit.", "Lena's kids renamed the cat Captain.") != "other"
    )


def test_item_identifiers_are_not_values() -> None:
    assert item_ids("writer 2 item 3 token zq2q3zq") == {"writer 2", "item 3", "zq2q3zq"}
    assert item_ids("order 12 shipped") == {"order 12"}
    for value in ("The gym opens at 6 am.", "The lessons cost 45 euros.", "We ordered 30 sandwiches.",
                  "Leo's number 555-0160 works.", "The deadline is the 14th."):  # fmt: skip
        assert not item_ids(value), value


def test_change_cues() -> None:
    assert "cancel" in change_kind("The street party has been called off.")
    assert "cancel" in change_kind("社区聚会因为台风取消了。")
    assert "handover" in change_kind("The team elected Priya as their new captain.")
    assert "relative" in change_kind("The yoga class now costs twice as much.")
    assert "add" in change_kind("Colm is allergic to shellfish as well.")
    assert "add" not in change_kind("The dinner ran far too late and the talk went on.")
    assert "add" not in change_kind("Sofia bought a second-hand Skoda.")
    # "too" closing a clause, "adding a ..." and Chinese 再 before a verb of getting add to what holds
    assert "add" in change_kind("Put the report in the shared drive too, so the team can find it.")
    assert "add" in change_kind("I'm adding a yoga class on Saturday mornings.")
    assert "add" in change_kind("坐长途航班的话，麻烦帮我再订一份素食餐。")
    # "too" before an adjective, "别再" (no more) and 再加 + an amount (a change by an amount) do not
    assert "add" not in change_kind("The hotel was too far from the venue.")
    assert "add" not in change_kind("照片备份改用网盘，别再用移动硬盘了。")
    assert "add" not in change_kind("房东说下个月起房租再加三百。")


def test_attribute_phrase_masks_subject_and_values() -> None:
    assert attribute_phrase("Alice lives in London.") == "_ lives in _."
    assert attribute_phrase("Alice now wants detailed answers.") == "_ now wants detailed answers."
    assert "_" in attribute_phrase("王阿姨住在杭州。")


def test_rules_rule_out_compatible_pairs_and_keep_changes() -> None:
    assert blocked_by_rules("writer 2 item 3 token zq2q3zq", "writer 2 item 4 token zq2q4zq") == "items"
    assert (
        blocked_by_rules("Jun works the night shift.", "Jun's sister works at the same hospital.")
        == "other_subject"
    )
    assert blocked_by_rules("Mina has a rabbit.", "Mina also adopted a kitten.") == "adds"
    assert blocked_by_rules("老郑对花生过敏。", "老郑对海鲜也过敏。") == "adds"
    # an instruction added beside an earlier one leaves it standing
    for old, new in [
        ("Send me the weekly sales report as a one-page summary.",
         "Put the report in the shared drive too, so the team can find it."),
        ("Put my gym sessions at 7 am, before work.",
         "I'm adding a yoga class on Saturday mornings, please keep that slot free."),
        ("以后帮我订机票都选靠窗的座位。", "坐长途航班的话，麻烦帮我再订一份素食餐。"),
    ]:  # fmt: skip
        assert blocked_by_rules(old, new) == "adds", new
    for old, new in [
        ("Alice lives in London.", "Alice moved to Paris last month."),
        ("Sofia drives a Fiat Panda.", "Sofia sold the Panda and bought a second-hand Skoda."),
        ("Order 12 ships on Monday.", "Order 12 now ships on Friday."),
        ("谢宇的家在长沙。", "谢宇搬到青岛了——前面还聊了半天天气。"),
        ("房租每月三千。", "房东说下个月起房租再加三百。"),
    ]:
        assert blocked_by_rules(old, new) is None, new


def test_the_packaged_heads_load_and_read_attribute_identity() -> None:
    gate = Gate.load("hash-256")
    same, other = gate.check(
        [("Alice lives in London.", "Alice moved to Paris last month.", 0.6),
         ("Alice moved to Paris last month.", "Alice now wants detailed answers.", 0.6)],
        None,
    )  # fmt: skip
    assert same.p > other.p
    assert Gate.load("e5-small").family == "e5-small"


_TEMPLATES = (
    "writer {w} item {i} token {tok}",
    "order {i} shipped to the depot, tracking {tok}",
    "{name} borrowed the projector on loan slip {tok}",
)
_NAMES = ("Alice", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Gus", "Hiro", "Ines", "Jonas", "Kemal", "Lior")


@settings(max_examples=12, deadline=None)
@given(
    template=st.sampled_from(_TEMPLATES),
    count=st.integers(min_value=2, max_value=12),
    writer=st.integers(min_value=1, max_value=9),
    salt=st.integers(min_value=100, max_value=999),
)
def test_distinct_items_of_one_template_supersede_nothing(
    template: str, count: int, writer: int, salt: int
) -> None:
    mem = Memory(embedder="hash")
    tokens = [f"zq{salt}q{i}zq" for i in range(count)]
    ids = [
        mem.observe(template.format(w=writer, i=i + 1, tok=tok, name=_NAMES[i])).id
        for i, tok in enumerate(tokens)
    ]
    assert all(mem.get(uid).invalid_at is None for uid in ids)
    for uid, tok in zip(ids, tokens, strict=True):
        assert mem.recall(tok, k=1)[0].unit.id == uid
    mem.close()


def test_distinct_items_are_ruled_out_before_a_similarity_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The item rule drops distinct items while a write gathers candidates (a late arrival too, whose candidates
    are newer): no candidate's similarity is read and no pair is scored."""
    read: list[str] = []
    scored: list[int] = []
    candidate, probabilities = updates.candidate, PairScorer.probabilities
    monkeypatch.setattr(
        updates, "candidate", lambda found, *a: read.append(found.unit_id) or candidate(found, *a)
    )
    monkeypatch.setattr(
        PairScorer, "probabilities", lambda self, rows: scored.append(len(rows)) or probabilities(self, rows)
    )
    mem = Memory(embedder="hash", appraiser=None)
    start = dt.datetime(2026, 3, 1, 9, tzinfo=dt.UTC)
    items = [{"text": f"order {n} shipped with tracking code zq{n}x{n}zq", "timestamp": start + dt.timedelta(minutes=n)}
             for n in range(1, 41)]  # fmt: skip
    ids = [u.id for u in mem.observe_many(items)]
    ids.append(mem.observe("order 99 shipped with tracking code zq99x99zq", timestamp=start).id)
    assert all(mem.get(uid).invalid_at is None for uid in ids)
    assert not read and not scored
    mem.observe("Actually the tracking code of order 7 is zq7x8zq", timestamp=start + dt.timedelta(hours=2))
    assert read  # a correction is not ruled out by the item rule: its pairs are judged
    mem.close()


def test_alice_moves_and_her_answer_preference_do_not_conflict() -> None:
    mem = Memory(embedder="hash")
    start = dt.datetime(2026, 3, 1, 9, tzinfo=dt.UTC)
    facts = ["Alice lives in London.", "Alice prefers short answers.", "Alice moved to Paris last month.",
             "Alice now wants detailed answers."]  # fmt: skip
    ids = [mem.observe(text, timestamp=start + dt.timedelta(days=i)).id for i, text in enumerate(facts)]
    brief = mem.brief("Where does Alice live?", now=start + dt.timedelta(days=5))
    pairs = [{c.side_a, c.side_b} for c in brief.conflicts]
    assert {ids[2], ids[3]} not in pairs
    assert {ids[0], ids[3]} not in pairs
    mem.close()


def test_briefing_does_not_pair_a_passport_number_with_a_changed_seat_class() -> None:
    # the newer fact already replaces the seat class: the passport number answers the booking by topic only
    from psychoagent.memory.conflicts.answers import _answered

    partners = {"economy": {"business"}, "business": {"economy"}}
    assert _answered(partners, "passport", "economy")
    assert not _answered(partners, "business", "economy")
    assert not _answered({}, "passport", "economy")
    mem = Memory(embedder="hash")
    start = dt.datetime(2026, 3, 1, 9, tzinfo=dt.UTC)
    facts = ["My passport number ends in 4471.", "Always book me business class on long flights.",
             "Book me economy from now on, the budget was cut."]  # fmt: skip
    ids = [mem.observe(text, timestamp=start + dt.timedelta(days=i)).id for i, text in enumerate(facts)]
    brief = mem.brief("Book my flight to Tokyo.", now=start + dt.timedelta(days=4))
    pairs = [{c.side_a, c.side_b} for c in brief.conflicts]
    assert {ids[0], ids[2]} not in pairs
    mem.close()


def test_a_name_after_an_article_or_preposition_is_a_value_not_the_subject() -> None:
    from psychoagent.memory.conflicts.structure import subject_of

    assert subject_of("When you reorder coffee, buy the Lavazza beans.").owner == ""
    assert subject_of("Switch our coffee order to the Illy beans.").owner == "<self>"
    assert subject_of("Send contracts to clients as Word documents.").owner == ""
    assert subject_of("In Paris, Alice works as a nurse.").owner == "alice"
