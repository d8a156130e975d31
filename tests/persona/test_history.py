"""Per-agent persona histories and the trait plot."""

from __future__ import annotations

from pathlib import Path

import pytest

from psychoagent.persona import (
    EvolutionEngine,
    OutcomeEvent,
    Persona,
    PersonaHistories,
    PersonaHistory,
    plot_persona_history,
)


def build_history() -> PersonaHistory:
    engine = EvolutionEngine()
    persona = Persona.archetype("startup CEO")
    history = PersonaHistory("ceo-1", persona)
    for t in range(1, 13):
        persona = engine.tick(persona, 1.0)
        if t in (3, 4):
            persona, why = engine.update(persona, OutcomeEvent(expected=0.1, actual=-0.2, stake=0.4, time=t))
            history.record(persona, explanation=why)
        else:
            history.record(persona)
    return history


def test_history_records_traits_times_and_events() -> None:
    history = build_history()
    assert len(history) == 13
    assert history.times() == [float(t) for t in range(13)]
    assert [t for t, _ in history.events()] == [3.0, 4.0]
    risk = history.series("risk_preference")
    assert risk[3] < risk[2] and risk[-1] > risk[4]
    rows = history.to_rows()
    assert rows[3]["agent_id"] == "ceo-1" and rows[3]["major"] is True and "impact" not in rows[2]
    with pytest.raises(KeyError, match="unknown trait"):
        history.series("mood")


def test_histories_per_agent() -> None:
    book = PersonaHistories()
    book["a"].record(Persona())
    book["b"].record(Persona.archetype("speculator"))
    book["a"].record(Persona(), time=5)
    assert book.agents() == ["a", "b"] and "a" in book and len(book) == 2
    assert [r["agent_id"] for r in book.to_rows()] == ["a", "a", "b"]
    assert book["a"].times() == [0.0, 5.0]


def test_plot_writes_an_image_without_pyplot(tmp_path: Path) -> None:
    path = tmp_path / "persona.png"
    fig = plot_persona_history(build_history(), path, traits=("risk_preference", "optimism"))
    assert path.stat().st_size > 1000
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.get_lines()[:2]] == ["risk_preference", "optimism"]
