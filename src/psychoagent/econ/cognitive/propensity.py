"""EconAgent's decision (Li et al. 2024): the answer schema, its coefficients and the propensity guardrails.

A deciding household answers a work propensity and a consumption propensity in [0, 1] (steps of 0.02, as in
EconAgent's prompt) plus an optional trade. Before they reach the economy they pass `guard_propensities`:
rounding to the step, the persona adjustment (a household whose risk preference fell below its baseline spends
less, as a budget is scaled in the trade guardrails), inertia (no jump beyond `max_change` in one decision) and
a subsistence rule (a household without a savings buffer keeps looking for work). Each change carries its note.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from psychoagent.econ.cognitive.config import EconAgentConfig
from psychoagent.econ.mind.schema import OrderSpec


class Propensities(BaseModel):
    """What the model answers for one household and month (the JSON schema it must fill)."""

    model_config = ConfigDict(extra="forbid")

    work: float = Field(..., ge=0.0, le=1.0, description="work propensity: chance of working this month")
    consumption: float = Field(
        ..., ge=0.0, le=1.0, description="consumption propensity: share of savings and income to spend"
    )
    trade: OrderSpec | None = Field(None, description="optional order in the markets; null: no trade")
    expected_return: float = Field(
        0.0, ge=-1.0, le=1.0, description="the trade's expected return over the horizon, e.g. 0.03"
    )
    reason: str = Field("", max_length=400, description="one sentence why")


class Reflection(BaseModel):
    """A quarterly reflection: one lesson about work, spending and markets, kept as a semantic memory."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(..., min_length=1, max_length=600, description="the lesson in one or two sentences")


@dataclass(frozen=True)
class Guarded:
    """Propensities after the guardrails, with a note for every change."""

    work: float
    consumption: float
    notes: tuple[str, ...] = field(default_factory=tuple)


def quantise(x: float, step: float) -> float:
    """Nearest multiple of `step` inside [0, 1]."""
    return float(np.clip(round(round(x / step) * step, 10), 0.0, 1.0))


def guard_propensities(
    work: float, consumption: float, *, last_work: float | None, last_consumption: float | None,
    risk: float, baseline_risk: float, wealth: float, potential_income: float, cfg: EconAgentConfig,
) -> Guarded:  # fmt: skip
    """Round, adjust for the persona, limit the change from last month, keep the poor looking for work."""
    notes: list[str] = []
    w, c = quantise(work, cfg.step), quantise(consumption, cfg.step)
    scale = float(np.clip(1.0 + cfg.consume_risk_slope * (risk - baseline_risk), 0.5, 1.5))
    if abs(scale - 1.0) > 1e-9:
        adjusted = quantise(c * scale, cfg.step)
        if adjusted != c:
            notes.append(
                f"persona: consumption {c:.2f} -> {adjusted:.2f} (risk {baseline_risk:.2f} -> {risk:.2f})"
            )
            c = adjusted
    for name, value, last in (("work", w, last_work), ("consumption", c, last_consumption)):
        if last is None or abs(value - last) <= cfg.max_change + 1e-9:
            continue
        kept = quantise(last + np.sign(value - last) * cfg.max_change, cfg.step)
        notes.append(
            f"inertia: {name} {value:.2f} -> {kept:.2f} (at most {cfg.max_change:.2f} from {last:.2f})"
        )
        if name == "work":
            w = kept
        else:
            c = kept
    if wealth < cfg.buffer_months * potential_income and w < cfg.min_work:
        notes.append(f"subsistence: work {w:.2f} -> {cfg.min_work:.2f} (savings {wealth:.0f} below "
                     f"{cfg.buffer_months:g} months of income {potential_income:.0f})")  # fmt: skip
        w = quantise(cfg.min_work, cfg.step)
    return Guarded(w, c, tuple(notes))
