"""Briefings: conflicts shown side by side, ordered by time, newest current, strategies, optional LLM summary."""

from __future__ import annotations

from psychoagent import Memory
from psychoagent.memory.config import FusionConfig
from psychoagent.memory.conflicts.fusion import choose_strategy
from psychoagent.types import ConflictRecord


def _mem() -> Memory:
    mem = Memory(embedder="hash")
    mem.observe("The user prefers short, concise answers.", timestamp="2024-05-01T00:00:00Z")
    mem.observe("The user now prefers detailed answers.", timestamp="2024-05-03T00:00:00Z")
    mem.observe("The user lives in Shanghai.", timestamp="2024-05-02T00:00:00Z")
    return mem


def test_brief_shows_both_sides_newest_current() -> None:
    mem = _mem()
    brief = mem.brief("How detailed should answers be?", k=3)
    (conflict,) = [c for c in brief.conflicts if c.kind == "slot"]
    assert "concise" in conflict.description_a and "detailed" in conflict.description_b
    detail = brief.metadata["conflicts"][0]
    assert detail["current"] == conflict.side_b and detail["strategy"] == "prefer_latest"
    text = brief.text
    assert text.index("concise") < text.index("[CURRENT]") and "step by step" in text


def test_brief_detects_slot_conflicts_without_records() -> None:
    from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig

    mem = Memory(embedder="hash", affect_config=AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False)))
    mem.observe("The hotel is the Hilton.", timestamp="2024-05-01T00:00:00Z")
    mem.observe("The hotel is the Marriott.", timestamp="2024-05-02T00:00:00Z")
    assert mem.conflicts() == []
    brief = mem.brief("Which hotel?", k=2)
    assert len(brief.conflicts) == 1 and brief.conflicts[0].metadata["detected"] == "briefing"


def test_a_slot_clash_between_two_peoples_facts_is_no_conflict() -> None:
    from psychoagent.affect.slots import extract_slots
    from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig

    mem = Memory(embedder="hash", affect_config=AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False)))
    mem.observe("孙浩的团队例会在周二。", timestamp="2024-05-01T00:00:00Z")
    mem.observe("钱玲的团队例会在周四。", timestamp="2024-05-02T00:00:00Z")
    mem.observe("孙浩的团队例会改到了周五。", timestamp="2024-05-03T00:00:00Z")
    # the slot rule reads the same slot with different values in all three; only one person's two facts clash
    assert any(
        a.contradicts(b)
        for a in extract_slots("孙浩的团队例会在周二。")
        for b in extract_slots("钱玲的团队例会在周四。")
    )
    brief = mem.brief("团队例会在哪天？", k=3)
    sides = [{mem.get(c.side_a).content, mem.get(c.side_b).content} for c in brief.conflicts]
    assert sides == [{"孙浩的团队例会在周二。", "孙浩的团队例会改到了周五。"}]


def test_no_conflict_no_conflict_section() -> None:
    mem = Memory(embedder="hash")
    mem.observe("The user likes green tea.")
    brief = mem.brief("What does the user drink?")
    assert brief.conflicts == [] and "Conflicts" not in brief.text


def test_strategy_templates() -> None:
    cfg = FusionConfig()

    def record(a: str, b: str, intensity: int = 3) -> ConflictRecord:
        return ConflictRecord(id="c", kind="slot", side_a="a", side_b="b", description_a=a, description_b=b,
                              intensity=intensity)  # fmt: skip

    assert choose_strategy(
        record("Keep the budget low", "Buy the best premium model"), [None, None], cfg
    ).name == ("cost_vs_quality")
    assert choose_strategy(record("Ship it fast before the deadline", "Be thorough and accurate"), [None, None],
                           cfg).name == "speed_vs_accuracy"  # fmt: skip
    assert (
        choose_strategy(record("Meet on Monday", "Meet on Friday"), [None, None], cfg).name == "prefer_latest"
    )


def test_clarification_when_both_sides_arrive_together() -> None:
    mem = Memory(embedder="hash")
    mem.observe("The meeting is on Monday.", timestamp="2024-05-01T10:00:00Z")
    mem.observe("The meeting is on Friday.", timestamp="2024-05-01T10:00:30Z")
    brief = mem.brief("When is the meeting?", k=2)
    assert brief.metadata["conflicts"][0]["strategy"] == "ask_clarification"


def test_llm_summary_with_word_limit_and_fallback() -> None:
    mem = _mem()

    def model(messages):  # type: ignore[no-untyped-def]
        return "The user first wanted concise answers; since 3 May, detailed answers (current)."

    short = mem.brief("How detailed should answers be?", model=model, max_words=20)
    assert short.text == model([]) and "[CURRENT]" in short.metadata["template_text"]

    def rambling(messages):  # type: ignore[no-untyped-def]
        return "word " * 500

    refused = mem.brief("How detailed should answers be?", model=rambling, max_words=20)
    assert refused.metadata["summary_fallback"] and "[CURRENT]" in refused.text

    def broken(messages):  # type: ignore[no-untyped-def]
        raise TimeoutError("slow")

    fallback = mem.brief("How detailed should answers be?", model=broken)
    assert fallback.metadata["summary_fallback"] and "Conflicts" in fallback.text
