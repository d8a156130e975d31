"""The content sub-query: a question about a speaker asked again without the speaker's name."""

from __future__ import annotations

import datetime as dt

import numpy as np

from psychoagent import Memory
from psychoagent.memory.config import MemoryConfig, RecallConfig
from psychoagent.memory.index.conversation import ConversationIndex
from psychoagent.memory.recall.subquery import content_query, fuse_content


def _conversation() -> ConversationIndex:
    conv = ConversationIndex()
    conv.add(["Melanie: hi there", "Caroline: hello", "李雷：你好"], [0.0, 1.0, 2.0])
    return conv


def test_content_query_strips_speakers_and_function_words() -> None:
    conv = _conversation()
    assert content_query("What activities does Melanie partake in?", conv) == "activities partake"
    assert content_query("What did Mel and her kids make?", conv) == "kids make"  # a prefix alias
    assert content_query("What is Caroline's identity?", conv) == "identity"
    assert content_query("What do they like?", conv) is None  # names no speaker
    assert content_query("Who is Melanie?", conv) is None  # nothing left


def test_fuse_content_is_a_convex_mix() -> None:
    main, content = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    assert np.allclose(fuse_content(main, content, 0.3), [0.7, 0.3])


def test_content_query_finds_the_topic_turn_of_a_named_speaker() -> None:
    """Every turn names its speaker; the content words find the one that is about the thing asked."""
    start = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    lines = [f"Ana: I talked with Ana's friend about the weather on day {i}." for i in range(8)]
    lines.insert(5, "Ana: I finally took up pottery classes at the studio.")
    on = Memory(embedder="hash")
    off = Memory(embedder="hash", config=MemoryConfig(recall=RecallConfig(content_query_weight=0.0)))
    for mem in (on, off):
        for i, text in enumerate(lines):
            mem.observe(text, timestamp=start + dt.timedelta(minutes=i))
    hits = on.recall("Which pottery classes did Ana take?", k=3, now=start + dt.timedelta(days=1))
    assert hits[0].unit.content == lines[5]
    assert "content" in hits[0].parts
    plain = off.recall("Which pottery classes did Ana take?", k=3, now=start + dt.timedelta(days=1))
    assert "content" not in plain[0].parts
