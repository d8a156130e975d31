"""Candidate gathering: units that are not dialogue turns have no neighbours, and nothing of their neighbours'
similarity or words reaches their parts."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from psychoagent import Memory
from psychoagent.memory.config import RecallConfig
from psychoagent.memory.recall.retrieve import (
    RecallContext,
    gather_candidates,
    keyword_coverage,
    query_terms,
    sorted_unique,
)


def test_facts_read_nothing_of_their_neighbours() -> None:
    mem = Memory(embedder="hash", appraiser=None)
    mem.observe_many([f"fact {i}: the harbour crane lifted {i} containers" for i in range(40)])
    index, cfg = mem._index(), RecallConfig()
    query = "harbour crane containers"
    ctx = RecallContext(query=query, query_vector=mem.embedder.embed_queries([query])[0], k=5, now=0.0)
    cands = gather_candidates(index, ctx, None, 20, "coverage", cfg)
    a = cfg.neighbour_dense_weight
    dense = cands.parts["dense"]
    assert np.array_equal(cands.parts["dense_context"], (1.0 - a) * dense + a * dense)
    own = index.keywords.matches(query_terms(query), cands.rows)
    assert np.allclose(cands.parts["keyword"], keyword_coverage(own.astype(np.float64)))
    mem.close()


def test_turns_read_their_neighbours() -> None:
    mem = Memory(embedder="hash", appraiser=None)
    mem.observe_many(
        [
            {"text": "Ana: How was the ice cream?", "timestamp": 1_700_000_000},
            {"text": "Ben: Super good!", "timestamp": 1_700_000_010},
        ]
    )
    index, cfg = mem._index(), RecallConfig()
    query = "ice cream"
    ctx = RecallContext(query=query, query_vector=mem.embedder.embed_queries([query])[0], k=2, now=0.0)
    cands = gather_candidates(index, ctx, None, 2, "coverage", cfg)
    reply = int(np.flatnonzero(cands.rows == 1)[0])
    assert cands.parts["keyword"][reply] > 0  # the words of the question before it count half
    assert cands.parts["dense_context"][reply] != cands.parts["dense"][reply]
    mem.close()


@given(arrays(np.int64, st.integers(0, 300), elements=st.integers(0, 50)))
def test_sorted_unique_is_numpy_unique(values: np.ndarray) -> None:
    out = sorted_unique(values)
    assert out.dtype == np.unique(values).dtype and np.array_equal(out, np.unique(values))
