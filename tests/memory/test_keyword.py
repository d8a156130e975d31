"""Keyword index: frequent terms scored from full-length weight arrays give the same BM25 top-n as the postings
scatter, and those arrays follow every write."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from psychoagent.memory.index import keyword
from psychoagent.memory.index.keyword import KeywordIndex


def corpus(n: int, seed: int) -> list[list[str]]:
    """Documents of 6-12 words from a skewed vocabulary (word 'w0' in most of them)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, 301)
    return [
        [f"w{j}" for j in rng.choice(300, size=int(rng.integers(6, 13)), p=p / p.sum())] for _ in range(n)
    ]


def build(docs: list[list[str]]) -> KeywordIndex:
    index = KeywordIndex()
    index.add(range(len(docs)), docs)
    return index


def test_dense_and_scatter_scoring_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(KeywordIndex, "_rare_first", lambda self, *a: None)  # both score every document
    docs = corpus(3000, seed=1)
    queries = [["w0", "w1", "w57"], ["w0"], ["w2", "w140", "w299", "nothing"], ["w0", "w0", "w3"]]
    dense_index = build(docs)
    mask = np.arange(3000) % 3 != 0
    dense = [dense_index.search(q, m, 50) for q in queries for m in (None, mask)]
    assert dense_index._dense  # the frequent words took the full-length path
    monkeypatch.setattr(keyword, "DENSE_SHARE", 2.0)  # never dense
    scatter_index = build(docs)
    scatter = [scatter_index.search(q, m, 50) for q in queries for m in (None, mask)]
    assert not scatter_index._dense
    for (rows_a, scores_a), (rows_b, scores_b) in zip(dense, scatter, strict=True):
        assert np.array_equal(rows_a, rows_b) and np.array_equal(scores_a, scores_b)


def test_full_length_weights_follow_writes() -> None:
    index = build(corpus(400, seed=2))
    index.search(["w0"], None, 10)
    before = index._dense["w0"].copy()
    index.add([400], [["w0"] * 5 + ["w9"]])  # a new document dense in the frequent word
    rows, scores = index.search(["w0"], None, 401)
    assert 400 in rows.tolist() and len(index._dense["w0"]) == 401
    assert not np.array_equal(index._dense["w0"][:400], before)  # collection statistics changed: recomputed
    assert rows[0] == 400 and scores[0] == scores.max()


def test_at_most_a_few_full_length_arrays_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyword, "DENSE_SHARE", 0.0)  # every term dense
    index = build(corpus(200, seed=3))
    for j in range(keyword.DENSE_TERMS + 5):
        index.search([f"w{j}"], None, 5)
    assert len(index._dense) == keyword.DENSE_TERMS


def test_another_writers_units_reach_the_full_length_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from psychoagent import Memory

    monkeypatch.setattr(keyword, "DENSE_SHARE", 0.0)  # every term takes the full-length path
    path = tmp_path / "shared.db"
    reader = Memory(path=path, embedder="hash", appraiser=None)
    writer = Memory(path=path, embedder="hash", appraiser=None)  # another open memory: as another process
    reader.observe_many([f"the harbour log entry {i}" for i in range(30)])
    assert reader.recall("harbour", k=1)  # the reader's weights are now cached
    writer.observe("the harbour crane collapsed onto the harbour pier")
    hits = reader.recall("harbour crane", k=1)  # caught up through the change counter
    assert hits[0].unit.content.startswith("the harbour crane")
    reader.close()
    writer.close()


def test_membership_of_rare_terms_located_at_once_agrees_with_the_binary_search() -> None:
    index = build(corpus(3000, seed=4))
    terms = [f"w{j}" for j in (0, 1, 5, 40, 120, 250, 299)] + ["absent"]
    rng = np.random.default_rng(5)
    increasing = np.unique(rng.choice(3000, size=200, replace=False))
    for rows in (
        increasing,
        increasing[::-1].copy(),
        np.concatenate([increasing, increasing - 1]),
        increasing[:1],
    ):
        got = index.matches(terms, rows)
        expected = np.array(
            [[f"w{j}" in set(docs_of(index, r)) for j in (0, 1, 5, 40, 120, 250, 299)] for r in rows]
        )
        assert np.array_equal(got[:, :-1], expected.reshape(len(rows), -1)) and not got[:, -1].any()


def docs_of(index: KeywordIndex, row: int) -> tuple[str, ...]:
    """The stems of one document as the index holds them."""
    return index.terms(int(row))


