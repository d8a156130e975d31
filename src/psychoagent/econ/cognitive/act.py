"""The middle steps of a household's month: guard (every decision through the guardrails: persona adjustment,
feasibility, rules, look-ahead; each refusal remembered and shown next month) and act (steel deals negotiated
between the households seeking one, then all approved orders submitted to the markets at once)."""

from __future__ import annotations

from psychoagent.econ.cognitive.deals import negotiate_deals
from psychoagent.econ.cognitive.kit import Kit
from psychoagent.econ.cognitive.month import Deciding, Month
from psychoagent.econ.cognitive.trace import trace
from psychoagent.econ.intents import HouseholdView
from psychoagent.econ.mind.schema import ApprovedOrder
from psychoagent.events import EventType
from psychoagent.types import Affect


class Guard:
    """Count each decision, mark who seeks a deal (NEGOTIATE) or a closer look (ANALYZE), and pass every DECIDE
    through the guardrails; the approved orders wait in `month.orders` (and `kit.submitted`) in household order."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit

    def __call__(self, month: Month) -> None:
        for d in month.deciding:
            assert d.decision is not None, "the decide step leaves a decision for every deciding household"
            self.kit.count(f"decision.{d.decision.type}")
            if d.decision.type == "NEGOTIATE":
                month.negotiators.append(d.index)
            elif d.decision.type == "ANALYZE":
                d.mind.analyze_next = True
            month.orders += self.check(month.tick, d, month.view, month.prices)

    def check(
        self, t: int, d: Deciding, view: HouseholdView, prices: dict[str, float]
    ) -> list[ApprovedOrder]:
        """One household's decision through the guardrails; events for what was adjusted, rejected or vetoed."""
        kit, agent, decision, obs, i = self.kit, d.mind, d.decision, d.observations, d.index
        assert decision is not None
        agent.feedback = []
        if decision.type != "DECIDE":
            trace(kit, t, d, None, len(view.ids))
            return []
        vol = {o.subject: o.volatility for o in obs}
        res = kit.guardrails.check(
            decision, kit.account(i, view, prices, {o.subject: o.change for o in obs}), risk=d.persona.risk_preference,
            baseline_risk=d.persona.baseline.risk_preference, recent_high_risk=list(agent.high_risk),
            allowed=list(prices), volatility=vol, rng=d.draws,
        )  # fmt: skip
        src = f"household:{i}"
        for note in res.adjusted:
            kit.emit(t, EventType.GUARDRAIL_ADJUSTED, {"reason": note, "intent": decision.intent}, src)
        for r in res.rejected:
            kit.emit(t, EventType.GUARDRAIL_REJECTED, {"stage": r.stage, "rule": r.rule, "reason": r.reason,
                                                       "order": r.order, "intent": decision.intent}, src)  # fmt: skip
        for r in res.vetoed:
            kit.emit(
                t, EventType.GUARDRAIL_VETOED, {"rule": r.rule, "reason": r.reason, "order": r.order}, src
            )
        trace(kit, t, d, res, len(view.ids))
        agent.feedback = res.feedback()
        for f in agent.feedback:
            agent.note(t, f"My order was refused: {f}", Affect(valence=-1, arousal=2, reason="guardrail refusal"),
                       kind_of="refusal")  # fmt: skip
        signal = next((o.signal for o in obs if o.subject == decision.instrument), "steady")
        for o in res.approved:
            agent.high_risk.append(o.high_risk)
        kit.submitted.setdefault(i, []).extend((o, signal) for o in res.approved)
        return res.approved


class Act:
    """Negotiate the steel deals the households seek (their orders join the month's), then submit every approved
    order to the markets at once; they clear in the month's trading session."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit

    def __call__(self, month: Month) -> None:
        month.orders += negotiate_deals(self.kit, month.tick, month.negotiators, month.view, month.prices)
        self.kit.submit(month.tick, month.orders)
