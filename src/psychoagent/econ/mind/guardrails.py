"""The action pipeline (seed 3.2, 4.1): decision -> orders -> feasibility -> persona adjustment -> rules ->
sandbox look-ahead -> approved orders, each refusal with its reason.

Parsing turns an intent into orders when the decision has none. Feasibility sizes orders against cash,
holdings and market supply. The persona adjustment scales a budget by how far the agent's risk preference has
moved from its baseline (20 % -> 15 % after a fall of 0.25). Rules reject (`guardrail.rejected`); the
look-ahead vetoes (`guardrail.vetoed`). A rejection reason is shown to the policy next tick.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from psychoagent.agent.config import GuardrailConfig, LookaheadConfig
from psychoagent.econ.mind.intent import parse_intent
from psychoagent.econ.mind.schema import ApprovedOrder, Decision, OrderSpec


@dataclass
class Account:
    """What one agent owns and needs, as the guardrails see it (money in currency units per month)."""

    agent: int
    """The agent whose orders are checked (a household's index; it is on the approved orders)."""
    cash: float
    """Money it can buy with (a household's cash plus deposits)."""
    holdings: dict[str, float]
    """Units held of each instrument."""
    prices: Mapping[str, float]
    """Current price of each instrument: orders are sized and holdings valued at it."""
    income: float = 0.0
    """Monthly income (a household's potential income); the look-ahead adds income less spending."""
    spending: float = 0.0
    """Monthly spending (spending intent x income): `min_cash` keeps `min_cash_months` of it in cash."""
    supply: Mapping[str, float] = field(default_factory=dict)
    """Units this agent may still buy per instrument (market supply or position limit), when known."""
    fee_rate: float = 0.0
    """Trading fee as a share of an order's value: a buy costs its price x (1 + fee_rate) a unit."""
    changes: Mapping[str, float] = field(default_factory=dict)
    """Last period's price change per instrument (for the fire-sale rule)."""

    def value(self, instrument: str) -> float:
        return self.holdings.get(instrument, 0.0) * float(self.prices.get(instrument, 0.0))

    @property
    def total(self) -> float:
        """Cash plus holdings at current prices."""
        return self.cash + sum(self.value(k) for k in self.holdings)


@dataclass(frozen=True)
class Refusal:
    """A refused order: which stage, which rule, why."""

    stage: str
    """'parse', 'feasibility', 'rules' or 'lookahead'."""
    rule: str
    """'intent' (parse), 'feasible', the name of the rule in `RULES`, or 'sandbox' (look-ahead)."""
    reason: str
    """Why, in a sentence the policy reads next tick."""
    order: str
    """The order refused (`OrderSpec.describe()`), or the intent's first 80 characters when none parsed."""


@dataclass
class PipelineResult:
    """Approved orders plus everything refused on the way."""

    approved: list[ApprovedOrder] = field(default_factory=list)
    """Orders that passed every stage, sized, in the decision's order (sent to the markets)."""
    rejected: list[Refusal] = field(default_factory=list)
    """Refusals of the parse, feasibility and rule stages."""
    vetoed: list[Refusal] = field(default_factory=list)
    """Refusals of the sandbox look-ahead."""
    adjusted: list[str] = field(default_factory=list)
    """Notes of the persona adjustments made ('budget 20% -> 15% (risk preference 0.50 -> 0.25)')."""

    def feedback(self) -> list[str]:
        """Sentences the policy reads next tick."""
        return [
            f"{r.stage}: {r.order} refused ({r.rule}): {r.reason}" for r in (*self.rejected, *self.vetoed)
        ]


def is_risky(instrument: str) -> bool:
    """Shares are risky assets; the commodity is a real good with a use value."""
    return instrument.startswith("stock")


# ---- stage 1-3: parse, persona adjustment, feasibility ----------------------------------------------------


def orders_of(decision: Decision, allowed: Sequence[str]) -> tuple[list[OrderSpec], str]:
    """The decision's structured orders, else those parsed from its intent; with a reason when none."""
    if decision.type != "DECIDE":
        return [], ""
    if decision.orders:
        return [o for o in decision.orders if o.instrument in allowed], ""
    key = (decision.intent, tuple(allowed))
    found = _PARSED.get(key)
    if found is None:
        parsed = parse_intent(decision.intent, allowed=allowed)
        found = (tuple(parsed.orders), parsed.reason)
        if len(_PARSED) >= PARSED_CACHE:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = found
    return list(found[0]), found[1]


PARSED_CACHE = 4096
"""Parsed intents kept (a pure function of the text and the instruments; the heuristic repeats its phrasings)."""
_PARSED: dict[tuple[str, tuple[str, ...]], tuple[tuple[OrderSpec, ...], str]] = {}


def persona_scale(risk: float, baseline: float, cfg: GuardrailConfig) -> float:
    """Budget multiplier 1 + slope x (risk - baseline), in [floor, 1 + slope]: lower risk, smaller budget."""
    return float(
        np.clip(
            1.0 + cfg.persona_budget_slope * (risk - baseline),
            cfg.persona_budget_floor,
            1.0 + cfg.persona_budget_slope,
        )
    )


def adjust_for_persona(
    order: OrderSpec, risk: float, baseline: float, cfg: GuardrailConfig
) -> tuple[OrderSpec, str]:
    """Scale a BUY budget share (or quantity) by the persona multiplier; returns the order and a note."""
    if order.side != "BUY":
        return order, ""
    scale = persona_scale(risk, baseline, cfg)
    if abs(scale - 1.0) < 1e-9:
        return order, ""
    if order.budget_share is not None:
        share = float(min(order.budget_share * scale, 1.0))
        note = (
            f"budget {order.budget_share:.0%} -> {share:.0%} (risk preference {baseline:.2f} -> {risk:.2f})"
        )
        return order.model_copy(update={"budget_share": share}), note
    assert order.quantity is not None
    qty = order.quantity * scale
    return order.model_copy(
        update={"quantity": qty}
    ), f"quantity {order.quantity:g} -> {qty:.3g} (risk {risk:.2f})"


def size(order: OrderSpec, account: Account) -> tuple[float, float, str]:
    """(quantity, limit price, reason if infeasible): budget -> units, clipped to cash, holdings and supply."""
    price = float(account.prices.get(order.instrument, 0.0))
    if price <= 0:
        return 0.0, 0.0, f"no price quoted for {order.instrument}"
    limit = order.limit_price or price
    if order.side == "BUY":
        unit_cost = max(limit, price) * (1.0 + account.fee_rate)
        budget = account.cash * order.budget_share if order.budget_share is not None else np.inf
        qty = order.quantity if order.quantity is not None else budget / unit_cost
        qty = min(qty, budget / unit_cost, max(account.cash, 0.0) / unit_cost)
        supply = account.supply.get(order.instrument)
        if supply is not None:
            qty = min(qty, supply)
        if qty <= 1e-9:
            short = "not enough cash" if account.cash <= 0 or supply is None or supply > 1e-9 else None
            return (
                0.0,
                limit,
                short or f"no {order.instrument} available to this buyer (supply or position limit)",
            )
    else:
        held = account.holdings.get(order.instrument, 0.0)
        want = order.quantity if order.quantity is not None else held * (order.budget_share or 1.0)
        qty = min(want, held)
        if qty <= 1e-9:
            return 0.0, limit, f"no {order.instrument} held (short sales are not allowed)"
    return float(qty), float(limit), ""


# ---- stage 4: the rule validator --------------------------------------------------------------------------

Rule = Callable[[ApprovedOrder, Account, Sequence[bool], GuardrailConfig], str | None]


def rule_max_trade_share(
    order: ApprovedOrder, acct: Account, recent: Sequence[bool], cfg: GuardrailConfig
) -> str | None:
    if order.side == "BUY" and order.stake > cfg.max_trade_share + 1e-12:
        return f"commits {order.stake:.0%} of total assets, limit {cfg.max_trade_share:.0%} per trade"
    return None


def rule_consecutive_high_risk(
    order: ApprovedOrder, acct: Account, recent: Sequence[bool], cfg: GuardrailConfig
) -> str | None:
    n = cfg.max_consecutive_high_risk
    if order.high_risk and len(recent) >= n and all(recent[-n:]):
        return f"would be high-risk operation number {n + 1} in a row (at most {n} allowed)"
    return None


def rule_max_position(
    order: ApprovedOrder, acct: Account, recent: Sequence[bool], cfg: GuardrailConfig
) -> str | None:
    if order.side != "BUY" or acct.total <= 0:
        return None
    after = (acct.value(order.instrument) + order.quantity * order.limit_price) / acct.total
    if after > cfg.max_position_share + 1e-12:
        return f"{order.instrument} would be {after:.0%} of assets, limit {cfg.max_position_share:.0%}"
    return None


def rule_fire_sale(
    order: ApprovedOrder, acct: Account, recent: Sequence[bool], cfg: GuardrailConfig
) -> str | None:
    if order.side != "SELL":
        return None
    held = acct.holdings.get(order.instrument, 0.0)
    drop = -acct.changes.get(order.instrument, 0.0)
    if held > 0 and drop >= cfg.fire_sale_drop and order.quantity > cfg.fire_sale_share * held + 1e-9:
        return (
            f"selling {order.quantity / held:.0%} of {order.instrument} right after a {drop:.0%} fall locks in the "
            f"loss (at most {cfg.fire_sale_share:.0%} after a fall of {cfg.fire_sale_drop:.0%} or more)"
        )
    return None


def rule_min_cash(
    order: ApprovedOrder, acct: Account, recent: Sequence[bool], cfg: GuardrailConfig
) -> str | None:
    if order.side != "BUY":
        return None
    left = acct.cash - order.quantity * order.limit_price
    need = cfg.min_cash_months * max(acct.spending, 0.0)
    if left < need:
        return f"would leave {left:.0f} cash, below {cfg.min_cash_months:g} month(s) of spending ({need:.0f})"
    return None


RULES: dict[str, Rule] = {
    "max_trade_share": rule_max_trade_share,
    "consecutive_high_risk": rule_consecutive_high_risk,
    "max_position_share": rule_max_position,
    "min_cash": rule_min_cash,
    "fire_sale": rule_fire_sale,
}
"""Rule name -> check; `Guardrails(rules=[...])` picks which apply (all by default)."""


# ---- stage 5: sandbox look-ahead ----------------------------------------------------------------------------


def lookahead(
    order: ApprovedOrder, acct: Account, volatility: Mapping[str, float], drift: Mapping[str, float],
    cfg: LookaheadConfig, rng: np.random.Generator, risk: float = 0.5,
) -> str | None:  # fmt: skip
    """Sandbox: simulate `cfg.ticks` ticks of the agent's whole balance sheet (cash, every holding on its own
    seeded price paths, income and spending) with and without the order. Veto when bankruptcy becomes likely,
    or when the order pushes the portfolio's 5 % bad-case loss past the persona's limit
    (max_loss x (0.5 + risk preference)) and makes it worse than not acting."""
    names = sorted(set(acct.holdings) | {order.instrument})
    growth = {}
    for name in names:
        vol = max(volatility.get(name, 0.0), cfg.min_volatility)
        mu = drift.get(name, 0.0) - 0.5 * vol * vol
        growth[name] = np.exp(rng.normal(mu, vol, size=(cfg.paths, cfg.ticks)).sum(axis=1))
    flows = (acct.income - acct.spending) * cfg.ticks
    signed = order.quantity if order.side == "BUY" else -order.quantity
    marked = sum(acct.holdings.get(n, 0.0) * float(acct.prices.get(n, 0.0)) * growth[n] for n in names)
    price = float(acct.prices.get(order.instrument, order.limit_price))
    without = acct.cash + marked + flows
    with_ = without - signed * order.limit_price + signed * price * growth[order.instrument]
    p_bust = float(np.mean(with_ <= cfg.bankruptcy_floor))
    p_bust0 = float(np.mean(without <= cfg.bankruptcy_floor))
    if p_bust > cfg.max_bankruptcy and p_bust > p_bust0:
        return (
            f"sandbox over {cfg.ticks} months: bankruptcy risk {p_bust:.0%} with the order vs {p_bust0:.0%} without "
            f"(limit {cfg.max_bankruptcy:.0%}); the strategy could be catastrophic, reconsider"
        )
    base = max(acct.total, 1e-9)  # market gains and losses only: income and spending are the same either way
    bad = float(np.quantile((with_ - flows) / base - 1.0, 0.05))
    bad0 = float(np.quantile((without - flows) / base - 1.0, 0.05))
    limit = cfg.max_loss * (0.5 + risk)
    if bad < -limit and bad < bad0:
        return (
            f"sandbox over {cfg.ticks} months: 5% bad-case portfolio loss {-bad:.0%} with the order vs {-bad0:.0%} "
            f"without (limit {limit:.0%} at risk preference {risk:.2f}); reconsider the size"
        )
    return None


class Guardrails:
    """The configured pipeline for one population; `check` runs it for one agent's decision."""

    def __init__(self, cfg: GuardrailConfig | None = None, look: LookaheadConfig | None = None,
                 rules: Sequence[str] | None = None, enabled: bool = True) -> None:  # fmt: skip
        self.cfg = cfg or GuardrailConfig()
        self.look = look or LookaheadConfig()
        names = list(RULES) if rules is None else list(rules)
        unknown = [n for n in names if n not in RULES]
        if unknown:
            raise ValueError(f"unknown guardrail rules {unknown}; choose from {', '.join(RULES)}")
        self.rules = [(n, RULES[n]) for n in names]
        self.enabled = enabled

    def check(
        self, decision: Decision, account: Account, *, risk: float, baseline_risk: float,
        recent_high_risk: Sequence[bool], allowed: Sequence[str], volatility: Mapping[str, float],
        drift: Mapping[str, float] | None = None, rng: np.random.Generator,
    ) -> PipelineResult:  # fmt: skip
        """Run all stages; never raises for a bad decision (it is refused with a reason instead)."""
        out = PipelineResult()
        specs, why = orders_of(decision, allowed)
        if decision.type == "DECIDE" and not specs:
            out.rejected.append(
                Refusal("parse", "intent", why or "no order in the decision", decision.intent[:80])
            )
            return out
        recent = list(recent_high_risk)
        for spec in specs:
            if self.enabled:
                spec, note = adjust_for_persona(spec, risk, baseline_risk, self.cfg)
                if note:
                    out.adjusted.append(note)
            qty, limit, reason = size(spec, account)
            if reason:
                out.rejected.append(Refusal("feasibility", "feasible", reason, spec.describe()))
                continue
            total = max(account.total, 1e-9)
            stake = qty * limit / total
            approved = ApprovedOrder(
                agent=account.agent, side=spec.side, instrument=spec.instrument, quantity=qty, limit_price=limit,
                stake=stake, expected_return=decision.expected_return,
                high_risk=spec.side == "BUY" and is_risky(spec.instrument) and stake > self.cfg.high_risk_share,
                notes=tuple(out.adjusted),
            )  # fmt: skip
            if self.enabled:
                failed = next(
                    ((n, r) for n, f in self.rules if (r := f(approved, account, recent, self.cfg))), None
                )
                if failed:
                    out.rejected.append(Refusal("rules", failed[0], failed[1], spec.describe()))
                    continue
                if self.look.enabled and approved.side == "BUY" and stake > self.look.trigger_share:
                    veto = lookahead(approved, account, volatility, drift or {}, self.look, rng, risk)
                    if veto:
                        out.vetoed.append(Refusal("lookahead", "sandbox", veto, spec.describe()))
                        continue
            recent.append(approved.high_risk)
            out.approved.append(approved)
        return out
