"""The candidate table every recall stage reads and writes, the request it reads, and what a stage is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from psychoagent.memory.config import DEFAULT_DENSE_WEIGHT, RecallConfig
from psychoagent.memory.filters import Condition
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.types import Affect


@dataclass
class RecallContext:
    """Everything a scoring stage may read about the request."""

    query: str
    query_vector: np.ndarray
    k: int
    now: float
    dense_floor: float | None = None
    dense_weight: float = DEFAULT_DENSE_WEIGHT
    conditions: list[Condition] = field(default_factory=list)
    context: str | None = None
    affect_state: Affect | None = None
    persona: Any = None
    policy: str | None = None
    rng: np.random.Generator | None = None
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass
class Candidates:
    """Rows of the namespace index under consideration, with their named score parts and running score."""

    rows: np.ndarray
    parts: dict[str, np.ndarray] = field(default_factory=dict)
    score: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def multiply(self, name: str, factor: np.ndarray) -> None:
        """Record a multiplicative part and apply it."""
        self.parts[name] = factor
        self.score = self.score * factor


Stage = Callable[[Candidates, NamespaceIndex, RecallContext, RecallConfig], None]
"""A scoring stage: reads the candidates, index and request, writes one or more parts and updates the score."""
