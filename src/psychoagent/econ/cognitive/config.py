"""Coefficients of the cognitive economy's policies beyond the cognitive loop's own (`agent.config`): econagent's
decision (`EconAgentConfig`) and the cost of its calls to a language model (`ModelCallConfig`), each with its
reason or source."""

from __future__ import annotations

from pydantic import Field

from psychoagent.config import ConfigModel, Count, NonNegative, PositiveShare, Share


class EconAgentConfig(ConfigModel):
    """Coefficients of the econagent policy, each with its reason or source."""

    step: float = Field(0.02, gt=0, le=0.5)
    """propensities are multiples of 0.02 (EconAgent's prompt, Li et al. 2024)"""
    decide_every: Count = 1
    """months between a household's decisions (EconAgent: every month, staggered by id)"""
    group: bool = True
    """a language model answers once per group of alike households (persona band, savings band, last month,
    market view); each member's own guardrails then shape it. The offline model answers every household"""
    savings_bands: tuple[float, ...] = (1.0, 3.0, 6.0)
    """grouping: savings in months of pay are cut at these edges (no buffer, some, ample, rich)"""
    reflect_every: Count = 3
    """months between reflections (EconAgent: quarterly)"""
    history_months: Count = 3
    """last months' outcomes shown in the profile"""
    max_change: PositiveShare = 0.3
    """inertia: one decision moves a propensity by at most this much"""
    consume_risk_slope: NonNegative = 0.0
    """persona adjustment: consumption x (1 + this x (risk - baseline risk)), for a model that ignores the
    persona in its prompt. 0 by default: the answer already reads the persona (the offline model answers the
    persona rule, whose precautionary saving scales with 1 - risk), and counting risk twice let the drift of
    risk after trading losses cut spending by another 5 %: months 1-36 at or below 10 % unemployment with rule
    firms on 5 and 4 of 10 tuning seeds (11-20, 21-30) at 0.5, 7 and 7 at 0 (docs/results.md)"""
    buffer_months: NonNegative = 1.0
    """subsistence: savings below this many months of potential income ..."""
    min_work: Share = 0.5
    """... keep the work propensity at least this high"""
    income_surprise: NonNegative = 0.25
    """a month's income this far (relative) from its recent average is an outcome for the persona"""
    income_memory: PositiveShare = 0.3
    """EWMA weight of a month's income in the expected income (adaptive, ~2 months)"""


class ModelCallConfig(ConfigModel):
    """Cost knobs of econagent's calls to a language model (the offline model ignores them), each with its reason."""

    reuse_months: Count = 3
    """an answer is reused by alike households (risk band, savings band, job status) for this many months,
    counting the month it was given; 1: ask every month. 3 = EconAgent's quarter (its reflection cadence):
    50 households x 24 months then made 157 calls (0.13 per household-month) and SmolLM2 on 2 shared cores
    finished in 66 min, where the earlier 0.88 calls of ~1,200 tokens would take about a day"""
    risk_bands: int = Field(3, ge=1, le=20)
    """alike households: risk preference cut into 3 bands (cautious, balanced, bold) instead of 5"""
    memory_words: int = Field(40, ge=10, le=200)
    """words of memory (beliefs, past outcomes, guardrail feedback) in a model's prompt, within the issue's
    200-word briefing; the profile line already says what the briefing's persona and 'Now' lines say"""
    max_tokens: int = Field(48, ge=16)
    """decision answers (`model_answer`): two numbers and a trade name fit in ~20-25 tokens"""
    reflection_tokens: int = Field(40, ge=16)
    """reflections: one sentence of at most 100 characters (~30 tokens)"""
