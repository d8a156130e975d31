"""The recall currency stage: an older fact the pair scorer reads as updated ranks just below the newer one, and
pairs whose order no cap could change are never scored."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from psychoagent import Memory
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig
from psychoagent.memory.recall import currency
from psychoagent.memory.recall.currency import CurrencyStage
from psychoagent.memory.recall.pair_cache import NOT_COMPARABLE, PairDecisions
from psychoagent.memory.recall.retrieve import Candidates, RecallContext

OLD = "Hugo's monthly budget is 5000 dollars."
NEW = "Hugo raised his monthly budget to 6000 dollars."


@pytest.fixture(autouse=True)
def fresh_decisions(monkeypatch: pytest.MonkeyPatch) -> PairDecisions:
    """Each test reads its pairs anew (the kept decisions are per scorer, and the packaged scorer is shared)."""
    fresh = PairDecisions(100)
    monkeypatch.setattr(currency, "decisions_for", lambda scorer, size: fresh)
    return fresh


@pytest.fixture
def memory() -> Memory:
    """Both facts stored with detection off (no supersession at write), detection on for recall."""
    mem = Memory(embedder="hash", affect_config=AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False)))
    mem.observe(OLD, timestamp=datetime(2024, 1, 1, tzinfo=UTC))
    mem.observe(NEW, timestamp=datetime(2024, 2, 1, tzinfo=UTC))
    mem.affect_config = AffectiveMemoryConfig()
    return mem


def count_pairs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The (older, newer) texts of every pair the currency stage scores from now on, in order."""
    calls: list[tuple[str, str]] = []
    real = currency.scored_row

    def counted(
        old: str, new: str, dense: float, vectors: tuple[np.ndarray, np.ndarray] | None
    ) -> np.ndarray:
        calls.append((old, new))
        return real(old, new, dense, vectors)

    monkeypatch.setattr(currency, "scored_row", counted)
    return calls


def run_stage(
    mem: Memory, old_score: float, new_score: float, monkeypatch: pytest.MonkeyPatch
) -> tuple[Candidates, int]:
    """Run the stage on the two stored units with the given scores; returns the candidates and how many pairs
    were scored."""
    calls = count_pairs(monkeypatch)
    index = mem._index()
    cands = Candidates(rows=np.array([0, 1]), score=np.array([old_score, new_score]))
    ctx = RecallContext(query="What is Hugo's budget?", query_vector=index.vectors[0], k=2,
                        now=datetime(2024, 3, 1, tzinfo=UTC).timestamp())  # fmt: skip
    CurrencyStage(mem._ns)(cands, index, ctx, mem.config.recall)
    return cands, len(calls)


