"""What the evolution engine consumes (an outcome compared with its expectation) and what it explains back."""

from __future__ import annotations

import math
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator


class OutcomeEvent(BaseModel):
    """An outcome the agent had an expectation about: returns as fractions (0.10 = +10 %), stake as a share of
    liquid wealth, optionally the domain (asset, sector) it concerns and when it happened."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expected: float = Field(..., description="expected return or outcome, e.g. 0.10 for +10 %")
    actual: float = Field(..., description="realised return or outcome, e.g. -0.15 for -15 %")
    stake: float = Field(
        ..., ge=0.0, description="share of liquid wealth involved, e.g. 0.30; above 1 means leverage"
    )
    domain: str | None = Field(None, description="asset, market or sector; None: the market as a whole")
    time: float | datetime | None = Field(None, description="when it happened (tick or timestamp)")

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


class Explanation(BaseModel):
    """Why a persona changed: the event, its prediction error, the impact and each trait's before/after/delta."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event: OutcomeEvent
    error: float = Field(..., description="actual - expected")
    importance: float = Field(..., description="weight of the stake, in [0, 1)")
    major: bool = Field(..., description="the error reached the major-event threshold")
    impact: float = Field(..., description="signed shock after curvature, loss aversion, importance and gate")
    loss_aversion: float = Field(..., description="lambda applied when the error was negative")
    before: dict[str, float] = Field(default_factory=dict, description="traits before the event")
    after: dict[str, float] = Field(default_factory=dict, description="traits after the event")
    deltas: dict[str, float] = Field(default_factory=dict, description="after - before, per trait")
    miss_streak: int = Field(0, description="consecutive major misses including this event")
    learning_boosted: bool = Field(False, description="the miss streak raised the learning rate")

    def text(self) -> str:
        """A few lines a person (or a prompt) can read."""
        where = f" on {self.event.domain}" if self.event.domain else ""
        kind = "major" if self.major else "minor"
        lines = [
            f"Expected {self.event.expected:+.1%}, got {self.event.actual:+.1%}{where}: "
            f"prediction error {self.error:+.1%} ({kind}), stake {self.event.stake:.0%} "
            f"(importance {self.importance:.2f}).",
            f"Impact {self.impact:+.3f}"
            + (f" (losses weigh x{self.loss_aversion:g})." if self.error < 0 else "."),
        ]
        for key, delta in self.deltas.items():
            if key in self.before:
                lines.append(f"  {key}: {self.before[key]:.3f} -> {self.after[key]:.3f} ({delta:+.3f})")
        streak = f"Miss streak {self.miss_streak}"
        lines.append(streak + ("; learning rate raised." if self.learning_boosted else "."))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()
