"""Update and contradiction detection by meaning: each decision class on phrasings the scorer never saw, both
languages; superseding keeps both units; `recall(at=...)` answers what was true then."""

from __future__ import annotations

import json

import numpy as np
import pytest

from psychoagent import Memory
from psychoagent.memory.conflicts.detect import LABELS, PairScorer
from psychoagent.memory.conflicts.pairs import FEATURES, pair_features

T0, T1, T2 = "2024-03-01T09:00:00Z", "2024-04-01T09:00:00Z", "2024-05-01T09:00:00Z"


def _relation(old: str, new: str) -> tuple[str, Memory]:
    """Store old, an unrelated fact, then new (default embedder: e5, as users get it); return what detection made
    of the pair."""
    mem = Memory()
    first = mem.observe(old, timestamp=T0)
    mem.observe("The printer on the third floor is out of toner.", timestamp=T1)
    second = mem.observe(new, timestamp=T2)
    records = [r for r in mem.conflicts() if {r.side_a, r.side_b} == {first.id, second.id}]
    stale = mem.get(first.id)
    assert stale is not None
    if records and stale.invalid_at is not None:
        return "update", mem
    if records:
        return "contradiction", mem
    return "compatible", mem


_MISSED = pytest.mark.xfail(
    reason="known limit: a job change with no shared words or values is read as detail"
)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param("Oskar works as a pharmacist in Graz.", "Oskar is a schoolteacher these days.", "update", marks=_MISSED),
        ("Our dinner reservation is for four people.", "Two more friends are coming, so the dinner reservation is for six people.", "update"),
        ("Beatrix keeps a parrot called Kiwi.", "Beatrix renamed her parrot Mango.", "update"),
        ("The quarterly report is due on March 3.", "The quarterly report is now due on March 10.", "update"),
        ("I take the 7:40 train to work.", "I switched to the 8:15 train.", "update"),
        pytest.param("王磊在一家银行当柜员。", "王磊现在在一所中学教数学。", "update", marks=_MISSED),
        ("周末的聚餐定在海底捞。", "周末的聚餐改在了楼下的烤肉店。", "update"),
        ("刘芳的车是白色的本田雅阁。", "刘芳上个月把车换成了一辆特斯拉。", "update"),
        ("The HR file says Viktor is 41 years old.", "Viktor's passport says he is 38.", "contradiction"),
        ("据财务表，项目预算是50万元。", "项目合同上写的预算是80万元。", "contradiction"),
        ("Ingrid drives a blue Volvo.", "Ingrid's Volvo had its brakes checked on Monday.", "compatible"),
        ("Rafael lives in Porto.", "Rafael enjoys surfing on weekends.", "compatible"),
        ("Rafael lives in Porto.", "Rafael's brother lives in Lisbon.", "compatible"),
        ("The team offsite is in Lisbon.", "The team offsite in Lisbon starts with a boat tour.", "compatible"),
        ("赵婷养了一只橘猫。", "赵婷的橘猫上周打了疫苗。", "compatible"),
        ("孙浩住在杭州。", "孙浩周末喜欢去西湖边跑步。", "compatible"),
    ],
)  # fmt: skip
def test_each_decision_class_on_phrasings_the_scorer_never_saw(old: str, new: str, expected: str) -> None:
    relation, mem = _relation(old, new)
    assert relation == expected
    assert len(mem) == 3  # nothing deleted
    assert sum(u.is_current for u in mem.units()) == (2 if expected == "update" else 3)


def test_updates_in_one_batch_and_late_arrivals_keep_both_units() -> None:
    mem = Memory()
    new, old = mem.observe_many([
        {"text": "Greta now lives in Vienna.", "timestamp": T2},
        {"text": "Greta lives in Munich.", "timestamp": T0},  # arrives late: it is the superseded one
    ])  # fmt: skip
    assert mem.get(old.id).invalid_at == new.created_at  # type: ignore[union-attr]
    assert mem.get(new.id).is_current  # type: ignore[union-attr]
    assert {e.type for e in mem.edges(old.id)} >= {"supersedes", "contradicts"}


def test_scorer_weights_load_from_the_package_and_give_probabilities() -> None:
    scorer = PairScorer.load()
    x = np.stack([pair_features("Ada lives in Rome.", "Ada moved to Oslo.", 0.8),
                  pair_features("Ada lives in Rome.", "The bakery opens at seven.", 0.05)])  # fmt: skip
    p = scorer.probabilities(x)
    assert p.shape == (2, len(LABELS)) and np.allclose(p.sum(axis=1), 1.0)
    assert p[0, LABELS.index("update")] > p[1, LABELS.index("update")]
    assert p[1, LABELS.index("unrelated")] > 0.5
    assert scorer.meta.get("fitted_by") == "benchmarks/fit_pairs.py"


def test_scorer_refuses_weights_for_other_features(tmp_path) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"features": ["x"], "labels": list(LABELS), "mean": [0], "scale": [1],
                                "coef": [[0]] * 4, "intercept": [0] * 4}))  # fmt: skip
    with pytest.raises(ValueError, match="other features"):
        PairScorer.load(path)
    assert len(FEATURES) == len(PairScorer.load().mean)


