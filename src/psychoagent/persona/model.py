"""The persona vector (seed 003, section 2.1.1): risk preference, optimism, learning rate, social tendency and a
budget allocation over consume / save / invest / R&D, plus the baseline each trait drifts back to.

Ranges: risk_preference, learning_rate and social_tendency lie in [0, 1]; optimism lies in [-1, 1]
(-1 expects the worst, 0 neutral, +1 expects the best), globally and optionally per domain (asset, sector);
allocation weights are non-negative and sum to 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from psychoagent.persona.archetypes import (
    ALLOCATION_KEYS,
    ARCHETYPES,
    NEUTRAL,
    list_archetypes,
    resolve,
)
from psychoagent.persona.describe import describe_persona

UNIT_RANGE: tuple[float, float] = (0.0, 1.0)
"""Range of risk_preference, learning_rate and social_tendency."""
OPTIMISM_RANGE: tuple[float, float] = (-1.0, 1.0)
"""Range of optimism, global and per domain."""
SIMPLEX_TOLERANCE = 1e-6
"""How far from 1 the allocation weights may sum before they are rejected rather than renormalised."""

TRAITS: tuple[str, ...] = ("risk_preference", "optimism", "learning_rate", "social_tendency")
"""The scalar traits, in the order arrays and histories use."""

_NEUTRAL = ARCHETYPES[NEUTRAL]


class Allocation(BaseModel):
    """Default budget shares over consumption, saving, investment and R&D; a point on the simplex.

    Behaves like a read-only mapping (`alloc["invest"]`, `dict(alloc)`) as well as a model (`alloc.invest`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    consume: float = Field(_NEUTRAL["allocation"]["consume"], ge=0.0, le=1.0, description="share spent")
    save: float = Field(_NEUTRAL["allocation"]["save"], ge=0.0, le=1.0, description="share kept as savings")
    invest: float = Field(
        _NEUTRAL["allocation"]["invest"], ge=0.0, le=1.0, description="share put into risky assets"
    )
    rnd: float = Field(_NEUTRAL["allocation"]["rnd"], ge=0.0, le=1.0, description="share spent on R&D")

    @model_validator(mode="after")
    def _on_simplex(self) -> Allocation:
        total = self.consume + self.save + self.invest + self.rnd
        if abs(total - 1.0) > SIMPLEX_TOLERANCE:
            raise ValueError(
                f"allocation weights consume/save/invest/rnd must sum to 1, got {total:.6f}; "
                "use Allocation.normalised(...) to rescale"
            )
        return self

    @classmethod
    def normalised(cls, weights: Mapping[str, float] | None = None, **kw: float) -> Allocation:
        """Build an allocation from non-negative weights of any positive total, rescaled to sum to 1."""
        data = {**(dict(weights) if weights is not None else {}), **kw}
        unknown = set(data) - set(ALLOCATION_KEYS)
        if unknown:
            raise ValueError(
                f"unknown allocation keys {sorted(unknown)}; allowed: {', '.join(ALLOCATION_KEYS)}"
            )
        values = [float(data.get(k, 0.0)) for k in ALLOCATION_KEYS]
        if any(v < 0 or not math.isfinite(v) for v in values):
            raise ValueError(f"allocation weights must be finite and >= 0, got {values}")
        total = sum(values)
        if total <= 0:
            raise ValueError("allocation weights must have a positive sum")
        return cls(**{k: v / total for k, v in zip(ALLOCATION_KEYS, values, strict=True)})

    def as_tuple(self) -> tuple[float, float, float, float]:
        """Weights in ALLOCATION_KEYS order."""
        return (self.consume, self.save, self.invest, self.rnd)

    def __getitem__(self, key: str) -> float:
        if key not in ALLOCATION_KEYS:
            raise KeyError(f"{key!r} is not an allocation key; allowed: {', '.join(ALLOCATION_KEYS)}")
        return float(getattr(self, key))

    def keys(self) -> tuple[str, ...]:
        """The allocation keys, so that `dict(allocation)` works."""
        return ALLOCATION_KEYS

    def values(self) -> tuple[float, ...]:
        """Weights in key order."""
        return self.as_tuple()

    def items(self) -> Iterator[tuple[str, float]]:
        """(key, weight) pairs in key order."""
        return iter(zip(ALLOCATION_KEYS, self.as_tuple(), strict=True))

    def __len__(self) -> int:
        return len(ALLOCATION_KEYS)


class Baseline(BaseModel):
    """The values each trait decays back to when nothing relevant happens (seed 003, 2.1.2)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    risk_preference: float = Field(_NEUTRAL["risk_preference"], ge=0.0, le=1.0)
    optimism: float = Field(_NEUTRAL["optimism"], ge=-1.0, le=1.0)
    learning_rate: float = Field(_NEUTRAL["learning_rate"], ge=0.0, le=1.0)
    social_tendency: float = Field(_NEUTRAL["social_tendency"], ge=0.0, le=1.0)
    allocation: Allocation = Field(default_factory=Allocation)


def _float_dict(value: Any) -> Any:
    return {str(k): float(v) for k, v in value.items()} if isinstance(value, Mapping) else value


class Persona(BaseModel):
    """A snapshot of an agent's quantified personality; immutable, so each evolution step returns a new one.

    `Persona()` is the neutral default. When `baseline` is not given it equals the starting traits.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field("", description="archetype or label the persona started from")
    risk_preference: float = Field(
        _NEUTRAL["risk_preference"], ge=0.0, le=1.0, description="0 extremely risk-averse .. 1 risk-seeking"
    )
    optimism: float = Field(
        _NEUTRAL["optimism"],
        ge=-1.0,
        le=1.0,
        description="global market mood: -1 gloomy, 0 neutral, +1 euphoric",
    )
    domain_optimism: dict[str, float] = Field(
        default_factory=dict, description="optimism about one market or sector, each in [-1, 1]"
    )
    learning_rate: float = Field(
        _NEUTRAL["learning_rate"], ge=0.0, le=1.0, description="how fast experience changes the other traits"
    )
    social_tendency: float = Field(
        _NEUTRAL["social_tendency"], ge=0.0, le=1.0, description="0 goes it alone/competes .. 1 cooperates"
    )
    allocation: Allocation = Field(default_factory=Allocation, description="default budget shares")
    baseline: Baseline = Field(default_factory=Baseline, description="values the traits decay back to")
    miss_streak: int = Field(0, ge=0, description="consecutive major prediction misses so far")

    @model_validator(mode="before")
    @classmethod
    def _baseline_from_traits(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("baseline") is None:
            data = dict(data)
            data["baseline"] = {
                key: data[key] for key in (*TRAITS, "allocation") if key in data and data[key] is not None
            }
        return data

    @field_validator("domain_optimism", mode="before")
    @classmethod
    def _domain_floats(cls, value: Any) -> Any:
        return _float_dict(value)

    @field_validator("domain_optimism")
    @classmethod
    def _domain_in_range(cls, value: dict[str, float]) -> dict[str, float]:
        lo, hi = OPTIMISM_RANGE
        for domain, level in value.items():
            if not lo <= level <= hi:
                raise ValueError(f"domain_optimism[{domain!r}] must lie in [{lo}, {hi}], got {level}")
        return value

    @classmethod
    def archetype(cls, name: str, **overrides: Any) -> Persona:
        """The persona of a named archetype (see `list_archetypes()`); keyword overrides replace traits."""
        canonical = resolve(name)
        spec = {k: v for k, v in ARCHETYPES[canonical].items() if k != "portrait"}
        return cls(name=canonical, **{**spec, **overrides})

    @staticmethod
    def list_archetypes() -> list[str]:
        """Names of all archetypes, sorted."""
        return list_archetypes()

    def optimism_for(self, domain: str | None = None) -> float:
        """Optimism about `domain` if the persona has a view on it, else the global optimism."""
        if domain is None:
            return self.optimism
        return self.domain_optimism.get(domain, self.optimism)

    def traits(self) -> dict[str, float]:
        """The scalar traits and allocation weights as a flat dict (for tables, CSV rows and plots)."""
        row = {key: float(getattr(self, key)) for key in TRAITS}
        row.update({f"allocation.{k}": w for k, w in self.allocation.items()})
        return row

    def describe(self) -> str:
        """A short natural-language rendering of the persona for prompts."""
        return describe_persona(self.name, self.traits(), self.domain_optimism, self.allocation.items())
