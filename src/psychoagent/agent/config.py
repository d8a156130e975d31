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

    memory: bool = True
    """False: no memory at all (no encoding, no recall, no beliefs)"""
    persona_evolution: bool = True
    """False: static persona (no EvolutionEngine updates)"""
    affect_modulation: bool = True
    """False: recall with policy 'none' (no affect factors)"""
    persona_recall: bool = True
    """False: no persona-modulated recall stage"""
    guardrails: bool = True
    """False: orders go to the market after feasibility only"""


class PerceptionConfig(ConfigModel):
    """How raw prices become observations."""

    history: int = Field(36, ge=2)
    """ticks of public prices kept (3 years of months)"""
    average_window: Count = 3
    """the 'recent average' a price is compared with (3 months)"""
    notable_move: NonNegative = 0.03
    """a move beyond 3 % per period is worth a sentence"""
    belief_weight: Share = 0.5
    """how much a remembered belief shifts the outlook"""


class RecallSettings(ConfigModel):
    """Cross-layer recall and the working memory."""

    k: int = Field(5, ge=1, le=20)
    """episodic memories recalled per decision (seed pseudo-code: k=5)"""
    graph_depth: int = Field(2, ge=0, le=4)
    """hops of graph traversal from the situation's entities"""
    working_capacity: int = Field(7, ge=1, le=20)
    """bounded working memory (Miller 1956: 7 +/- 2)"""
    persona_weight: Share = 0.5
    """risky success x (1 + w (2 risk - 1)); failure x (1 - w (2 risk - 1))"""
    briefing_words: int = Field(200, ge=40, le=400)
    """briefing length cap (seed 2.2.2: 200 words)"""
    reuse_briefing: bool = True
    """reuse the previous tick's briefing when the situation has not changed (seed 4.3)"""
    summary_cache: NonNegativeInt = 512
    """cached texts of frequently used semantic knowledge"""
    llm_briefing: bool = False
    """LLM policy: fuse the template briefing with the model (purpose 'fusion'), cached"""
    refresh_every: Count = 3
    """recall is redone at least every 3 ticks; in between the last fused recall is used"""
    window: NonNegativeInt = 0
    """population memory: when > 0, a recall scans only each household's `window` latest memories plus
    `kept_own` older ones of its own, so its cost stops growing with the run; 0 (default) scans the whole
    history. 240 saved 15 % of a recall at month 240 but raised the Gini on bull_turning_bear
    (docs/benchmarks.md)"""
    kept_own: NonNegativeInt = 240
    """population memory: a household's own memories (trades, outcomes, refusals, talks) older than the window
    that recall still scans, latest first (about 20 years of its trading)"""


class ReflectionConfig(ConfigModel):
    """Periodic abstraction of episodes into semantic beliefs (graph edges + semantic units)."""

    every: Count = 6
    """reflect every 6 ticks (twice a year)"""
    min_evidence: Count = 2
    """a belief needs at least this many episodes behind it"""
    consolidate_every: NonNegativeInt = 0
    """re-tier and summarise the store every N ticks (0: off); it reads the whole store (~0.1 s per agent),
    and the bounded working memory of each decision does not need it"""


class GuardrailConfig(ConfigModel):
    """Rule validator (seed 4.1, second layer) and persona-consistency adjustment (seed 3.2 step 3)."""

    max_trade_share: PositiveShare = 0.3
    """one order may not commit more than 30 % of total assets"""
    high_risk_share: PositiveShare = 0.1
    """an order committing over 10 % of assets to a risky asset is high-risk"""
    max_consecutive_high_risk: Count = 2
    """no three consecutive high-risk operations of the same type (seed 4.1)"""
    fire_sale_drop: PositiveShare = 0.08
    """a fall of 8 % or more in the last period makes a large sale a fire sale"""
    fire_sale_share: PositiveShare = 0.5
    """after such a fall at most 50 % of a holding may be sold at once (no panic)"""
    max_position_share: PositiveShare = 0.6
    """holdings of one instrument may not exceed 60 % of total assets"""
    min_cash_months: NonNegative = 1.0
    """an order may not leave less than one month of income as cash"""
    persona_budget_slope: NonNegative = 1.0
    """budget x (1 + slope x (risk - baseline risk)), clipped: 20 % -> 15 % after a 0.25 fall"""
    persona_budget_floor: Share = 0.25
    """the adjustment never cuts below 25 %"""


