"""What the evolution engine explains back about an `OutcomeEvent` (an outcome compared with its expectation, one
class in `psychoagent.types`, re-exported here)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from psychoagent.types import OutcomeEvent


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
