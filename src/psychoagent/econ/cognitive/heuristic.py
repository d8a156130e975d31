"""The heuristic cognitive decision, the default decide step: expected outcome of an action from recalled outcomes
of similar past situations (weighted by their modulated recall scores) blended with a persona-weighted outlook."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from psychoagent.agent.cognition import Briefing
from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.cognitive.kit import Kit
from psychoagent.econ.cognitive.month import Month
from psychoagent.econ.mind.perception import Observation
from psychoagent.econ.mind.schema import Decision
from psychoagent.persona import Persona


def _clip(x: float, low: float, high: float) -> float:
    """Scalar clip (np.clip's result for one float, without its array overhead on the hot path)."""
    return float(min(max(x, low), high))


def outlook(obs: Observation, persona: Persona, net_flow: float, cfg: CognitiveConfig) -> float:
    """Rule expectation over the horizon: trend (weighted up by risk preference) vs mean reversion, plus
    beliefs, domain optimism and herding on the order flow (social tendency)."""
    w = _clip(cfg.trend_weight * (0.5 + persona.risk_preference), 0.0, 1.0)
    trend = obs.trend * cfg.horizon
    reversion = -obs.fields.get("gap", 0.0)
    belief = cfg.perception.belief_weight * 0.02 * math.tanh(obs.belief_effect)
    mood = 0.01 * persona.optimism_for(obs.subject)
    herd = 0.01 * persona.social_tendency * net_flow
    return w * trend + (1.0 - w) * reversion + belief + mood + herd


def recalled_outcome(briefing: Briefing | None, instrument: str) -> tuple[float, float]:
    """Score-weighted mean realised return of recalled BUY outcomes on `instrument` and the total weight."""
    if briefing is None:
        return 0.0, 0.0
    num = den = 0.0
    for unit, score, _ in briefing.metadata["episodes"]:
        meta = unit.metadata
        if meta.get("instrument") != instrument or "actual" not in meta:
            continue
        sign = 1.0 if meta.get("side") == "BUY" else -1.0
        num += score * sign * float(meta["actual"])
        den += score
    return (num / den, den) if den > 0 else (0.0, 0.0)


def recalled_outcomes(briefing: Briefing | None) -> dict[str, tuple[float, float]]:
    """`recalled_outcome` of every instrument the briefing's episodes name, in one pass over them."""
    out: dict[str, tuple[float, float]] = {}
    if briefing is None:
        return out
    for unit, score, _ in briefing.metadata["episodes"]:
        meta = unit.metadata
        if "actual" not in meta:
            continue
        sign = 1.0 if meta.get("side") == "BUY" else -1.0
        num, den = out.get(meta.get("instrument"), (0.0, 0.0))
        out[meta.get("instrument")] = (num + score * sign * float(meta["actual"]), den + score)
    return out


def expected_returns(
    observations: Sequence[Observation], briefing: Briefing | None, persona: Persona,
    flows: Mapping[str, float], cfg: CognitiveConfig,
) -> dict[str, float]:  # fmt: skip
    """Instrument -> expected return of buying it now (memory-weighted when there is evidence)."""
    out = {}
    evidence = recalled_outcomes(briefing)
    cap = cfg.max_expected
    for obs in observations:
        if obs.subject == "macro":
            continue
        rule = outlook(obs, persona, flows.get(obs.subject, 0.0), cfg)
        num, den = evidence.get(obs.subject, (0.0, 0.0))
        mem, weight = (num / den, den) if den > 0 else (0.0, 0.0)
        mw = cfg.memory_weight * min(weight, 1.0)
        out[obs.subject] = _clip((1.0 - mw) * rule + mw * mem, -cap, cap)
    return out


def heuristic_decision(
    observations: Sequence[Observation], briefing: Briefing | None, persona: Persona,
    holdings: Mapping[str, float], flows: Mapping[str, float], cfg: CognitiveConfig,
    draw: float, rejected_before: bool, cash: float = 0.0,
) -> Decision:  # fmt: skip
    """DECIDE (as a natural-language intent the guardrails parse), NEGOTIATE, ANALYZE or WAIT.

    Buying is bounded by the persona's allocation: the share of assets held in markets may grow up to
    allocation.invest x (1 + optimism) (seed 2.1.1, resource allocation weights)."""
    exp = expected_returns(observations, briefing, persona, flows, cfg)
    if not exp:
        return Decision(type="WAIT", reason="no market to observe yet")
    best = max(sorted(exp), key=lambda k: exp[k])
    worst = min(sorted(exp), key=lambda k: exp[k])
    price = {o.subject: o.price for o in observations}
    invested = sum(q * price.get(k, 0.0) for k, q in holdings.items())
    total = max(cash + invested, 1e-9)
    target = persona.allocation.invest * (1.0 + persona.optimism_for(best))
    room = max(target - invested / total, 0.0) * total / max(cash, 1e-9)
    share = cfg.trade_share * (0.5 + persona.risk_preference) * (0.5 if rejected_before else 1.0)
    pct = round(100 * min(share, room, 1.0))
    if exp[best] > cfg.min_edge and pct > 0:
        return Decision(
            type="DECIDE", intent=f"use {pct}% of cash to buy as much {best} as possible",
            expected_return=exp[best], instrument=best,
            reason=f"expected {exp[best]:+.1%} over {cfg.horizon} ticks from outlook and recalled outcomes",
        )  # fmt: skip
    if exp[worst] < -cfg.min_edge and holdings.get(worst, 0.0) > 0:
        sell = round(100 * min(0.5 + 0.5 * (1.0 - persona.risk_preference), 1.0))
        return Decision(
            type="DECIDE", intent=f"sell {sell}% of my {worst}", expected_return=-exp[worst], instrument=worst,
            reason=f"expected {exp[worst]:+.1%}: reduce the position",
        )  # fmt: skip
    if "steel" in exp and draw < cfg.negotiation.probability * (0.5 + persona.social_tendency):
        return Decision(type="NEGOTIATE", instrument="steel", reason="look for a bilateral steel deal")
    vol = max((o.volatility for o in observations), default=0.0)
    if vol > 2 * cfg.lookahead.min_volatility and cfg.min_edge / 2 < exp[best] <= cfg.min_edge:
        return Decision(
            type="ANALYZE", instrument=best, reason=f"volatile market ({vol:.1%}), edge unclear; look closer"
        )
    if exp[best] > cfg.min_edge:
        return Decision(
            type="WAIT", reason=f"{best} looks good ({exp[best]:+.1%}) but the invest allocation is used"
        )
    return Decision(type="WAIT", reason=f"no edge (best {exp[best]:+.1%})")


class HeuristicDecide:
    """The `cognitive` policy's decide step: `heuristic_decision` for each deciding household, with one draw of
    the household's own generator (the chance to seek a steel deal)."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit

    def __call__(self, month: Month) -> None:
        kit, view = self.kit, month.view
        for d in month.deciding:
            draw = d.draws.random()
            holdings = kit.holdings(d.index)
            cash = float(view.cash[d.index] + view.deposits[d.index])
            d.decision = heuristic_decision(d.observations, d.briefing, d.persona, holdings, month.flows,
                                            kit.cognitive, float(draw), bool(d.mind.feedback), cash)  # fmt: skip
