"""The economy's config: every coefficient with its default, a one-line reason and, where one exists, its source;
the one root of a run's settings (`SimulationConfig`: the economy, the cognitive agents' loop, their persona
evolution and their memories); the bounds on a run's size and the size of a local Ray cluster.

The subpackages keep theirs in their own config module (`econ.markets.config`, `econ.firms.config`,
`econ.cognitive.config`), the cognitive loop in `psychoagent.agent.config`; `SimulationConfig` holds them as one
tree. A scenario file overrides any part (`economy`, `cognitive`, `evolution`, `memory` tables); `config.json`
records them as the run used them, and the evaluation's switches and sweeps are looked up in this one tree.

Sources: Li et al. 2024, "EconAgent" (ACL 2024, arXiv 2310.10436) for the macro core; Taylor 1993, "Discretion
versus policy rules in practice" for the central bank; IRS 2019 single-filer brackets for taxes; US
Department of Labor UI replacement ratios for unemployment insurance.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from psychoagent.agent.config import CognitiveConfig
from psychoagent.config import (
    ConfigModel,
    Count,
    NonNegative,
    NonNegativeInt,
    Positive,
    PositiveShare,
    Share,
)
from psychoagent.econ.bills_config import BillsConfig
from psychoagent.econ.firms.config import FirmsConfig
from psychoagent.econ.markets.config import TradingConfig
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig, RecallConfig
from psychoagent.persona.config import EvolutionConfig


class HouseholdConfig(ConfigModel):
    """Skills, hours and starting balances of households."""

    pareto_shape: float = Field(8.0, gt=1.0)
    """skill ~ Pareto(shape) (EconAgent, Li et al. 2024)"""
    skill_cap: float = Field(5.0, ge=1.0)
    """skills are clipped to [1, cap] so one draw cannot dominate (EconAgent clips)"""
    hours: Positive = 168.0
    """hours of a working month (EconAgent: 168 = 21 days x 8 h)"""
    initial_wealth_months: NonNegative = 2.0
    """starting deposits = this many months of potential wage: avoids a zero-wealth start"""
    personas: dict[str, float] = Field(
        default_factory=lambda: {
            "cautious household": 0.4,
            "neutral": 0.3,
            "retiree": 0.1,
            "moderately optimistic investor": 0.1,
            "speculator": 0.1,
        },
        description="archetype mix households start from (weights, normalised); a population, not one type",
    )
    persona_jitter: float = Field(0.05, ge=0, le=0.5)
    """s.d. of Gaussian noise on scalar traits so no two households are clones"""


class SectorConfig(ConfigModel):
    """One production sector, run by one representative firm."""

    name: str
    final: bool = True
    """sold to households (True) or only used as an input (False)"""
    budget_share: Share = 0.0
    """share of household spending on this good"""
    labour_share: PositiveShare = Field()
    """share of households attached to this sector's firm"""
    productivity: Positive = 1.0
    """units per hour worked (EconAgent: 1 unit per hour, no skill weighting)"""
    input_sector: str | None = None
    """sector whose good is needed as an input"""
    input_per_unit: NonNegative = 0.0
    """units of input good per unit of output"""
    markup: NonNegative = 0.05
    """initial price = unit cost x (1 + markup); phi rule thereafter"""


def _default_sectors() -> list[SectorConfig]:
    """Three sectors whose sizes balance: each final sector's labour (its own plus its inputs') equals its budget
    share (consumer goods 0.7 + steel 0.1 = 0.8, tech 0.2), so at equal wages every firm covers its wage bill;
    steel makes exactly what consumer goods need (0.1 x 1.4 = 0.7 x 0.2 units an hour). With 0.65 / 0.1 x 1.5 /
    0.25 steel was 15 % oversupplied and tech 25 % overstaffed: both priced below cost for decades and their
    overdrafts fed inflation."""
    return [
        SectorConfig(name="consumer_goods", budget_share=0.8, labour_share=0.7, input_sector="steel",
                     input_per_unit=0.2),
        SectorConfig(name="steel", final=False, labour_share=0.1, productivity=1.4),
        SectorConfig(name="tech", budget_share=0.2, labour_share=0.2),
    ]  # fmt: skip