def test_an_older_fact_scoring_above_the_newer_is_capped_just_below_it(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    cands, scored = run_stage(memory, 1.0, 0.5, monkeypatch)
    gap = memory.affect_config.safety.supersession_gap
    assert scored == 1
    assert cands.parts["currency"][1] == 1.0
    assert cands.score[0] == pytest.approx(0.5 * gap) and cands.score[0] < cands.score[1]


def test_a_pair_already_in_order_is_not_scored(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    gap = memory.affect_config.safety.supersession_gap
    cands, scored = run_stage(memory, 0.5 * gap, 0.5, monkeypatch)  # exactly at the cap already
    assert scored == 0 and "currency" not in cands.parts
    assert list(cands.score) == [0.5 * gap, 0.5]
    # just above the cap the pair is scored again and lowered to it
    cands, scored = run_stage(memory, 0.5 * gap + 0.01, 0.5, monkeypatch)
    assert scored == 1 and cands.score[0] == pytest.approx(0.5 * gap)


def test_recall_ranks_the_newer_fact_first(memory: Memory) -> None:
    hits = memory.recall("What is Hugo's monthly budget?", k=2, now=datetime(2024, 3, 1, tzinfo=UTC))
    assert [h.unit.content for h in hits] == [NEW, OLD]


def test_an_older_fact_is_capped_below_its_lowest_scoring_update_and_other_pairs_are_skipped(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of several newer updates, the lowest-scoring one sets the older fact's cap; scoring the others could only
    give a higher cap, so they are not scored."""
    later = "Hugo cut his monthly budget to 4000 dollars."
    memory.affect_config = AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False))
    memory.observe(later, timestamp=datetime(2024, 2, 15, tzinfo=UTC))
    memory.affect_config = AffectiveMemoryConfig()
    calls = count_pairs(monkeypatch)
    index = memory._index()
    cands = Candidates(rows=np.array([0, 1, 2]), score=np.array([1.0, 0.6, 0.5]))
    ctx = RecallContext(query="What is Hugo's budget?", query_vector=index.vectors[0], k=3,
                        now=datetime(2024, 3, 1, tzinfo=UTC).timestamp())  # fmt: skip
    CurrencyStage(memory._ns)(cands, index, ctx, memory.config.recall)
    gap = memory.affect_config.safety.supersession_gap
    assert (OLD, NEW) not in calls and (OLD, later) in calls and (NEW, later) in calls
    assert cands.parts["currency"] == pytest.approx([0.5 * gap, 0.5 * gap / 0.6, 1.0])


def test_a_recall_asked_again_reads_no_pair_twice(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pair decisions are kept across recalls: the same question finds the same order without reading a pair
    again; with none kept (pair_decisions=0) every recall reads its pairs."""
    question, when = "What is Hugo's monthly budget?", datetime(2024, 3, 1, tzinfo=UTC)
    memory.config.recall.track_access = False  # the same scores each time
    calls = count_pairs(monkeypatch)
    first = [(h.unit.content, h.score) for h in memory.recall(question, k=2, now=when)]
    read = len(calls)
    again = [(h.unit.content, h.score) for h in memory.recall(question, k=2, now=when)]
    assert again == first and [c for c, _ in first] == [NEW, OLD]
    assert read >= 1 and len(calls) == read
    memory.config.recall.pair_decisions = 0
    assert [(h.unit.content, h.score) for h in memory.recall(question, k=2, now=when)] == first
    assert len(calls) == 2 * read


def test_pair_decisions_keep_the_most_recently_used() -> None:
    kept = PairDecisions(2)
    kept.put(("a", "b", 0.5), 0.9)
    kept.put(("a", "c", 0.5), NOT_COMPARABLE)
    assert kept.get(("a", "b", 0.5)) == 0.9  # now the most recent
    kept.put(("b", "c", 0.5), 0.1)
    assert len(kept) == 2 and kept.get(("a", "c", 0.5)) is None and kept.get(("a", "b", 0.5)) == 0.9


class _Unsure:
    """A pair scorer that reads every pair as an update with probability 0.3 (below the recall threshold)."""

    vector_dim = 0

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        return np.tile([0.3, 0.0, 0.7, 0.0], (len(np.atleast_2d(rows)), 1))


@pytest.mark.parametrize(("newer_relevance", "capped"), [(0.95, True), (0.5, False)])
def test_a_newer_fact_answering_the_query_as_well_needs_less_evidence(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, newer_relevance: float, capped: bool
) -> None:
    """Below the update threshold but above the close one, the older fact is capped only when the newer one is
    about as relevant to the query (two answers to one question) and not when it answers something else."""
    conf = memory.affect_config.conflicts
    assert conf.recall_close_threshold <= 0.3 < conf.recall_update_threshold
    monkeypatch.setattr(currency, "scorer_for", lambda conf, name: _Unsure())
    index = memory._index()
    cands = Candidates(
        rows=np.array([0, 1]),
        parts={"relevance": np.array([1.0, newer_relevance])},
        score=np.array([1.0, 0.5]),
    )
    ctx = RecallContext(query="What is Hugo's budget?", query_vector=index.vectors[0], k=2,
                        now=datetime(2024, 3, 1, tzinfo=UTC).timestamp())  # fmt: skip
    CurrencyStage(memory._ns)(cands, index, ctx, memory.config.recall)
    assert bool(cands.score[0] < cands.score[1]) is capped
