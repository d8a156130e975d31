"""Recall's shortcuts give what the general paths give: short hash batches, namespaces without dialogue turns."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent import Memory
from psychoagent.embed import HashingEmbedder
from psychoagent.embed.hashing import PER_TEXT_CHARS
from psychoagent.memory.config import MemoryConfig, RecallConfig
from psychoagent.memory.recall.retrieve import Candidates, RecallContext, relevance_stage
from psychoagent.memory.recall.stages import conversation_stage

SHORT = ["w12 w7 w3051", "Ana moved to Lyon", "用户把预算提高到3000元", "Σς  tabs\tand  spaces", "x"]


def test_a_short_batch_embeds_as_the_columnar_path_does() -> None:
    embedder = HashingEmbedder(64)
    filler = [f"a longer sentence about routine events number {i} in the archive" for i in range(12)]
    assert sum(map(len, filler)) > PER_TEXT_CHARS  # the batch below takes the columnar path
    together = embedder.embed_documents([*SHORT, *filler])
    for i, text in enumerate(SHORT):
        assert len(text) <= PER_TEXT_CHARS
        assert np.array_equal(embedder.embed_queries([text])[0], together[i])
    assert np.array_equal(embedder.embed_documents(SHORT[:2]), together[:2])


def test_a_lone_surrogate_fails_on_both_paths() -> None:
    embedder = HashingEmbedder(64)
    with pytest.raises(UnicodeEncodeError):
        embedder.embed_queries(["bad \ud800 text"])
    with pytest.raises(UnicodeEncodeError):
        embedder.embed_documents(["bad \ud800 text", "x" * (PER_TEXT_CHARS + 1)])


def _parts(mem: Memory, query: str, force_turns: bool) -> dict[str, np.ndarray]:
    index = mem._index()
    cfg = mem.config.recall
    vector = mem.embedder.embed_queries([query])[0]
    rows = np.arange(len(index), dtype=np.int64)
    cands = Candidates(
        rows=rows,
        parts={"dense": index.vectors @ vector, "keyword": np.linspace(1.0, 0.0, len(rows))},
        score=np.zeros(len(rows)),
    )
    ctx = RecallContext(query=query, query_vector=vector, k=3, now=0.0)
    relevance_stage(cands, index, ctx, cfg)
    cands.score = cands.score - 0.3  # negative relevance too: a previous unit of 0 still lifts it
    if force_turns:
        conversation = index.conversation
        original = conversation.any_turn
        conversation.any_turn = lambda: True  # type: ignore[method-assign]
        try:
            conversation_stage(cands, index, ctx, cfg)
        finally:
            conversation.any_turn = original  # type: ignore[method-assign]
    else:
        conversation_stage(cands, index, ctx, cfg)
    return {**cands.parts, "score": cands.score}


def test_conversation_stage_without_turns_matches_the_general_path() -> None:
    cfg = RecallConfig(reply_weight=0.3, session_weight=0.2)
    mem = Memory(embedder="hash", appraiser=None, config=MemoryConfig(recall=cfg))
    mem.observe_many(["Ana moved to Lyon.", "The budget is 3000 dollars.", "Ken sings in a choir."])
    assert not mem._index().conversation.any_turn()
    short, general = _parts(mem, "Where does Ana live?", False), _parts(mem, "Where does Ana live?", True)
    assert short.keys() == general.keys() and {"reply", "session"} <= short.keys()
    for name in short:
        assert np.array_equal(short[name], general[name]), name
    assert (short["reply"] > 0).any()  # the negative relevances were lifted towards 0
