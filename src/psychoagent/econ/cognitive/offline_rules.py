"""How the offline model answers the economy's schemas: documented, deterministic rules over the data line.

- `Propensities`: work and consumption are the persona rule's numbers (`PersonaHeuristicPolicy` with default
  coefficients) for the household and economy in the data, rounded to 0.02; the trade is `offline_trade`.
- `Decision` (the llm policy's trade schema): `offline_trade` as a DECIDE with one order, or WAIT.
- `Reflection`: the quarter's facts (months worked, income trend, rationing, inflation) and the lesson they
  suggest, in one or two sentences.

Each rule reads only numbers and names from the data line; headlines and memories in the prompt are never read.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psychoagent.econ.baselines import PersonaHeuristicPolicy
from psychoagent.econ.cognitive.propensity import quantise
from psychoagent.econ.intents import AgentState
from psychoagent.econ.snapshot import NewsItem, Snapshot
from psychoagent.llm.offline import register_schema_rule
from psychoagent.persona import Persona
from psychoagent.persona.model import Allocation

MIN_EDGE = 0.02
"""Expected return over the horizon needed before the offline model trades (the cognitive policy's min_edge)."""
TRADE_SHARE = 0.2
"""Budget share of a confident buy before the persona scales it (the cognitive policy's trade_share)."""
_RULE = PersonaHeuristicPolicy()


def _f(data: dict[str, Any], key: str, default: float = 0.0) -> float:
    value = data.get(key, default)
    return float(value) if isinstance(value, int | float) and np.isfinite(value) else default


def _persona(data: dict[str, Any]) -> Persona:
    p = data.get("persona") or {}
    alloc = p.get("allocation") or {}
    weights = [
        max(_f(alloc, k, d), 0.0) for k, d in (("consume", 0.4), ("save", 0.3), ("invest", 0.2), ("rnd", 0.1))
    ]
    total = sum(weights) or 1.0
    return Persona(
        risk_preference=float(np.clip(_f(p, "risk_preference", 0.5), 0.0, 1.0)),
        optimism=float(np.clip(_f(p, "optimism"), -1.0, 1.0)),
        learning_rate=float(np.clip(_f(p, "learning_rate", 0.3), 0.0, 1.0)),
        social_tendency=float(np.clip(_f(p, "social_tendency", 0.5), 0.0, 1.0)),
        allocation=Allocation(**dict(zip(("consume", "save", "invest", "rnd"), [w / total for w in weights], strict=True))),
    )  # fmt: skip


def rule_propensities(data: dict[str, Any]) -> tuple[float, float]:
    """The persona rule's (work, consumption) for the household and economy described in `data`."""
    hh, econ = data.get("household") or {}, data.get("economy") or {}
    sentiment = _f(econ, "news_sentiment")
    snap = Snapshot(
        tick=int(_f(data, "tick")), prices={}, wages={}, interest_rate=_f(econ, "interest_rate"),
        price_level=_f(econ, "price_level", 1.0), inflation=_f(econ, "inflation"), wage=0.0, wage_inflation=0.0,
        nominal_gdp=0.0, real_gdp=0.0, gdp_growth=0.0, unemployment=_f(econ, "unemployment"), tax_revenue=0.0,
        mean_consumption_share=_f(econ, "mean_consumption_share"),
        news=(NewsItem(0, "", sentiment),) if sentiment else (),
        inflation_target=_f(econ, "inflation_target", 0.02), natural_unemployment=_f(econ, "natural_unemployment", 0.04),
    )  # fmt: skip
    state = AgentState(
        id=0, sector="goods", skill=_f(hh, "skill", 1.0), cash=_f(hh, "cash"), deposits=_f(hh, "deposits"),
        potential_income=_f(hh, "potential_income"), last_income=_f(hh, "last_income"),
        worked=bool(hh.get("worked")), consume_share=_f(hh, "consume_share", 0.35), persona=_persona(data),
    )  # fmt: skip
    intent = _RULE.decide(snap, state)
    return intent.work, intent.consume


def offline_trade(data: dict[str, Any]) -> tuple[dict[str, Any] | None, float, str]:
    """(order or None, expected return, reason) from the assets in `data`.

    Expected return of buying over the horizon = w x trend x horizon + (1 - w) x (-gap) + carry + 0.01 x optimism,
    with trend weight w = 0.5 x (0.5 + risk) (risk takers chase trends, the cautious expect reversion to the
    average) and carry the income the asset pays above deposits. Buy the best when it clears MIN_EDGE and the
    invested share is below allocation.invest x (1 + optimism), with TRADE_SHARE x (0.5 + risk) of cash; else
    sell half or more of the worst held asset when it is below -MIN_EDGE; else no trade.
    """
    persona = _persona(data)
    assets = data.get("assets") or {}
    horizon = max(_f(data, "horizon", 3.0), 1.0)
    risk, optimism = persona.risk_preference, persona.optimism
    w = 0.5 * (0.5 + risk)
    expected: dict[str, float] = {}
    for name, a in sorted(assets.items()):
        if isinstance(a, dict) and _f(a, "price") > 0:
            e = w * _f(a, "trend") * horizon - (1.0 - w) * _f(a, "gap") + _f(a, "carry") + 0.01 * optimism
            expected[name] = float(np.clip(e, -0.15, 0.15))
    if not expected:
        return None, 0.0, "nothing to trade"
    hh = data.get("household") or {}
    cash = max(_f(hh, "cash") + _f(hh, "deposits"), 0.0)
    invested = sum(_f(a, "held") * _f(a, "price") for a in assets.values() if isinstance(a, dict))
    room = persona.allocation.invest * (1.0 + optimism) - invested / max(cash + invested, 1e-9)
    best = max(expected, key=lambda k: expected[k])
    worst = min(expected, key=lambda k: expected[k])
    if expected[best] > MIN_EDGE and room > 0 and cash > 0:
        share = quantise(min(TRADE_SHARE * (0.5 + risk), room), 0.02)
        if share > 0:
            order = {"side": "BUY", "instrument": best, "budget_share": share}
            return order, expected[best], f"{best} expected {expected[best]:+.1%} over {horizon:g} months"
    if expected[worst] < -MIN_EDGE and _f(assets[worst], "held") > 0:
        share = quantise(0.5 + 0.5 * (1.0 - risk), 0.02)
        order = {"side": "SELL", "instrument": worst, "budget_share": share}
        return order, -expected[worst], f"{worst} expected {expected[worst]:+.1%}: reduce the position"
    return None, 0.0, f"no edge (best {best} {expected[best]:+.1%})"


def answer_propensities(data: dict[str, Any]) -> dict[str, Any]:
    """The offline answer to the `Propensities` schema."""
    work, consume = rule_propensities(data)
    order, expected, why = offline_trade(data)
    return {"work": quantise(work, 0.02), "consumption": quantise(consume, 0.02), "trade": order,
            "expected_return": expected, "reason": f"persona rule for work and spending; trade: {why}"}  # fmt: skip


def answer_decision(data: dict[str, Any]) -> dict[str, Any]:
    """The offline answer to the llm policy's `Decision` schema: `offline_trade` as DECIDE with one order, else
    WAIT with the reason (no edge, no room in the invest allocation, nothing to trade)."""
    order, expected, why = offline_trade(data)
    if order is None:
        return {"type": "WAIT", "reason": why}
    return {"type": "DECIDE", "orders": [order], "instrument": order["instrument"], "expected_return": expected,
            "reason": why}  # fmt: skip


def answer_reflection(data: dict[str, Any]) -> dict[str, Any]:
    """The offline answer to the `Reflection` schema: the quarter's facts and a lesson."""
    months = [m for m in data.get("months") or [] if isinstance(m, dict)]
    econ = data.get("economy") or {}
    if not months:
        return {"text": "Nothing happened to me this quarter worth a lesson."}
    worked = sum(1 for m in months if m.get("worked"))
    incomes = [_f(m, "income") for m in months]
    rationed = sum(1 for m in months if m.get("rationed"))
    trend = (
        "rose" if incomes[-1] > incomes[0] * 1.05 else "fell" if incomes[-1] < incomes[0] * 0.95 else "held"
    )
    inflation = _f(econ, "inflation")
    lesson = (
        "jobs are scarce, so I keep a larger buffer and keep looking for work" if worked < len(months) / 2
        else "goods ran short, so I buy earlier" if rationed
        else "prices are rising, so cash loses value and spending sooner pays" if inflation > 0.03
        else "prices are falling, so waiting to spend pays" if inflation < -0.01
        else "steady work and prices: I keep my habits"
    )  # fmt: skip
    text = (f"This quarter I worked {worked} of {len(months)} months, my income {trend} "
            f"({incomes[0]:.0f} -> {incomes[-1]:.0f}), inflation ran at {inflation:+.1%}; lesson: {lesson}.")  # fmt: skip
    return {"text": text}


register_schema_rule("Propensities", answer_propensities)
register_schema_rule("Decision", answer_decision)
register_schema_rule("Reflection", answer_reflection)