class MarketConfig(ConfigModel):
    """Price, wage and hiring adjustment by the demand gap phi = (demand - supply) / max(demand, supply)."""

    initial_wage: Positive = 20.0
    """hourly wage of skill 1: monthly pay then spans the 10-24 % tax brackets"""
    wage_step: NonNegative = 0.05
    """wage *= 1 + U(0, wage_step * phi) (EconAgent)"""
    wage_labour_weight: Share = 1.0
    """share of the wage's phi from the firm's labour gap (`rules.labour_gap`), the rest from the goods gap (0:
    EconAgent): wages answer to how hard workers are to find (Phillips 1958; Blanchflower & Oswald 1994;
    Lengnick 2013; Caiani et al. 2016). Held out on 1501-1510, 0 -> 1, seeds in band summed over the eight
    conditions: Okun 37 -> 60, Phillips 65 -> 71 of 80; composite households with rule firms lost both"""
    wage_neutral_gap: Share = 0.04
    """the labour gap is 0 when this share of applicants is turned away: the bank's natural unemployment"""
    price_step: NonNegative = 0.10
    """price *= 1 + U(0, price_step * phi) (EconAgent)"""
    price_floor: Positive = 1.0
    """prices never fall below this (EconAgent floors at 1)"""
    wage_floor: Positive = 1.0
    """hourly wage never falls below this (EconAgent floors at 1)"""
    cost_floor: bool = True
    """a rule firm whose overdraft exceeds its credit line (BankConfig.credit_months of its sales) prices no
    lower than its average cost (wage bill and inputs per unit made), rising toward it by at most one price step
    a month: the bank's hard budget constraint (Kornai 1986), as agent-based firms price no lower than average
    cost (Gaffeo et al. 2008; Assenza, Delli Gatti & Grazzini 2015). The demand-gap rule alone has no cost
    anchor: steel sold 25-35 % below its labour cost for 240 months (seed 42), and the overdraft that paid for
    it created money every month. Tried on seeds 1-10 (cognitive and persona households): a floor for every
    firm made the consumer-goods price jump whenever steel ran short and put every run above 10 % unemployment
    in months 1-36; a floor from the first unit of overdraft left the economy at zero inflation and the policy
    rate at zero, where slumps went deeper (docs/results.md)"""
    cost_markup: NonNegative = 0.0
    """the floor is unit cost x (1 + this)"""
    hiring: Literal["demand", "gap"] = "demand"
    """demand: jobs = workers needed to make expected demand less the stock on hand (desired production =
    expected demand - inventory, Dosi et al. 2010; inventory-driven hiring, Lengnick 2013); gap: the offer
    rate drifts with phi (hiring_step), which averaged 0.8 and left 5-15 % involuntarily idle"""
    demand_memory: PositiveShare = 0.5
    """demand: weight of last month's demand in the expected demand (adaptive expectations)"""
    job_finding_rate: Share = 0.45
    """chance a willing household that did not work last month finds one of the open jobs this month (US
    monthly job-finding probability 0.45, Shimer 2005); last month's workers keep theirs first"""
    max_layoff_rate: Share = 0.02
    """a firm lays off at most this share of last month's workers a month (labour hoarding: hiring and firing
    cost, Oi 1962): US layoffs and discharges were 1.2 % of employment a month on average in 2001-2019 and
    2.0 % at the 2009 peak (BLS JOLTS): no firm cuts more in a month than the US economy did in the worst
    month of the Great Recession (3 % left a first-three-years slump above 10 % on 1 seed in 10); without the bound a firm fired everyone its expected demand did not need at once, and monthly
    unemployment jumped by 5-10 points on one month's dip in demand; the bound is rounded at random, so it
    holds on average for a firm of any size; 1 = no bound"""
    hiring_step: Share = 0.1
    """gap: job-offer rate += hiring_step * phi: firms hire on excess demand"""
    min_offer_rate: Share = 0.5
    """firms always offer at least this share of their workforce jobs"""
    dividend_rate: Share = 0.5
    """share of cash above the reserve paid out monthly"""
    reserve_months: NonNegative = 1.0
    """firms keep this many months of wage bill as cash"""


