"""Feedback-loop safety: decay, MMR diversity, exploration and the affect monitor move results as documented."""

from __future__ import annotations

import numpy as np

from psychoagent import Affect, Memory
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig, MonitorConfig, SafetyConfig
from psychoagent.memory.recall.modulate import decay_factor
from psychoagent.memory.recall.safety import mmr

NOW = "2024-06-01T00:00:00Z"
BAD = Affect(valence=-2, arousal=3)


def test_decay_is_geometric_in_age_and_successes() -> None:
    day = 86400.0
    f = decay_factor(np.array([0, 30 * day, 60 * day]), np.zeros(3), 30.0, 2.0)
    assert np.allclose(f, [1.0, 0.5, 0.25])
    g = decay_factor(np.zeros(3), np.array([0, 2, 4]), 30.0, 2.0)
    assert np.allclose(g, [1.0, 0.5, 0.25])


def test_old_and_later_successful_lessons_weigh_less() -> None:
    mem = Memory(embedder="hash", appraiser=None)
    fresh = mem.observe(
        "The release of the mobile app crashed.", affect=BAD, timestamp="2024-05-31T00:00:00Z"
    )
    old = mem.observe("The release of the web app crashed.", affect=BAD, timestamp="2023-06-01T00:00:00Z")
    healed = mem.observe("The release of the desktop app crashed.", affect=BAD, timestamp="2024-05-31T00:00:00Z",
                         metadata={"subject": "desktop release"})  # fmt: skip
    for day in (1, 2, 3, 4):
        mem.observe(f"Desktop release {day} went smoothly.", affect=Affect(valence=2), metadata={"subject": "desktop release"},
                    timestamp=f"2024-05-31T0{day}:00:00Z")  # fmt: skip
    hits = mem.recall("release of the app crashed", k=10, now=NOW, affect_state=BAD, policy="lessons", mmr=False,
                      explore=False)  # fmt: skip
    lesson = {h.unit.id: h.parts["affect_lesson"] for h in hits}
    assert lesson[fresh.id] > lesson[healed.id] > 1.0
    assert lesson[fresh.id] > lesson[old.id]


def test_mmr_prefers_diverse_results() -> None:
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    picks, _ = mmr(np.array([1.0, 0.99, 0.8]), vectors, 2, 0.5)
    assert picks == [0, 2]
    picks_greedy, _ = mmr(np.array([1.0, 0.99, 0.8]), vectors, 2, 1.0)
    assert picks_greedy == [0, 1]


def test_mmr_in_modulated_recall_breaks_up_duplicates() -> None:
    cfg = AffectiveMemoryConfig(safety=SafetyConfig(mmr_lambda=0.4))
    mem = Memory(embedder="hash", appraiser=None, affect_config=cfg)
    for _ in range(3):
        mem.observe("The vendor shipped the order late again.", affect=BAD)
    mem.observe("The vendor shipment arrived but the order was incomplete.", affect=BAD)
    state = Affect(valence=-1, arousal=2)
    plain = mem.recall("vendor shipped the order late", k=2, affect_state=state, mmr=False, explore=False)
    diverse = mem.recall("vendor shipped the order late", k=2, affect_state=state, explore=False)
    assert len({h.unit.content for h in plain}) == 1
    assert len({h.unit.content for h in diverse}) == 2 and "diversity" in diverse[0].parts


def _negative_world(epsilon: float) -> Memory:
    # separate trading days, not versions of one fact: no update detection, so no supersession orders them
    cfg = AffectiveMemoryConfig(
        safety=SafetyConfig(epsilon=epsilon, negative_share=0.6), conflicts=ConflictConfig(detect=False)
    )
    mem = Memory(embedder="hash", appraiser=None, affect_config=cfg)
    for i in range(5):
        mem.observe(f"Trading day {i}: the stock trade lost money.", affect=BAD)
    mem.observe("Trading day 9: a stock trade made a small profit.", affect=Affect(valence=1))
    return mem


def test_exploration_with_epsilon_mixes_in_positive_memory() -> None:
    mem = _negative_world(epsilon=1.0)
    hits = mem.recall("stock trade lost money", k=3, affect_state=BAD, policy="lessons",
                      rng=np.random.default_rng(1))  # fmt: skip
    explored = [h for h in hits if h.parts.get("explored") == 1.0]
    assert len(explored) == 1 and explored[0].unit.affect.valence > 0


def test_exploration_forced_when_recent_recalls_are_negative() -> None:
    mem = _negative_world(epsilon=0.0)
    rng = np.random.default_rng(0)
    first = mem.recall("stock trade lost money", k=3, affect_state=BAD, policy="lessons", rng=rng)
    assert all(h.unit.affect.valence < 0 for h in first)  # epsilon 0: no exploration yet
    second = mem.recall("stock trade lost money", k=3, affect_state=BAD, policy="lessons", rng=rng)
    assert any(h.unit.affect.valence > 0 and h.parts.get("explored") == 1.0 for h in second)


def test_exploration_is_deterministic_with_a_seeded_rng() -> None:
    runs = []
    for _ in range(2):
        mem = _negative_world(epsilon=0.5)
        rng = np.random.default_rng(42)
        runs.append(
            [
                [h.unit.content for h in mem.recall("stock trade", k=3, affect_state=BAD, rng=rng)]
                for _ in range(5)
            ]
        )
    assert runs[0] == runs[1]


def test_monitor_warns_on_negative_drift() -> None:
    cfg = AffectiveMemoryConfig(monitor=MonitorConfig(window=10, min_units=5))
    mem = Memory(embedder="hash", appraiser=None, affect_config=cfg)
    warnings = []
    mem.monitor.subscribe(warnings.append)
    for i in range(10):
        mem.observe(f"Routine check {i} passed.", affect=Affect(valence=1))
    assert warnings == []
    for i in range(10):
        mem.observe(f"Incident {i}: the service failed.", affect=BAD)
    assert len(warnings) == 1
    assert warnings[0].mean_valence < warnings[0].baseline == 1.0 and "baseline" in warnings[0].reason
    assert mem.monitor.stats()["negative_share"] > 0.5
