"""The last step of a household's month, after the markets: reflect. Fills become expectations to score and
memories; expectations whose horizon has passed are scored against today's prices and evolve the persona, after
every household's traits have drifted back toward their baseline on its decay months (time passes whether or not
an outcome arrives); every `reflection.every` months a household abstracts its episodes into beliefs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from psychoagent.econ.agents import CognitiveHousehold
from psychoagent.econ.cognitive.kit import Kit
from psychoagent.econ.cognitive.month import Month
from psychoagent.econ.intents import HouseholdView
from psychoagent.econ.mind.guardrails import is_risky
from psychoagent.econ.mind.household import Expectation
from psychoagent.econ.mind.schema import ApprovedOrder
from psychoagent.events import EventType
from psychoagent.persona import OutcomeEvent, Persona


class Reflect:
    """Fills -> expectations and notes; due expectations scored -> persona evolution; reports and reflection,
    household by household in index order. Leaves the new personas in `month.updates`."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit

    def __call__(self, month: Month) -> None:
        kit, t, view = self.kit, month.tick, month.view
        assert kit.host is not None, "a policy reflects only once it is bound to a model"
        prices = kit.prices(kit.host.snapshot())
        updates = month.updates
        minds = kit.minds() if kit.submitted else {}
        for i, submitted in sorted(kit.submitted.items()):
            self.fills(t, i, minds.get(i), submitted, view)
        kit.submitted = {}
        evolve = kit.cognitive.ablation.persona_evolution
        households = kit.households()
        scored = dict(
            zip(households.get("index"), households.map(lambda a: a.mind.score(t, prices)), strict=True)
        )
        sale = kit.cognitive.sale_weight
        events = {i: [OutcomeEvent(expected=e.expected, actual=actual, domain=e.instrument, time=t,
                                   stake=e.stake * (sale if e.side == "SELL" else 1.0))
                      for e, actual in v] for i, v in scored.items() if v and evolve}  # fmt: skip
        rested: dict[int, Persona] = {}
        if evolve:  # time passes for every household, whether or not an outcome arrives this month
            due = households.select(lambda a: a.rests(t)).get("index")
            after = kit.engine.tick_each([view.personas[i] for i in due], dt=kit.cognitive.decay_every)
            rested = dict(zip(due, after, strict=True))
        updates.update(rested)
        start = {i: rested.get(i, view.personas[i]) for i in events}
        evolved = kit.engine.update_in_rounds(start, events)
        updates.update({i: steps[-1][0] for i, steps in evolved.items()})
        households.do(self.report, t, scored, evolved)

    def fills(self, t: int, i: int, agent: Any, submitted: list[tuple[ApprovedOrder, str]],
              view: HouseholdView) -> None:  # fmt: skip
        """What the session did with household i's orders: an expectation to score for each fill (deals are
        not scored), and one note of the fills and expiries."""
        m = self.kit.markets
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
                agent.expect(Expectation(t, t + self.kit.cognitive.horizon, o.instrument, o.side, price, q,
                                         o.expected_return, min(q * price / total, 1.0), signal,
                                         is_risky(o.instrument) or o.high_risk))  # fmt: skip
        if done:
            agent.note(t, "Trading: " + "; ".join(done), kind_of="fill")

    def report(self, a: CognitiveHousehold, t: int, scored: Mapping[int, list[tuple[Expectation, float]]],
               evolved: Mapping[int, list[tuple[Persona, Any]]]) -> None:  # fmt: skip
        """Journal one household's persona changes, then let it reflect when its turn comes."""
        kit, i = self.kit, a.index
        for (e, actual), (_, why) in zip(scored[i], evolved.get(i, []), strict=False):
            kit.emit(t, EventType.PERSONA_EVOLVED, {"expected": e.expected, "actual": actual, "stake": e.stake,
                     "instrument": e.instrument, "side": e.side, "major": why.major, "impact": why.impact,
                     "deltas": why.deltas, "explanation": why.text()}, f"household:{i}")  # fmt: skip
        if a.reflects(t):
            for text in a.mind.reflect(t):
                kit.emit(t, EventType.BELIEF_FORMED, {"belief": text}, f"household:{i}")
