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
    ready: int
    capacity: float
    cost: float
    expected_growth: float
    """Output growth the plant is built for: the share of capacity it adds."""
    output_before: float
    """Mean monthly output in the quarter before the plant was started."""
    stake: float
    paid: float = 0.0
    review: int = 0


@dataclass
class Month:
    """One month of a firm's books (units and currency units)."""

    tick: int
    demand: float
    produced: float
    sold: float
    inventory: float
    price: float
    unit_cost: float
    revenue: float
    wage_bill: float
    capacity: float
    phi: float = 0.0


@dataclass
class FirmState:
    """Everything a cognitive firm carries between months (the Mesa `Firm` keeps price, wage, cash, stock)."""

    index: int
    name: str
    persona: Persona
    capacity: float
    opening_capacity: float
    memory: Memory | None = None
    productivity: float = 1.0
    input_stock: float = 0.0
    below_cost: int = 0
    idle: int = 0
    """Consecutive quarters with demand below the closure threshold of a neutral firm (`close_at`)."""
    price_floor: float = 0.0
    target_rate: float = 1.0
    price: float = 0.0
    """Price set at the last decision: a cognitive firm's price and wage move only when it decides."""
    wage: float = 0.0
    plants: list[Plant] = field(default_factory=list)
    reviews: list[Plant] = field(default_factory=list)
    months: deque[Month] = field(default_factory=lambda: deque(maxlen=12))
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
