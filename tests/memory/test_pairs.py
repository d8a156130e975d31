"""Pair analysis: which fact pairs reach the scorer at all, and a scorer with a hidden layer."""

from __future__ import annotations

import json

import numpy as np

from psychoagent.memory.conflicts.detect import LABELS, PairScorer
from psychoagent.memory.conflicts.pairs import (
    FEATURES,
    comparable,
    names_old_value,
    pair_features,
    refers_back,
)


def test_a_pronoun_subject_or_a_repeated_old_value_makes_a_pair_comparable() -> None:
    assert refers_back("He switched his booking to the Hotel Astoria.")
    assert refers_back("她的航班改到了上午10点。")
    assert not refers_back("Felix said his booking is at the Hotel Astoria.")
    assert comparable(
        "Felix is staying at the Parkside Lodge.", "He switched his booking to the Hotel Astoria."
    )
    # the correction names only the values: the old one is repeated
    assert names_old_value(
        "Leila shops at the Organic Market.", "Sorry, I meant Greengrocer Plus, not the Organic Market."
    )
    assert comparable("曹阳每周在盒马买菜。", "哎呀，不是盒马，是沃尔玛。")
    # two different people with nothing of the older fact repeated never reach the scorer
    assert not comparable("Tom lives in Rome.", "Anna lives in Paris.")
    assert not names_old_value("Tom lives in Rome.", "Anna lives in Paris.")


def test_a_scorer_with_a_hidden_layer_adds_it_to_the_logits(tmp_path) -> None:
    d, k = len(FEATURES), len(LABELS)
    linear = {"features": list(FEATURES), "labels": list(LABELS), "mean": [0.0] * d, "scale": [1.0] * d,
              "coef": [[0.0] * d] * k, "intercept": [0.0] * k}  # fmt: skip
    hidden_in = np.zeros((1, d))
    hidden_in[0, FEATURES.index("dense")] = 5.0
    out = [[2.0], [0.0], [0.0], [-2.0]]  # a similar pair leans to update, a distant one to unrelated
    path = tmp_path / "mlp.json"
    path.write_text(
        json.dumps({**linear, "hidden": {"coef": hidden_in.tolist(), "intercept": [-2.5], "out": out}})
    )
    scorer = PairScorer.load(path)
    x = np.stack([pair_features("Ada lives in Rome.", "Ada moved to Oslo.", 0.9),
                  pair_features("Ada lives in Rome.", "Ada moved to Oslo.", 0.1)])  # fmt: skip
    p = scorer.probabilities(x)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert p[0, 0] > 0.5 > p[1, 0] and p[1, 3] > p[0, 3]
    plain = tmp_path / "linear.json"
    plain.write_text(json.dumps(linear))
    assert np.allclose(PairScorer.load(plain).probabilities(x), 0.25)


def test_an_elliptic_correction_is_read_as_the_sentence_it_stands_for() -> None:
    from psychoagent.memory.conflicts.pairs import elliptic, resolve_ellipsis

    budget = "Ines' monthly budget is 3000 dollars."
    assert (
        resolve_ellipsis(budget, "Sorry, I meant 3400, not 3000.") == "Ines' monthly budget is 3400 dollars."
    )
    assert resolve_ellipsis("Tom lives in Lyon.", "Oops, not Lyon - Porto.") == "Tom lives in Porto."
    assert (
        resolve_ellipsis("李明的牙医预约在下午4点。", "把下午4点划掉，上午10点才对。")
        == "李明的牙医预约在上午10点。"
    )
    assert resolve_ellipsis("林晓雨住在成都。", "哎呀，不是成都，是大连。") == "林晓雨住在大连。"
    # another person with the same value, or a fact that names its own subject, is not elliptic
    assert not elliptic("Tom lives in Lyon.", "Ken lives in Lyon.")
    assert resolve_ellipsis("Tom's order is for 12 chairs.", "Tom's order is for 14 chairs.") is None
    # the resolved reading keeps the correction cue and looks like a change of the same fact
    row = pair_features(budget, "Sorry, I meant 3400, not 3000.", 0.5)
    assert row[FEATURES.index("correction_new")] == 1.0
    assert row[FEATURES.index("shared_entity")] == 1.0 and row[FEATURES.index("numbers_differ")] == 1.0


