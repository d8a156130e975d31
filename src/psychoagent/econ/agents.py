"""Households and firms as Mesa agents; household state lives in numpy arrays so a tick is vectorised."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import mesa
import numpy as np
from numpy.typing import NDArray

from psychoagent.econ.config import HouseholdConfig, MarketConfig, SectorConfig
from psychoagent.econ.rules import adjust, pareto_skills
from psychoagent.persona import Persona

if TYPE_CHECKING:
    from psychoagent.econ.model import EconomyModel

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


def make_households(
    n: int, cfg: HouseholdConfig, sectors: list[SectorConfig], wages: FloatArray, rng: np.random.Generator
) -> tuple[HouseholdArrays, list[Persona]]:
    """Skills (Pareto, sorted), sector attachment by labour share, equity by skill, deposits, personas."""
    skill = pareto_skills(n, cfg.pareto_shape, cfg.skill_cap, rng)
    shares = np.array([s.labour_share for s in sectors], dtype=float)
    sector = rng.choice(len(sectors), size=n, p=shares / shares.sum()).astype(np.int64)
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

    def dividend(self, mcfg: MarketConfig) -> float:
        """Cash paid out to shareholders: a share of the cash above the reserve (never below zero)."""
        return mcfg.dividend_rate * max(self.cash - mcfg.reserve_months * self.wage_bill, 0.0)

    def adjust(self, mcfg: MarketConfig, u_price: float, u_wage: float) -> tuple[float, float]:
        """Apply the demand-gap rule to price, wage and hiring; returns the new (price, wage) candidates."""
        price = adjust(self.price, self.phi, mcfg.price_step, mcfg.price_floor, u_price)
        wage = adjust(self.wage, self.phi, mcfg.wage_step, mcfg.wage_floor, u_wage)
        self.offer_rate = float(
            np.clip(self.offer_rate + mcfg.hiring_step * self.phi, mcfg.min_offer_rate, 1.0)
        )
        return price, wage
