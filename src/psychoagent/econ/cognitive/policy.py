"""`cognitive`: households that perceive, remember, recall, decide, pass guardrails, trade and evolve.

Work, spending and saving come from the persona rule (with the evolving persona); the cognitive loop decides
trades in the markets (`model.markets`) and bilateral steel deals. One tick, for each cognitive agent in index
order: encode last tick's events -> perceive -> brief -> decide -> guardrails; then all approved orders are
submitted at once (cleared centrally in the model's trading session); `feedback` turns fills and scored
expectations into memories and persona updates. A `share` of households below 1 keeps the rest on the rule.
The households it thinks for are `CognitiveHousehold` Mesa agents of the model, stepped with AgentSet verbs.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

import mesa
import numpy as np
from mesa.agent import AgentSet

from psychoagent.agent.cognition import tick_time
from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.agents import CognitiveHousehold
from psychoagent.econ.baselines import PersonaHeuristicPolicy
from psychoagent.econ.cognitive.deals import negotiate_deals
from psychoagent.econ.cognitive.heuristic import heuristic_decision
from psychoagent.econ.cognitive.population import PopulationMind, formed_payload
from psychoagent.econ.cognitive.streams import household_generator
from psychoagent.econ.cognitive.trading import MarketSide
from psychoagent.econ.config import PolicyConfig
from psychoagent.econ.intents import HouseholdView, IntentBatch, Outcomes
from psychoagent.econ.mind.guardrails import Guardrails
from psychoagent.econ.mind.household import Expectation, HouseholdMind
from psychoagent.econ.mind.perception import Observation, PriceHistory, TickPerception
from psychoagent.econ.mind.schema import ApprovedOrder, Decision
from psychoagent.econ.settings import AgentMemoryConfig, SimulationConfig
from psychoagent.econ.snapshot import Snapshot
from psychoagent.events import EventType
from psychoagent.persona import EvolutionEngine, OutcomeEvent, Persona
from psychoagent.types import Affect

log = logging.getLogger(__name__)

_DIRECTION = {"sharp_fall": "fall", "below_average": "fall", "sharp_rise": "rise", "above_average": "rise"}
"""Perception signals grouped into the direction a recall asks about (fewer distinct questions, more reuse)."""


class CognitivePolicy(MarketSide, PersonaHeuristicPolicy):
    """The heuristic cognitive policy; subclasses replace `decide_many` (e.g. the LLM policy)."""

    name = "cognitive"

    def __init__(self, cfg: PolicyConfig | None = None, cognitive: CognitiveConfig | None = None,
                 memory: AgentMemoryConfig | None = None) -> None:  # fmt: skip
        super().__init__(cfg)
        self.model: Any = None
        self.memory_settings = memory or AgentMemoryConfig()
        """How the households' memories recall and appraise (a scenario's `memory` table)."""
        self.agents: dict[int, HouseholdMind] = {}
        self._settle(cognitive or CognitiveConfig(), EvolutionEngine())
        self.rng = np.random.default_rng(0)
        self.submitted: dict[int, list[tuple[ApprovedOrder, str]]] = {}
        self.counts: dict[str, int] = {}
        self._tick_limits: tuple[dict[str, float], float] = ({}, 0.0)
        self._near: dict[int, tuple[Any, tuple[list[str], int], list[tuple[str, str, int]]]] = {}
        self.mind: PopulationMind | None = None
        """The population memory of all cognitive households (None with private memories or no memory)."""
        self.household_rng: dict[int, np.random.Generator] = {}
        """Each cognitive household's own generator (decision draws, look-ahead paths, recall exploration)."""

    def _settle(self, cognitive: CognitiveConfig, engine: EvolutionEngine) -> None:
        self.cognitive, self.engine = cognitive, engine
        self.history = PriceHistory(cognitive.perception.history)
        self.guardrails = Guardrails(
            cognitive.guardrails, cognitive.lookahead, enabled=cognitive.ablation.guardrails
        )

    def configure(self, settings: SimulationConfig) -> None:
        """Run with the settings' cognitive loop, persona evolution and memories (a scenario's `cognitive`,
        `evolution` and `memory` tables)."""
        self._settle(settings.cognitive, EvolutionEngine(settings.evolution))
        self.memory_settings = settings.memory

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
            from psychoagent.embed import get_embedder

            embedder = get_embedder("hash")
        shared = embedder is not None and cfg.memory_backend == "population"
        for i in chosen:
            mem = None
            if embedder is not None and not shared:
                from psychoagent.config import MemoryConfig
                from psychoagent.memory import Memory

                mem = Memory(path=None, namespace=f"household:{int(i)}", embedder=embedder, appraiser=None,
                             config=MemoryConfig(recall=self.memory_settings.recall),
                             affect_config=self.memory_settings.affect)  # fmt: skip
            self.agents[int(i)] = HouseholdMind(int(i), personas[int(i)], mem, cfg, population=shared)
            self.household_rng[int(i)] = household_generator(base, int(i))
        if shared:
            assert embedder is not None
            self.mind = PopulationMind(self.agents, embedder, cfg, self.memory_settings, mind_seed,
                                       generators=self.household_rng)  # fmt: skip
        self.enlist(chosen, personas)

    def enlist(
        self, chosen: Sequence[int] | np.ndarray, personas: Mapping[int, Persona] | Sequence[Persona]
    ) -> None:
        """Register households `chosen` with the (Mesa) model as `CognitiveHousehold` agents holding their minds;
        in the economy each takes its plain `Household`'s place in `model.members`."""
        model = self.model
        if not isinstance(model, mesa.Model):
            return
        members = getattr(model, "members", None)
        for i in map(int, chosen):
            mind, draws = self.agents[i], self.household_rng[i]
            if members is not None:
                old = members[i]
                new = CognitiveHousehold(old.model, old.index, old.persona, mind, draws)
                new.unique_id = old.unique_id
                old.remove()
                members[i] = new
            else:
                CognitiveHousehold(model, i, personas[i], mind, draws)

    @property
    def households(self) -> AgentSet:
        """The cognitive households as a Mesa AgentSet in index order (what the tick steps with `select`, `do`
        and `map`; empty before the policy is bound to a model)."""
        found = getattr(self.model, "agents_by_type", {}).get(CognitiveHousehold)
        return found if found is not None else AgentSet([], random=Random(0))

    def _count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def _emit(self, tick: int, type_: str, payload: dict[str, Any], source: str) -> None:
        if self.model is not None:
            self.model.bus.emit(tick, type_, payload, source)
        self._count(type_)

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
        deciding = [(a.index, a.mind) for a in self.households.select(lambda a: a.decides(t))]
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
                    self._emit(t, EventType.MEMORY_FORMED, payload, f"household:{i}")
            return
        households = self.households
        for a, units in zip(households, households.map("encode", t), strict=True):
            if units and journal:
                rows = [(u.content, u.affect, str(u.metadata.get("kind_of", u.kind))) for u in units]
                self._emit(
                    t,
                    EventType.MEMORY_FORMED,
                    formed_payload(rows, [u.id for u in units]),
                    f"household:{a.index}",
                )

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
                self._count("briefing.reused" if briefing.metadata["reused"] else "briefing.built")
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

    def _negotiate(self, t: int, negotiators: list[int], view: HouseholdView,
                   prices: Mapping[str, float]) -> list[ApprovedOrder]:  # fmt: skip
        return negotiate_deals(self, t, negotiators, view, prices)

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
        households = self.households
        scored = dict(
            zip(households.get("index"), households.map(lambda a: a.mind.score(t, prices)), strict=True)
        )
        events = {i: [OutcomeEvent(expected=e.expected, actual=actual, stake=e.stake, domain=e.instrument, time=t)
                      for e, actual in v] for i, v in scored.items() if v and evolve}  # fmt: skip
        evolved = self.engine.update_in_rounds({i: view.personas[i] for i in events}, events)
        updates.update({i: steps[-1][0] for i, steps in evolved.items()})
        if evolve:
            resting = households.select(lambda a: not scored[a.index] and a.rests(t)).get("index")
            rested = self.engine.tick_each([view.personas[i] for i in resting], dt=self.cognitive.decay_every)
            updates.update(zip(resting, rested, strict=True))
        households.do(self._report, t, scored, evolved)
        return updates

    def _report(self, a: CognitiveHousehold, t: int, scored: Mapping[int, list[tuple[Expectation, float]]],
                evolved: Mapping[int, list[tuple[Persona, Any]]]) -> None:  # fmt: skip
        """Journal one household's persona changes, then let it reflect when its turn comes."""
        i = a.index
        for (e, actual), (_, why) in zip(scored[i], evolved.get(i, []), strict=False):
            self._emit(t, EventType.PERSONA_EVOLVED, {"expected": e.expected, "actual": actual, "stake": e.stake,
                       "instrument": e.instrument, "major": why.major, "impact": why.impact,
                       "deltas": why.deltas, "explanation": why.text()}, f"household:{i}")  # fmt: skip
        if a.reflects(t):
            for text in a.mind.reflect(t):
                self._emit(t, EventType.BELIEF_FORMED, {"belief": text}, f"household:{i}")

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
        households = self.households
        for n in news:
            val = int(np.clip(round(2 * n.sentiment), -2, 2))
            affect = Affect(valence=val, arousal=2 if abs(val) > 1 else 1, reason="news sentiment")
            subject = (
                n.topic if n.topic in prices else f"stock:{n.topic}" if f"stock:{n.topic}" in prices else None
            )
            if mind is not None:
                mind.broadcast(t, f"News: {n.headline}", affect, "news")
            if mind is None:
                households.do("note", t, f"News: {n.headline}", affect, kind_of="news", topic=n.topic)
            if subject is not None:
                households.select(lambda a: a.mind.remembers).do(
                    lambda a, n=n, subject=subject: a.mind.semantic.news_belief(
                        subject, n.headline, n.sentiment, when
                    )
                )
        if crowd_text and mind is not None:
            mind.broadcast(t, crowd_text, Affect(reason="routine event"), "public")
        elif crowd_text:
            households.do("note", t, crowd_text, kind_of="public")