class BankConfig(ConfigModel):
    """Central bank: yearly Taylor rule and interest on deposits (Taylor 1993; parameters from EconAgent)."""

    natural_rate: float = 0.01
    """real natural rate r_n (EconAgent)"""
    inflation_target: float = 0.02
    """pi_target (Taylor 1993; EconAgent)"""
    natural_unemployment: Share = 0.04
    """u_n (EconAgent)"""
    inflation_weight: float = 0.5
    """weight on (pi - pi_target) (Taylor 1993)"""
    unemployment_weight: float = 0.5
    """weight on (u_n - u) (EconAgent's Okun form)"""
    initial_rate: NonNegative = 0.03
    """rate in force before the first decision: r at target"""
    review_months: Count = 12
    """the rule is applied yearly (EconAgent); it reads the unemployment of the months since the last review"""
    inflation_months: Count = 12
    """the rule's inflation: the mean price level of the last this-many months against the this-many before, so
    a quarterly or monthly review still reads annual inflation (read over the review period, a quarterly rule
    took a quarter's inflation for a year's and all but ignored it)"""
    interest_months: Count = 12
    """deposit interest credited yearly (EconAgent)"""
    interest: Literal["created", "paid"] = "paid"
    """paid: overdrawn firms and the government pay the bank interest and depositors earn what it earned, at
    most deposit_beta x the policy rate (the rest is the bank's equity), so a higher rate moves money from
    borrowers to savers, money is conserved and the sectors' balance sheets close (stock-flow consistency,
    Godley and Lavoie 2007); created: deposits earn the policy rate in new money and overdrafts are free
    (EconAgent's yearly interest, the default before the burn-in, when 'paid' put econagent outside its
    ranges, docs/results.md)"""
    deposit_beta: Share = 0.4
    """paid: deposits earn at most this x the policy rate (what the loans earn above it is the bank's equity):
    US deposit rates rise about 0.4 point per point of the federal funds rate (Drechsler, Savov and Schnabl
    2017, 'The deposits channel of monetary policy'); 1 = the policy rate, as EconAgent pays"""
    loan_spread: float = Field(0.03, ge=0, le=0.5)
    """overdrafts pay the policy rate + this a year: the US bank prime rate is the federal funds target + 3
    points (the convention since 1994, Federal Reserve H.15)"""
    credit_months: NonNegative = 12.0
    """paid: a firm's credit line is this many months of its sales; interest on an overdraft beyond it is charged but
    not paid out to depositors (non-accrual of impaired loans, US GAAP ASC 310 / IFRS 9 stage 3): it stays in the
    bank's equity, so capitalised interest does not become new deposits"""
    pay_capitalised: bool = False
    """paid: False: interest a firm still overdrawn at the credit date cannot pay is added to its overdraft
    (capitalised) and kept in the bank's equity, so depositors earn only interest received in cash (from firms'
    positive balances and the government), as banks recognise interest income on a cash basis once a loan's
    interest is being capitalised (US GAAP ASC 310-10-35); True pays capitalised interest out, which created
    deposits from loans each month and made a hike add money (docs/results.md)"""
    bills: BillsConfig = Field(default_factory=BillsConfig)
    """households' bills at the bank's window (econ/bills.py, Godley and Lavoie's model PC)"""


