"""Tuning knobs of appraisal (the heuristic, outcome and LLM appraisers and the stabiliser), each with its documented
default and the reason for it. The knobs of affect inside memory (conflicts, modulation, safety, fusion) are part
of `psychoagent.memory.config`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from psychoagent.config import ConfigModel, ConflictLevel, NonNegative, NonNegativeInt, Positive, Share


class HeuristicConfig(ConfigModel):
    """Weights of the model-free appraiser (English via VADER, Chinese via a small rule lexicon)."""

    embed_missing: bool = True
    """a standalone appraiser (context names no embedder) embeds the text with multilingual-e5-small itself to
    use the combined head (EmoBank dev r: see docs/benchmarks.md); False: lexical head unless a vector is
    passed"""
    vector_cache: NonNegativeInt = 4096
    """texts whose e5 vectors a standalone appraiser keeps (prepare() then appraise()): 6 MB"""
    conflict_arousal: float = Field(0.2, ge=0, le=2)
    """arousal score added when conflict >= 3, which also lifts it to at least 'attention' (seed 2.2: a goal
    conflict demands attention); 0.2 takes a text that is itself arousing into 'alarm' (2.3)"""
    task_word_weight: NonNegative = 0.35
    """score added per success/failure word (task outcomes VADER does not know)"""
    negation_window: NonNegativeInt = 3
    """tokens before a sentiment word a negator may sit in"""
    intensifier_factor: float = Field(1.5, ge=1)
    """multiplier of a sentiment word after 'very'/'非常'"""
    arousal_change_ratio: NonNegative = 0.5
    """relative size of a numeric change (from X to Y) that counts as an arousing jump"""
    arousal_sentiment: Share = 0.6
    """|sentiment score| above which the event itself counts as arousing"""
    goal_violation_intensity: ConflictLevel = 3
    """conflict when a number breaks a goal's numeric constraint"""
    goal_violation_strong_ratio: NonNegative = 0.25
    """relative overshoot of the bound from which the violation is fundamental (intensity 4)"""
    preference_intensity: ConflictLevel = 3
    """conflict when the event uses the opposite preference word of a goal"""
    goal_negation_intensity: ConflictLevel = 3
    """conflict when the event negates or cancels what a goal asks for"""
    slot_intensity: ConflictLevel = 3
    """conflict with a stored memory giving a different value for the same slot"""
    reversal_intensity: ConflictLevel = 2
    """conflict signalled by a reversal marker alone ('actually', '改成')"""
    reversal_bonus: int = Field(1, ge=0, le=2)
    """added to another detected conflict when a reversal marker confirms it"""
    conflict_valence_cap: int = Field(-1, ge=-2, le=0)
    """valence is at most this when conflict >= 3: the event pushes against a goal (seed 2.2)"""


class OutcomeConfig(ConfigModel):
    """Deterministic appraisal of an outcome event (expected vs actual, stake = fraction of wealth involved)."""

    error_floor: Positive = 1.0
    """denominator floor of the relative error, so an expected 0 does not divide by 0"""
    stake_reference: Positive = 0.2
    """stake (share of wealth) at which an outcome counts fully; smaller ones scale down"""
    valence_bands: tuple[float, float] = (0.05, 0.3)
    """|stake-weighted error| for valence +-1 and +-2"""
    arousal_bands: tuple[float, float] = (0.1, 0.5)
    """|relative error| (surprise) for arousal 2 and 3"""
    valence_saturation: Positive = 1.0
    """|stake-weighted error| at which the valence score reaches +-2 (a full-stake 100 % miss)"""
    arousal_saturation: Positive = 1.0
    """|relative error| at which the arousal score reaches 3 (twice the arousal-3 band)"""
    high_stake: Share = 0.3
    """stake that alone makes an outcome arousal 3"""
    conflict_bands: tuple[float, float, float, float] = (0.1, 0.25, 0.5, 1.0)
    """|relative error| for conflict 1..4: a prediction error is a conflict with a belief"""


class LLMAppraiserConfig(ConfigModel):
    """How the LLM appraiser asks, validates, repairs and falls back."""

    retries: int = Field(1, ge=0, le=5)
    """extra attempts after an invalid answer before falling back"""
    repair: bool = True
    """try json-repair on malformed JSON before retrying"""
    max_reason_chars: int = Field(300, ge=20)
    """maxLength of brief_reason in the JSON schema"""
    language: Literal["en", "zh"] = "en"
    """language of the prompt (the seed's is Chinese)"""
    structured: bool = True
    """use the model's schema-constrained `structured()` call when it has one (psychoagent.llm); otherwise
    plain text, parsed and repaired here"""


class StabiliserConfig(ConfigModel):
    """Smoothing of labels (seed 5.1): consistency matters more than precision."""

    valence_levels: tuple[int, ...] = (-2, -1, 0, 1, 2)
    """allowed valence values; labels snap to the nearest (e.g. (-1, 0, 1))"""
    arousal_levels: tuple[int, ...] = (1, 2, 3)
    """allowed arousal values"""
    conflict_levels: tuple[int, ...] = (0, 1, 2, 3, 4)
    """allowed conflict values (e.g. (0, 2, 4) for low/medium/high)"""


class AffectConfig(ConfigModel):
    """All appraisal knobs."""

    heuristic: HeuristicConfig = Field(default_factory=HeuristicConfig)
    outcome: OutcomeConfig = Field(default_factory=OutcomeConfig)
    llm: LLMAppraiserConfig = Field(default_factory=LLMAppraiserConfig)
    stabiliser: StabiliserConfig = Field(default_factory=StabiliserConfig)
