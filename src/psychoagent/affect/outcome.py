"""Appraisal of structured outcomes (the economy): labels follow from the prediction error and the stake."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from psychoagent.affect.config import OutcomeConfig
from psychoagent.types import Affect


class OutcomeEvent(BaseModel):
    """An outcome the agent had expected: what it expected, what happened, and how much of its wealth was at stake."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    expected: float
    actual: float
    stake: float = Field(0.0, ge=0.0, le=1.0, description="fraction of wealth involved")
    description: str = ""
    higher_is_better: bool = Field(True, description="False for costs: paying more than expected is bad")


def _band(value: float, bands: tuple[float, ...]) -> int:
    return sum(1 for b in bands if value >= b)


def appraise_outcome(event: OutcomeEvent, config: OutcomeConfig | None = None) -> Affect:
    """Deterministic affect: valence from the stake-weighted signed error, arousal from surprise and stake,
    conflict from the size of the error (a belief proved wrong)."""
    cfg = config or OutcomeConfig()
    error = (event.actual - event.expected) / max(abs(event.expected), cfg.error_floor)
    signed = error if event.higher_is_better else -error
    weight = min(1.0, event.stake / cfg.stake_reference)
    impact = signed * weight
    magnitude = _band(abs(impact), cfg.valence_bands)
    valence = magnitude if impact > 0 else -magnitude
    arousal = 1 + _band(abs(error), cfg.arousal_bands)
    if event.stake >= cfg.high_stake:
        arousal = 3
    conflict = min(4, _band(abs(error), cfg.conflict_bands))
    what = event.description or "outcome"
    parties = (
        [f"expectation: {what} {event.expected:g}", f"outcome: {what} {event.actual:g}"] if conflict else []
    )
    reason = (
        f"{what.capitalize()} came in at {event.actual:g} against an expected {event.expected:g} "
        f"({error:+.0%}) with {event.stake:.0%} of wealth at stake."
    )
    return Affect(
        valence=valence, arousal=arousal, conflict_intensity=conflict, conflict_parties=parties, reason=reason
    )
