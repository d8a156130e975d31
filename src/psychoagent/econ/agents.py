"""Households and firms as Mesa agents; household state lives in numpy arrays so a tick is vectorised.

`Household` and `Firm` follow rules; `CognitiveHousehold` and `CognitiveFirm` carry a mind (memory, beliefs,
persona evolution) and are what `model.agents_by_type[CognitiveHousehold]` returns for the cognitive policies
and `--firms cognitive|llm`. The tick steps them with AgentSet verbs in index order (`select`, `do`, `map`):
every phase's events are journaled in household order, so `shuffle_do` would change the run files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mesa
import numpy as np
from numpy.typing import NDArray

from psychoagent.econ.config import HouseholdConfig, MarketConfig, SectorConfig
from psychoagent.econ.rules import adjust, pareto_skills
from psychoagent.persona import Persona
from psychoagent.types import Affect, MemoryUnit

if TYPE_CHECKING:
    from psychoagent.econ.firms.state import FirmState
    from psychoagent.econ.mind.household import HouseholdMind
    from psychoagent.econ.model import EconomyModel
    from psychoagent.memory.api import Memory

FloatArray = NDArray[np.float64]
TRAIT_COLUMNS = ("risk_preference", "optimism", "learning_rate", "social_tendency")
ALLOC_COLUMNS = ("alloc_consume", "alloc_save", "alloc_invest", "alloc_rnd")


@dataclass
class HouseholdArrays:
    """State of all households, index i = household i (money in currency units, flows per month)."""

    skill: FloatArray
    sector: NDArray[np.int64]
    equity: FloatArray
    cash: FloatArray
    deposits: FloatArray
    wage_income: FloatArray
    income: FloatArray
    worked: NDArray[np.bool_]
    consumption: FloatArray
    consume_share: FloatArray
    work_prob: FloatArray
    traits: FloatArray
    allocation: FloatArray

    @property
    def n(self) -> int:
        return int(self.skill.size)

    @property
    def wealth(self) -> FloatArray:
        return self.cash + self.deposits


def make_personas(n: int, cfg: HouseholdConfig, rng: np.random.Generator) -> list[Persona]:
    """Draw households' personas from the archetype mix, with small Gaussian jitter on scalar traits."""
    names = list(cfg.personas)
    weights = np.array([cfg.personas[k] for k in names], dtype=float)
    if not names or weights.sum() <= 0 or (weights < 0).any():
        raise ValueError(
            f"household.personas needs non-negative weights with a positive sum, got {cfg.personas}"
        )
    templates = [Persona.archetype(k) for k in names]
    picks = rng.choice(len(names), size=n, p=weights / weights.sum())
    noise = rng.normal(0.0, cfg.persona_jitter, size=(n, 4)) if cfg.persona_jitter > 0 else np.zeros((n, 4))
    out = []
    for i, k in enumerate(picks):
        base = templates[int(k)]
        out.append(
            Persona.archetype(
                base.name,
                risk_preference=float(np.clip(base.risk_preference + noise[i, 0], 0.0, 1.0)),
                optimism=float(np.clip(base.optimism + noise[i, 1], -1.0, 1.0)),
                learning_rate=float(np.clip(base.learning_rate + noise[i, 2], 0.0, 1.0)),
                social_tendency=float(np.clip(base.social_tendency + noise[i, 3], 0.0, 1.0)),
            )
        )
    return out


def sector_attachment(n: int, labour_shares: list[float], rng: np.random.Generator) -> NDArray[np.int64]:
    """Sector of each household: counts are the labour shares x n rounded by largest remainder, in random order.

    Drawing each household's sector independently lets a 100-household economy get 7 steel workers where the
    input-output ratio assumes 10, which makes steel a bottleneck in one seed and not another; quotas keep the
    sector sizes the calibration assumes (stratified sampling) while who goes where stays random.
    """
    shares = np.asarray(labour_shares, dtype=float)
    quota = shares / shares.sum() * n
    counts = np.floor(quota).astype(np.int64)
    short = n - int(counts.sum())
    if short > 0:
        counts[np.argsort(-(quota - counts), kind="stable")[:short]] += 1
    return rng.permutation(np.repeat(np.arange(shares.size, dtype=np.int64), counts))


