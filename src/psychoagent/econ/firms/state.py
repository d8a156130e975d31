"""One cognitive firm's private state: persona, memory, capacity and plants, stocks, streaks and its months.

Capacity is in units of output per month at the firm's base productivity; R&D raises a productivity factor
that multiplies both labour output and effective capacity. A plant adds capacity only when it is complete.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from psychoagent.persona import Persona

if TYPE_CHECKING:
    from psychoagent.memory import Memory


@dataclass
class Plant:
    """A plant under construction: capacity it adds, its cost and what is paid, and the expectation behind it."""

    start: int
    """Month the firm decided to build it."""
    ready: int
    """Month it comes online: start + `construction_months`."""
    capacity: float
    """Capacity it adds, units a month at base productivity."""
    cost: float
    """What it costs in all, paid in equal monthly instalments over `construction_months`."""
    expected_growth: float
    """Output growth the plant is built for: the share of capacity it adds."""
    output_before: float
    """Mean monthly output in the quarter before the plant was started."""
    stake: float
    """Its cost as a share of the firm's budget at the decision (at most 1): its weight when the review moves
    the persona."""
    paid: float = 0.0
    """What has been paid so far."""
    review: int = 0
    """Month its outcome is judged: completion + `review_months` (0 while it is being built)."""


@dataclass
class Month:
    """One month of a firm's books (units and currency units)."""

    tick: int
    """The month."""
    demand: float
    """Units asked of the firm: households' demand plus the input its buyers needed."""
    produced: float
    """Units made."""
    sold: float
    """Units sold."""
    inventory: float
    """Unsold stock after the month's sales."""
    price: float
    """Price the month's goods sold at."""
    unit_cost: float
    """Wages, inputs, upkeep and overdraft interest per unit made (NaN without output)."""
    revenue: float
    """Units sold x price."""
    wage_bill: float
    """Wages paid."""
    capacity: float
    """Effective capacity (capacity x productivity)."""
    phi: float = 0.0
    """Demand gap of the price rule: (demand - stock) / max(demand, stock), in [-1, 1]."""
    labour_phi: float = 0.0
    """Labour gap of the wage rule (`rules.labour_gap`): unfilled jobs raise it, applicants turned away lower it."""


@dataclass
class FirmState:
    """Everything a cognitive firm carries between months (the Mesa `Firm` keeps price, wage, cash, stock)."""

    index: int
    """The firm's sector index (its place in the model's firms)."""
    name: str
    """Its sector's name."""
    persona: Persona
    """Its persona: from its archetype, moved by the outcomes of its forecasts and plants."""
    capacity: float
    """Installed capacity, units a month at base productivity (plants add to it, closures cut it)."""
    opening_capacity: float
    """Capacity at the start: closures never take capacity below `min_capacity` of it."""
    memory: Memory | None = None
    """Its memory of decisions, plants and their outcomes (None when `FirmsConfig.memory` is off)."""
    productivity: float = 1.0
    """R&D productivity factor (1 at the start, at most `max_productivity`)."""
    rnd_budget: float = 0.0
    """R&D money decided but not yet paid as researchers' wages (`FirmsConfig.rnd_jobs`)."""
    input_stock: float = 0.0
    """Units of input bought ahead from the supplier, drawn before buying more."""
    below_cost: int = 0
    """Consecutive decisions that set the price below unit cost."""
    idle: int = 0
    """Consecutive quarters with demand below the closure threshold of a neutral firm (`close_at`)."""
    price_floor: float = 0.0
    """Least price charged until the next decision: the unit cost once the price has been below it for
    `below_cost_quarters` - 1 decisions running, else 0."""
    target_rate: float = 1.0
    """Cap on the share of the sector's workforce offered jobs, moved toward the planned output by
    `target_speed` each decision; the demand-gap rule may offer fewer."""
    price: float = 0.0
    """Price set at the last decision: a cognitive firm's price and wage move only when it decides."""
    wage: float = 0.0
    """Hourly wage set at the last decision."""
    plants: list[Plant] = field(default_factory=list)
    """Plants under construction."""
    reviews: list[Plant] = field(default_factory=list)
    """Plants online whose review is still due."""
    months: deque[Month] = field(default_factory=lambda: deque(maxlen=12))
    """The books of the last 12 months, oldest first."""
    last: dict[str, Any] | None = None
    """The last decision's expectation: tick, expected demand growth and the demand it started from."""
    pending: list[dict[str, Any]] = field(default_factory=list)
    """Memories queued this month, stored in one batch."""
    lessons: list[tuple[int, float]] = field(default_factory=list)
    """(tick, shortfall = output growth - capacity added) of reviewed expansions, oldest first."""

    @property
    def effective_capacity(self) -> float:
        """Output the plants allow this month: capacity x the R&D productivity factor."""
        return self.capacity * self.productivity

    @property
    def building(self) -> float:
        """Capacity under construction."""
        return float(sum(p.capacity for p in self.plants))

    @property
    def committed(self) -> float:
        """What plants under way still have to be paid."""
        return float(sum(p.cost - p.paid for p in self.plants))

    def mean(self, key: str, months: int = 3, skip: int = 0) -> float:
        """Mean of a monthly field over the last `months` months (`skip` most recent left out); nan if none."""
        rows = list(self.months)[: len(self.months) - skip] if skip else list(self.months)
        rows = rows[-months:]
        return float(np.mean([getattr(m, key) for m in rows])) if rows else float("nan")

    def unit_cost(self, months: int = 3) -> float:
        """Cost per unit produced over the last months (wages, inputs, upkeep, interest on an overdraft); nan
        before any output."""
        rows = list(self.months)[-months:]
        made = sum(m.produced for m in rows)
        return float(sum(m.unit_cost * m.produced for m in rows) / made) if made > 0 else float("nan")

    def pay_researchers(self, seekers: int, pay: float) -> int:
        """Researchers hired from `seekers` at `pay` a head with about a third of the R&D budget (a quarter's
        spend over the quarter, at least one head when the budget pays it); the budget falls by their pay."""
        if self.rnd_budget <= 0 or seekers <= 0 or pay <= 0:
            return 0
        n = int(min(seekers, np.floor(min(self.rnd_budget, self.rnd_budget / 3.0 + pay) / pay)))
        self.rnd_budget = max(self.rnd_budget - n * pay, 0.0)
        return n

    def take_input(self, need: float) -> float:
        """Units of input taken from the stock bought ahead, at most `need`."""
        took = min(need, self.input_stock)
        self.input_stock -= took
        return took

    def columns(self) -> dict[str, float]:
        """This firm's macro columns: effective capacity, capacity under construction, unit cost, productivity."""
        cost = self.unit_cost()
        return {f"capacity_{self.name}": self.effective_capacity, f"building_{self.name}": self.building,
                f"unit_cost_{self.name}": cost if np.isfinite(cost) else 0.0,
                f"productivity_{self.name}": self.productivity}  # fmt: skip