US_2019_EDGES = (0.0, 9700.0, 39475.0, 84200.0, 160725.0, 204100.0, 510300.0)
US_2019_RATES = (0.10, 0.12, 0.22, 0.24, 0.32, 0.35, 0.37)


class TaxConfig(ConfigModel):
    """Progressive income tax with equal lump-sum redistribution (EconAgent; IRS 2019 single filer)."""

    annual_edges: tuple[float, ...] = US_2019_EDGES
    """lower bracket edges per year (US 2019)"""
    rates: tuple[float, ...] = US_2019_RATES
    """marginal rates of the brackets (US 2019)"""
    periods_per_year: Count = 12
    """edges are divided by this: monthly brackets"""
    redistribute: bool = True
    """all revenue returned as an equal lump sum (budget neutral)"""

    @model_validator(mode="after")
    def _brackets(self) -> TaxConfig:
        if len(self.annual_edges) != len(self.rates):
            raise ValueError("annual_edges and rates must have the same length")
        if list(self.annual_edges) != sorted(self.annual_edges) or self.annual_edges[0] != 0:
            raise ValueError("annual_edges must start at 0 and increase")
        if any(not 0 <= r <= 1 for r in self.rates):
            raise ValueError("tax rates must lie in [0, 1]")
        return self


class BenefitConfig(ConfigModel):
    """Unemployment insurance, an automatic stabiliser: benefits to the involuntarily unemployed from a payroll
    contribution; in a slump the scheme runs a deficit (bonds finance it), in a boom a surplus."""

    replacement: Share = 0.45
    """benefit = this x the month's pay of a household that wanted work and was not hired (US state UI
    replaces about 45 % of prior wages, US Department of Labor replacement ratios 2000-2019); a month off
    by choice earns none, as a quit does not qualify; 0 switches insurance off"""
    contribution: Share = 0.019
    """payroll contribution on wages: replacement x u_n / (1 - u_n) = 0.45 x 0.04 / 0.96, so the scheme
    balances at the natural rate of unemployment (u_n = 0.04, EconAgent) and only the cycle moves it"""


class FiscalConfig(ConfigModel):
    """The government's debt rule: the lump sum is adjusted so that the balance the bond auctions left (an unsold
    shortfall is an overdraft, a surplus with no bonds left to retire is idle money) closes and debt stays near
    its anchor; deficits themselves are financed by selling bonds (markets/bonds.py)."""

    balance_speed: Share = 0.25
    """share of last month's balance returned (surplus) or withheld (overdraft) through the lump sum each month:
    an overdraft the market did not take is repaid within about four months"""
    debt_anchor: NonNegative = 0.6
    """debt anchor, bonds at face plus overdraft over annual nominal GDP (the EU's 60 %, Maastricht Treaty
    art. 126 and its protocol)"""
    debt_speed: Share = 0.05
    """share of the debt above the anchor withheld from the lump sum a year (the EU's 1/20 debt-reduction
    benchmark, Regulation 1177/2011), charged monthly"""