def test_recall_at_answers_what_was_true_then() -> None:
    mem = Memory(embedder="hash")
    old = mem.observe("The team meeting is on Monday at 10.", timestamp=T0)
    mem.observe("The cafeteria serves soup on Fridays.", timestamp=T1)
    new = mem.supersede(old.id, "The team meeting moved to Thursday at 15.", timestamp=T2)
    then = [h.unit.id for h in mem.recall("When is the team meeting?", k=3, at="2024-04-15T00:00:00Z")]
    assert then[0] == old.id and new.id not in then
    now = [h.unit.id for h in mem.recall("When is the team meeting?", k=3)]
    assert now[0] == new.id
    before = mem.recall("When is the team meeting?", k=3, at="2024-01-01T00:00:00Z")
    assert before == []


class _ScriptedModel:
    """Answers every pair with one relation (or nothing), counting calls; the LLM layer's `structured` contract."""

    def __init__(self, relation: str | None) -> None:
        self.relation, self.calls = relation, 0

    def structured(self, messages, output, *, purpose="general", fallback=None, sampling=None):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.relation is None:
            return fallback
        n = messages[0]["content"].count(" first: ")
        return output.model_validate(
            {"verdicts": [{"pair": i, "relation": self.relation} for i in range(1, n + 1)]}
        )


def test_llm_referee_decides_uncertain_pairs_with_cache_and_counted_fallbacks() -> None:
    from psychoagent.memory.conflicts.judge import LLMPairJudge

    old, new = "Oskar works as a pharmacist in Graz.", "Oskar is a schoolteacher these days."
    referee = LLMPairJudge(_ScriptedModel("update"), band=(0.0, 1.0))
    mem = Memory(embedder="hash")
    mem.pair_judge = referee
    first = mem.observe(old, timestamp=T0)
    second = mem.observe(new, timestamp=T2)
    assert mem.get(first.id).invalid_at == second.created_at  # type: ignore[union-attr]
    assert referee.stats["calls"] == 1 and referee.stats["fallbacks"] == 0
    assert referee.decide([(old, new)]) == ["update"] and referee.stats["cached"] == 1
    silent = LLMPairJudge(_ScriptedModel(None), band=(0.0, 1.0))
    assert silent.decide([(old, new), (new, old)]) == [None, None] and silent.stats["fallbacks"] == 2
    with pytest.raises(ValueError, match="band"):
        LLMPairJudge(_ScriptedModel(None), band=(0.8, 0.2))


def test_with_detection_off_recall_does_not_judge_pairs_either() -> None:
    from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig

    texts = [
        ("The quarterly report is due on March 3.", T0),
        ("The quarterly report is now due on March 10.", T2),
    ]
    on, off = Memory(), Memory(affect_config=AffectiveMemoryConfig(conflicts=ConflictConfig(detect=False)))
    for mem in (on, off):
        for text, when in texts:
            mem.observe(text, timestamp=when)
    assert off.conflicts() == [] and all(u.is_current for u in off.units())
    hits = off.recall("When is the quarterly report due?", k=2)
    assert all("currency" not in h.parts and "supersession" not in h.parts for h in hits)
    assert on.recall("When is the quarterly report due?", k=2)[0].unit.content == texts[1][0]


def test_a_fact_told_through_someone_else_is_framed_in_both_languages() -> None:
    from psychoagent.memory.conflicts.pairs import framed, subjects

    sam = frozenset({"sam"})
    assert framed("Tom insists that Sam drinks 6 cups of coffee a day.", sam, frozenset({"tom"})) == 1.0
    assert framed("According to the minutes, Sam drinks 3 cups a day.", sam, frozenset()) == 1.0
    assert framed("Sam drinks 6 cups of coffee a day.", sam, frozenset()) == 0.0
    assert framed("胡军坚持说陈刚最喜欢黑色。", frozenset({"陈刚"}), frozenset({"胡军"})) == 1.0
    assert framed("陈刚最喜欢黑色。", frozenset({"陈刚"}), frozenset()) == 0.0
    # a correction that names only the values is a candidate of the fact that gave the old one
    assert subjects("Sorry, I meant 4200, not 5000.") & subjects("Hugo's monthly budget is 5000 dollars.")
    # a noun such as "report" names no source: a plain fact about a report is not someone's claim
    assert framed("The quarterly report is due on March 3.", frozenset({"<self>"}), frozenset()) == 0.0


def test_of_several_facts_read_as_updated_the_nearest_in_meaning_is_superseded() -> None:
    from psychoagent.memory.conflicts.detect import Candidate, Judgement
    from psychoagent.memory.write.updates import nearest_update

    team = Candidate("team", "Ines supports the Northside Rovers.", 1.0, dense=0.82)
    hotel = Candidate("hotel", "Ines' hotel is the Hotel Astoria.", 2.0, dense=0.55)
    diet = Candidate("diet", "Ines follows a vegan diet.", 3.0, dense=0.9)
    verdicts = [
        Judgement(hotel, "update", (0.71, 0.02, 0.2, 0.07), False),
        Judgement(team, "update", (0.62, 0.01, 0.3, 0.07), False),
        Judgement(diet, "contradiction", (0.1, 0.7, 0.1, 0.1), False),
    ]
    assert [v.candidate.unit_id for v in nearest_update(verdicts)] == ["team"]
    assert nearest_update(verdicts[2:]) == []
