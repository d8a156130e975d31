"""Personas that evolve from experience: the persona vector, archetypes and the evolution engine."""

from __future__ import annotations

from psychoagent.persona.archetypes import ALLOCATION_KEYS, list_archetypes
from psychoagent.persona.model import Allocation, Baseline, Persona

__all__ = ["ALLOCATION_KEYS", "Allocation", "Baseline", "Persona", "list_archetypes"]
