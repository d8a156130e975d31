"""The recall pipeline: pure scoring functions and hybrid behaviour."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from psychoagent import Memory
from psychoagent.embed import HashingEmbedder, get_embedder
from psychoagent.memory.config import MemoryConfig, RecallConfig
from psychoagent.memory.recall.retrieve import (
    SECONDS_PER_DAY,
    access_factor,
    convex_fusion,
    minmax,
    query_terms,
    recency_factor,
    rrf_fusion,
    validity_factor,
)
from psychoagent.text import tokens


@given(st.lists(st.floats(-1, 1), min_size=1, max_size=50))
def test_minmax_stays_in_unit_interval(values: list[float]) -> None:
    out = minmax(np.array(values))
    assert ((out >= 0) & (out <= 1)).all()


def test_floor_keeps_small_differences_small() -> None:
    sims = np.array([0.84, 0.85])
    assert minmax(sims)[0] == 0.0
    assert minmax(sims, floor=0.7)[0] > 0.9


def test_convex_fusion_weights_and_missing_keyword_hits() -> None:
    fused = convex_fusion(np.array([0.9, 0.5]), np.array([0.0, 3.0]), dense_weight=0.6)
    np.testing.assert_allclose(fused, [0.6, 0.4])


def test_rrf_prefers_items_found_by_both() -> None:
    fused = rrf_fusion(np.array([0.9, 0.8, 0.1]), np.array([0.0, 2.0, 1.0]), k=60)
    assert fused.argmax() == 1
    assert fused.max() <= 1.0


@given(st.floats(0, 3650), st.floats(1, 365), st.floats(0.01, 1))
def test_recency_is_geometric_and_bounded(age_days: float, half_life: float, weight: float) -> None:
    one = recency_factor(np.array([age_days * SECONDS_PER_DAY]), half_life, weight)[0]
    later = recency_factor(np.array([(age_days + half_life) * SECONDS_PER_DAY]), half_life, weight)[0]
    assert 1 - weight - 1e-9 <= later <= one <= 1 + 1e-9
    # one more half-life halves the recency bonus above the floor
    np.testing.assert_allclose(later - (1 - weight), (one - (1 - weight)) / 2, rtol=1e-6, atol=1e-12)


def test_access_and_validity_factors() -> None:
    assert access_factor(np.array([0.0]), 0.05, 1.2)[0] == 1.0
    assert access_factor(np.array([1e9]), 0.05, 1.2)[0] == 1.2
    out = validity_factor(np.array([np.nan, 10.0, 30.0]), now=20.0, factor=0.8)
    np.testing.assert_allclose(out, [1.0, 0.8, 1.0])


def test_tokens_segment_chinese_and_stem_queries() -> None:
    assert "预算" in tokens("用户把预算从1000元提高到3000元")
    assert query_terms("What is the budget?") == ["budget"]
    assert query_terms("the of and") == []


def test_every_hit_explains_its_score() -> None:
    mem = Memory(embedder="hash")
    mem.observe_many(["Alice moved to Berlin in May", "Bob adopted a grey cat", "爱丽丝在柏林工作"])
    hits = mem.recall("Alice Berlin", k=3)
    assert hits[0].unit.content == "Alice moved to Berlin in May"
    for part in ("dense", "keyword", "relevance", "recency", "access", "validity"):
        assert part in hits[0].parts
    parts = hits[0].parts
    base = parts["relevance"] + parts.get("reply", 0.0) + parts.get("session", 0.0)
    factors = [parts.get(name, 1.0) for name in ("speaker", "time", "recency", "access", "validity")]
    assert np.isclose(hits[0].score, base * float(np.prod(factors)))


def test_keyword_search_finds_chinese_words() -> None:
    mem = Memory(embedder="hash")
    mem.observe_many(["用户说下周要去上海出差。", "今天的午饭很好吃。", "The budget is tight."])
    hits = mem.recall("上海出差", k=1)
    assert hits[0].unit.content == "用户说下周要去上海出差。"
    assert hits[0].parts["keyword"] > 0


def test_rrf_fusion_is_selectable() -> None:
    cfg = MemoryConfig(recall=RecallConfig(fusion="rrf", recency_weight=0, access_weight=0))
    mem = Memory(embedder="hash", config=cfg)
    mem.observe_many(["red apples are sweet", "green pears are crunchy"])
    hits = mem.recall("sweet red apples", k=2)
    assert hits[0].unit.content == "red apples are sweet"
    assert hits[0].parts["relevance"] > hits[1].parts["relevance"]


def test_recency_breaks_ties_toward_newer_memories() -> None:
    mem = Memory(embedder="hash", config=MemoryConfig(recall=RecallConfig(access_weight=0)))
    mem.observe("the shop opens at nine", timestamp="2020-01-01T00:00:00Z", id="old")
    mem.observe("the shop opens at nine", timestamp="2024-01-01T00:00:00Z", id="new")
    hits = mem.recall("when does the shop open", k=2, now="2024-01-02T00:00:00Z")
    assert [h.unit.id for h in hits] == ["new", "old"]
    assert hits[1].parts["recency"] < hits[0].parts["recency"]


def test_access_reinforcement_is_counted_and_persisted() -> None:
    mem = Memory(embedder="hash")
    unit = mem.observe("the password hint is the cat's name")
    for _ in range(3):
        mem.recall("password hint", k=1)
    stored = mem.get(unit.id)
    assert stored is not None and stored.access_count == 3
    assert mem.recall("password hint", k=1)[0].parts["access"] > 1.0


def test_embeddings_are_cached_by_content() -> None:
    calls: list[int] = []

    class Counting(HashingEmbedder):
        def embed_documents(self, texts):  # type: ignore[no-untyped-def]
            calls.append(len(texts))
            return super().embed_documents(texts)

    mem = Memory(embedder=Counting())
    mem.observe("same text", id="a")
    mem.observe("same text", id="b")
    mem.for_namespace("other").observe("same text")
    assert calls == [1]


def test_embedder_specs() -> None:
    assert get_embedder("hash-64").dim == 64
    assert get_embedder("e5").dim == 384
    try:
        get_embedder("nonsense")
    except ValueError as exc:
        assert "unknown embedder" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected ValueError")


def test_default_embedder_ranks_english_and_chinese() -> None:
    mem = Memory()
    mem.observe("Alice moved to Berlin")
    mem.observe("Bob works as a baker in Paris")
    mem.observe("爱丽丝养了一只猫")
    assert mem.recall("Where does Alice live?", k=3)[0].unit.content == "Alice moved to Berlin"
    assert mem.recall("谁养了猫？", k=1)[0].unit.content == "爱丽丝养了一只猫"


def test_keyword_index_bm25_and_membership() -> None:
    from psychoagent.memory.index.keyword import KeywordIndex

    kw = KeywordIndex()
    kw.add([0, 1, 2], [["red", "apple"], ["green", "apple", "apple"], ["blue", "sky"]])
    rows, scores = kw.search(["apple", "red"], mask=None, n=5)
    assert list(rows) == [0, 1] and scores[0] > scores[1] > 0
    rows, _ = kw.search(["apple"], mask=np.array([True, False, True]), n=5)
    assert list(rows) == [0]
    m = kw.matches(["apple", "sky", "nope"], np.array([0, 1, 2]))
    assert m.tolist() == [[True, False, False], [True, False, False], [False, True, False]]


def test_keyword_weights_follow_the_collection() -> None:
    from psychoagent.memory.index.keyword import KeywordIndex

    kw = KeywordIndex()
    kw.add([0, 1], [["red", "apple"], ["green", "pear"]])
    _, before = kw.search(["apple"], mask=None, n=5)
    # apple is now in 2 of 5 documents (was 1 of 2): rarer, so its weight rises
    kw.add([2, 3, 4], [["red", "apple", "pie"], ["blue", "sky"], ["grey", "sky"]])
    rows, after = kw.search(["apple"], mask=None, n=5)
    assert list(rows) == [0, 2] and after[0] > before[0]  # the cached weight was recomputed
    assert kw.terms(2) == ("red", "appl", "pie") and kw.frequency("appl") == 2
    assert kw.matches(["appl"], np.array([0, 1, 2]), stemmed=True)[:, 0].tolist() == [True, False, True]
