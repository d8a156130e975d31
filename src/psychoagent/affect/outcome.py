"""Appraisal of structured outcomes (the economy): labels follow from the prediction error and the stake."""

from __future__ import annotations

import numpy as np

from psychoagent.affect.config import OutcomeConfig
from psychoagent.types import SCORE_BANDS, Affect, OutcomeEvent


def _band(value: float, bands: tuple[float, ...]) -> int:
    return sum(1 for b in bands if value >= b)


def _score(value: float, bands: tuple[float, ...], saturation: float, low: float, edges: tuple[float, ...],
           high: float) -> float:  # fmt: skip
    """Piecewise-linear map of a magnitude onto a score scale: each band edge of the magnitude lands on the
    matching score edge, so the score's band is the label the magnitude's bands give."""
    knots = [0.0, *bands, max(saturation, bands[-1] + 1e-9)]
    return float(np.interp(value, knots, [low, *edges, high]))


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
    valence_score = _score(
        abs(impact), cfg.valence_bands, cfg.valence_saturation, 0.0, SCORE_BANDS.valence, 2.0
    )
    valence_score = valence_score if impact > 0 else -valence_score if magnitude else 0.0
    arousal_score = _score(
        abs(error), cfg.arousal_bands, cfg.arousal_saturation, 1.0, SCORE_BANDS.arousal, 3.0
    )
    if event.stake >= cfg.high_stake:
        arousal, arousal_score = 3, max(arousal_score, SCORE_BANDS.arousal[-1])
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
        valence=valence,
        arousal=arousal,
        valence_score=valence_score,
        arousal_score=arousal_score,
        conflict_intensity=conflict,
        conflict_parties=parties,
        reason=reason,
    )