class PolicyConfig(ConfigModel):
    """Coefficients of the rule policies (composite baseline and persona heuristic)."""

    composite_exponent: Positive = 0.1
    """composite: c = (P / (wealth + pay))^e, work = (income / (wealth (1 + r)))^e (EconAgent)"""
    composite_buffer_share: Share = 0.5
    """composite: share of households on the CATS buffer rule, the rest on c = (P / (w + y))^e (EconAgent's
    code draws one of the two per agent uniformly)"""
    composite_buffer_months: NonNegative = 1.0
    """composite: CATS target buffer h, in months of income (EconAgent's code: h = 1)"""
    composite_step: PositiveShare = 0.02
    """composite: consumption is rounded down to this step (EconAgent's code)"""
    consume_base: Share = 0.35
    """persona: spending share of a neutral household"""
    consume_alloc: NonNegative = 0.6
    """persona: + this x (allocation.consume - 0.4)"""
    consume_optimism: NonNegative = 0.15
    """persona: + this x mood (optimism + news), in [-1, 1]"""
    consume_inflation: NonNegative = 0.1
    """persona: + this x (inflation - target): buy ahead"""
    consume_rate: NonNegative = 0.5
    """persona: spending target x (1 - this x rate_horizon x (r - r_n - pi_target)): intertemporal
    substitution, the consumption Euler equation (a rate above neutral moves spending to later); 0.5 =
    elasticity of intertemporal substitution of CRRA utility with risk aversion 2, the usual macro value
    (Havranek 2015 meta-analysis: 0.3-0.5); 0 switches the channel off"""
    rate_horizon: Positive = 1.0
    """persona: years a rate gap is expected to last (the central bank reviews its rate yearly): the Euler
    equation sums the gap over them"""
    consume_unemployment: NonNegative = 0.3
    """persona: - this x (1 - risk) x (u - u_n): precautionary saving"""
    work_base: Share = 0.97
    """persona: work propensity of a household with its buffer; a month off is a quit that needs a new job
    (job_finding_rate), so 1 - work ~ the US monthly quit rate of about 2 % (JOLTS 2001-2019)"""
    work_need: NonNegative = 0.03
    """persona: + this x shortfall of the savings buffer (no savings: always looks)"""
    buffer_months: NonNegative = 3.0
    """persona: buffer = (this + 9 x allocation.save) months"""
    work_optimism: NonNegative = 0.02
    """persona: - this x mood: optimists quit more readily (within the quit rate)"""
    social_weight: Share = 0.5
    """persona: social_tendency x this = herding weight"""
    news_weight: Share = 0.5
    """persona: weight of today's news sentiment in mood"""
    min_learning: PositiveShare = 0.05
    """persona: smallest adjustment speed per month"""
    consume_range: tuple[float, float] = (0.05, 0.95)
    """bounds of the spending share"""


class EconomyConfig(ConfigModel):
    """All parameters of one economy; scenarios override parts of it."""

    households: Count = 100
    """number of households (EconAgent: 100)"""
    sectors: list[SectorConfig] = Field(default_factory=_default_sectors)
    household: HouseholdConfig = Field(default_factory=HouseholdConfig)
    market: MarketConfig = Field(default_factory=MarketConfig)
    bank: BankConfig = Field(default_factory=BankConfig)
    tax: TaxConfig = Field(default_factory=TaxConfig)
    fiscal: FiscalConfig = Field(default_factory=FiscalConfig)
    """the government's debt rule (fiscal.balance_speed = 0 and debt_speed = 0: none)"""
    benefit: BenefitConfig = Field(default_factory=BenefitConfig)
    """unemployment insurance (benefit.replacement = 0: none)"""
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    trading: TradingConfig = Field(default_factory=TradingConfig)
    """steel and stock markets (trading.enabled = false: none)"""
    firms: FirmsConfig = Field(default_factory=FirmsConfig)
    """how firms decide (mode rule | cognitive | llm)"""
    burn_in: NonNegativeInt = 60
    """months the economy runs quietly before month 1 (no shocks, nothing recorded), so a run starts at the
    model's own steady state instead of the opening balances (econ/start.py); 0 starts from the balances.
    Five years: from the opening balances the first slump ended within four (docs/results.md)"""
    burn_in_max: NonNegativeInt = 120
    """the burn-in goes on past `burn_in` until the economy is at rest (`rest_unemployment`), at most this long"""
    rest_unemployment: Share = 0.06
    """at rest: unemployment at or below this in each of the last six months (the natural rate 0.04 plus two
    points, about the monthly noise of a 100-household economy); a burn-in that ended mid-slump started the
    run at 14 % unemployment"""
    rest_inflation: NonNegative = 0.03
    """at rest also means 12-month inflation within this of the central bank's target in each of those months: a
    burn-in of cognitive firms that ended in a boom (13 % inflation, seed 26) left an 8.5 % policy rate for the
    run's first year, and unemployment rose to 21 % by month 11 (docs/results.md)"""
    news_threshold: NonNegative = 0.01
    """the statistics office reports a monthly move in prices or jobs beyond this"""
    household_events: bool = False
    """publish one action.result event per household per tick (large journals)"""
    record_agents: bool = True
    """collect the per-household table (agents.csv)"""

    @model_validator(mode="after")
    def _sectors_valid(self) -> EconomyConfig:
        names = [s.name for s in self.sectors]
        if len(set(names)) != len(names) or not names:
            raise ValueError(f"sector names must be unique and non-empty, got {names}")
        for s in self.sectors:
            if s.input_sector is not None and (s.input_sector not in names or s.input_sector == s.name):
                raise ValueError(
                    f"sector {s.name!r}: input_sector must be another sector, got {s.input_sector!r}"
                )
        if not any(s.final and s.budget_share > 0 for s in self.sectors):
            raise ValueError("at least one final sector needs a positive budget_share")
        return self

    def production_order(self) -> list[int]:
        """Sector indices with every input sector before the sectors that use it."""
        names = [s.name for s in self.sectors]
        order: list[int] = []
        while len(order) < len(names):
            ready = [
                i
                for i, s in enumerate(self.sectors)
                if i not in order and (s.input_sector is None or names.index(s.input_sector) in order)
            ]
            if not ready:
                raise ValueError("sector inputs form a cycle; production needs an order")
            order.extend(ready)
        return order


