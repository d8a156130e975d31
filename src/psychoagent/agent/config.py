"""Every coefficient of the cognitive economic agent, with its default and a one-line reason.

Sources: seed 003 sections 2.2 (three memory tiers, persona-modulated recall), 3.1-3.2 (perception, action
pipeline), 4.1 (guardrails), 4.3 (briefing cache, previous tick's briefing); Miller 1956 for the working-memory
span; Tversky & Kahneman 1992 for loss aversion in the look-ahead score.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from psychoagent.config import ConfigModel, Count, NonNegative, NonNegativeInt, Positive, PositiveShare, Share


class AblationConfig(ConfigModel):
    """Switches that remove one part of the architecture (used by the evaluation)."""

    memory: bool = Field(True, description="False: no memory at all (no encoding, no recall, no beliefs)")
    persona_evolution: bool = Field(True, description="False: static persona (no EvolutionEngine updates)")
    affect_modulation: bool = Field(True, description="False: recall with policy 'none' (no affect factors)")
    persona_recall: bool = Field(True, description="False: no persona-modulated recall stage")
    guardrails: bool = Field(True, description="False: orders go to the market after feasibility only")


class PerceptionConfig(ConfigModel):
    """How raw prices become observations."""

    history: int = Field(36, ge=2, description="ticks of public prices kept (3 years of months)")
    average_window: Count = Field(3, description="the 'recent average' a price is compared with (3 months)")
    notable_move: NonNegative = Field(0.03, description="a move beyond 3 % per period is worth a sentence")
    belief_weight: Share = Field(0.5, description="how much a remembered belief shifts the outlook")


class RecallSettings(ConfigModel):
    """Cross-layer recall and the working memory."""

    k: int = Field(
        5, ge=1, le=20, description="episodic memories recalled per decision (seed pseudo-code: k=5)"
    )
    graph_depth: int = Field(
        2, ge=0, le=4, description="hops of graph traversal from the situation's entities"
    )
    working_capacity: int = Field(7, ge=1, le=20, description="bounded working memory (Miller 1956: 7 +/- 2)")
    persona_weight: Share = Field(
        0.5, description="risky success x (1 + w (2 risk - 1)); failure x (1 - w (2 risk - 1))"
    )
    briefing_words: int = Field(200, ge=40, le=400, description="briefing length cap (seed 2.2.2: 200 words)")
    reuse_briefing: bool = Field(
        True, description="reuse the previous tick's briefing when the situation has not changed (seed 4.3)"
    )
    summary_cache: NonNegativeInt = Field(
        512, description="cached texts of frequently used semantic knowledge"
    )
    llm_briefing: bool = Field(
        False, description="LLM policy: fuse the template briefing with the model (purpose 'fusion'), cached"
    )
    refresh_every: Count = Field(
        3, description="recall is redone at least every 3 ticks; in between the last fused recall is used"
    )
    window: NonNegativeInt = Field(
        0,
        description="population memory: when > 0, a recall scans only each household's `window` latest memories "
        "plus `kept_own` older ones of its own, so its cost stops growing with the run; 0 (default) scans the "
        "whole history. 240 saved 15 % of a recall at month 240 but raised the Gini on bull_turning_bear "
        "(docs/benchmarks.md)",
    )
    kept_own: NonNegativeInt = Field(
        240,
        description="population memory: a household's own memories (trades, outcomes, refusals, talks) older "
        "than the window that recall still scans, latest first (about 20 years of its trading)",
    )


class ReflectionConfig(ConfigModel):
    """Periodic abstraction of episodes into semantic beliefs (graph edges + semantic units)."""

    every: Count = Field(6, description="reflect every 6 ticks (twice a year)")
    min_evidence: Count = Field(2, description="a belief needs at least this many episodes behind it")
    consolidate_every: NonNegativeInt = Field(
        0,
        description=(
            "re-tier and summarise the store every N ticks (0: off); it reads the whole store (~0.1 s per agent), "
            "and the bounded working memory of each decision does not need it"
        ),
    )


class GuardrailConfig(ConfigModel):
    """Rule validator (seed 4.1, second layer) and persona-consistency adjustment (seed 3.2 step 3)."""

    max_trade_share: PositiveShare = Field(
        0.3, description="one order may not commit more than 30 % of total assets"
    )
    high_risk_share: PositiveShare = Field(
        0.1, description="an order committing over 10 % of assets to a risky asset is high-risk"
    )
    max_consecutive_high_risk: Count = Field(
        2, description="no three consecutive high-risk operations of the same type (seed 4.1)"
    )
    fire_sale_drop: PositiveShare = Field(
        0.08, description="a fall of 8 % or more in the last period makes a large sale a fire sale"
    )
    fire_sale_share: PositiveShare = Field(
        0.5, description="after such a fall at most 50 % of a holding may be sold at once (no panic)"
    )
    max_position_share: PositiveShare = Field(
        0.6, description="holdings of one instrument may not exceed 60 % of total assets"
    )
    min_cash_months: NonNegative = Field(
        1.0, description="an order may not leave less than one month of income as cash"
    )
    persona_budget_slope: NonNegative = Field(
        1.0,
        description="budget x (1 + slope x (risk - baseline risk)), clipped: 20 % -> 15 % after a 0.25 fall",
    )
    persona_budget_floor: Share = Field(0.25, description="the adjustment never cuts below 25 %")


class LookaheadConfig(ConfigModel):
    """Sandbox look-ahead (seed 4.1, third layer): simulate k ticks with and without the action."""

    enabled: bool = Field(True, description="run the sandbox for large orders")
    trigger_share: Share = Field(
        0.1, description="only orders committing more than 10 % of assets are simulated"
    )
    ticks: Count = Field(6, description="simulate 6 ticks ahead")
    paths: int = Field(64, ge=8, description="Monte Carlo price paths per check")
    min_volatility: Positive = Field(
        0.05, description="per-tick volatility floor so a calm history does not hide risk"
    )
    max_bankruptcy: Share = Field(
        0.05, description="veto when wealth falls below the floor on more than 5 % of paths"
    )
    max_loss: PositiveShare = Field(
        0.1,
        description=(
            "veto when the portfolio's 5 % bad-case loss passes 10 % x (0.5 + risk preference) of wealth "
            "(7 % for a cautious 0.2, 14 % for a speculator 0.9) and the order makes it worse"
        ),
    )
    bankruptcy_floor: float = Field(
        0.0, description="wealth at or below this (after obligations) counts as bankruptcy"
    )


class NegotiationConfig(ConfigModel):
    """Bilateral steel deals between two agents (seed 2.2.1 example, 3.3)."""

    rounds: int = Field(4, ge=1, le=20, description="offers and counter-offers before talks break")
    quantity: Positive = Field(5.0, description="units of steel in a deal")
    opening_margin: Share = Field(
        0.12, description="seller opens 12 % above and buyer 12 % below the market price"
    )
    concession: Share = Field(0.35, description="share of the gap conceded per round at neutral persona")
    walk_away: Share = Field(0.08, description="a party accepts within 8 % of its reservation price")
    reputation_weight: Share = Field(
        0.5, description="how much a counterpart's remembered behaviour moves one's opening"
    )
    probability: Share = Field(
        0.08, description="chance per tick that a cognitive agent seeks a bilateral deal"
    )


class LLMGroupingConfig(ConfigModel):
    """The LLM policy asks once per group of alike households (issue 14: <= 0.5 model calls per agent-step)."""

    group: bool = Field(
        True,
        description=(
            "one decision call per group of deciding households with the same persona band and situation; each "
            "member applies the answer through its own persona adjustment and guardrails"
        ),
    )
    risk_bands: int = Field(5, ge=1, le=20, description="risk preference is cut into this many equal bands")
    optimism_band: Share = Field(
        0.1, description="optimism beyond +-0.1 counts as optimistic / pessimistic, else neutral"
    )


class CognitiveConfig(ConfigModel):
    """Everything the cognitive policy needs; `psychoagent simulate --policy cognitive` uses the defaults."""

    share: PositiveShare = Field(
        1.0, description="share of households that are full cognitive agents (the rest: persona rule)"
    )
    decide_every: Count = Field(
        1, description="a cognitive agent makes a trading decision every N ticks (staggered by id)"
    )
    instruments: tuple[str, ...] = Field(
        (), description="instruments the agents may trade; empty: everything the markets quote"
    )
    trade_share: PositiveShare = Field(
        0.2, description="budget share of a confident decision before persona and guardrails"
    )
    min_edge: NonNegative = Field(
        0.02, description="expected return below 2 % per horizon: no trade (fees and noise eat less)"
    )
    horizon: Count = Field(3, description="ticks after which a decision's expectation is scored")
    max_expected: PositiveShare = Field(
        0.15, description="stated expectations are capped at +-15 % per horizon (no extrapolated manias)"
    )
    decay_every: Count = Field(
        6, description="traits drift back toward their baseline in 6-tick steps when no outcome arrives"
    )
    trend_weight: Share = Field(
        0.5, description="expectation = trend x (risk-tilted weight) + mean reversion x rest"
    )
    memory_weight: Share = Field(0.6, description="weight of recalled outcomes versus the rule-based outlook")
    news_memories: NonNegativeInt = Field(
        1, description="news items per tick stored as episodes (most salient first)"
    )
    news_min_sentiment: Share = Field(
        0.3, description="news below this |sentiment| is routine and not stored (keeps memory lean)"
    )
    crowd_threshold: Share = Field(
        0.5, description="others' order flow beyond this imbalance is remembered (herding input)"
    )
    journal_memories: bool = Field(True, description="publish one memory.formed event per agent per tick")
    memory_backend: Literal["population", "private"] = Field(
        "population",
        description=(
            "population: one columnar store for all households, recall batched per tick (memory/population.py); "
            "private: one in-memory `Memory` (SQLite) per household, the full single-agent pipeline, ~1.8 MB each"
        ),
    )
    ablation: AblationConfig = Field(default_factory=AblationConfig)
    llm: LLMGroupingConfig = Field(default_factory=LLMGroupingConfig)
    perception: PerceptionConfig = Field(default_factory=PerceptionConfig)
    recall: RecallSettings = Field(default_factory=RecallSettings)
    reflection: ReflectionConfig = Field(default_factory=ReflectionConfig)
    guardrails: GuardrailConfig = Field(default_factory=GuardrailConfig)
    lookahead: LookaheadConfig = Field(default_factory=LookaheadConfig)
    negotiation: NegotiationConfig = Field(default_factory=NegotiationConfig)
