"""Value types shared by every part of PsychoAgent: affect labels, memory units, recalls, conflicts, briefings."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

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


_EDGE_RANGES = {"valence": ((0.0, 1.0), (1.0, 2.0)), "arousal": ((1.0, 2.0), (2.0, 3.0))}
"""Where each label edge of `ScoreBands` may lie: the first in (low, mid], the second in (mid, high]."""


class ScoreBands(BaseModel):
    """Edges that cut the continuous scores into the seed's integer labels (a label is the band its score is in).

    A label's own value lies in its band, so an Affect built from labels alone keeps them (score = label). The
    edges sit where EmoBank's human ratings (Buechel & Hahn 2017, mapped to the seed's scales) make the labels
    useful: its median sentence (A = 3, score 2.0) is the bottom of 'attention', about two standard deviations
    above it (A >= 3.6) is 'alarm'; valence labels are the nearest integer, so plain factual sentences stay 0.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    valence: tuple[float, float] = Field(
        (0.5, 1.5), description="|score| from which valence is +-1 and +-2 (the sign is the score's)"
    )
    arousal: tuple[float, float] = Field(
        (2.0, 2.3), description="score from which arousal is 2 and 3 (below the first: 1)"
    )

    @field_validator("valence", "arousal")
    @classmethod
    def _edges_in_range(cls, edges: tuple[float, ...], info: ValidationInfo) -> tuple[float, ...]:
        (low, mid), (_, high) = _EDGE_RANGES[info.field_name or ""]
        if not (low < edges[0] <= mid < edges[1] <= high):
            raise ValueError(
                f"{info.field_name} edges {edges} must lie in ({low:g}, {mid:g}] and ({mid:g}, {high:g}]"
            )
        return edges

    def valence_label(self, score: float) -> int:
        """The valence label whose band holds `score` (symmetric around 0)."""
        magnitude = sum(1 for e in self.valence if abs(score) >= e)
        return magnitude if score > 0 else -magnitude

    def arousal_label(self, score: float) -> int:
        """The arousal label whose band holds `score`."""
        return 1 + sum(1 for e in self.arousal if score >= e)


SCORE_BANDS = ScoreBands()
"""The bands every Affect uses."""


def _number(value: Any) -> float | None:
    """A label or score as a float, or None when absent or not a number (the field then reports the error)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


class Affect(BaseModel):
    """How an event feels to the agent (seed 000, section 3.1): continuous scores and their integer labels.

    Built from scores, the labels are their bands; built from labels alone (older code, stored JSON, an LLM's
    answer), each score is its label's value. Given both, they must agree.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    valence: int = Field(
        0, ge=-2, le=2, description="-2 very negative .. 2 very positive for the agent's goals"
    )
    arousal: int = Field(1, ge=1, le=3, description="1 calm/routine, 2 attention, 3 alarm/surprise")
    valence_score: float = Field(0.0, ge=-2, le=2, description="valence on the continuous -2..2 scale")
    arousal_score: float = Field(1.0, ge=1, le=3, description="arousal on the continuous 1..3 scale")
    conflict_intensity: int = Field(
        0, ge=0, le=4, description="0 no conflict .. 4 fundamental conflict with goals, memories or beliefs"
    )
    conflict_parties: list[str] = Field(
        default_factory=list, description="both sides of the conflict, if any"
    )
    reason: str = Field("", description="one sentence saying why these labels were given")

    @model_validator(mode="before")
    @classmethod
    def _scores_and_labels(cls, data: Any) -> Any:
        """Fill the missing half of each (label, score) pair and check that given pairs agree."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for label, score, default, band in (
            ("valence", "valence_score", 0, SCORE_BANDS.valence_label),
            ("arousal", "arousal_score", 1, SCORE_BANDS.arousal_label),
        ):
            given_label, given_score = _number(data.get(label)), _number(data.get(score))
            if given_score is not None:
                if not math.isfinite(given_score):
                    raise ValueError(f"{score} must be finite, got {given_score!r}")
                if given_label is None and data.get(label) is None:
                    data[label] = band(given_score)
                elif given_label is not None and band(given_score) != given_label:
                    raise ValueError(
                        f"{label} {data[label]!r} is not the band of {score} {given_score:g} "
                        f"(bands {getattr(SCORE_BANDS, label)}); give one of them or matching values"
                    )
            elif given_label is not None and data.get(score) is None:
                data[score] = given_label
            elif data.get(label) is None and data.get(score) is None:
                data[label], data[score] = default, float(default)
        return data

    @classmethod
    def neutral(cls) -> Affect:
        """The label of an event nobody appraised: neutral, calm, no conflict."""
        return cls(valence=0, arousal=1, conflict_intensity=0, conflict_parties=[], reason="not appraised")

    def with_labels(self, *, valence: int | None = None, arousal: int | None = None, **update: Any) -> Affect:
        """A copy with new labels (and other fields); a score outside its new label's band becomes the label's
        value, one inside it is kept."""
        data = self.model_dump()
        data.update(update)
        for label, score, band, new in (
            ("valence", "valence_score", SCORE_BANDS.valence_label, valence),
            ("arousal", "arousal_score", SCORE_BANDS.arousal_label, arousal),
        ):
            if new is not None and new != data[label]:
                data[label] = new
                if band(data[score]) != new:
                    data[score] = float(new)
        return Affect.model_validate(data)


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


class OutcomeEvent(BaseModel):
    """An outcome the agent had an expectation about: what it expected, what happened and how much of its liquid
    wealth was at stake (0.30 = 30 %; above 1 means leverage). The persona engine reads returns as fractions
    (0.10 = +10 %) with the domain (asset, sector) and time; the outcome appraiser reads any level, with a
    description and whether higher is better."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expected: float = Field(..., description="expected return or outcome, e.g. 0.10 for +10 %")
    actual: float = Field(..., description="realised return or outcome, e.g. -0.15 for -15 %")
    stake: float = Field(
        0.0, ge=0.0, description="share of liquid wealth involved, e.g. 0.30; above 1 means leverage"
    )
    domain: str | None = Field(None, description="asset, market or sector; None: the market as a whole")
    time: float | datetime | None = Field(None, description="when it happened (tick or timestamp)")
    description: str = Field("", description="what the outcome is, for the appraisal's reason ('return')")
    higher_is_better: bool = Field(True, description="False for costs: paying more than expected is bad")

    @field_validator("expected", "actual", "stake")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError(f"must be a finite number, got {value!r}")
        return value

    @property
    def error(self) -> float:
        """Signed prediction error: actual - expected."""
        return self.actual - self.expected
