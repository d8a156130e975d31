"""Tuning knobs of affect inside memory: conflict detection, modulated recall, decay, feedback-loop safety, the
affect monitor and consolidation, each with its documented default and the reason for it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from psychoagent.config import ConfigModel, ConflictLevel, Count, NonNegative, NonNegativeInt, Positive, Share
from psychoagent.memory.config.fusion import FusionConfig


class ConflictConfig(ConfigModel):
    """How new units are checked against stored ones and goals (update/contradiction detection by meaning)."""

    detect: bool = True
    """check every new unit for updates, contradictions and goal conflicts"""
    supersede_slots: bool = True
    """an update supersedes the older unit (invalid_at set, both kept)"""
    record_goal_conflicts: bool = True
    """write a ConflictRecord for goal conflicts >= min"""
    min_goal_intensity: ConflictLevel = 2
    """weakest goal conflict that gets a record"""
    detect_changes: bool = True
    """judge pairs with the learned scorer (False: only rule-based slot clashes count)"""
    dense_candidates: NonNegativeInt = 6
    """nearest earlier units (by embedding) each new unit is compared with"""
    subject_candidates: NonNegativeInt = 4
    """latest earlier units per shared subject (person, place, the speaker) compared too"""
    min_similarity: Share = 0.15
    """normalised dense similarity below which a nearest unit is not a candidate"""
    update_threshold: Share | None = None
    """scorer probability from which a pair is an update (None: the scorer's own, chosen on the dev scenarios:
    flagged against false flags)"""
    contradiction_threshold: Share | None = None
    """scorer probability from which a pair is a contradiction (None: the scorer's)"""
    conflict_mass: Share = 0.9
    """update + contradiction probability from which a pair conflicts (dev scenarios)"""
    change_intensity: ConflictLevel = 2
    """conflict of an update found by meaning: less certain than a slot clash"""
    contradiction_intensity: ConflictLevel = 3
    """conflict of two facts that cannot both hold, with no time order to settle it"""
    recall_pairs: NonNegativeInt = 8
    """best recall candidates compared pairwise so the current fact ranks first (0: off)"""
    recall_update_threshold: Share = 0.35
    """update probability from which recall puts the newer fact first (dev)"""
    recall_close_threshold: Share = 0.25
    """update probability from which recall puts the newer fact first when it answers the query about as well
    as the older one (relevance at least recall_close_relevance of the older's); dev scenarios"""
    recall_close_relevance: Share = 0.9
    """share of the older fact's query relevance the newer one needs (dev)"""
    brief_conflict_mass: Share = 0.45
    """update + contradiction probability from which a briefing shows two recalled facts that answer its
    question alike (see recall_close_relevance) as a conflict, without a stored record; chosen on the dev
    scenarios (0.4 flagged 4.9 % of dev compatible English pairs, 0.45 3.4 %)"""
    brief_answer_mass: Share = 0.3
    """brief_conflict_mass for a pair whose newer fact drops the older one's answer to the question and gives
    its own (memory.conflicts.answers); chosen on the dev scenarios: the lowest of 0.45-0.1 that flagged no
    more dev compatible pairs (0.25 flagged English 3.7 % against 3.4 %)"""
    brief_replaced_relevance: Share = 0.7
    """recall_close_relevance for a pair whose newer fact replaces the older one's answer (`brief_answer_mass`):
    a later instruction shares fewer words with the request than the one it replaces ("book a steakhouse" ->
    "dinners should be at a vegetarian place"); bench_dialogue"""
    scorer_path: str | None = None
    """JSON weights of another fitted pair scorer (default: the packaged one)"""
    reader: bool = True
    """with an embedder that has a packaged reader (e5), the pairs whose update or contradiction probability
    reaches the reader's band are re-scored with the two facts embedded as one passage (memory.conflicts.reader:
    one more embedded text per such pair, at write time and in the briefing's comparisons; benchmarks/fit_pairs.py
    --joint)"""
    reader_path: str | None = None
    """JSON weights of another fitted reader (default: the packaged one for the embedder)"""
    second_stage: bool = False
    """with the embedder the second-stage scorer was fitted on (e5), pairs sharing a subject that the first
    stage is unsure about are decided by masked-predicate similarity (two more embedded texts per pair,
    write time only; benchmarks/fit_masked.py). Off by default: on the conflict benchmark it raised test
    flagged 83.2 -> 83.5 % only, and on the never-tuned natural set it flagged one more compatible pair
    (wrongly flagged 20 -> 25 %), for 0.12 more embedded texts per stored unit (2026-12-01)"""
    second_stage_path: str | None = None
    """JSON weights of another fitted second stage (default: the packaged one)"""
    gate: bool = True
    """every update or contradiction (write time and briefing) must pass the structural gate
    (memory.conflicts.gate: same subject, same single-valued attribute, a replacing change); its thresholds are
    fitted with its head on dev pairs (benchmarks/fit_gate.py)"""
    gate_path: str | None = None
    """JSON weights of another fitted gate head (default: the packaged one)"""


class ModulationConfig(ConfigModel):
    """Bounded multiplicative affect factors of recall (seed 2.3, 3.3). Every factor stays in [1/max, max]."""

    policy: Literal["conflict-first", "lessons", "mood-congruent", "none"] = "conflict-first"
    """policy used when a recall has an affect state (given or appraised from context) but no policy"""
    pool_factor: Count = 3
    """candidate pool is at least k * this before modulation (seed 3.3: top_k * 3)"""
    conflict_state_threshold: ConflictLevel = 3
    """state conflict from which high-conflict memories are boosted (seed 3.3: >= 3)"""
    conflict_weight: NonNegative = 0.8
    """factor = 1 + w * memory_conflict / 4 (seed 3.3: +0.2 per conflict level)"""
    lesson_weight: NonNegative = 0.3
    """negative state: factor = 1 + w * max(0, -memory_valence) / 2 (seed 3.3: +0.1)"""
    congruence_weight: float = Field(0.2, ge=0, le=0.9)
    """mood congruence: factor in [1 - w, 1 + w] by valence distance"""
    arousal_congruence_weight: float = Field(0.1, ge=0, le=0.9)
    """arousal congruence: factor in [1 - w, 1 + w] by arousal distance"""
    max_factor: float = Field(2.0, ge=1)
    """upper bound of any single affect factor"""
    working_boost: float = Field(1.1, ge=1)
    """working-tier units come first among equals (seed 5.3: search working memory first)"""


class DecayConfig(ConfigModel):
    """Affect intensity fades with time and with later successes on the same subject (seed 5.4)."""

    half_life_days: Positive = 30.0
    """age at which a memory's affect counts half in modulation"""
    success_half_count: Positive = 2.0
    """later successes on the same subject that halve a memory's affect"""


class SafetyConfig(ConfigModel):
    """Feedback-loop safety: diversity, exploration and the recent-recall negativity tracker (seed 5.4)."""

    mmr_lambda: Share = 0.6
    """MMR trade-off: lambda * relevance / max - (1 - lambda) * max similarity to earlier picks; 0.6 lets a
    result 20% less relevant but half as similar beat an exact duplicate"""
    mmr_pool: Count = 3
    """MMR picks from the best k * this candidates"""
    epsilon: Share = 0.1
    """probability of an exploratory recall"""
    explore_slots: NonNegativeInt = 1
    """results replaced by exploration picks"""
    negative_window: Count = 10
    """recent modulated recalls the negativity tracker remembers"""
    negative_share: Share = 0.6
    """share of negative memories in recent recalls that forces exploration"""
    seed: int = 0
    """seed of the default exploration generator when recall gets no rng"""
    supersession_gap: float = Field(0.95, gt=0, lt=1)
    """in modulated recall a superseded unit scores at most this times its successor, so the current fact
    ranks first and the stale one right after (MemoryAgentBench: ordering metadata fixes superseded facts)"""


class MonitorConfig(ConfigModel):
    """Affect baseline monitor: warns when stored affect drifts negative."""

    window: int = Field(50, ge=2)
    """recent units whose affect forms the current distribution"""
    min_units: Count = 10
    """units needed before the monitor judges a drift"""
    mean_threshold: float = Field(-0.5, le=0)
    """warn when the window's mean valence falls below this"""
    drift_threshold: Positive = 0.75
    """warn when the window's mean valence is this far below the baseline"""
    negative_share: Share = 0.6
    """warn when this share of the window is negative"""


class ConsolidationConfig(ConfigModel):
    """Tiers and summarisation (seed 5.3)."""

    working_capacity: Count = 50
    """most units the working tier holds"""
    working_recent_days: NonNegative = 1.0
    """units younger than this are working candidates"""
    working_min_conflict: ConflictLevel = 2
    """conflict from which a unit is working memory"""
    working_min_arousal: int = Field(3, ge=1, le=3)
    """arousal from which a unit is working memory"""
    routine_max_arousal: int = Field(1, ge=1, le=3)
    """routine: arousal at most this"""
    routine_max_conflict: ConflictLevel = 0
    """routine: conflict at most this"""
    min_age_days: NonNegative = 7.0
    """only units older than this are summarised"""
    min_group: int = Field(3, ge=2)
    """smallest group of similar routine units worth a summary"""
    similarity: float = Field(0.5, ge=-1, le=1)
    """cosine to a group's first unit needed to join it (calibrate per embedder)"""


class AffectiveMemoryConfig(ConfigModel):
    """Everything affect-related a `Memory` uses."""

    conflicts: ConflictConfig = Field(default_factory=ConflictConfig)
    modulation: ModulationConfig = Field(default_factory=ModulationConfig)
    decay: DecayConfig = Field(default_factory=DecayConfig)
    safety: SafetyConfig = Field(default_factory=SafetyConfig)
    monitor: MonitorConfig = Field(default_factory=MonitorConfig)
    fusion: FusionConfig = Field(default_factory=FusionConfig)
    consolidation: ConsolidationConfig = Field(default_factory=ConsolidationConfig)