def event_memory() -> AffectiveMemoryConfig:
    """Affect settings of memories of numeric market events: a later price is news, not a correction of an
    earlier one, so change detection is off and only rule-based slot clashes (same slot, different value) link
    them, as the economy was calibrated."""
    return AffectiveMemoryConfig(conflicts=ConflictConfig(detect_changes=False))


class AgentMemoryConfig(ConfigModel):
    """How the cognitive households' memories recall and appraise (a scenario's `[memory]` table; its `recipe`
    key starts `recall` from a named recipe of `psychoagent.memory.config.recipes`)."""

    recall: RecallConfig = Field(default_factory=RecallConfig)
    """recall weights of the households' memories (population recall reads the ones it has)"""
    affect: AffectiveMemoryConfig = Field(default_factory=event_memory)
    """conflicts, modulation, decay and fusion of the households' memories (change detection off)"""


class SimulationConfig(ConfigModel):
    """Everything a run is configured by, apart from the run's size and seed (arguments of `simulate`)."""

    economy: EconomyConfig = Field(default_factory=EconomyConfig)
    """the macro economy and markets"""
    cognitive: CognitiveConfig = Field(default_factory=CognitiveConfig)
    """the cognitive households' loop (memory, recall, guardrails, look-ahead, negotiation, ablations)"""
    evolution: EvolutionConfig = Field(default_factory=EvolutionConfig)
    """how the cognitive households' personas evolve"""
    memory: AgentMemoryConfig = Field(default_factory=AgentMemoryConfig)
    """how the cognitive households' memories recall and appraise"""


class LocalClusterConfig(ConfigModel):
    """Size of the Ray cluster started in-process when no --address is given."""

    max_cpus: NonNegativeInt = 0
    """CPUs the local cluster may use (0: all of this machine's, os.cpu_count())"""
    object_store_mb: int = Field(256, ge=80)
    """shared-memory object store: a tick's messages are about 0.9 kB per household (9 MB at 10,000;
    docs/scaling.md) and are freed once read, while Ray's default (30 % of RAM) would reserve gigabytes of
    a shared machine"""


class RunLimits(ConfigModel):
    """Bounds on a run's size that are checked before anything is written."""

    max_agents: int = 100_000
    """agents.csv holds one row per household per month: 100k households x 240 months is 24M rows, about what
    one machine's memory holds for the metrics and the report"""
    max_ticks: int = 12_000
    """a thousand years of months; far past any scenario's horizon"""
