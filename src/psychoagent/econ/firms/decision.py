"""A firm's quarterly decision: what it perceives, the JSON schema it answers, and the persona heuristic.

`heuristic_decision` is the default decision core and the offline model's rule for `FirmDecision` (registered
under that schema title), so an offline `llm` run decides exactly as a `cognitive` one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from psychoagent.econ.firms.config import FirmsConfig
from psychoagent.econ.rules import wage_gap
from psychoagent.llm.offline import register_schema_rule
from psychoagent.llm.schema import CRITICAL
from psychoagent.persona import Persona

CriticalShare = Annotated[float, Field(ge=0.0, le=1.0, json_schema_extra={CRITICAL: True})]
"""A share of capacity or cash a model decides: out of range is refused, never clamped."""
CriticalChange = Annotated[float, Field(ge=-0.5, le=0.5, json_schema_extra={CRITICAL: True})]
"""A relative price or wage change a model decides, at most 50 % either way."""


class FirmDecision(BaseModel):
    """What a firm decides for the next quarter (the schema a model fills; shares of capacity or cash)."""

    model_config = ConfigDict(extra="forbid")

    production_target: CriticalShare = Field(
        ..., description="output to plan for, as a share of capacity (sets hiring)"
    )
    expand: CriticalShare = Field(
        0.0, description="capacity to add by building a plant, as a share of capacity"
    )
    close: CriticalShare = Field(0.0, description="capacity to close, as a share of capacity")
    price_change: CriticalChange = Field(0.0, description="relative price change, e.g. 0.02 for +2 %")
    wage_change: CriticalChange = Field(0.0, description="relative wage change, e.g. -0.01")
    rnd_share: CriticalShare = Field(0.0, description="share of cash above the reserve spent on R&D")
    input_months: float = Field(
        0.0,
        ge=0.0,
        le=6.0,
        description="months of input (steel) to buy ahead now",
        json_schema_extra={CRITICAL: True},
    )
    expected_growth: float = Field(
        0.0, ge=-1.0, le=1.0, description="expected demand growth over the next quarter, e.g. 0.03"
    )
    reason: str = Field("", max_length=400, description="one sentence why")


@dataclass(frozen=True)
class Perceived:
    """A firm's reading of its last quarter (flows are monthly means; ratios against effective capacity)."""

    tick: int
    firm: str
    capacity: float
    building: float
    demand_ratio: float
    utilisation: float
    labour: float
    demand_growth: float
    market_gap: float
    """Mean demand gap phi = (demand - stock) / max(demand, stock) of the quarter: what prices answer to."""
    inventory_months: float
    cash: float
    budget: float
    plant_cost: float
    """What doubling capacity would cost: a plant of share x costs x times this."""
    margin: float
    below_cost_quarters: int
    idle_quarters: int
    interest_rate: float
    input_gap: float | None
    lesson: float
    lessons: int
    labour_gap: float = 0.0
    """Mean labour gap of the quarter (`rules.labour_gap`): what wages answer to."""

    def text(self) -> str:
        """The observation in words (memory and prompts)."""
        parts = [
            f"demand {self.demand_ratio:.2f} x capacity ({self.demand_growth:+.1%} on the quarter before)",
            f"demand gap {self.market_gap:+.2f}",
            f"labour gap {self.labour_gap:+.2f}",
            f"utilisation {self.utilisation:.0%}",
            f"the whole workforce could make {self.labour:.2f} x capacity",
            f"stock {self.inventory_months:.1f} months of sales",
            f"margin {self.margin:+.1%} over unit cost",
            f"cash {self.cash:.0f}, room for investment {self.budget:.0f}",
            f"interest rate {self.interest_rate:.1%}",
        ]
        if self.building > 0:
            parts.append(f"a plant of {self.building:.0f} units/month under construction")
        if self.input_gap is not None:
            parts.append(f"steel {self.input_gap:+.1%} against its 6-month average")
        if self.lessons:
            parts.append(f"past plants: output grew {self.lesson:+.1%} against the capacity they added")
        return f"{self.firm}: " + "; ".join(parts) + "."

    def data(self) -> dict[str, Any]:
        """The fields as plain numbers (the offline model's data line)."""
        return asdict(self)