class LookaheadConfig(ConfigModel):
    """Sandbox look-ahead (seed 4.1, third layer): simulate k ticks with and without the action."""

    enabled: bool = True
    """run the sandbox for large orders"""
    trigger_share: Share = 0.1
    """only orders committing more than 10 % of assets are simulated"""
    ticks: Count = 6
    """simulate 6 ticks ahead"""
    paths: int = Field(64, ge=8)
    """Monte Carlo price paths per check"""
    min_volatility: Positive = 0.05
    """per-tick volatility floor so a calm history does not hide risk"""
    max_bankruptcy: Share = 0.05
    """veto when wealth falls below the floor on more than 5 % of paths"""
    max_loss: PositiveShare = 0.1
    """veto when the portfolio's 5 % bad-case loss passes 10 % x (0.5 + risk preference) of wealth (7 % for a
    cautious 0.2, 14 % for a speculator 0.9) and the order makes it worse"""
    bankruptcy_floor: float = 0.0
    """wealth at or below this (after obligations) counts as bankruptcy"""


class NegotiationConfig(ConfigModel):
    """Bilateral steel deals between two agents (seed 2.2.1 example, 3.3)."""

    rounds: int = Field(4, ge=1, le=20)
    """offers and counter-offers before talks break"""
    quantity: Positive = 5.0
    """units of steel in a deal"""
    opening_margin: Share = 0.12
    """seller opens 12 % above and buyer 12 % below the market price"""
    concession: Share = 0.35
    """share of the gap conceded per round at neutral persona"""
    walk_away: Share = 0.08
    """a party accepts within 8 % of its reservation price"""
    reputation_weight: Share = 0.5
    """how much a counterpart's remembered behaviour moves one's opening"""
    probability: Share = 0.08
    """chance per tick that a cognitive agent seeks a bilateral deal"""


class LLMGroupingConfig(ConfigModel):
    """The LLM policy asks once per group of alike households (issue 14: <= 0.5 model calls per agent-step)."""

    group: bool = True
    """one decision call per group of deciding households with the same persona band and situation; each
    member applies the answer through its own persona adjustment and guardrails"""
    risk_bands: int = Field(5, ge=1, le=20)
    """risk preference is cut into this many equal bands"""
    optimism_band: Share = 0.1
    """optimism beyond +-0.1 counts as optimistic / pessimistic, else neutral"""


class InflationExpectationConfig(ConfigModel):
    """How a household forms the inflation it expects from the years it lived through (econ/cognitive/inflation.py):
    once a year since it joined it remembers the year's inflation and recalls the years it lived."""

    enabled: bool = True
    """form expectations (off: every household reads the published inflation, as rule households do)"""
    experience_weight: Share = 0.67
    """weight of the recalled years against the inflation just published (read every month); Malmendier & Nagel (2016) estimate the
    weight of experience-based forecasts in survey expectations at about two thirds"""
    recall_k: Count = 8
    """memories recalled per expectation (only those of lived inflation count)"""
    in_spending: bool = True
    """the persona rule's buy-ahead term reads the household's own expectation instead of the published
    inflation (off: expectations are formed and recorded, spending reads what everyone reads). With the published
    part read monthly the swings of single runs stay those without it (seeds 1701-1706); an expectation revised
    only yearly widened them (docs/results.md, "Inflation lived through")"""
    error_floor: Positive = 0.2
    """an inflation surprise is appraised relative to at least 20 points: a 2-point surprise draws attention
    (arousal 2), a 10-point one alarms (arousal 3), with `OutcomeConfig`'s bands"""


