"""Stable labels (seed 5.1): majority vote over appraisers or prompts, quantisation bands and rule overrides."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from psychoagent.affect.config import AffectConfig
from psychoagent.affect.contracts import Appraiser
from psychoagent.affect.scheme import LabelScheme, apply_rules, get_scheme, quantise
from psychoagent.types import Affect


def vote(values: Sequence[int]) -> int:
    """Most frequent value; a tie goes to the median of the tied values (rounded toward the calmer side)."""
    counts = Counter(values)
    top = max(counts.values())
    tied = sorted(v for v, c in counts.items() if c == top)
    mid = (
        tied[(len(tied) - 1) // 2]
        if len(tied) % 2
        else min(tied[len(tied) // 2 - 1 : len(tied) // 2 + 1], key=abs)
    )
    return mid


def majority(affects: Sequence[Affect]) -> Affect:
    """Per-field majority of several labels; parties and reason come from a voter that agrees on conflict."""
    if not affects:
        raise ValueError("majority needs at least one affect")
    valence = vote([a.valence for a in affects])
    arousal = vote([a.arousal for a in affects])
    conflict = vote([a.conflict_intensity for a in affects])
    donor = next((a for a in affects if a.conflict_intensity == conflict), affects[0])
    agree = sum(
        1 for a in affects if (a.valence, a.arousal, a.conflict_intensity) == (valence, arousal, conflict)
    )
    return Affect(
        # The mean score of the voters with the winning label lies in that label's band (bands are intervals).
        valence_score=float(np.mean([a.valence_score for a in affects if a.valence == valence])),
        arousal_score=float(np.mean([a.arousal_score for a in affects if a.arousal == arousal])),
        conflict_intensity=conflict,
        conflict_parties=list(donor.conflict_parties) if conflict else [],
        reason=f"{donor.reason} (majority of {len(affects)}, {agree} agree on all labels)".strip(),
    ).with_labels(valence=valence, arousal=arousal)


class StabilisedAppraiser:
    """Runs several appraisers (or one several times with different prompts), votes, snaps to bands and applies
    the domain's rules, so the same event gets the same labels."""

    name = "stabilised"

    def __init__(
        self,
        appraisers: Sequence[Appraiser],
        scheme: str | LabelScheme | None = None,
        config: AffectConfig | None = None,
    ) -> None:
        if not appraisers:
            raise ValueError("StabilisedAppraiser needs at least one appraiser")
        self.appraisers = list(appraisers)
        self.scheme = get_scheme(scheme)
        self.config = config or AffectConfig()

    def appraise(self, event: Any, goals: Sequence[str] = (), context: Any = None) -> Affect:
        """Vote, quantise, then apply the scheme's rule overrides (rules have the last word)."""
        votes = [a.appraise(event, goals, context) for a in self.appraisers]
        bands = self.config.stabiliser
        affect = quantise(majority(votes), bands.valence_levels, bands.arousal_levels, bands.conflict_levels)
        text = event if isinstance(event, str) else getattr(event, "description", "")
        return apply_rules(text, affect, self.scheme.rules)