def test_postings_read_after_more_documents_are_added_include_them() -> None:
    """Postings grow after they were first read (their cached arrays are rebuilt from the grown postings)."""
    kw = KeywordIndex()
    kw.add([0, 1], [["red", "apple"], ["green", "apple"]])
    rows, _ = kw.search(["apple"], None, 10)
    assert sorted(rows.tolist()) == [0, 1]
    kw.add([2], [["apple", "apple", "pie"]])
    rows, _ = kw.search(["apple"], None, 10)
    assert rows.tolist()[0] == 2 and sorted(rows.tolist()) == [0, 1, 2]  # two occurrences score highest
    assert kw.matches(["apple", "pie"], np.array([0, 2])).tolist() == [[True, False], [True, True]]


def test_the_rarer_terms_first_give_the_top_n_of_every_document(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = corpus(4000, seed=5)
    index = build(docs)
    rng = np.random.default_rng(9)
    queries = [["w0", "w1", f"w{j}"] for j in range(20, 120, 7)] + [
        [f"w{j}" for j in rng.choice(300, size=4)] for _ in range(40)
    ]
    mask = np.arange(4000) % 4 != 1
    monkeypatch.setattr(KeywordIndex, "_rare_first", lambda self, *a: None)
    full = [index.search(q, m, 20) for q in queries for m in (None, mask)]
    monkeypatch.undo()
    used = 0
    original = KeywordIndex._rare_first

    def counting(self: KeywordIndex, *args: object) -> object:
        nonlocal used
        got = original(self, *args)  # type: ignore[arg-type]
        used += got is not None
        return got

    monkeypatch.setattr(KeywordIndex, "_rare_first", counting)
    fast = [index.search(q, m, 20) for q in queries for m in (None, mask)]
    assert used >= 10  # the shortcut was taken, and where taken it found what scoring every document finds
    for (rows_a, scores_a), (rows_b, scores_b) in zip(full, fast, strict=True):
        assert np.allclose(np.sort(scores_a), np.sort(scores_b))
        last = scores_a.min() + 1e-9  # documents tied with the n-th may take its place either way
        assert set(rows_a[scores_a > last].tolist()) == set(rows_b[scores_b > last].tolist())


def test_the_sampled_threshold_keeps_the_top_n(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = corpus(6000, seed=8)
    index = build(docs)
    queries = [["w0"], ["w0", "w1"], ["w1", "w2", "w40"], ["w0", "w5", "w9", "w77"]]
    mask = np.arange(6000) % 5 != 2
    monkeypatch.setattr(keyword, "_top_by_sample", lambda scores, n: None)
    full = [index.search(q, m, n) for q in queries for m in (None, mask) for n in (3, 10)]
    monkeypatch.undo()
    fast = [index.search(q, m, n) for q in queries for m in (None, mask) for n in (3, 10)]
    assert len(index) >= keyword.SAMPLE_MIN_RATIO * 10  # long enough to take the sampled threshold
    for (rows_a, scores_a), (rows_b, scores_b) in zip(full, fast, strict=True):
        assert np.allclose(scores_a, scores_b)
        last = scores_a.min() + 1e-9
        assert set(rows_a[scores_a > last].tolist()) == set(rows_b[scores_b > last].tolist())


def test_a_snapshot_index_takes_new_documents_and_forgets_old_ones() -> None:
    docs = corpus(500, seed=6)
    live = build(docs)
    frozen = KeywordIndex.from_arrays(build(docs).to_arrays())
    more = corpus(40, seed=7)
    for index in (live, frozen):
        index.add(range(500, 540), more)
        index.remove(3)
        index.remove(510)
    for query in (["w0"], ["w1", "w30"], ["w7", "w200", "w0"]):
        (rows_a, scores_a), (rows_b, scores_b) = live.search(query, None, 25), frozen.search(query, None, 25)
        assert rows_a.tolist() == rows_b.tolist() and np.allclose(scores_a, scores_b)
        assert live.frequency(query[0]) == frozen.frequency(query[0])
    rows = np.arange(0, 540, 7)
    assert np.array_equal(
        live.matches(["w0", "w5", "w150"], rows), frozen.matches(["w0", "w5", "w150"], rows)
    )
    again = KeywordIndex.from_arrays(frozen.to_arrays())
    assert (
        again.search(["w1", "w30"], None, 25)[0].tolist() == live.search(["w1", "w30"], None, 25)[0].tolist()
    )
