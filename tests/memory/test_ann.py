"""Dense top-n: the IVF index agrees with the exact scan on clustered data and keeps up with appended rows."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent import Memory
from psychoagent.embed import normalise
from psychoagent.memory.config import MemoryConfig, RecallConfig
from psychoagent.memory.index.ann import dense_top

pytest.importorskip("faiss")


class ClusterIndex:
    """Just what dense_top reads: a vector matrix and an `ann` slot."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors
        self.ann = None

    def __len__(self) -> int:
        return len(self.vectors)


def clustered(n: int, seed: int, dim: int = 32) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = np.random.default_rng(0).normal(size=(30, dim)) if dim != 32 else rng.normal(size=(30, dim))
    return normalise(centres[rng.integers(0, 30, n)] + 0.3 * rng.normal(size=(n, dim)))


@pytest.mark.parametrize("codec", ["pq2", "pq4", "int8", "float32"])
def test_ivf_finds_what_the_exact_scan_finds(codec: str) -> None:
    vectors = clustered(3000, seed=1)
    queries = clustered(50, seed=2)
    ivf_cfg = RecallConfig(ann_min_rows=1000, ann_probes=8, ann_codec=codec)  # type: ignore[arg-type]
    index = ClusterIndex(vectors)
    overlap = []
    for q in queries:
        exact = set(np.argsort(-(vectors @ q))[:10].tolist())
        found = set(dense_top(index, q, None, 10, ivf_cfg).tolist())
        overlap.append(len(exact & found) / 10)
    assert index.ann is not None and index.ann.codec == codec  # the IVF path was taken
    assert np.mean(overlap) >= 0.9
    # a filter always scans exactly; so does a namespace below the size threshold
    mask = np.zeros(3000, dtype=bool)
    mask[:50] = True
    assert set(dense_top(index, queries[0], mask, 5, ivf_cfg).tolist()) <= set(range(50))
    small = ClusterIndex(vectors[:500])
    dense_top(small, queries[0], None, 5, ivf_cfg)
    assert small.ann is None


def test_rows_added_after_training_are_searchable() -> None:
    cfg = RecallConfig(ann_min_rows=200, ann_probes=4, track_access=False)
    mem = Memory(embedder="hash", appraiser=None, config=MemoryConfig(recall=cfg))
    mem.observe_many([f"routine event number {i} about topic {i % 17}" for i in range(300)])
    assert mem.recall("routine event", k=3)  # trains the index
    mem.observe("The lighthouse keeper painted the door bright orange")
    assert mem.recall("lighthouse keeper orange door", k=1)[0].unit.content.startswith("The lighthouse")
    assert mem._index().ann is not None and len(mem._index().ann) == 301


@pytest.mark.parametrize("codec", ["pq2", "int8"])
def test_forget_drops_the_row_from_the_trained_index_without_training_it_again(codec: str) -> None:
    """A forgotten unit's codes leave the IVF index (they stand for its text), the index is not trained again, and
    rows added afterwards are still found."""
    cfg = RecallConfig(ann_min_rows=200, ann_probes=64, ann_codec=codec, track_access=False)  # type: ignore[arg-type]
    mem = Memory(embedder="hash", appraiser=None, config=MemoryConfig(recall=cfg))
    units = mem.observe_many([f"routine event number {i} about topic {i % 17}" for i in range(300)])
    secret = mem.observe("The lighthouse keeper painted the door bright orange")
    assert mem.recall("lighthouse keeper orange door", k=1)[0].unit.id == secret.id  # trains the index
    ann = mem._index().ann
    assert ann is not None
    row = mem._index().row_of[secret.id]
    query = mem._index().vectors[row].copy()
    assert row in ann.search(query, 5, 64).tolist()
    mem.forget(secret.id)
    assert mem._index().ann is ann and row not in ann.search(query, 5, 64).tolist()
    assert all(h.unit.id != secret.id for h in mem.recall("lighthouse keeper orange door", k=5))
    later = mem.observe("The harbour pilot rowed out at dawn")
    assert mem.recall("harbour pilot rowed dawn", k=1)[0].unit.id == later.id
    assert mem._index().ann is ann and len(ann) == 302
    mem.forget(units[0].id)
    assert mem._index().ann is ann


def test_int8_rerank_orders_by_exact_cosine_and_codec_change_rebuilds() -> None:
    vectors = clustered(3000, seed=3)
    q = clustered(1, seed=4)[0]
    index = ClusterIndex(vectors)
    cfg = RecallConfig(ann_min_rows=1000, ann_probes=30, ann_rerank=3)  # 30 of 54 lists: near-exhaustive
    found = dense_top(index, q, None, 10, cfg)
    assert len(found) == 10 and len(set(found.tolist())) == 10
    # the rows kept are the best by exact cosine among those the quantised index fetched
    fetched = index.ann.search(q, 30, cfg.ann_probes)  # type: ignore[union-attr]
    best = set(fetched[np.argsort(-(vectors[fetched] @ q))[:10]].tolist())
    assert set(found.tolist()) == best
    first = index.ann
    dense_top(index, q, None, 10, cfg.model_copy(update={"ann_codec": "float32"}))
    assert index.ann is not first and index.ann.codec == "float32"  # type: ignore[union-attr]


def test_pq2_codes_wide_vectors_and_gives_narrow_ones_int8() -> None:
    """The default codec: 4-bit codes of dimension pairs for 384-d vectors (re-scored exactly), int8 below 256-d.
    Asked as recall asks (its 100 candidates), the best 10 of them by exact cosine are the exact top 10."""
    vectors = clustered(3000, seed=5, dim=384)
    index = ClusterIndex(vectors)
    cfg = RecallConfig(ann_min_rows=1000, ann_probes=8)
    overlap = []
    for q in clustered(40, seed=6, dim=384):
        exact = set(np.argsort(-(vectors @ q))[:10].tolist())
        found = dense_top(index, q, None, cfg.candidates, cfg)
        best = found[np.argsort(-(vectors[found] @ q))[:10]]
        overlap.append(len(exact & set(best.tolist())) / 10)
    assert index.ann is not None and index.ann.codes == "pq2"
    assert np.mean(overlap) >= 0.9
    narrow = ClusterIndex(clustered(3000, seed=1))
    dense_top(narrow, vectors[0][:32], None, 10, cfg)
    assert narrow.ann is not None and narrow.ann.codec == "pq2" and narrow.ann.codes == "int8"
