"""Coefficients of cognitive firms, each with its reason (`EconomyConfig.firms`; `mode = "rule"` keeps the
demand-gap firms of the macro core).

No published calibration exists for these: they are set so that a plant is a large, slow decision (months of
revenue, months of construction) and the guardrails bind now and then in the default economy; each says why.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from psychoagent.config import ConfigModel, Count, NonNegative, Positive, PositiveShare, Share

FirmMode = Literal["rule", "cognitive", "llm"]
FIRM_MODES: tuple[str, ...] = ("rule", "cognitive", "llm")


class FirmsConfig(ConfigModel):
    """How firms decide: the macro core's rule, or a persona + memory loop each quarter (heuristic or a model)."""

    mode: FirmMode = "rule"
    """rule: price, wage and hiring follow the demand gap (EconAgent); cognitive: each firm perceives,
    recalls, decides, passes guardrails, acts and evolves its persona every quarter; llm: the same loop
    with the decision from the model named by --llm (offline when none)"""
    personas: dict[str, str] = Field(
        default_factory=lambda: {
            "steel": "conservative manufacturer",
            "consumer_goods": "established manufacturer",
            "tech": "startup CEO",
        },
        description="archetype of each sector's firm (econ/firms/archetypes.py); others get default_persona",
    )
    default_persona: str = "established manufacturer"
    """archetype of a firm not listed"""
    decide_every: Count = 3
    """months between decisions: firms plan by the quarter"""
    monthly_rule: bool = True
    """between decisions price and wage follow EconAgent's monthly demand-gap rule (the rule firms'), above the
    guardrail's price floor; False holds them at the last decision's. Months 1-36 at or below 10 % unemployment
    on tuning seeds 21-30, off -> on: persona 2 -> 9, cognitive 1 -> 4, composite 9 -> 8, econagent 1 -> 7 of
    10; Okun r <= -0.5 (persona) 6 -> 1: annual GDP then follows steel's output, not employment (docs/results.md)"""
    memory: bool = True
    """each firm keeps a Memory of its decisions and their outcomes"""
    capacity_headroom: float = Field(0.9, gt=0, le=2)
    """opening capacity as a share of the output of the whole workforce: below 1, so employing everyone needs
    an investment and capacity is a real constraint"""
    construction_months: Count = 6
    """months from a plant's start to its first output (a plant takes months to build)"""
    plant_cost_months: Positive = 4.0
    """a plant costs this many months of the revenue its capacity adds, paid over construction"""
    upkeep_rate: NonNegative = 0.01
    """monthly upkeep per unit of capacity, as a share of its output's value: idle plants cost"""
    credit_months: NonNegative = 3.0
    """credit line = this many months of revenue: expansions beyond cash plus credit are refused"""
    min_capacity: PositiveShare = 0.3
    """closures never take capacity below this share of the opening capacity"""
    below_cost_quarters: Count = 3
    """a price below unit cost is refused when it would be the third quarter running"""
    review_months: Count = 6
    """months after a plant's completion at which its outcome is judged"""
    expand_at: Positive = 0.97
    """expected demand / capacity above which a neutral-risk firm builds (utilisation near full)"""
    expand_risk: NonNegative = 0.2
    """the threshold falls by this x (risk - 0.5): risk takers build earlier"""
    rate_weight: NonNegative = 1.0
    """the threshold rises by this x (rate - 3 %): dearer credit defers plants"""
    lesson_weight: NonNegative = 1.0
    """the threshold rises by this x the shortfall of past expansions recalled from memory"""
    lesson_months: Count = 48
    """plant reviews older than this many months no longer weigh on the next plant: lessons fade"""
    expand_base: Share = 0.1
    """a plant adds the demand gap + this x (0.5 + risk) of capacity"""
    max_expand: PositiveShare = 0.3
    """largest plant: this share of capacity"""
    close_at: NonNegative = 0.7
    """expected demand / capacity below which a neutral firm closes idle capacity"""
    idle_quarters: Count = 2
    """capacity is closed only after this many quarters of demand below close_at"""
    min_target: Share = 0.5
    """production target floor: a firm keeps half its capacity running (the rule's min offer rate)"""
    target_speed: PositiveShare = 0.5
    """the hiring cap moves this share of the way to the new target each quarter (no sudden layoffs)"""
    max_close: Share = 0.2
    """largest closure in one quarter: this share"""
    inventory_months: NonNegative = 0.5
    """stock a firm aims to hold, in months of sales"""
    restock_months: Positive = 6.0
    """output = expected sales x (1 + (stock aimed at - stock) / this, in months of sales): the stock gap is
    closed over two quarters; closing it within one amplified the inventory cycle (Metzler 1941) in runs
    with cognitive households (unemployment 33.5 % against 26.4 %, seed 1, 100 x 240)"""
    price_weight: NonNegative = 0.15
    """quarterly price change = this x the quarter's mean demand gap (less excess stock) plus the margin fix:
    the demand-gap rule's mean speed (0.10 x U(0, 1) x phi a month, EconAgent) over three months"""
    wage_weight: NonNegative = 0.075
    """quarterly wage change = this x the same pressure: half the price weight, EconAgent's ratio of wage to price
    step (0.05 / 0.10). At 0.02 prices rose four times as fast as wages in a boom, real wages fell 5 % a year
    and demand with them, and the slump that followed raised them back (months 1-36 of persona households, seeds
    11-20: highest unemployment 0.23 on average at 0.02, 0.17 at 0.075, docs/results.md)"""
    wage_labour_weight: Share = 1.0
    """share of that pressure taken from the quarter's labour gap instead (`MarketConfig.wage_labour_weight`:
    wages answer to how hard workers are to find, prices to the goods market)"""
    margin_pull: Share = 0.5
    """a price below unit cost is raised by this share of the gap"""
    max_price_change: float = Field(0.15, gt=0, le=0.5)
    """largest price change in one decision"""
    max_wage_change: float = Field(0.03, gt=0, le=0.5)
    """largest wage change in one decision"""
    rnd_scale: Share = 0.3
    """R&D spend = allocation.rnd x this x cash above the reserve"""
    rnd_jobs: bool = True
    """R&D spend pays researchers: job seekers of the firm's sector it has no production job for, at its wage,
    about a third of the budget a month (R&D expenditure hires R&D workers, Dosi et al. 2010). False: an equal
    lump sum to every household, as before; with it R&D drove a three-year cycle (persona households, seeds
    11-20: 36-month windows at or under 10 % unemployment 0.21 of them, 0.54 with researchers; docs/results.md)"""
    rnd_gain: NonNegative = 0.02
    """productivity (and effective capacity) rises by this per month of revenue spent on R&D"""
    max_productivity: float = Field(1.3, ge=1)
    """R&D raises productivity to at most this factor"""
    cheap_input: NonNegative = 0.03
    """an input priced this far below its 6-month average is bought ahead"""
    max_input_months: NonNegative = 2.0
    """most months of input a firm buys ahead"""
    news_sentiment: PositiveShare = 0.5
    """size of a capacity change's news sentiment (sign: its effect on the good's price); above the
    households' news threshold (0.3) so it is remembered and forms a price belief"""
    news_price_move: NonNegative = 0.03
    """a price decision this large is news"""

    @model_validator(mode="after")
    def _known_archetypes(self) -> FirmsConfig:
        from psychoagent.econ.firms.archetypes import firm_persona

        for key, name in [*self.personas.items(), ("default_persona", self.default_persona)]:
            try:
                firm_persona(name)
            except ValueError as exc:
                raise ValueError(f"firms.personas[{key!r}]: {exc}" if key != "default_persona" else
                                 f"firms.default_persona: {exc}") from exc  # fmt: skip
        return self
