"""PsychoAgent: affect-sensitive, conflict-aware memory and evolving personas for LLM agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from psychoagent.version import __version__

if TYPE_CHECKING:
    from psychoagent.memory import AsyncMemory, Memory
    from psychoagent.types import Affect, Briefing, ConflictRecord, Edge, MemoryUnit, Recall

_TYPES = ("Affect", "Briefing", "ConflictRecord", "Edge", "MemoryUnit", "Recall")
__all__ = [
    "Affect",
    "AsyncMemory",
    "Briefing",
    "ConflictRecord",
    "Edge",
    "Memory",
    "MemoryUnit",
    "Recall",
    "__version__",
]


def __getattr__(name: str) -> Any:
    """Import heavy parts lazily so that `import psychoagent` (and the command line) stays fast."""
    if name in ("Memory", "AsyncMemory"):
        from psychoagent import memory

        return getattr(memory, name)
    if name in _TYPES:
        from psychoagent import types

        return getattr(types, name)
    raise AttributeError(f"module 'psychoagent' has no attribute {name!r}")
