"""`cognitive`: households that perceive, remember, recall, decide, pass guardrails, trade and evolve.

Work, spending and saving come from the persona rule (with the evolving persona); the cognitive loop decides
trades in the markets (`model.markets`) and bilateral steel deals. One tick, for each cognitive agent in index
order: encode last tick's events -> perceive -> brief -> decide -> guardrails; then all approved orders are
submitted at once (cleared centrally in the model's trading session); `feedback` turns fills and scored
expectations into memories and persona updates. A `share` of households below 1 keeps the rest on the rule.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from psychoagent.affect.config import AffectiveMemoryConfig, ConflictConfig
from psychoagent.agent.cognition import tick_time
from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.cognitive.deals import negotiate_deals
from psychoagent.econ.cognitive.heuristic import heuristic_decision
from psychoagent.econ.cognitive.population import PopulationMind, formed_payload
from psychoagent.econ.cognitive.streams import household_generator
from psychoagent.econ.config import PolicyConfig
from psychoagent.econ.mind.guardrails import Account, Guardrails, is_risky
from psychoagent.econ.mind.household import Expectation, HouseholdMind
from psychoagent.econ.mind.perception import Observation, PriceHistory, TickPerception
from psychoagent.econ.mind.schema import ApprovedOrder, Decision
from psychoagent.econ.policies import HouseholdView, IntentBatch, Outcomes, PersonaHeuristicPolicy
from psychoagent.econ.snapshot import Snapshot
from psychoagent.persona import EvolutionEngine, OutcomeEvent, Persona
from psychoagent.types import Affect

log = logging.getLogger(__name__)

_DIRECTION = {"sharp_fall": "fall", "below_average": "fall", "sharp_rise": "rise", "above_average": "rise"}
"""Perception signals grouped into the direction a recall asks about (fewer distinct questions, more reuse)."""

_EVENT_MEMORY = AffectiveMemoryConfig(conflicts=ConflictConfig(detect_changes=False))
"""Households remember numeric market events: a later price is news, not a correction of an earlier one, so
only rule-based slot clashes (same slot, different value) link their memories, as the economy was calibrated."""


class CognitivePolicy(PersonaHeuristicPolicy):
    """The heuristic cognitive policy; subclasses replace `decide_many` (e.g. the LLM policy)."""

    name = "cognitive"

    def __init__(self, cfg: PolicyConfig | None = None, cognitive: CognitiveConfig | None = None) -> None:
        super().__init__(cfg)
        self.cognitive = cognitive or CognitiveConfig()
        self.engine = EvolutionEngine()
        self.model: Any = None
        self.agents: dict[int, HouseholdMind] = {}
        self.history = PriceHistory(self.cognitive.perception.history)
        self.guardrails = Guardrails(self.cognitive.guardrails, self.cognitive.lookahead,
                                     enabled=self.cognitive.ablation.guardrails)  # fmt: skip
        self.rng = np.random.default_rng(0)
        self.submitted: dict[int, list[tuple[ApprovedOrder, str]]] = {}
        self.counts: dict[str, int] = {}
        self._tick_limits: tuple[dict[str, float], float] = ({}, 0.0)
        self._near: dict[int, tuple[Any, tuple[list[str], int], list[tuple[str, str, int]]]] = {}
        self.mind: PopulationMind | None = None
        """The population memory of all cognitive households (None with private memories or no memory)."""
        self.household_rng: dict[int, np.random.Generator] = {}
        """Each cognitive household's own generator (decision draws, look-ahead paths, recall exploration)."""

    # -- wiring ----------------------------------------------------------------------------------------------
    def bind(self, model: Any) -> None:
        """Called by the model once it exists: markets, bus, seeded generator, memory and the cognitive agents."""
        self.model = model
        chosen, base, mind_seed = self.draw_seeds(model)
        self.populate(chosen, model.personas, base, mind_seed)

    def draw_seeds(self, model: Any) -> tuple[np.ndarray, int, int]:
        """The policy's generator, the cognitive households, and the seeds of their own generators and of the
        population memory, all from `model.rng` (a sharded run draws the same on its driver)."""
        self.rng = np.random.default_rng(int(model.rng.integers(2**32)))
        n = len(model.personas)
        k = max(1, round(self.cognitive.share * n))
        chosen = np.sort(self.rng.choice(n, size=k, replace=False)) if k < n else np.arange(n)
        base = int(self.rng.integers(2**32))
        return chosen, base, int(self.rng.integers(2**32))

    def populate(self, chosen: Sequence[int] | np.ndarray, personas: Mapping[int, Persona] | Sequence[Persona],
                 base: int, mind_seed: int) -> None:  # fmt: skip
        """The cognitive agents of households `chosen` (a run's, or one shard's), their memory and their own
        generators (seeded from `base` and the index: what one decides does not depend on who shares its process)."""
        cfg = self.cognitive
        embedder = None
        if cfg.ablation.memory:
            from psychoagent.memory.embed import get_embedder

            embedder = get_embedder("hash")
        shared = embedder is not None and cfg.memory_backend == "population"
        for i in chosen:
            mem = None
            if embedder is not None and not shared:
                from psychoagent.memory.core import Memory

                mem = Memory(path=None, namespace=f"household:{int(i)}", embedder=embedder, appraiser=None,
                             affect_config=_EVENT_MEMORY)  # fmt: skip
            self.agents[int(i)] = HouseholdMind(int(i), personas[int(i)], mem, cfg, population=shared)
            self.household_rng[int(i)] = household_generator(base, int(i))
        if shared:
            assert embedder is not None
            self.mind = PopulationMind(self.agents, embedder, cfg, _EVENT_MEMORY, mind_seed,
                                       generators=self.household_rng)  # fmt: skip

    def _count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def _emit(self, tick: int, type_: str, payload: dict[str, Any], source: str) -> None:
        if self.model is not None:
            self.model.bus.emit(tick, type_, payload, source)
        self._count(type_)

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

    # -- the tick --------------------------------------------------------------------------------------------
    def decide_batch(self, snapshot: Snapshot, view: HouseholdView) -> IntentBatch:
        intents = super().decide_batch(snapshot, view)
        if self.model is None or not self.agents:
            return intents
        t = snapshot.tick
        prices = self.prices(snapshot)
        flows = self.remember(t, snapshot, prices)
        orders, negotiators = self.decide_households(t, snapshot, view, prices, flows)
        orders += self._negotiate(t, negotiators, view, prices)
        self._submit(t, orders, prices)
        return intents

    def remember(self, t: int, snapshot: Snapshot, prices: Mapping[str, float]) -> dict[str, float]:
        """Record the prices, store the public events and every agent's queued events; returns the order flows."""
        self.history.record(t, prices)
        flows = self.flows()
        self._tick_limits = self._limits()
        self._public_events(t, snapshot, prices, flows)
        self._encode(t)
        return flows

    def decide_households(self, t: int, snapshot: Snapshot, view: HouseholdView, prices: Mapping[str, float],
                          flows: Mapping[str, float]) -> tuple[list[ApprovedOrder], list[int]]:  # fmt: skip
        """Perceive, brief, decide and guard every deciding agent (each reads only its own household's state);
        returns the approved orders and the agents seeking a steel deal, both in agent order."""
        indicators = {"interest_rate": snapshot.interest_rate, "inflation": snapshot.inflation,
                      "unemployment": snapshot.unemployment}  # fmt: skip
        seeing = TickPerception(self.history, list(prices), self.cognitive.perception, indicators)
        deciding = [(i, a) for i, a in self.agents.items() if not (t + i) % self.cognitive.decide_every]
        contexts = self._briefings(t, deciding, seeing, view)
        decisions = self.decide_many(t, contexts, flows)
        orders: list[ApprovedOrder] = []
        negotiators: list[int] = []
        for (i, agent, persona, obs, _), decision in zip(contexts, decisions, strict=True):
            self._count(f"decision.{decision.type}")
            if decision.type == "NEGOTIATE":
                negotiators.append(i)
            elif decision.type == "ANALYZE":
                agent.analyze_next = True
            orders += self._guard(t, i, agent, persona, obs, decision, view, prices)
        return orders, negotiators

    def _encode(self, t: int) -> None:
        """Store every agent's queued events (one batch for the population memory); journal what was formed."""
        journal = self.cognitive.journal_memories
        if self.mind is not None:
            for i, payload in self.mind.encode(t).items():
                if journal:
                    self._emit(t, "memory.formed", payload, f"household:{i}")
            return
        for i, agent in self.agents.items():
            units = agent.encode(t)
            if units and journal:
                rows = [(u.content, u.affect, str(u.metadata.get("kind_of", u.kind))) for u in units]
                self._emit(t, "memory.formed", formed_payload(rows, [u.id for u in units]), f"household:{i}")

    def _briefings(self, t: int, deciding: Sequence[tuple[int, HouseholdMind]], seeing: TickPerception,
                   view: HouseholdView) -> list[tuple[int, HouseholdMind, Persona, list[Observation], Any]]:  # fmt: skip
        """Perception and briefing of every deciding agent; fresh recalls of the population run as one batch."""
        contexts: list[Any] = []
        asks: list[tuple[int, str, int, Persona]] = []
        waiting: list[tuple[int, tuple[str, int], list[str]]] = []
        for i, agent in deciding:
            persona = view.personas[i]
            obs = seeing.observe(agent.semantic.by_subject())
            focus = max((o for o in obs if o.subject != "macro"), key=lambda o: abs(o.change), default=None)
            trend = _DIRECTION.get(focus.signal, "steady") if focus else "steady"
            query = f"bought after a {trend} signal expecting; ticks later success or failure"
            entities = [o.subject for o in obs] + ["interest_rate"]
            situation = agent.situation(query, persona)
            cached = agent.reusable(t, situation) if self.mind is not None else None
            if self.mind is None or cached is not None:
                briefing = (agent.render(obs, persona, *cached, reused=True) if cached is not None
                            else agent.brief(t, query, obs, entities, persona))  # fmt: skip
                self._count("briefing.reused" if briefing.reused else "briefing.built")
            else:
                asks.append((i, query, agent.recall_k, persona))
                waiting.append((len(contexts), situation, entities))
                briefing = None
            contexts.append([i, agent, persona, obs, briefing])
        if self.mind is not None:
            depth = self.cognitive.recall.graph_depth
            for (at, situation, entities), episodes in zip(waiting, self.mind.recall(t, asks), strict=True):
                i, agent, persona, obs, _ = contexts[at]
                beliefs = self._beliefs_near(agent, entities, depth) if depth > 0 else []
                contexts[at][4] = agent.render(
                    obs, persona, *agent.keep_recall(t, situation, episodes, beliefs)
                )
                self._count("briefing.built")
        return [tuple(c) for c in contexts]

    def _beliefs_near(
        self, agent: HouseholdMind, entities: list[str], depth: int
    ) -> list[tuple[str, str, int]]:
        """`semantic.beliefs_near`, reused while the agent's beliefs are unchanged (its `by_subject()` result is
        the same object until a belief is set)."""
        current = agent.semantic.by_subject()
        seen = self._near.get(agent.index)
        if seen is not None and seen[0] is current and seen[1] == (entities, depth):
            return seen[2]
        found = agent.semantic.beliefs_near(entities, depth)
        self._near[agent.index] = (current, (entities, depth), found)
        return found

    def decide_many(self, tick: int, contexts: Sequence[tuple[int, HouseholdMind, Persona, list[Observation], Any]],
                    flows: Mapping[str, float]) -> list[Decision]:  # fmt: skip
        """One decision per context (heuristic); the LLM policy batches these into one model call."""
        out = []
        for i, agent, persona, obs, briefing in contexts:
            draw = self.household_rng[i].random()
            holdings = self._holdings(i)
            cash = float(self.model.households.cash[i] + self.model.households.deposits[i])
            out.append(heuristic_decision(obs, briefing, persona, holdings, flows, self.cognitive, float(draw),
                                          bool(agent.feedback), cash))  # fmt: skip
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
            self._emit(t, "guardrail.adjusted", {"reason": note, "intent": decision.intent}, src)
        for r in res.rejected:
            self._emit(t, "guardrail.rejected", {"stage": r.stage, "rule": r.rule, "reason": r.reason,
                                                 "order": r.order, "intent": decision.intent}, src)  # fmt: skip
        for r in res.vetoed:
            self._emit(t, "guardrail.vetoed", {"rule": r.rule, "reason": r.reason, "order": r.order}, src)
        agent.feedback = res.feedback()
        for f in agent.feedback:
            agent.note(t, f"My order was refused: {f}", Affect(valence=-1, arousal=2, reason="guardrail refusal"),
                       kind_of="refusal")  # fmt: skip
        signal = next((o.signal for o in obs if o.subject == decision.instrument), "steady")
        for o in res.approved:
            agent.high_risk.append(o.high_risk)
        self.submitted.setdefault(i, []).extend((o, signal) for o in res.approved)
        return res.approved

    def _negotiate(self, t: int, negotiators: list[int], view: HouseholdView,
                   prices: Mapping[str, float]) -> list[ApprovedOrder]:  # fmt: skip
        return negotiate_deals(self, t, negotiators, view, prices)

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

    # -- after the tick --------------------------------------------------------------------------------------
    def feedback(self, outcomes: Outcomes, view: HouseholdView) -> Mapping[int, Persona] | None:
        t = outcomes.tick
        if self.model is None:
            return None
        prices = self.prices(self.model.snapshot())
        updates: dict[int, Persona] = {}
        for i, submitted in sorted(self.submitted.items()):
            self._fills(t, i, submitted, view)
        self.submitted = {}
        evolve = self.cognitive.ablation.persona_evolution
        scored = {i: agent.score(t, prices) for i, agent in self.agents.items()}
        events = {i: [OutcomeEvent(expected=e.expected, actual=actual, stake=e.stake, domain=e.instrument, time=t)
                      for e, actual in v] for i, v in scored.items() if v and evolve}  # fmt: skip
        evolved = self.engine.update_in_rounds({i: view.personas[i] for i in events}, events)
        updates.update({i: steps[-1][0] for i, steps in evolved.items()})
        if evolve:
            resting = [i for i in self.agents if not scored[i] and (t + i) % self.cognitive.decay_every == 0]
            rested = self.engine.tick_each([view.personas[i] for i in resting], dt=self.cognitive.decay_every)
            updates.update(zip(resting, rested, strict=True))
        for i, agent in self.agents.items():
            for (e, actual), (_, why) in zip(scored[i], evolved.get(i, []), strict=False):
                self._emit(t, "persona.evolved", {"expected": e.expected, "actual": actual, "stake": e.stake,
                           "instrument": e.instrument, "major": why.major, "impact": why.impact,
                           "deltas": why.deltas, "explanation": why.text()}, f"household:{i}")  # fmt: skip
            if (t + i) % self.cognitive.reflection.every == 0:
                for text in agent.reflect(t):
                    self._emit(t, "belief.formed", {"belief": text}, f"household:{i}")
        return updates

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

    def _public_events(self, t: int, snapshot: Snapshot, prices: Mapping[str, float],
                       flows: Mapping[str, float]) -> None:  # fmt: skip
        """News and others' actions, read by every cognitive agent; news about an instrument forms a belief."""
        cfg = self.cognitive
        notable = [n for n in snapshot.news if abs(n.sentiment) >= cfg.news_min_sentiment]
        news = sorted(notable, key=lambda n: -abs(n.sentiment))[: cfg.news_memories]
        news += [n for n in snapshot.news if n.source.startswith("firm:") and n not in news]  # firms' actions
        crowd = [f"buyers outnumbered sellers in {k}" if v > 0 else f"sellers outnumbered buyers in {k}"
                 for k, v in sorted(flows.items()) if abs(v) > cfg.crowd_threshold]  # fmt: skip
        crowd_text = "Others' trades: " + "; ".join(crowd) if crowd else ""
        when = tick_time(t)
        mind = self.mind
        for n in news:
            val = int(np.clip(round(2 * n.sentiment), -2, 2))
            affect = Affect(valence=val, arousal=2 if abs(val) > 1 else 1, reason="news sentiment")
            subject = (
                n.topic if n.topic in prices else f"stock:{n.topic}" if f"stock:{n.topic}" in prices else None
            )
            if mind is not None:
                mind.broadcast(t, f"News: {n.headline}", affect, "news")
            for agent in self.agents.values():
                if mind is None:
                    agent.note(t, f"News: {n.headline}", affect, kind_of="news", topic=n.topic)
                if subject is not None and agent.remembers:
                    agent.semantic.news_belief(subject, n.headline, n.sentiment, when)
        if crowd_text and mind is not None:
            mind.broadcast(t, crowd_text, Affect(reason="routine event"), "public")
        elif crowd_text:
            for agent in self.agents.values():
                agent.note(t, crowd_text, kind_of="public")
