"""The first steps of a household's month: perceive (the month's prices, news and order flow; what each
household noticed since last month stored as memories; the markets observed by each deciding household) and
recall (a briefing of what each deciding household remembers of situations like this one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from psychoagent.agent.cognition import tick_time
from psychoagent.econ.cognitive.kit import Kit
from psychoagent.econ.cognitive.month import Deciding, Month
from psychoagent.econ.cognitive.population import formed_payload
from psychoagent.econ.mind.household import HouseholdMind
from psychoagent.econ.mind.perception import BeliefKeys, TickPerception
from psychoagent.econ.snapshot import Snapshot
from psychoagent.events import EventType
from psychoagent.types import Affect

_DIRECTION = {"sharp_fall": "fall", "below_average": "fall", "sharp_rise": "rise", "above_average": "rise"}
"""Perception signals grouped into the direction a recall asks about (fewer distinct questions, more reuse)."""


class Perceive:
    """Read the month's prices and order flows, tell every household the public events, store what each noticed
    since last month (one batch for the population memory), then observe the markets for each household that
    decides this month (`decide_every`, staggered by index)."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit
        self.keys = BeliefKeys()
        """The households' belief lists and their canonical tuples, kept from one month to the next."""

    def __call__(self, month: Month) -> None:
        kit, t = self.kit, month.tick
        assert month.snapshot is not None
        month.prices = prices = kit.prices(month.snapshot)
        kit.history.record(t, prices)
        month.flows = kit.flows()
        kit.read_limits()
        self.public_events(t, month.snapshot, prices, month.flows)
        self.encode(t)
        indicators = {"interest_rate": month.snapshot.interest_rate, "inflation": month.snapshot.inflation,
                      "unemployment": month.snapshot.unemployment}  # fmt: skip
        self.keys.next_month()
        seeing = TickPerception(kit.history, list(prices), kit.cognitive.perception, indicators, self.keys)
        personas = month.view.personas
        month.deciding = [
            Deciding(
                a.index, a.mind, personas[a.index], a.draws, seeing.observe(a.mind.semantic.by_subject())
            )
            for a in kit.households().select(lambda a: a.decides(t))
        ]

    def public_events(self, t: int, snapshot: Snapshot, prices: Mapping[str, float],
                      flows: Mapping[str, float]) -> None:  # fmt: skip
        """News and others' actions, read by every cognitive agent; news about an instrument forms a belief."""
        kit = self.kit
        cfg = kit.cognitive
        notable = [n for n in snapshot.news if abs(n.sentiment) >= cfg.news_min_sentiment]
        news = sorted(notable, key=lambda n: -abs(n.sentiment))[: cfg.news_memories]
        news += [n for n in snapshot.news if n.source.startswith("firm:") and n not in news]  # firms' actions
        crowd = [f"buyers outnumbered sellers in {k}" if v > 0 else f"sellers outnumbered buyers in {k}"
                 for k, v in sorted(flows.items()) if abs(v) > cfg.crowd_threshold]  # fmt: skip
        crowd_text = "Others' trades: " + "; ".join(crowd) if crowd else ""
        when = tick_time(t)
        mind = kit.population
        households = kit.households()
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

    def encode(self, t: int) -> None:
        """Store every agent's queued events (one batch for the population memory); journal what was formed."""
        kit = self.kit
        journal = kit.cognitive.journal_memories
        households = kit.households()
        if kit.population is not None:
            for i, payload in kit.population.encode(t, [(a.index, a.mind) for a in households]).items():
                if journal:
                    kit.emit(t, EventType.MEMORY_FORMED, payload, f"household:{i}")
            return
        for a, units in zip(households, households.map("encode", t), strict=True):
            if units and journal:
                rows = [(u.content, u.affect, str(u.metadata.get("kind_of", u.kind))) for u in units]
                kit.emit(t, EventType.MEMORY_FORMED, formed_payload(rows, [u.id for u in units]),
                         f"household:{a.index}")  # fmt: skip


class Recall:
    """Brief every deciding household: a recall of the same question at the same persona is reused for
    `refresh_every` months; the population memory recalls all fresh questions of the month as one batch."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit
        self._near: dict[int, tuple[Any, tuple[list[str], int], list[tuple[str, str, int]]]] = {}

    def __call__(self, month: Month) -> None:
        kit, t = self.kit, month.tick
        mind = kit.population
        asks: list[tuple[int, str, int, Any]] = []
        waiting: list[tuple[Deciding, tuple[str, int], list[str]]] = []
        for d in month.deciding:
            agent, persona, obs = d.mind, d.persona, d.observations
            focus = max((o for o in obs if o.subject != "macro"), key=lambda o: abs(o.change), default=None)
            trend = _DIRECTION.get(focus.signal, "steady") if focus else "steady"
            query = f"bought after a {trend} signal expecting; months later success or failure"
            entities = [o.subject for o in obs] + ["interest_rate"]
            situation = agent.situation(query, persona)
            cached = agent.reusable(t, situation) if mind is not None else None
            if mind is None or cached is not None:
                d.briefing = (agent.render(obs, persona, *cached, reused=True) if cached is not None
                              else agent.brief(t, query, obs, entities, persona))  # fmt: skip
                kit.count("briefing.reused" if d.briefing.metadata["reused"] else "briefing.built")
            else:
                asks.append((d.index, query, agent.recall_k, persona))
                waiting.append((d, situation, entities))
        if mind is not None:
            depth = kit.cognitive.recall.graph_depth
            for (d, situation, entities), episodes in zip(waiting, mind.recall(t, asks), strict=True):
                beliefs = self.beliefs_near(d.mind, entities, depth) if depth > 0 else []
                d.briefing = d.mind.render(
                    d.observations, d.persona, *d.mind.keep_recall(t, situation, episodes, beliefs)
                )
                kit.count("briefing.built")

    def beliefs_near(
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
