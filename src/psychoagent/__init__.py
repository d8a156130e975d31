"""PsychoAgent: affect-sensitive, conflict-aware memory and evolving personas for LLM agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from psychoagent.types import Affect, Briefing, ConflictRecord, Edge, MemoryUnit, Recall
from psychoagent.version import __version__

if TYPE_CHECKING:
    from psychoagent.memory import Memory

__all__ = ["Affect", "Briefing", "ConflictRecord", "Edge", "Memory", "MemoryUnit", "Recall", "__version__"]


def __getattr__(name: str) -> Any:
    """Import heavy parts lazily so that `import psychoagent` stays fast."""
    if name == "Memory":
        from psychoagent.memory import Memory

        return Memory
    raise AttributeError(f"module 'psychoagent' has no attribute {name!r}")
