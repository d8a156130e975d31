"""Guardrails on a firm's decision: what it can pay for, how low it may price, how far it may shrink.

Rules (each refusal or trim carries a reason, published as `firm.guardrail_rejected` / `firm.guardrail_adjusted`):
- expansion: a plant whose cost exceeds cash plus the credit line, less what plants under way still need, is
  refused;
- pricing: a price below unit cost is refused when the two quarters before already ended below cost (never three
  quarters running); the price is set to unit cost instead;
- closure: capacity never falls below `min_capacity` of the opening capacity;
- R&D spends only cash above the reserve; input bought ahead is limited by what the supplier holds and the budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from psychoagent.econ.firms.config import FirmsConfig
from psychoagent.econ.firms.decision import FirmDecision

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy
    from psychoagent.econ.firm import Firm
    from psychoagent.econ.firms.decision import Perceived
    from psychoagent.econ.firms.state import FirmState


@dataclass(frozen=True)
class Limits:
    """What the guardrails check a decision against (money in currency units, capacity in units per month)."""

    price: float
    unit_cost: float
    below_cost: int
    cash: float
    budget: float
    capacity: float
    min_capacity: float
    plant_cost: float
    reserve: float
    price_floor: float
    input_available: float = 0.0
    input_price: float = 0.0
    input_need: float = 0.0


@dataclass(frozen=True)
class Note:
    """One refusal ("rejected") or trim ("adjusted") with the rule and the reason in words."""

    outcome: str
    rule: str
    reason: str


@dataclass
class Guarded:
    """The decision as approved, the money and units it commits, and the notes."""

    decision: FirmDecision
    plant_cost: float = 0.0
    rnd_spend: float = 0.0
    input_units: float = 0.0
    notes: list[Note] = field(default_factory=list)


def guard_decision(d: FirmDecision, lim: Limits, cfg: FirmsConfig) -> Guarded:
    """Check `d` against `lim`; returns the approved decision (changed fields replaced) with the notes."""
    notes: list[Note] = []
    upd: dict[str, float] = {}
    cost = d.expand * lim.capacity * lim.plant_cost
    if d.expand > 0 and cost > lim.budget:
        notes.append(Note("rejected", "expansion_budget",
                          f"a plant of +{d.expand:.0%} capacity costs {cost:.0f}, more than cash plus credit left "
                          f"({lim.budget:.0f})"))  # fmt: skip
        upd["expand"], cost = 0.0, 0.0
    budget = lim.budget - cost
    new_price = max(lim.price * (1.0 + d.price_change), lim.price_floor)
    limit = cfg.below_cost_quarters - 1
    if np.isfinite(lim.unit_cost) and new_price < lim.unit_cost and lim.below_cost >= limit:
        notes.append(Note("rejected", "below_cost",
                          f"price {new_price:.4g} would stay below unit cost {lim.unit_cost:.4g} for "
                          f"{lim.below_cost + 1} quarters running; priced at cost instead"))  # fmt: skip
        upd["price_change"] = lim.unit_cost / lim.price - 1.0
    if d.close > 0:
        room = max(1.0 - lim.min_capacity / lim.capacity, 0.0) if lim.capacity > 0 else 0.0
        if d.close > room:
            notes.append(Note("adjusted", "min_capacity",
                              f"closing {d.close:.0%} would leave less than the minimum capacity; closing "
                              f"{room:.0%}"))  # fmt: skip
            upd["close"] = room
    spare = max(lim.cash - lim.reserve, 0.0)
    rnd = d.rnd_share * spare
    units = d.input_months * lim.input_need
    if units > 0:
        afford = max(budget - rnd, 0.0) / lim.input_price if lim.input_price > 0 else 0.0
        got = min(units, lim.input_available, afford)
        if got < units - 1e-9:
            notes.append(Note("adjusted", "input_budget",
                              f"buying {units:.3g} units of input ahead exceeds the supplier's stock "
                              f"({lim.input_available:.3g}) or the budget; buying {got:.3g}"))  # fmt: skip
        units = got
    approved = d.model_copy(update=upd) if upd else d
    return Guarded(approved, cost, rnd, units, notes)


def limits_for(model: Economy, cfg: FirmsConfig, f: Firm, s: FirmState, p: Perceived) -> Limits:
    """What firm `f` (state `s`, quarter `p`) can pay for and sell at this decision in `model`."""
    m = model.config.market
    avail, price, need = 0.0, 0.0, 0.0
    if f.cfg.input_sector is not None:
        supplier = model.firms[model.sector_names.index(f.cfg.input_sector)]
        avail, price = max(supplier.inventory, 0.0), supplier.price
        need = p.capacity * f.cfg.input_per_unit  # a month of input at full effective capacity
    return Limits(price=f.price, unit_cost=s.unit_cost(), below_cost=s.below_cost, cash=f.cash,
                  budget=p.budget, capacity=s.capacity, min_capacity=cfg.min_capacity * s.opening_capacity,
                  plant_cost=cfg.plant_cost_months * f.price, reserve=m.reserve_months * s.mean("wage_bill"),
                  price_floor=m.price_floor, input_available=avail, input_price=price, input_need=need)  # fmt: skip