def heuristic_decision(p: Perceived, persona: Persona, cfg: FirmsConfig) -> FirmDecision:
    """The persona's rule: build when expected demand outruns capacity and the workforce could staff more
    (earlier for risk takers, later with dear credit or failed past plants; on credit as far as the persona
    dares), close long-idle capacity, plan output to expected sales plus the stock it aims at, price to the
    market's demand gap and to cost, spend spare cash on R&D by allocation, buy input ahead when it is cheap."""
    r, o = persona.risk_preference, persona.optimism
    growth = float(np.clip(0.5 * p.demand_growth + 0.03 * o, -0.3, 0.3))
    ratio = p.demand_ratio * (1.0 + growth)
    threshold = (cfg.expand_at - cfg.expand_risk * (r - 0.5) + cfg.rate_weight * (p.interest_rate - 0.03)
                 + cfg.lesson_weight * max(-p.lesson, 0.0))  # fmt: skip
    expand = close = 0.0
    why = []
    # a plant is paid from cash and, as far as the persona dares, from credit
    affordable = max(p.cash, 0.0) + r * max(p.budget - max(p.cash, 0.0), 0.0)
    if p.building <= 0 and ratio > threshold and p.labour > 1.02 and p.margin > -0.05:
        gap = min(ratio, p.labour) - 1.0
        expand = float(np.clip(gap + cfg.expand_base * (0.5 + r), 0.02, cfg.max_expand))
        expand = min(expand, affordable / p.plant_cost) if p.plant_cost > 0 else expand
        why.append(f"demand {ratio:.2f} x capacity is above my threshold {threshold:.2f}: build")
        if expand < 0.02:
            expand = 0.0
            why[-1] = f"demand {ratio:.2f} x capacity calls for a plant, but I cannot afford one"
    elif p.building <= 0 and p.idle_quarters >= cfg.idle_quarters and ratio < cfg.close_at + 0.2 * (0.5 - r):
        close = float(np.clip(0.5 * (1.0 - max(ratio, p.utilisation)), 0.0, cfg.max_close))
        why.append(
            f"demand {ratio:.2f} x capacity has left plants idle for {p.idle_quarters} quarters: close some"
        )
    excess = max(p.inventory_months - cfg.inventory_months, 0.0)
    # output = expected sales + the gap to the stock aimed at, closed over `restock_months`
    restock = 1.0 + (cfg.inventory_months - p.inventory_months) / cfg.restock_months
    target = float(np.clip(ratio * restock, cfg.min_target, 1.0))
    pressure = p.market_gap - 0.1 * excess
    price = cfg.price_weight * pressure + cfg.margin_pull * max(-p.margin, 0.0) - 0.01 * (r - 0.5)
    price = float(np.clip(price, -cfg.max_price_change, cfg.max_price_change))
    wage = cfg.wage_weight * wage_gap(pressure, p.labour_gap, cfg.wage_labour_weight)
    wage = float(np.clip(wage, -cfg.max_wage_change, cfg.max_wage_change))
    rnd = float(persona.allocation.rnd * cfg.rnd_scale) if p.cash > 0 else 0.0
    months = 0.0
    if p.input_gap is not None and p.input_gap < -cfg.cheap_input:
        months = cfg.max_input_months * (0.5 + r) / 1.5
        why.append(f"steel is {p.input_gap:+.1%} below its average: buy ahead")
    why.append(f"plan {target:.0%} of capacity, price {price:+.1%}")
    return FirmDecision(production_target=target, expand=expand, close=close, price_change=price, wage_change=wage,
                        rnd_share=rnd, input_months=months, expected_growth=growth, reason="; ".join(why)[:400])  # fmt: skip


def perceived_from(data: dict[str, Any]) -> Perceived | None:
    """A `Perceived` rebuilt from a data line's `perceived` fields; None when they are missing or malformed."""
    fields = data.get("perceived")
    if not isinstance(fields, dict):
        return None
    try:
        return Perceived(**fields)
    except TypeError:
        return None


def answer_firm_decision(data: dict[str, Any]) -> dict[str, Any] | None:
    """The offline model's answer to `FirmDecision`: the heuristic for the firm and persona in the data line."""
    p = perceived_from(data)
    raw = data.get("persona")
    if p is None or not isinstance(raw, dict):
        return None
    try:
        persona = Persona.model_validate(raw)
        cfg = FirmsConfig.model_validate(data.get("config") or {})
    except ValueError:
        return None
    return heuristic_decision(p, persona, cfg).model_dump()


register_schema_rule("FirmDecision", answer_firm_decision)
