"""Personas that evolve from experience: the persona vector, archetypes and the evolution engine."""

from __future__ import annotations

from psychoagent.persona.archetypes import ALLOCATION_KEYS, list_archetypes
from psychoagent.persona.array import PersonaArray
from psychoagent.persona.config import (
    AllocationDynamics,
    EvolutionConfig,
    TraitDynamics,
    list_presets,
)
from psychoagent.persona.engine import BatchOutcome, EvolutionEngine
from psychoagent.persona.events import Explanation, OutcomeEvent
from psychoagent.persona.history import HistoryEntry, PersonaHistories, PersonaHistory
from psychoagent.persona.model import Allocation, Baseline, Persona
from psychoagent.persona.plot import plot_persona_history

__all__ = [
    "ALLOCATION_KEYS",
    "Allocation",
    "AllocationDynamics",
    "Baseline",
    "BatchOutcome",
    "EvolutionConfig",
    "EvolutionEngine",
    "Explanation",
    "HistoryEntry",
    "OutcomeEvent",
    "Persona",
    "PersonaArray",
    "PersonaHistories",
    "PersonaHistory",
    "TraitDynamics",
    "list_archetypes",
    "list_presets",
    "plot_persona_history",
]
