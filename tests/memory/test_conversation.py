"""Recall over small hand-made conversations: neighbours, speakers, session dates and two-turn questions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from psychoagent import Memory
from psychoagent.memory.config import MemoryConfig, RecallConfig
from psychoagent.memory.index.conversation import ConversationIndex, linked_previous, session_ids, speaker_of

NO_CONTEXT = {"neighbour_dense_weight": 0.0, "neighbour_keyword_weight": 0.0, "reply_weight": 0.0,
              "session_weight": 0.0, "speaker_boost": 0.0, "date_boost": 0.0, "when_boost": 0.0,
              "turn_context": False}  # fmt: skip


def chat(sessions: list[tuple[datetime, list[str]]], **recall: float) -> Memory:
    """One unit per turn, id 'D{session}:{turn}', every turn stamped with its session's time."""
    cfg = RecallConfig(track_access=False, recency_weight=0.0, **recall)  # type: ignore[arg-type]
    mem = Memory(embedder="hash", appraiser=None, config=MemoryConfig(recall=cfg))
    items = [
        {"text": text, "id": f"D{s}:{t}", "timestamp": when}
        for s, (when, turns) in enumerate(sessions, start=1)
        for t, text in enumerate(turns, start=1)
    ]
    mem.observe_many(items)
    return mem


def ids(mem: Memory, query: str, k: int = 3) -> list[str]:
    return [h.unit.id for h in mem.recall(query, k=k)]


MAY_20 = datetime(2023, 5, 20, 14, 0, tzinfo=UTC)
FILLER = [
    "Ben: I went hiking in the mountains with my brother.",
    "Ana: The weather has been lovely for walks.",
    "Ben: My brother loves taking photos of birds.",
    "Ana: I finished reading a novel about sailors.",
    "Ben: Work has been busy with the new project.",
    "Ana: I should start a garden this spring.",
]
ICE_CREAM = [
    "Ana: How was the coconut milk ice cream you made?",
    "Ben: Super good, rich and creamy - my new favourite snack!",
]


def test_an_answer_is_found_through_the_question_before_it() -> None:
    sessions = [(MAY_20, FILLER[:3] + ICE_CREAM + FILLER[3:])]
    query = "What did Ben think of the coconut milk ice cream?"
    assert "D1:5" in ids(chat(sessions), query, k=2)
    assert "D1:5" not in ids(chat(sessions, **NO_CONTEXT), query, k=2)
    hit = next(h for h in chat(sessions).recall(query, k=3) if h.unit.id == "D1:5")
    assert hit.parts["reply"] > 0 and hit.parts["dense_context"] != hit.parts["dense"]


def test_neighbours_stop_at_a_session_boundary() -> None:
    later = MAY_20 + timedelta(days=3)
    sessions = [(MAY_20, FILLER[:3] + ICE_CREAM[:1]), (later, ICE_CREAM[1:] + FILLER[3:])]
    hit = next(h for h in chat(sessions).recall("coconut milk ice cream", k=10) if h.unit.id == "D2:1")
    assert hit.parts["reply"] == 0.0  # the question was asked in another session
    created = np.array([0.0, 10.0, 20.0, 99_999.0, 100_000.0])
    assert linked_previous(created, np.arange(5), 3600).tolist() == [False, True, True, False, True]
    assert session_ids(created, 3600).tolist() == [0, 0, 0, 1, 1]


def test_the_speaker_a_question_names_ranks_first() -> None:
    turns = ["Ana: Ben, I adopted a cat called Momo.", "Ben: Ana, I adopted a dog called Rex."]
    mem = chat([(MAY_20, turns + FILLER)])
    hits = mem.recall("Which pet did Ben adopt?", k=10)
    assert hits[0].unit.id == "D1:2" and hits[0].parts["speaker"] > 1.0
    assert next(h for h in hits if h.unit.id == "D1:1").parts["speaker"] == 1.0
    assert ids(mem, "Which pet did Ana adopt?", k=1) == ["D1:1"]


def test_speakers_and_aliases() -> None:
    assert speaker_of("Melanie: I painted a sunrise") == "Melanie"
    assert speaker_of("just a sentence: with a colon") is None
    conv = ConversationIndex()
    conv.add(["Melanie: hi", "Caroline: hello", "no speaker here"], [0.0, 1.0, 2.0])
    assert conv.speakers(np.arange(3)).tolist() == [0, 1, -1]
    assert conv.named_speakers("What did Mel paint?") == [0]
    assert conv.named_speakers("Did Caroline and Melanie meet?") == [0, 1]
    assert conv.named_speakers("What can cars do?") == []  # lower-case words are not aliases


def test_a_named_date_finds_the_turn_that_said_yesterday() -> None:
    sessions = [
        (datetime(2023, 5, 2, 10, tzinfo=UTC), ["Ana: I went to the support group today, it was calm."]),
        (datetime(2023, 5, 14, 10, tzinfo=UTC), ["Ana: I went to the support group yesterday, it was powerful."]),
        (datetime(2023, 6, 1, 10, tzinfo=UTC), ["Ana: I went to the support group, it was long."]),
    ]  # fmt: skip
    mem = chat(sessions)
    hits = mem.recall("How was the support group Ana went to on 13 May, 2023?", k=3)
    assert hits[0].unit.id == "D2:1" and hits[0].parts["time"] > 1.0
    assert ids(mem, "What did Ana do in June 2023?", k=1) == ["D3:1"]


def test_a_two_turn_question_gets_both_turns_of_its_session() -> None:
    marathon = [
        "Ana: I signed up for my first marathon!",
        "Ben: Amazing, when is it?",
        "Ana: In October, and the race goes through Lisbon.",
    ]
    other = (MAY_20 + timedelta(days=9), ["Ana: I ran five kilometres in the park.", *FILLER[:2]])
    query = "Where is the marathon Ana signed up for?"
    top = ids(chat([(MAY_20, FILLER[:3] + marathon), other]), query, k=3)
    assert {"D1:4", "D1:6"} <= set(top)
    assert not {"D1:4", "D1:6"} <= set(
        ids(chat([(MAY_20, FILLER[:3] + marathon), other], **NO_CONTEXT), query)
    )


def test_any_turn_tells_whether_a_namespace_holds_dialogue_turns() -> None:
    conv = ConversationIndex()
    conv.add(["The budget is 3000 dollars.", "Meeting moved to Friday."], [0.0, 60.0])
    assert not conv.any_turn()
    conv.add(["Ana: How was the ice cream?"], [120.0])
    assert conv.any_turn() and conv.is_turn(np.array([0, 2])).tolist() == [False, True]
