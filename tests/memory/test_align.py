"""The aligned-change feature: a restated sentence with one short run replaced at its value's place."""

from psychoagent.memory.conflicts.align import aligned_change, tokens
from psychoagent.memory.conflicts.values import first_named


def _aligned(old: str, new: str) -> bool:
    return aligned_change(old, new, first_named(old))


def test_a_replaced_word_value_after_a_lead_is_an_aligned_change() -> None:
    assert _aligned("Ruth works as a software engineer.", "Sorry, my mistake earlier: Ruth works as a nurse.")
    assert _aligned("Peter's desk is in the science park.", "Peter's desk is in the old town office.")
    assert _aligned("高翔最喜欢白色。", "计划有变：高翔最喜欢橙色。")


def test_a_reworded_predicate_keeping_its_value_is_not() -> None:
    assert not _aligned("Yuki earns her living as a carpenter.", "Yuki works as a carpenter.")
    assert not _aligned("Marco's instrument is the flute.", "Marco plays the flute.")
    assert not _aligned("马兰在大学学建筑学。", "马兰的专业是建筑学。")


def test_two_attributes_or_two_subjects_are_not() -> None:
    # nothing but the subject in common: another attribute of the same person
    assert not _aligned("Priya plays the piano.", "Priya's diet is gluten-free.")
    assert not _aligned("林晓雨在当老师。", "林晓雨在华星科技工作。")
    # the run is the subject: the same value of someone else
    assert not _aligned("Daniel's instrument is the drums.", "Ivan's instrument is the drums.")


def test_tokens_cut_an_english_possessive_so_names_align() -> None:
    assert tokens("Omar's desk.")[:2] == ("omar", "desk")
