"""Affect-modulated recall: each policy moves results in its documented direction; never a filter."""

from __future__ import annotations

import pytest

from psychoagent import Affect, Memory
from psychoagent.memory.config import (
    AffectiveMemoryConfig,
    ConflictConfig,
    MemoryConfig,
    ModulationConfig,
    RecallConfig,
)

NOW = "2024-06-01T00:00:00Z"
CALM = Affect(valence=0, arousal=1)


def _mem(**mod: object) -> Memory:
    cfg = AffectiveMemoryConfig(modulation=ModulationConfig(**mod))  # type: ignore[arg-type]
    mem = Memory(embedder="hash", appraiser=None, affect_config=cfg)
    mem.observe("Deploying the billing service on Friday went as planned.", affect=Affect(valence=1, arousal=1),
                timestamp="2024-05-30T00:00:00Z")  # fmt: skip
    mem.observe("Deploying the billing service on Friday broke payments for hours.",
                affect=Affect(valence=-2, arousal=3), timestamp="2024-05-30T00:00:00Z")  # fmt: skip
    mem.observe("Deploying the billing service on Friday split the team over the release plan.",
                affect=Affect(valence=-1, arousal=2, conflict_intensity=4, conflict_parties=["ops", "dev"]),
                timestamp="2024-05-30T00:00:00Z")  # fmt: skip
    return mem


def _rank(mem: Memory, needle: str, **kwargs: object) -> int:
    hits = mem.recall(
        "deploying the billing service on Friday", k=3, now=NOW, mmr=False, explore=False, **kwargs
    )
    assert len(hits) == 3  # modulation never drops a memory
    return next(i for i, h in enumerate(hits) if needle in h.unit.content)


def test_plain_recall_has_no_affect_parts() -> None:
    hits = _mem().recall("deploying the billing service", k=3, now=NOW)
    assert all(not any(p.startswith("affect") for p in h.parts) for h in hits)


def test_conflict_first_boosts_high_conflict_memories() -> None:
    mem = _mem()
    state = Affect(valence=0, arousal=2, conflict_intensity=4)
    assert _rank(mem, "split the team", affect_state=state, policy="conflict-first") <= _rank(
        mem, "split the team", policy="none"
    )
    hit = next(
        h
        for h in mem.recall("billing service", k=3, now=NOW, affect_state=state)
        if "split" in h.unit.content
    )
    assert 1.0 < hit.parts["affect_conflict"] <= 2.0
    calm = next(
        h for h in mem.recall("billing service", k=3, now=NOW, affect_state=CALM) if "split" in h.unit.content
    )
    assert calm.parts["affect_conflict"] == 1.0  # a calm state boosts nothing


def test_lessons_boost_negative_memories_in_a_negative_state() -> None:
    mem = _mem()
    bad_day = Affect(valence=-2, arousal=3)
    assert _rank(mem, "broke payments", affect_state=bad_day, policy="lessons") == 0
    hits = mem.recall("billing service", k=3, now=NOW, affect_state=bad_day, policy="lessons", mmr=False)
    lesson = {h.unit.affect.valence: h.parts["affect_lesson"] for h in hits}
    assert lesson[-2] > lesson[-1] > lesson[1] == 1.0


def test_mood_congruent_favours_similar_valence() -> None:
    mem = _mem()
    happy = Affect(valence=2, arousal=1)
    sad = Affect(valence=-2, arousal=3)
    assert _rank(mem, "went as planned", affect_state=happy, policy="mood-congruent") < _rank(
        mem, "went as planned", affect_state=sad, policy="mood-congruent"
    )


def test_context_is_appraised_when_no_state_is_given() -> None:
    mem = _mem()
    mem.appraiser = Memory(embedder="hash").appraiser
    hits = mem.recall("billing service", k=3, now=NOW, context="Everything failed again, terrible errors!")
    assert any(h.parts.get("affect_lesson", 1.0) > 1.0 for h in hits)


def test_unknown_policy_is_rejected() -> None:
    with pytest.raises(ValueError, match="conflict-first"):
        _mem().recall("billing", policy="panic")


def test_pool_is_widened_so_modulation_can_surface_what_plain_ranking_missed() -> None:
    cfg = MemoryConfig(recall=RecallConfig(candidates=1))
    mem = Memory(embedder="hash", appraiser=None, config=cfg,
                 affect_config=AffectiveMemoryConfig(modulation=ModulationConfig(conflict_weight=4.0, max_factor=5.0),
                                                     conflicts=ConflictConfig(detect_changes=False)))  # fmt: skip
    for i in range(4):
        mem.observe(
            f"Quarterly budget review {'ABCD'[i]} for the budget committee.", timestamp=f"2024-05-0{i + 1}"
        )
    mem.observe("An argument about the budget.", affect=Affect(conflict_intensity=4, valence=-1, arousal=2),
                timestamp="2024-05-09")  # fmt: skip
    query = "quarterly budget review for the budget committee"
    plain = mem.recall(query, k=2, now=NOW)
    boosted = mem.recall(query, k=2, now=NOW, affect_state=Affect(conflict_intensity=4, arousal=2), mmr=False,
                         explore=False)  # fmt: skip
    assert not any("argument" in h.unit.content for h in plain)
    assert any("argument" in h.unit.content for h in boosted)


def test_factors_are_bounded_and_decay_is_monotone() -> None:
    import numpy as np
    from hypothesis import given
    from hypothesis import strategies as st

    from psychoagent.memory.recall.modulate import (
        conflict_factor,
        congruence_factor,
        decay_factor,
        lesson_factor,
    )

    cfg = ModulationConfig()

    @given(st.integers(-2, 2), st.integers(0, 4), st.lists(st.floats(-2, 2), min_size=1, max_size=8),
           st.lists(st.floats(0, 4), min_size=1, max_size=8))  # fmt: skip
    def check(sv: int, sc: int, mv: list[float], mc: list[float]) -> None:
        for f in (conflict_factor(sc, np.array(mc), cfg), lesson_factor(sv, np.array(mv), cfg)):
            assert np.all(f >= 1.0) and np.all(f <= cfg.max_factor)
        g = congruence_factor(sv, np.array(mv), 4.0, cfg.congruence_weight)
        assert np.all(g >= 1 - cfg.congruence_weight - 1e-9) and np.all(g <= 1 + cfg.congruence_weight + 1e-9)

    check()
    ages = np.linspace(0, 400 * 86400, 20)
    d = decay_factor(ages, np.zeros(20), 30.0, 2.0)
    assert np.all(np.diff(d) < 0) and d[0] == 1.0
