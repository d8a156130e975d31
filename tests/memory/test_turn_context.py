"""Turn windows: dialogue turns are searched by the embedding of the previous turn and themselves."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from psychoagent import Memory
from psychoagent.embed import HashingEmbedder
from psychoagent.memory.config import MemoryConfig, RecallConfig
from psychoagent.memory.index.context import turn_windows

MAY_20 = datetime(2023, 5, 20, 14, 0, tzinfo=UTC).timestamp()
HOUR = 3600.0


class CountingEmbedder:
    """A hash embedder that looks its vectors up in the store like a model (and counts what it embeds)."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder(64)
        self.name, self.dim = "counting-64", 64
        self.embedded: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)


def test_a_turn_is_windowed_with_the_previous_turn_of_its_session_only() -> None:
    texts = ["Ana: How was the ice cream?", "Ben: Super good!", "a note without a speaker", "Ben: Back again.",
             "Ana: Next day."]  # fmt: skip
    created = [MAY_20, MAY_20 + 60, MAY_20 + 120, MAY_20 + 180, MAY_20 + 2 * 86400]
    assert turn_windows(texts, created, None, HOUR) == [(1, "Ana: How was the ice cream?\nBen: Super good!")]
    # the batch's first turn reads the row stored before it
    previous = ("Ana: Did you try it?", MAY_20 - 60)
    assert turn_windows(texts[:1], created[:1], previous, HOUR) == [(0, "Ana: Did you try it?\n" + texts[0])]
    assert turn_windows(texts[:1], created[:1], ("Ana: Long ago.", MAY_20 - 2 * HOUR), HOUR) == []


def chat(turns: list[str], path: Path | None = None, one_by_one: bool = False, **recall: object) -> Memory:
    cfg = MemoryConfig(recall=RecallConfig(track_access=False, **recall))  # type: ignore[arg-type]
    mem = Memory(path, embedder="hash", appraiser=None, config=cfg)
    when = datetime.fromtimestamp(MAY_20, tz=UTC)
    items = [
        {"text": t, "id": f"t{i}", "timestamp": when + timedelta(seconds=i)} for i, t in enumerate(turns)
    ]
    if one_by_one:
        for item in items:
            mem.observe(item["text"], id=item["id"], timestamp=item["timestamp"])
    else:
        mem.observe_many(items)
    return mem


TURNS = ["Ana: How was the coconut milk ice cream you made?", "Ben: Super good, rich and creamy!",
         "Ben: I also went hiking with my brother.", "Ana: The weather has been lovely."]  # fmt: skip


def test_turns_are_searched_by_their_window_and_the_same_one_by_one() -> None:
    mem = chat(TURNS)
    index = mem._ns.index()
    assert np.allclose(index.search_vectors[0], index.vectors[0])  # no previous turn: its own vector
    expected = mem._shared.embedder.embed_documents([TURNS[0] + "\n" + TURNS[1]])[0]
    assert np.allclose(index.search_vectors[1], expected / np.linalg.norm(expected), atol=1e-6)
    assert not np.allclose(index.search_vectors[1], index.vectors[1])
    incremental = chat(TURNS, one_by_one=True)._ns.index()
    assert np.allclose(incremental.search_vectors, index.search_vectors, atol=1e-6)


def test_without_turns_or_when_off_recall_searches_the_unit_vectors() -> None:
    facts = chat(["the sky is blue", "water boils at 100 degrees"])._ns.index()
    assert facts.search_vectors is facts.vectors or np.shares_memory(facts.search_vectors, facts.vectors)
    off = chat(TURNS, turn_context=False)._ns.index()
    assert np.shares_memory(off.search_vectors, off.vectors)


def test_a_reply_is_found_by_what_it_answers() -> None:
    query = "What did Ben think of the coconut milk ice cream?"
    off = {"turn_context": False, "reply_weight": 0.0, "neighbour_dense_weight": 0.0,
           "neighbour_keyword_weight": 0.0, "session_weight": 0.0}  # fmt: skip
    on = {k: v for k, v in off.items() if k != "turn_context"}
    hit_on = next(h for h in chat(TURNS, **on).recall(query, k=4) if h.unit.id == "t1")
    hit_off = next(h for h in chat(TURNS, **off).recall(query, k=4) if h.unit.id == "t1")
    assert hit_on.parts["dense"] > hit_off.parts["dense"] + 0.1


def test_window_vectors_are_kept_in_the_store_and_not_embedded_again(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    first = CountingEmbedder()
    cfg = MemoryConfig(recall=RecallConfig(track_access=False))
    with Memory(path, embedder=first, appraiser=None, config=cfg) as mem:
        when = datetime.fromtimestamp(MAY_20, tz=UTC)
        mem.observe_many([{"text": t, "timestamp": when} for t in TURNS])
        stored = mem._ns.index().search_vectors.copy()
    assert TURNS[0] + "\n" + TURNS[1] in first.embedded
    again = CountingEmbedder()
    with Memory(path, embedder=again, appraiser=None, config=cfg) as mem:
        assert np.allclose(mem._ns.index().search_vectors, stored)
    assert again.embedded == []