def test_a_value_only_correction_is_embedded_as_the_sentence_it_stands_for() -> None:
    from psychoagent.memory.conflicts.detect import resolved_vectors

    asked: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        asked.append(list(texts))
        return np.eye(len(texts), 4)

    budget = "Ines' monthly budget is 3000 dollars."
    pairs = [(budget, "Sorry, I meant 3400, not 3000."), (budget, "Ines keeps her receipts in a shoebox.")]
    rebuilt = resolved_vectors(pairs, embed)
    assert asked == [["Ines' monthly budget is 3400 dollars."]]  # one call, only the rebuilt sentence
    assert rebuilt[0] is not None and rebuilt[1] is None
    assert resolved_vectors(pairs, None) == [None, None]
    assert resolved_vectors(pairs[1:], embed) == [None] and len(asked) == 1  # nothing to embed: no call


def test_a_correction_without_a_cue_word_is_rebuilt_unless_it_opens_with_a_name() -> None:
    from psychoagent.memory.conflicts.detect import rebuilt

    budget = "Ines' monthly budget is 3000 dollars."
    assert rebuilt(budget, "Scratch 3000: 3400 is right.") == "Ines' monthly budget is 3400 dollars."
    assert rebuilt("Tom lives in Lyon.", "Scratch Lyon: Porto is right.") == "Tom lives in Porto."
    # a text opening with a name says something of its own about it: no value was left out
    assert (
        rebuilt("Christmas dinner for Ivan's family is hosted by Cousin Lena.", "Ivan named his dog Max.")
        is None
    )
    assert rebuilt("何军对芹菜过敏。", "陈静对鸡蛋过敏。") is None
    # two new values of the repeated kind leave the replacement open: no reading
    assert (
        rebuilt("Priya's family doctor is Dr. Moreau.", "Sorry, Leila sees Dr. Chen for check-ups.") is None
    )


def test_a_common_word_opening_a_text_is_no_name() -> None:
    from psychoagent.memory.conflicts.facts import analyse

    assert analyse("Scratch Lyon: Paris is right.").entities == {"lyon", "paris"}
    assert (
        "support"
        not in analyse("Support ticket 4370: Karen reported that the laptop would not boot.").entities
    )
    # names stay names at the start, and so does a common word that owns something or is written in capitals
    assert "frank" in analyse("Frank reported that the laptop would not boot.").entities
    assert "grandpa" in analyse("Grandpa's flight lands at 6:40 pm on Sunday.").entities
    assert "kiwi" in analyse("The cat is called Kiwi.").entities
    # the letters of a code are part of a value, not a name two tickets share
    assert analyse("Support ticket TK-4370: Karen reported that the laptop would not boot.").entities == {
        "karen"
    }
    assert analyse("工单TK-13222：赵丽反映打印机经常卡纸。").entities.isdisjoint({"tk", "tk-"})


def test_two_chinese_sentences_opening_with_other_people_are_two_peoples_facts() -> None:
    from psychoagent.memory.conflicts.pairs import comparable

    # each opens with a person the other never names: a place or thing both name is no shared subject
    assert not comparable("何军对芹菜过敏。", "陈静对鸡蛋过敏。")
    assert not comparable("刘洋看了一部关于桂林的纪录片", "杨磊说桂林的天气很好")
    # two witnesses of one fact, and a report about the older sentence's person, stay comparable
    assert comparable("王涛一口咬定韩雪的电话号码是123。", "杨磊坚持说韩雪的电话号码是456。")
    assert comparable("李娜住在北京。", "张伟说李娜搬到了上海。")


def test_two_subjects_sharing_a_value_are_told_apart() -> None:
    swap = FEATURES.index("subject_swap")
    same = pair_features(
        "Priya sees Dr. Moreau for check-ups.", "Priya now sees Dr. Chen for check-ups.", 0.8
    )
    other = pair_features("Priya sees Dr. Moreau for check-ups.", "Luke sees Dr. Moreau for check-ups.", 0.8)
    pronoun = pair_features("Anna lives in Paris.", "She moved to Lyon.", 0.7)
    assert same[swap] == 0.0 and other[swap] == 1.0 and pronoun[swap] == 0.0
    assert pair_features("韩立在华星科技工作。", "李明在华星科技工作。", 0.8)[swap] == 1.0