class CognitiveConfig(ConfigModel):
    """Everything the cognitive policy needs; `psychoagent simulate --policy cognitive` uses the defaults."""

    share: PositiveShare = 1.0
    """share of households that are full cognitive agents (the rest: persona rule)"""
    decide_every: Count = 1
    """a cognitive agent makes a trading decision every N ticks (staggered by id)"""
    instruments: tuple[str, ...] = ()
    """instruments the agents may trade; empty: everything the markets quote"""
    trade_share: PositiveShare = 0.2
    """budget share of a confident decision before persona and guardrails"""
    min_edge: NonNegative = 0.02
    """expected return below 2 % per horizon: no trade (fees and noise eat less)"""
    horizon: Count = 3
    """ticks after which a decision's expectation is scored"""
    max_expected: PositiveShare = 0.15
    """stated expectations are capped at +-15 % per horizon (no extrapolated manias)"""
    sale_weight: Share = 0.0
    """share of a sale's stake its scored outcome weighs in the persona update. 0: a sale is scored (memory,
    beliefs, the learning rate's miss streak) but moves no other trait, since the price's later move leaves the
    seller's wealth untouched: it is a forgone gain or an avoided loss, and risk taking follows the returns one
    lives through (Malmendier & Nagel 2011). At 1 a sale before a rally counted as a loss, with loss aversion: on
    seed 28 the rebound after a sell-off moved mean risk preference 0.43 -> 0.21 in three months"""
    lived_weight: Share = 0.25
    """share of a lived month's stake (its holdings' share of wealth, econ/cognitive/reflect.py) that weighs in
    the persona update, times the month's arousal above routine; tuned on seeds 1-4 of a crash scenario: at 1 a
    crash's months drove mean risk preference from 0.34 to 0 within five months and the households' selling took
    stocks 93 % down; at 0.25 it fell to 0.14 and was back to 0.24 three years later"""
    inflation: InflationExpectationConfig = Field(default_factory=InflationExpectationConfig)
    """expected inflation from the lived years (Malmendier & Nagel 2016)"""
    decay_every: Count = 6
    """traits drift back toward their baseline in 6-tick steps, also in a month an outcome arrives (skipping the
    step then let the risk appetite of households that trade every month fall for 20 years: 0.37 -> 0.09 on
    seed 1001)"""
    trend_weight: Share = 0.5
    """expectation = trend x (risk-tilted weight) + mean reversion x rest"""
    memory_weight: Share = 0.6
    """weight of recalled outcomes versus the rule-based outlook"""
    news_memories: NonNegativeInt = 1
    """news items per tick stored as episodes (most salient first)"""
    news_min_sentiment: Share = 0.3
    """news below this |sentiment| is routine and not stored (keeps memory lean)"""
    crowd_threshold: Share = 0.5
    """others' order flow beyond this imbalance is remembered (herding input)"""
    journal_memories: bool = True
    """publish one memory.formed event per agent per tick"""
    trace_decisions: NonNegativeInt = 1000
    """households whose briefing and guarded decision are journalled (mind.decision); above this many, an even
    sample of about this many (every k-th household); 0: none. Journalling reads the decision, never changes it"""
    memory_backend: Literal["population", "private"] = "population"
    """population: one columnar store for all households, recall batched per tick (memory/population.py);
    private: one in-memory `Memory` (SQLite) per household, the full single-agent pipeline, ~1.8 MB each"""
    ablation: AblationConfig = Field(default_factory=AblationConfig)
    llm: LLMGroupingConfig = Field(default_factory=LLMGroupingConfig)
    perception: PerceptionConfig = Field(default_factory=PerceptionConfig)
    recall: RecallSettings = Field(default_factory=RecallSettings)
    reflection: ReflectionConfig = Field(default_factory=ReflectionConfig)
    guardrails: GuardrailConfig = Field(default_factory=GuardrailConfig)
    lookahead: LookaheadConfig = Field(default_factory=LookaheadConfig)
    negotiation: NegotiationConfig = Field(default_factory=NegotiationConfig)
