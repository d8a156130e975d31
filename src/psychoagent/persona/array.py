"""Many personas as numpy arrays (one row per agent), for evolving thousands of agents in one call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from psychoagent.persona.archetypes import ALLOCATION_KEYS
from psychoagent.persona.model import Allocation, Baseline, Persona

Array = NDArray[np.float64]


def _column(values: Sequence[float]) -> Array:
    return np.ascontiguousarray(values, dtype=np.float64)


def _allocation(row: Array) -> Allocation:
    """An Allocation holding exactly the row's floats (already on the simplex)."""
    consume, save, invest, rnd = (float(w) for w in row)
    return Allocation.model_construct(consume=consume, save=save, invest=invest, rnd=rnd)


@dataclass(frozen=True)
class PersonaArray:
    """Traits, baselines and miss streaks of n personas; allocation columns follow ALLOCATION_KEYS.

    Domain-specific optimism stays a per-agent dict (few agents hold views on few domains).
    """

    risk_preference: Array
    optimism: Array
    learning_rate: Array
    social_tendency: Array
    allocation: Array
    baseline_risk_preference: Array
    baseline_optimism: Array
    baseline_learning_rate: Array
    baseline_social_tendency: Array
    baseline_allocation: Array
    miss_streak: NDArray[np.int64]
    names: tuple[str, ...] = ()
    domain_optimism: tuple[dict[str, float], ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        n = len(self.risk_preference)
        for name in (
            "optimism",
            "learning_rate",
            "social_tendency",
            "miss_streak",
            "baseline_risk_preference",
        ):
            if len(getattr(self, name)) != n:
                raise ValueError(f"PersonaArray.{name} has length {len(getattr(self, name))}, expected {n}")
        for name in ("allocation", "baseline_allocation"):
            if getattr(self, name).shape != (n, len(ALLOCATION_KEYS)):
                raise ValueError(f"PersonaArray.{name} must have shape ({n}, {len(ALLOCATION_KEYS)})")
        if not self.names:
            object.__setattr__(self, "names", ("",) * n)
        if not self.domain_optimism:
            object.__setattr__(self, "domain_optimism", tuple({} for _ in range(n)))

    def __len__(self) -> int:
        return len(self.risk_preference)

    @classmethod
    def from_personas(cls, personas: Sequence[Persona]) -> PersonaArray:
        """Stack personas into arrays (row i is personas[i])."""
        return cls(
            risk_preference=_column([p.risk_preference for p in personas]),
            optimism=_column([p.optimism for p in personas]),
            learning_rate=_column([p.learning_rate for p in personas]),
            social_tendency=_column([p.social_tendency for p in personas]),
            allocation=np.array([p.allocation.as_tuple() for p in personas], dtype=np.float64).reshape(
                -1, len(ALLOCATION_KEYS)
            ),
            baseline_risk_preference=_column([p.baseline.risk_preference for p in personas]),
            baseline_optimism=_column([p.baseline.optimism for p in personas]),
            baseline_learning_rate=_column([p.baseline.learning_rate for p in personas]),
            baseline_social_tendency=_column([p.baseline.social_tendency for p in personas]),
            baseline_allocation=np.array(
                [p.baseline.allocation.as_tuple() for p in personas], dtype=np.float64
            ).reshape(-1, len(ALLOCATION_KEYS)),
            miss_streak=np.array([p.miss_streak for p in personas], dtype=np.int64),
            names=tuple(p.name for p in personas),
            domain_optimism=tuple(dict(p.domain_optimism) for p in personas),
        )

    @classmethod
    def repeat(cls, persona: Persona, n: int) -> PersonaArray:
        """n copies of one persona."""
        return cls.from_personas([persona] * n)

    def _row(self, i: int) -> dict[str, Any]:
        """Row i's current traits and miss streak as Persona fields (exactly the stored floats)."""
        return {
            "risk_preference": float(self.risk_preference[i]),
            "optimism": float(self.optimism[i]),
            "domain_optimism": dict(self.domain_optimism[i]),
            "learning_rate": float(self.learning_rate[i]),
            "social_tendency": float(self.social_tendency[i]),
            "allocation": _allocation(self.allocation[i]),
            "miss_streak": int(self.miss_streak[i]),
        }

    def persona(self, i: int) -> Persona:
        """Row i as a Persona (values are exactly the stored floats)."""
        baseline = Baseline.model_construct(
            risk_preference=float(self.baseline_risk_preference[i]),
            optimism=float(self.baseline_optimism[i]),
            learning_rate=float(self.baseline_learning_rate[i]),
            social_tendency=float(self.baseline_social_tendency[i]),
            allocation=_allocation(self.baseline_allocation[i]),
        )
        return Persona.model_construct(name=self.names[i], baseline=baseline, **self._row(i))

    def evolved(self, i: int, persona: Persona) -> Persona:
        """`persona` (row i's ancestor) with row i's current traits; baseline and name are reused, not rebuilt."""
        return persona.model_copy(update=self._row(i))

    def to_personas(self) -> list[Persona]:
        """All rows as Personas."""
        return [self.persona(i) for i in range(len(self))]

    def with_traits(self, **changes: object) -> PersonaArray:
        """A copy with some fields replaced (arrays are never modified in place)."""
        return replace(self, **changes)  # type: ignore[arg-type]
