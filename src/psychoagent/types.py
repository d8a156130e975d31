"""Value types shared by every part of PsychoAgent: affect labels, memory units, recalls, conflicts, briefings."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Tier = Literal["working", "long_term"]
"""Working memory holds recent, high-conflict, high-arousal units; long-term holds the rest."""

EdgeType = Literal["derived_from", "contradicts", "supersedes", "about", "summarises", "related"]
"""Typed provenance edges between memory units (and goals) in the memory graph."""


def utcnow() -> datetime:
    """Current time as an aware UTC datetime."""
    return datetime.now(UTC)


def to_datetime(value: datetime | str | float | int | None) -> datetime | None:
    """Parse a datetime, an ISO 8601 string or epoch seconds into an aware UTC datetime (None stays None)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise ValueError(f"timestamp must be finite, got {value!r}")
        return datetime.fromtimestamp(float(value), tz=UTC)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError as exc:
            raise ValueError(f"timestamp {value!r} is not ISO 8601 (e.g. 2024-05-01T12:00:00Z)") from exc
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise TypeError(
        f"timestamp must be a datetime, an ISO 8601 string or epoch seconds, not {type(value).__name__}"
    )


def to_epoch(value: datetime | None) -> float | None:
    """Aware datetime -> epoch seconds (None stays None)."""
    return None if value is None else value.timestamp()


class Affect(BaseModel):
    """How an event feels to the agent, on the seed's integer scales (seed 000, section 3.1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    valence: int = Field(
        0, ge=-2, le=2, description="-2 very negative .. 2 very positive for the agent's goals"
    )
    arousal: int = Field(1, ge=1, le=3, description="1 calm/routine, 2 attention, 3 alarm/surprise")
    conflict_intensity: int = Field(
        0, ge=0, le=4, description="0 no conflict .. 4 fundamental conflict with goals, memories or beliefs"
    )
    conflict_parties: list[str] = Field(
        default_factory=list, description="both sides of the conflict, if any"
    )
    reason: str = Field("", description="one sentence saying why these labels were given")

    @classmethod
    def neutral(cls) -> Affect:
        """The label of an event nobody appraised: neutral, calm, no conflict."""
        return cls(valence=0, arousal=1, conflict_intensity=0, conflict_parties=[], reason="not appraised")


class MemoryUnit(BaseModel):
    """One structured episodic (or semantic/summary) memory: fact, affect, conflict context, provenance, time."""

    model_config = ConfigDict(extra="forbid")

    id: str
    namespace: str = "default"
    content: str = Field(..., description="the factual core: what happened")
    kind: str = Field("episodic", description="episodic | semantic | summary | goal | reflection")
    affect: Affect = Field(default_factory=Affect.neutral)
    conflict_context: str = Field(
        "", description="who conflicts with whom and how it stands (empty: no conflict)"
    )
    sources: list[str] = Field(
        default_factory=list, description="ids of memories or goals this unit derives from"
    )
    created_at: datetime = Field(default_factory=utcnow, description="when the event happened / was observed")
    valid_at: datetime | None = Field(None, description="from when the fact holds (default: created_at)")
    invalid_at: datetime | None = Field(
        None, description="when the fact stopped holding (set when superseded)"
    )
    tier: Tier = "long_term"
    access_count: int = 0
    last_accessed_at: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("content")
    @classmethod
    def _content_not_empty(cls, value: str) -> str:
        if not value or not value.strip():
            raise ValueError("content must be a non-empty string")
        return value

    @property
    def is_current(self) -> bool:
        """True while the fact has not been superseded."""
        return self.invalid_at is None


class Recall(BaseModel):
    """One recalled memory with its total score and the named parts the score is made of."""

    model_config = ConfigDict(extra="forbid")

    unit: MemoryUnit
    score: float
    parts: dict[str, float] = Field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Recall(score={self.score:.3f}, id={self.unit.id!r}, content={self.unit.content[:60]!r})"

    __str__ = __repr__


class Edge(BaseModel):
    """A typed, directed link between two memory units (or a unit and a goal id)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    src: str
    dst: str
    type: EdgeType
    weight: float = 1.0
    created_at: datetime = Field(default_factory=utcnow)
    metadata: dict[str, Any] = Field(default_factory=dict)


class ConflictStatus(StrEnum):
    """Whether a conflict still needs a decision."""

    unresolved = "unresolved"
    resolved = "resolved"


class ConflictRecord(BaseModel):
    """Two sides that disagree (memory vs memory, or memory vs goal), kept side by side rather than merged."""

    model_config = ConfigDict(extra="forbid")

    id: str
    namespace: str = "default"
    kind: str = Field(..., description="goal | memory | slot | reversal | ...")
    side_a: str = Field(..., description="id of the older memory or the goal")
    side_b: str = Field(..., description="id of the newer memory")
    description_a: str = ""
    description_b: str = ""
    intensity: int = Field(0, ge=0, le=4)
    status: ConflictStatus = ConflictStatus.unresolved
    resolution: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    resolved_at: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class Briefing(BaseModel):
    """What a decision-maker reads: a short text, the memories behind it and the conflicts among them."""

    model_config = ConfigDict(extra="forbid")

    query: str
    text: str
    memories: list[Recall] = Field(default_factory=list)
    conflicts: list[ConflictRecord] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
