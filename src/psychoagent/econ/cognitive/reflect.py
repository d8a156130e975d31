"""The last step of a household's month, after the markets: reflect. Fills become expectations to score and
memories; on each anniversary of its joining a household expects inflation from the years it lived
(`inflation`); a month in which the household's holdings moved enough to draw attention is lived (a memory, and a
persona update weighed by its arousal); expectations whose horizon has passed are scored against today's prices
and evolve the persona, after every household's traits have drifted back toward their baseline on its decay
months (time passes whether or not an outcome arrives); every `reflection.every` months a household abstracts its
episodes into beliefs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from psychoagent.affect.config import OutcomeConfig
from psychoagent.affect.outcome import appraise_outcome
from psychoagent.econ.agents import CognitiveHousehold
from psychoagent.econ.cognitive.inflation import InflationExpectations
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
        self.last: dict[str, float] = {}
        """Last month's prices: a month's return on the holdings is read against them."""
        self.inflation = InflationExpectations(kit)

    def __call__(self, month: Month) -> None:
        kit, t, view = self.kit, month.tick, month.view
        assert kit.host is not None, "a policy reflects only once it is bound to a model"
        snapshot = kit.host.snapshot()
        prices = kit.prices(snapshot)
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
        every = minds or kit.minds()
        lived = self.lived(t, prices, view, every) if evolve else {}
        self.inflation(t, snapshot.inflation, every, view.personas)
        month.expected = {
            i: m.expected_inflation for i, m in every.items() if m.expected_inflation is not None
        }
        for i, event in lived.items():
            events.setdefault(i, []).append(event)
        rested: dict[int, Persona] = {}
        if evolve:  # time passes for every household, whether or not an outcome arrives this month
            due = households.select(lambda a: a.rests(t)).get("index")
            after = kit.engine.tick_each([view.personas[i] for i in due], dt=kit.cognitive.decay_every)
            rested = dict(zip(due, after, strict=True))
        updates.update(rested)
        start = {i: rested.get(i, view.personas[i]) for i in events}
        evolved = kit.engine.update_in_rounds(start, events)
        updates.update({i: steps[-1][0] for i, steps in evolved.items()})
        households.do(self.report, t, scored, evolved, lived)

    def lived(self, t: int, prices: dict[str, float], view: HouseholdView,
              minds: Mapping[int, Any]) -> dict[int, OutcomeEvent]:  # fmt: skip
        """The month's return on each household's risky holdings, appraised: one that draws attention (arousal 2
        or more, a move of 10 % with the default appraiser) becomes an outcome memory and, weighed by the
        arousal above routine, an outcome event for the persona, with the holdings' share of wealth at stake
        (Malmendier & Nagel 2011: risk taking follows the returns one lived through). Without affect modulation
        no month is felt: the memory is kept, the persona does not move."""
        last, self.last = self.last, dict(prices)
        m, cog = self.kit.markets, self.kit.cognitive
        risky = [x for x in prices if is_risky(x) and last.get(x, 0.0) > 0]
        attention = OutcomeConfig().arousal_bands[0]
        if m is None or not risky or max(abs(prices[x] / last[x] - 1.0) for x in risky) < attention:
            return {}  # a long-only portfolio moves no more than its largest holding
        out = {}
        for i, agent in minds.items():
            held = m.holdings(i)
            before = sum(held.get(x, 0.0) * last[x] for x in risky)
            if before <= 0:
                continue
            r = sum(held.get(x, 0.0) * prices[x] for x in risky) / before - 1.0
            stake = min(before / max(float(view.wealth[i]), 1e-9), 1.0)
            felt = appraise_outcome(OutcomeEvent(expected=0.0, actual=r, stake=stake))
            if felt.arousal < 2:
                continue
            top = max(risky, key=lambda x: held.get(x, 0.0) * last[x])
            text = f"My investments {'gained' if r > 0 else 'lost'} {abs(r):.0%} this month ({stake:.0%} of assets)"
            agent.note(t, text, felt, kind_of="outcome", instrument=top, side="BUY", signal="held",
                       expected=0.0, actual=r, risky=True, stake=stake)  # fmt: skip
            if cog.ablation.affect_modulation:
                weight = stake * cog.lived_weight * (felt.arousal_score - 1.0)
                out[i] = OutcomeEvent(expected=0.0, actual=r, stake=min(weight, 1.0), domain="portfolio",
                                      time=t, description=text)  # fmt: skip
        return out

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
               evolved: Mapping[int, list[tuple[Persona, Any]]],
               lived: Mapping[int, OutcomeEvent]) -> None:  # fmt: skip
        """Journal one household's persona changes (its scored trades', then its lived month's), then let it
        reflect when its turn comes."""
        kit, i = self.kit, a.index
        causes = [(e.expected, actual, e.stake, e.instrument, e.side) for e, actual in scored[i]]
        if i in lived:
            causes.append((0.0, lived[i].actual, lived[i].stake, "portfolio", "HELD"))
        for (expected, actual, stake, instrument, side), (_, why) in zip(
            causes, evolved.get(i, []), strict=False
        ):
            kit.emit(t, EventType.PERSONA_EVOLVED, {"expected": expected, "actual": actual, "stake": stake,
                     "instrument": instrument, "side": side, "major": why.major, "impact": why.impact,
                     "deltas": why.deltas, "explanation": why.text()}, f"household:{i}")  # fmt: skip
        if a.reflects(t):
            for text in a.mind.reflect(t):
                kit.emit(t, EventType.BELIEF_FORMED, {"belief": text}, f"household:{i}")