def make_households(
    n: int, cfg: HouseholdConfig, sectors: list[SectorConfig], wages: FloatArray, rng: np.random.Generator
) -> tuple[HouseholdArrays, list[Persona]]:
    """Skills (Pareto, sorted), sector attachment by labour share, equity by skill, deposits, personas."""
    skill = pareto_skills(n, cfg.pareto_shape, cfg.skill_cap, rng)
    sector = sector_attachment(n, [s.labour_share for s in sectors], rng)
    equity = skill / skill.sum()
    potential = cfg.hours * skill * wages[sector]
    personas = make_personas(n, cfg, rng)
    traits = np.array([[getattr(p, t) for t in TRAIT_COLUMNS] for p in personas], dtype=float).reshape(n, 4)
    alloc = np.array([p.allocation.as_tuple() for p in personas], dtype=float).reshape(n, 4)
    arrays = HouseholdArrays(
        skill=skill, sector=sector, equity=equity, cash=np.zeros(n),
        deposits=cfg.initial_wealth_months * potential, wage_income=np.zeros(n), income=np.zeros(n),
        worked=np.zeros(n, dtype=bool), consumption=np.zeros(n), consume_share=np.full(n, 0.5),
        work_prob=np.ones(n), traits=traits, allocation=alloc,
    )  # fmt: skip
    return arrays, personas


class Household(mesa.Agent):
    """One household: a Mesa agent that points into the model's household arrays and carries a Persona."""

    model: EconomyModel

    def __init__(self, model: EconomyModel, index: int, persona: Persona) -> None:
        super().__init__(model)
        self.index = index
        self.persona = persona

    @property
    def wealth(self) -> float:
        """Cash plus deposits."""
        return float(self.model.households.wealth[self.index])

    @property
    def sector(self) -> str:
        """Name of the sector whose firm this household works for."""
        return self.model.sector_names[int(self.model.households.sector[self.index])]


class Firm(mesa.Agent):
    """The representative firm of one sector: produces, holds inventory and cash, sets price and wage.

    Wages are always paid: cash may go negative (an interest-free overdraft), which keeps money conserved and
    lets a loss-making firm keep producing while the demand-gap rule moves its price and hiring.
    """

    model: EconomyModel

    def __init__(self, model: EconomyModel, index: int, cfg: SectorConfig, price: float, wage: float) -> None:
        super().__init__(model)
        self.index = index
        self.cfg = cfg
        self.price = price
        self.market_price = price
        self.wage = wage
        self.inventory = 0.0
        self.cash = 0.0
        self.offer_rate = 1.0
        self.phi = 0.0
        self.offers = 0
        self.produced = 0.0
        self.sold = 0.0
        self.demand = 0.0
        self.wage_bill = 0.0
        self.turned_away = 0
        """Applicants not hired this month."""
        self.expected_demand = -1.0
        """Units the firm expects to be asked for next month (adaptive; negative until the first month)."""

    @property
    def shortage(self) -> float:
        """Demand this tick that found no stock."""
        return max(self.demand - self.sold, 0.0)

    @property
    def name(self) -> str:
        return self.cfg.name

    def post_offers(self, workforce: int, cap: float) -> int:
        """Jobs offered this month: offer rate x workforce, capped by regulation."""
        return int(np.floor(min(self.offer_rate, cap) * workforce + 0.5))

    def spare_output(self, hours: float) -> float:
        """What the applicants turned away this month would have made: supply the firm could add at once.

        The price rule's phi compares demand with stock plus this spare output, so a firm that rations jobs
        prices like one with unsold goods; when every applicant is hired (EconAgent) phi is EconAgent's.
        """
        return self.turned_away * hours * self.cfg.productivity

    def labour_demand(self, workforce: int, output_per_worker: float, mcfg: MarketConfig) -> None:
        """Demand hiring: offer the jobs that make expected demand less the stock on hand (at least
        min_offer_rate of the workforce); before the first month every job is offered."""
        if self.expected_demand < 0 or workforce <= 0 or output_per_worker <= 0:
            return
        need = max(self.expected_demand - self.inventory, 0.0) / output_per_worker
        self.offer_rate = float(np.clip(np.ceil(need) / workforce, mcfg.min_offer_rate, 1.0))

    def dividend(self, mcfg: MarketConfig) -> float:
        """Cash paid out to shareholders: a share of the cash above the reserve (never below zero)."""
        return mcfg.dividend_rate * max(self.cash - mcfg.reserve_months * self.wage_bill, 0.0)

    def adjust(self, mcfg: MarketConfig, u_price: float, u_wage: float) -> tuple[float, float]:
        """Apply the demand-gap rule to price, wage and hiring; returns the new (price, wage) candidates."""
        price = adjust(self.price, self.phi, mcfg.price_step, mcfg.price_floor, u_price)
        wage = adjust(self.wage, self.phi, mcfg.wage_step, mcfg.wage_floor, u_wage)
        if mcfg.hiring == "gap":
            self.offer_rate = float(
                np.clip(self.offer_rate + mcfg.hiring_step * self.phi, mcfg.min_offer_rate, 1.0)
            )
        else:
            g = mcfg.demand_memory
            last = self.demand
            self.expected_demand = (
                last if self.expected_demand < 0 else self.expected_demand + g * (last - self.expected_demand)
            )
        return price, wage