def test_the_same_claim_by_someone_else_is_agreement_and_a_renamed_thing_still_a_change() -> None:
    assert not comparable("孙丽说杭州的天气很好", "周强说杭州的天气很好")
    assert not comparable("Maya said the ferry to Hydra was late", "Omar said the ferry to Hydra was late")
    assert comparable(
        "Maya's parrot is called Kiwi.", "Maya's parrot is called Mango."
    )  # the value is a name
    assert comparable("Maya said the ferry to Hydra was late", "Omar said the ferry to Hydra was on time")


def test_a_lone_chinese_yi_with_a_classifier_is_an_article_not_the_number_one() -> None:
    from psychoagent.memory.conflicts.facts import analyse

    assert 1.0 not in analyse("周强买了一台咖啡机").numbers  # "bought a coffee machine"
    assert 1.0 in analyse("周强去过一次厦门").numbers  # 一次: once, a count
    assert 11.0 in analyse("会上来了十一个人").numbers
    assert not names_old_value("孙丽买了一台咖啡机", "周强买了一台洗衣机")  # two people, nothing repeated


def test_a_name_is_found_where_it_is_written_with_a_capital_and_a_bare_it_leaves_the_subject_out() -> None:
    from psychoagent.memory.conflicts.facts import entity_at
    from psychoagent.memory.conflicts.pairs import elliptic, resolve_ellipsis, turn_speaker

    # "banks" (the verb) is not where the bank "Harbor Bank" is named: the two words are one value
    text = "Priya banks with Harbor Bank."
    assert entity_at(text, text.lower(), "bank") == text.index("Bank.")
    assert resolve_ellipsis(text, "Wrong bank - Coast Credit Union, not Harbor Bank.") is not None
    assert (
        resolve_ellipsis(text, "Scratch Harbor Bank: Coast Trust is right.")
        == "Priya banks with Coast Trust."
    )
    # "it" stands for the corrected value; "she" names a person, who is the sentence's own subject
    dose = "Omar takes 20 mg of the allergy tablet every morning."
    assert resolve_ellipsis(dose, "Oops, it is 25 and not 20.") == (
        "Omar takes 25 mg of the allergy tablet every morning."
    )
    assert not elliptic(dose, "She takes 25, not 20.")
    # two words before a colon that open with a common word are a sentence, not a chat speaker's name
    assert turn_speaker("Scratch Stoner: Middlemarch is right.") == ""
    assert turn_speaker("Mary Ann: see you at six") == "mary ann"


def test_a_bare_it_before_another_name_does_not_make_two_peoples_facts_comparable() -> None:
    from psychoagent.memory.conflicts.pairs import comparable

    old = "Sven lives in Bergen."
    assert not comparable(old, "Just so you know, it is different now: Alma teaches piano.")
    assert comparable(old, "She moved to Tromsø last spring.")
    assert comparable("孙浩住在杭州。", "他搬到了苏州。")


def test_chinese_negation_is_read_from_words_and_an_address_holds_no_number() -> None:
    """A negator inside another word ("特别" especially, "别人" others, "不好意思" sorry) negates nothing; a negator
    word or a verb opening with one does. The digits of an e-mail address are no number of the fact."""
    from psychoagent.memory.conflicts.facts import analyse

    for text in (
        "豆豆特别喜欢在小区草坪上打滚。",
        "韩立喜欢别人用邮件联系他。",
        "不好意思，我说错了：王涛住在杭州。",
    ):
        assert not analyse(text).negation, text
    for text in ("陈静不住亚朵酒店了。", "李叔叔最近不吃肉了。", "王芳不再去健身房了。", "他没去上班。"):
        assert analyse(text).negation, text
    assert not analyse("刘老师的邮箱是liu.teacher@163.com。").numbers
    assert not analyse("Fatima uses sunflower88@mail.com for email.").numbers
    assert analyse("Fatima pays 88 dollars for her phone.").numbers == frozenset({88.0})


def test_a_chinese_clock_hour_is_a_time_not_a_count() -> None:
    """ "七点" (seven o'clock) is a time of day, "十分钟" a count of minutes: the two are no changed number; "一点" alone is
    "a little"."""
    from psychoagent.memory.conflicts.facts import analyse

    clock = analyse("张姐每天早上七点去游泳。")
    assert clock.times == frozenset({"七点"}) and not clock.numbers
    assert analyse("张姐游泳的那个馆离家只有十分钟。").numbers == frozenset({10.0})
    assert analyse("会议改到下午一点。").times == frozenset({"一点"})
    little = analyse("他的账户每年有一点利息。")
    assert not little.times and not little.numbers
