"""Population memory: one store for many agents, recall for all of them in one vectorised run."""

from __future__ import annotations

import numpy as np

from psychoagent.embed import get_embedder
from psychoagent.memory.config import AffectiveMemoryConfig, RecallConfig
from psychoagent.memory.population.memory import Batch, PopulationMemory
from psychoagent.memory.population.recall import Request, recall_many

QUERY = "bought after a fall signal expecting; months later success or failure"
OUTCOME = {"instrument": "steel", "side": "BUY", "signal": "sharp_fall", "expected": 0.05, "actual": 0.1,
           "risky": False, "stake": 0.1}  # fmt: skip


def population() -> PopulationMemory:
    pop = PopulationMemory([3, 7], get_embedder("hash"), seconds_per_tick=30 * 86400.0)
    batch = Batch()
    batch.add(3, "Trading: bought 2 steel at 101", 0, 1, 0, "fill")
    batch.add(3, "Bought 2 steel at 101 after a sharp fall signal expecting +5.0%; 3 months later +10.0% (success)",
              1, 2, 0, "outcome", OUTCOME)  # fmt: skip
    batch.add(7, "Trading: sold 1 tech at 20", 0, 1, 0, "fill")
    pop.add(batch, tick=2)
    return pop


def recall(pop: PopulationMemory, agents: list[int], tick: int = 3, k: int = 3) -> list[list[str]]:
    slots = np.array([pop.slot[a] for a in agents])
    req = Request(slots=slots, queries=[QUERY] * len(agents), k=np.full(len(agents), k),
                  mood_valence=np.zeros(len(agents)), mood_conflict=np.zeros(len(agents)))  # fmt: skip
    hits = recall_many(pop, req, tick, RecallConfig(), AffectiveMemoryConfig(), 0.5, 0.0, 0.5,
                       np.random.default_rng(0))  # fmt: skip
    return [
        [pop.recalled(int(s), int(p)).content for p in ps]
        for s, ps in zip(slots, hits.positions, strict=True)
    ]


def test_each_agent_recalls_only_its_own_memories_best_first() -> None:
    pop = population()
    own, other = recall(pop, [3, 7])
    assert own[0].startswith("Bought 2 steel") and len(own) == 2
    assert other == ["Trading: sold 1 tech at 20"]
    found = pop.recalled(pop.slot[3], 1)
    assert found.metadata["actual"] == 0.1 and found.metadata["side"] == "BUY"
    assert found.metadata["instrument"] == "steel"


def test_public_event_reaches_everyone_and_an_update_ranks_first() -> None:
    pop = population()
    pop.broadcast("News: consumer prices rise 3.9% in a month", -1, 2, 0, "news", tick=2)
    pop.broadcast("News: consumer prices rise 5.8% in a month", -1, 2, 3, "news", tick=3)
    assert pop.supersede(
        "News: consumer prices rise 3.9% in a month", "News: consumer prices rise 5.8% in a month", 3
    )
    assert len(pop.table) == 5  # each news text is stored once for both agents
    slots = np.array([pop.slot[7]])
    req = Request(slots=slots, queries=["consumer prices rise in a month"], k=np.array([3]),
                  mood_valence=np.zeros(1), mood_conflict=np.zeros(1), modulated=False)  # fmt: skip
    hits = recall_many(
        pop, req, 3, RecallConfig(), AffectiveMemoryConfig(), 0.5, 0.0, 0.5, np.random.default_rng(0)
    )
    texts = [pop.recalled(pop.slot[7], int(p)).content for p in hits.positions[0]]
    assert texts[:2] == [
        "News: consumer prices rise 5.8% in a month",
        "News: consumer prices rise 3.9% in a month",
    ]


def test_access_is_counted_and_columns_grow() -> None:
    pop = population()
    recall(pop, [3])
    assert pop.cols["access"][pop.slot[3], :2].sum() == 2
    big = Batch()
    for j in range(200):
        big.add(7, f"Trading: bought {j} tech at 20", 0, 1, 0, "fill")
    pop.add(big, tick=3)
    assert pop.count[pop.slot[7]] == 201 and len(pop) == 203


def windowed(pop: PopulationMemory, agent: int, window: int, kept: int, k: int = 3) -> list[str]:
    slots = np.array([pop.slot[agent]])
    req = Request(slots=slots, queries=[QUERY], k=np.array([k]), mood_valence=np.zeros(1),
                  mood_conflict=np.zeros(1), modulated=False, window=window, kept=kept)  # fmt: skip
    hits = recall_many(pop, req, 40, RecallConfig(), AffectiveMemoryConfig(), 0.5, 0.0, 0.5,
                       np.random.default_rng(0))  # fmt: skip
    return [pop.recalled(int(slots[0]), int(p)).content for p in hits.positions[0]]


def test_recall_window_drops_old_public_events_and_keeps_own_memories() -> None:
    pop = population()  # agent 3: a fill and the outcome at positions 0 and 1
    pop.broadcast("News: bought after a fall signal, success or failure expected", 0, 1, 0, "news", tick=3)
    for j in range(30):
        pop.broadcast(f"News: the weather on day {j} was mild", 0, 1, 0, "news", tick=4 + j)
    whole = windowed(pop, 3, 0, 0)
    assert "News: bought after a fall signal, success or failure expected" in whole
    assert whole == windowed(pop, 3, 40, 0)  # a window longer than the history changes nothing
    kept = windowed(pop, 3, 10, 5)
    assert kept[0].startswith("Bought 2 steel")  # an own memory older than the window stays
    assert "News: bought after a fall signal, success or failure expected" not in kept
    assert all("weather" in t for t in windowed(pop, 3, 10, 0))  # without kept memories only the window
