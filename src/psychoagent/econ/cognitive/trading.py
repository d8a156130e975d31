"""The cognitive policy's side of the markets: quotes and order flows read, an order guarded (persona
adjustment, rules, look-ahead) for one household, approved orders submitted at once, and fills turned into
expectations and memories."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.intents import HouseholdView
from psychoagent.econ.mind.guardrails import Account, Guardrails, is_risky
from psychoagent.econ.mind.household import Expectation, HouseholdMind
from psychoagent.econ.mind.perception import Observation
from psychoagent.econ.mind.schema import ApprovedOrder, Decision
from psychoagent.econ.snapshot import Snapshot
from psychoagent.events import EventType
from psychoagent.persona import Persona
from psychoagent.types import Affect


class MarketSide:
    """Market access shared by the cognitive policies (mixed into `CognitivePolicy`, which sets the state)."""

    model: Any
    cognitive: CognitiveConfig
    guardrails: Guardrails
    agents: dict[int, HouseholdMind]
    household_rng: dict[int, np.random.Generator]
    submitted: dict[int, list[tuple[ApprovedOrder, str]]]
    _tick_limits: tuple[dict[str, float], float]

    def _count(self, key: str, n: int = 1) -> None:
        raise NotImplementedError

    def _emit(self, tick: int, type_: str, payload: dict[str, Any], source: str) -> None:
        raise NotImplementedError

    @property
    def markets(self) -> Any:
        return getattr(self.model, "markets", None)

    def instruments(self) -> list[str]:
        m = self.markets
        listed = list(m.instruments) if m is not None else []
        wanted = self.cognitive.instruments
        return [x for x in listed if not wanted or x in wanted]

    def prices(self, snapshot: Snapshot) -> dict[str, float]:
        m = self.markets
        out = {}
        for name in self.instruments():
            try:
                out[name] = float(m.quote(name).price)
            except Exception:  # a quote that fails is skipped this tick, never fatal
                self._count("quote.failed")
        return out

    def flows(self) -> dict[str, float]:
        m = self.markets
        out = {}
        for name in self.instruments():
            try:
                out[name] = float(m.quote(name).net_flow)
            except Exception:
                out[name] = 0.0
        return out

    def _holdings(self, i: int) -> dict[str, float]:
        m = self.markets
        return dict(m.holdings(i)) if m is not None else {}

    def _limits(self) -> tuple[dict[str, float], float]:
        """Position caps per instrument and the fee rate of the markets (empty / 0 when not published)."""
        m = self.markets
        caps_of = getattr(m, "position_caps", None) or getattr(m, "_caps", None)
        caps = dict(caps_of()) if callable(caps_of) else {}
        fee = float(getattr(getattr(m, "cfg", None), "fee_rate", 0.0) or 0.0)
        return caps, fee

    def _account(
        self,
        i: int,
        view: HouseholdView,
        prices: Mapping[str, float],
        changes: Mapping[str, float] | None = None,
    ) -> Account:
        income = float(view.potential_income[i])
        held = self._holdings(i)
        caps, fee = self._tick_limits
        room = {k: max(c - held.get(k, 0.0), 0.0) for k, c in caps.items()}
        return Account(agent=i, cash=float(view.cash[i] + view.deposits[i]), holdings=held, prices=prices,
                       income=income, spending=float(view.consume_share[i]) * income, supply=room, fee_rate=fee,
                       changes=changes or {})  # fmt: skip

    def _guard(self, t: int, i: int, agent: HouseholdMind, persona: Persona, obs: Sequence[Observation],
               decision: Decision, view: HouseholdView, prices: Mapping[str, float]) -> list[ApprovedOrder]:  # fmt: skip
        agent.feedback = []
        if decision.type != "DECIDE":
            return []
        vol = {o.subject: o.volatility for o in obs}
        res = self.guardrails.check(
            decision, self._account(i, view, prices, {o.subject: o.change for o in obs}), risk=persona.risk_preference,
            baseline_risk=persona.baseline.risk_preference, recent_high_risk=list(agent.high_risk),
            allowed=list(prices), volatility=vol, rng=self.household_rng[i],
        )  # fmt: skip
        src = f"household:{i}"
        for note in res.adjusted:
            self._emit(t, EventType.GUARDRAIL_ADJUSTED, {"reason": note, "intent": decision.intent}, src)
        for r in res.rejected:
            self._emit(t, EventType.GUARDRAIL_REJECTED, {"stage": r.stage, "rule": r.rule, "reason": r.reason,
                                                 "order": r.order, "intent": decision.intent}, src)  # fmt: skip
        for r in res.vetoed:
            self._emit(
                t, EventType.GUARDRAIL_VETOED, {"rule": r.rule, "reason": r.reason, "order": r.order}, src
            )
        agent.feedback = res.feedback()
        for f in agent.feedback:
            agent.note(t, f"My order was refused: {f}", Affect(valence=-1, arousal=2, reason="guardrail refusal"),
                       kind_of="refusal")  # fmt: skip
        signal = next((o.signal for o in obs if o.subject == decision.instrument), "steady")
        for o in res.approved:
            agent.high_risk.append(o.high_risk)
        self.submitted.setdefault(i, []).extend((o, signal) for o in res.approved)
        return res.approved

    def _submit(self, t: int, orders: list[ApprovedOrder], prices: Mapping[str, float]) -> None:
        m = self.markets
        if m is None or not orders:
            return
        from psychoagent.econ.orders import Order

        receipt = m.submit([Order(agent_id=o.agent, instrument=o.instrument, side=o.side, quantity=o.quantity,
                                  limit_price=o.limit_price) for o in orders])  # fmt: skip
        for rej in receipt.rejected:
            agent = self.agents.get(rej.agent_id)
            if agent is not None:
                agent.feedback.append(f"market: {rej.reason}: {rej.detail}")
                agent.note(t, f"The market refused my order: {rej.detail}",
                           Affect(valence=-1, arousal=2, reason="market rejection"), kind_of="refusal")  # fmt: skip
            self._count("market.rejected")

    def _fills(self, t: int, i: int, submitted: list[tuple[ApprovedOrder, str]], view: HouseholdView) -> None:
        m = self.markets
        agent = self.agents.get(i)
        if m is None or agent is None:
            return
        got: dict[tuple[str, str], tuple[float, float]] = {}
        for f in m.fills(i):
            q, v = got.get((f.instrument, str(f.side)), (0.0, 0.0))
            got[(f.instrument, str(f.side))] = (q + f.quantity, v + f.quantity * f.price)
        total = max(float(view.wealth[i]), 1e-9)
        done: list[str] = []
        for o, signal in submitted:
            q, v = got.pop((o.instrument, o.side), (0.0, 0.0))
            if q <= 1e-12:
                done.append(
                    f"my {o.side.lower()} order for {o.instrument} at {o.limit_price:.4g} was not filled"
                )
                continue
            price = v / q
            done.append(f"{'bought' if o.side == 'BUY' else 'sold'} {q:.3g} {o.instrument} at {price:.4g}")
            if signal != "negotiated":
                agent.expect(Expectation(t, t + self.cognitive.horizon, o.instrument, o.side, price, q,
                                         o.expected_return, min(q * price / total, 1.0), signal,
                                         is_risky(o.instrument) or o.high_risk))  # fmt: skip
        if done:
            agent.note(t, "Trading: " + "; ".join(done), kind_of="fill")
