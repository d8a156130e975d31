"""A sector's representative firm as a Mesa agent: the rule firm (demand-gap prices, wages and hiring) and the
cognitive firm, whose persona, memory and plants are its `mind` (set by `econ.firms.board.CognitiveFirms`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import mesa
import numpy as np

from psychoagent.econ.config import MarketConfig, SectorConfig
from psychoagent.econ.rules import adjust, wage_gap
from psychoagent.persona import Persona

if TYPE_CHECKING:
    from psychoagent.econ.firms.state import FirmState
    from psychoagent.memory import Memory


class Firm(mesa.Agent):
    """The representative firm of one sector: produces, holds inventory and cash, sets price and wage.

    Wages are always paid: cash may go negative (an interest-free overdraft), which keeps money conserved and
    lets a loss-making firm keep producing while the demand-gap rule moves its price and hiring.
    """

    def __init__(self, model: mesa.Model, index: int, cfg: SectorConfig, price: float, wage: float) -> None:
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
        self.labour_phi = 0.0
        """This month's labour gap (`rules.labour_gap`): what the wage answers to."""
        self.expected_demand = -1.0
        """Units the firm expects to be asked for next month (adaptive; negative until the first month)."""
        self.unit_cost = 0.0
        """Average cost: this month's wage bill and inputs bought per unit made (0 before the first month or when
        nothing was made)."""

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

    def adjust(self, mcfg: MarketConfig, u_price: float, u_wage: float,
               credit_line: float = 0.0) -> tuple[float, float]:  # fmt: skip
        """Apply the demand-gap rule to price, wage and hiring; returns the new (price, wage) candidates. A firm
        whose overdraft exceeds `credit_line` prices toward its average cost (`MarketConfig.cost_floor`)."""
        price = adjust(self.price, self.phi, mcfg.price_step, mcfg.price_floor, u_price)
        floor = (1.0 + mcfg.cost_markup) * self.unit_cost
        if mcfg.cost_floor and self.cash < -credit_line and price < floor:  # at most one price step a month
            price = min(floor, self.price * (1.0 + mcfg.price_step))
        gap = wage_gap(self.phi, self.labour_phi, mcfg.wage_labour_weight)
        wage = adjust(self.wage, gap, mcfg.wage_step, mcfg.wage_floor, u_wage)
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


class CognitiveFirm(Firm):
    """A sector firm that decides as an agent (`--firms cognitive|llm`): persona, memory, plants and books are
    its `mind`, set by `econ.firms.board.CognitiveFirms` once the households exist."""

    def __init__(self, model: mesa.Model, index: int, cfg: SectorConfig, price: float, wage: float) -> None:
        super().__init__(model, index, cfg, price, wage)
        self.mind: FirmState | None = None

    @property
    def persona(self) -> Persona | None:
        """The firm's persona (an archetype such as 'startup CEO'), None before the board sets its mind."""
        return self.mind.persona if self.mind is not None else None

    @property
    def memory(self) -> Memory | None:
        return self.mind.memory if self.mind is not None else None
