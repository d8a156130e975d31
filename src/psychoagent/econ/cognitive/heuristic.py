"""The heuristic cognitive decision, the default decide step: expected outcome of an action from recalled outcomes
of similar past situations (weighted by their modulated recall scores) blended with a persona-weighted outlook."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

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


def outlook_terms(obs: Observation, cfg: CognitiveConfig) -> tuple[float, float, float]:
    """The parts of `outlook` that depend on the observation alone: trend over the horizon, mean reversion, beliefs."""
    trend = obs.trend * cfg.horizon
    reversion = -obs.fields.get("gap", 0.0)
    belief = cfg.perception.belief_weight * 0.02 * math.tanh(obs.belief_effect)
    return trend, reversion, belief


def trend_weight(persona: Persona, cfg: CognitiveConfig) -> float:
    """Weight of the trend against mean reversion in `outlook`: higher with more risk preference."""
    return _clip(cfg.trend_weight * (0.5 + persona.risk_preference), 0.0, 1.0)


def outlook(obs: Observation, persona: Persona, net_flow: float, cfg: CognitiveConfig,
            terms: tuple[float, float, float] | None = None, w: float | None = None) -> float:  # fmt: skip
    """Rule expectation over the horizon: trend (weighted up by risk preference) vs mean reversion, plus
    beliefs, domain optimism and herding on the order flow (social tendency). `terms`: `outlook_terms(obs)`,
    when already known (observations are shared by the households holding the same beliefs); `w`: the
    persona's `trend_weight`, when already known."""
    w = trend_weight(persona, cfg) if w is None else w
    trend, reversion, belief = terms if terms is not None else outlook_terms(obs, cfg)
    mood = 0.01 * persona.optimism_for(obs.subject)
    herd = 0.01 * persona.social_tendency * net_flow
    return w * trend + (1.0 - w) * reversion + belief + mood + herd


class Evidence:
    """One month's shared work of the heuristic: `outlook_terms` per observation object, and per household the
    recalled outcomes of its briefing's episodes (a reused briefing brings the same episodes list back)."""

    def __init__(
        self, cfg: CognitiveConfig, kept: dict[int, tuple[Any, dict[str, tuple[float, float]]]]
    ) -> None:
        self.cfg = cfg
        self.kept = kept
        self._terms: dict[int, tuple[Observation, tuple[float, float, float]]] = {}

    def terms(self, obs: Observation) -> tuple[float, float, float]:
        """`outlook_terms(obs)`, computed once per observation object."""
        seen = self._terms.get(id(obs))
        if seen is not None and seen[0] is obs:
            return seen[1]
        found = outlook_terms(obs, self.cfg)
        self._terms[id(obs)] = (obs, found)  # the observation is kept alive, so its id stays its own
        return found

    def outcomes(self, household: int, briefing: Briefing | None) -> dict[str, tuple[float, float]]:
        """`recalled_outcomes(briefing)`, reused while household's briefing holds the same episodes list."""
        episodes = briefing.metadata["episodes"] if briefing is not None else None
        seen = self.kept.get(household)
        if episodes is not None and seen is not None and seen[0] is episodes:
            return seen[1]
        found = recalled_outcomes(briefing)
        if episodes is not None:
            self.kept[household] = (episodes, found)
        return found


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
    evidence: dict[str, tuple[float, float]] | None = None, shared: Evidence | None = None,
) -> dict[str, float]:  # fmt: skip
    """Instrument -> expected return of buying it now (memory-weighted when there is evidence). `evidence`:
    `recalled_outcomes(briefing)` when already known; `shared`: the month's outlook terms."""
    out = {}
    if evidence is None:
        evidence = recalled_outcomes(briefing)
    cap = cfg.max_expected
    w = trend_weight(persona, cfg)
    for obs in observations:
        if obs.subject == "macro":
            continue
        terms = shared.terms(obs) if shared is not None else None
        rule = outlook(obs, persona, flows.get(obs.subject, 0.0), cfg, terms, w)
        num, den = evidence.get(obs.subject, (0.0, 0.0))
        mem, weight = (num / den, den) if den > 0 else (0.0, 0.0)
        mw = cfg.memory_weight * min(weight, 1.0)
        out[obs.subject] = _clip((1.0 - mw) * rule + mw * mem, -cap, cap)
    return out


def heuristic_decision(
    observations: Sequence[Observation], briefing: Briefing | None, persona: Persona,
    holdings: Mapping[str, float], flows: Mapping[str, float], cfg: CognitiveConfig,
    draw: float, rejected_before: bool, cash: float = 0.0,
    evidence: dict[str, tuple[float, float]] | None = None, shared: Evidence | None = None,
) -> Decision:  # fmt: skip
    """DECIDE (as a natural-language intent the guardrails parse), NEGOTIATE, ANALYZE or WAIT.

    Buying is bounded by the persona's allocation: the share of assets held in markets may grow up to
    allocation.invest x (1 + optimism) (seed 2.1.1, resource allocation weights). `evidence` and `shared` as
    `expected_returns` takes them."""
    exp = expected_returns(observations, briefing, persona, flows, cfg, evidence, shared)
    if not exp:
        return Decision(type="WAIT", reason="no market to observe yet")
    names = sorted(exp)  # ties go to the first name in order
    best = max(names, key=exp.__getitem__)
    worst = min(names, key=exp.__getitem__)
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
        self._kept: dict[int, tuple[Any, dict[str, tuple[float, float]]]] = {}
        """Per household, the episodes list of its last briefing and their recalled outcomes."""

    def __call__(self, month: Month) -> None:
        kit, view = self.kit, month.view
        shared = Evidence(kit.cognitive, self._kept)
        for d in month.deciding:
            draw = d.draws.random()
            holdings = kit.holdings(d.index)
            cash = float(view.cash[d.index] + view.deposits[d.index])
            d.decision = heuristic_decision(d.observations, d.briefing, d.persona, holdings, month.flows,
                                            kit.cognitive, float(draw), bool(d.mind.feedback), cash,
                                            shared.outcomes(d.index, d.briefing), shared)  # fmt: skip