class CognitiveHousehold(Household):
    """A household that remembers, recalls, decides through guardrails and evolves: its memory handle, beliefs
    and open expectations are `mind`, its own random generator `draws` (what it decides does not depend on who
    shares its process). Created by the cognitive policy for the households it thinks for; it takes the plain
    `Household`'s place and `unique_id`, so agents.csv and the journal name it as before."""

    def __init__(self, model: EconomyModel, index: int, persona: Persona, mind: HouseholdMind,
                 draws: np.random.Generator) -> None:  # fmt: skip
        super().__init__(model, index, persona)
        self.mind = mind
        self.draws = draws

    @classmethod
    def replacing(cls, old: Household, mind: HouseholdMind, draws: np.random.Generator) -> CognitiveHousehold:
        """The cognitive agent of household `old.index`, registered in `old`'s place (same unique_id)."""
        new = cls(old.model, old.index, old.persona, mind, draws)
        new.unique_id = old.unique_id
        old.remove()
        return new

    @property
    def memory(self) -> Memory | None:
        """The household's own `Memory` (None with the population memory, whose rows it reads instead)."""
        return self.mind.memory

    @property
    def risk_preference(self) -> float:
        """The current (evolved) persona's risk preference: `select(lambda a: a.risk_preference > 0.7)`."""
        return float(self.persona.risk_preference)

    @property
    def holdings(self) -> dict[str, float]:
        """Units held per instrument."""
        return dict(self.model.markets.holdings(self.index))

    def decides(self, tick: int) -> bool:
        """Whether it makes a trading decision this tick (every `decide_every` ticks, staggered by index)."""
        return not (tick + self.index) % self.mind.cfg.decide_every

    def rests(self, tick: int) -> bool:
        """Whether its traits drift toward their baseline this tick when no outcome arrived."""
        return (tick + self.index) % self.mind.cfg.decay_every == 0

    def reflects(self, tick: int) -> bool:
        """Whether it reflects (abstracts beliefs) this tick."""
        return (tick + self.index) % self.mind.cfg.reflection.every == 0

    def note(self, tick: int, text: str, affect: Affect | None = None, **metadata: Any) -> None:
        """Queue an event for its memory (stored at the next encoding)."""
        self.mind.note(tick, text, affect, **metadata)

    def encode(self, tick: int) -> list[MemoryUnit]:
        """Store its queued events in its own `Memory` (the population memory encodes them all at once)."""
        return self.mind.encode(tick)


class CognitiveFirm(Firm):
    """A sector firm that decides as an agent (`--firms cognitive|llm`): persona, memory, plants and books are
    its `mind`, set by `econ.firms.board.CognitiveFirms` once the households exist."""

    def __init__(self, model: EconomyModel, index: int, cfg: SectorConfig, price: float, wage: float) -> None:
        super().__init__(model, index, cfg, price, wage)
        self.mind: FirmState | None = None

    @property
    def persona(self) -> Persona | None:
        """The firm's persona (an archetype such as 'startup CEO'), None before the board sets its mind."""
        return self.mind.persona if self.mind is not None else None

    @property
    def memory(self) -> Memory | None:
        return self.mind.memory if self.mind is not None else None
