"""One cognitive agent's private state and its per-tick cognition (DESIGN.md, 'data flow of one tick').

events -> memory (structured appraisal) ; cross-layer, persona-modulated recall -> working memory -> briefing
(<= 200 words, reused when nothing changed) ; periodic reflection. Domain-neutral: what the agent perceives is
any object with a `text`, and its beliefs are a `Knowledge` (the economy's are `econ.mind.semantic`). The agent
holds no model reference: whoever steps it feeds it events and reads its briefing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from psychoagent.agent.config import CognitiveConfig
from psychoagent.agent.contracts import Knowledge, Observed
from psychoagent.agent.recall import (
    PersonaStage,
    RecallResult,
    SummaryCache,
    WorkingItem,
    WorkingMemory,
    cross_layer_recall,
)
from psychoagent.persona import Persona
from psychoagent.quoting import escape
from psychoagent.types import Affect, Briefing, MemoryUnit

if TYPE_CHECKING:
    from psychoagent.memory import Memory

EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
SECONDS_PER_TICK = 30 * 86400.0
"""A tick is a 30-day month."""


def tick_time(tick: int) -> datetime:
    """Simulation tick (month) -> a timestamp for memory (30-day months from 2000-01-01)."""
    return EPOCH + timedelta(days=30 * tick)


Recalled = tuple[list[WorkingItem], list[Any], Briefing | None]
"""A recall kept for a situation: working items, episodes and the `Memory.brief` behind them (or None)."""


def briefing_of(text: str, working: list[WorkingItem], episodes: list[Any], found: Briefing | None,
                reused: bool) -> Briefing:  # fmt: skip
    """The library's `Briefing` of one decision: the agent's text (<= max words); the memories and conflicts of
    the `Memory.brief` behind it (none with the population memory); in `metadata`, `reused` (an earlier tick's
    recall), `working` (the working memory) and `episodes` ((memory, score, parts): a `MemoryUnit` or a
    population `Recalled`, both with id, content and metadata)."""
    meta = {"reused": reused, "working": working, "episodes": episodes}
    if found is None:
        return Briefing(query="", text=text, metadata=meta)
    return Briefing(
        query=found.query, text=text, memories=found.memories, conflicts=found.conflicts, metadata=meta
    )


def clip_words(text: str, limit: int) -> str:
    words = text.split()
    return text if len(words) <= limit else " ".join(words[:limit]) + " ..."


class CognitiveAgent:
    """Memory, beliefs (a `Knowledge`), working memory and briefing cache of one agent."""

    def __init__(self, index: int, memory: Memory | None, cfg: CognitiveConfig, knowledge: Knowledge,
                 population: bool = False) -> None:  # fmt: skip
        self.index = index
        self.cfg = cfg
        self.memory = memory
        self.remembers = memory is not None or population
        """True when the agent has memory: its own `Memory`, or rows of the policy's population memory."""
        self.stage = PersonaStage(cfg.recall.persona_weight)
        if memory is not None and cfg.ablation.persona_recall:
            memory.pipeline.append(self.stage)
        self.knowledge = knowledge
        self.working = WorkingMemory(cfg.recall.working_capacity)
        self.summaries = SummaryCache(cfg.recall.summary_cache)
        self.pending: list[dict[str, Any]] = []
        self.feedback: list[str] = []
        self.briefing: Briefing | None = None
        self._recalls: dict[tuple[Any, ...], tuple[int, list[WorkingItem], list[Any], Briefing | None]] = {}
        """Recent recalls by (question, persona bucket): reused for `refresh_every` ticks (seed 4.3)."""
        self.mood = Affect.neutral()
        self.analyze_next = False
        if self.remembers:
            self.knowledge.seed_priors(tick_time(0))

    # -- encoding ------------------------------------------------------------------------------------------
    def note(self, tick: int, text: str, affect: Affect | None = None, **metadata: Any) -> None:
        """Queue an event for encoding at the next `encode` (its affect is given or neutral)."""
        self.pending.append({"text": text, "affect": affect or Affect(reason="routine event"), "tick": tick,
                             "metadata": metadata})  # fmt: skip

    def encode(self, tick: int) -> list[MemoryUnit]:
        """Store the queued events as episodic memories in one batch; tag outcome memories for recall."""
        items, self.pending = self.pending, []
        if self.memory is None or not items:
            return []
        batch = [
            {"text": it["text"], "affect": it["affect"], "timestamp": tick_time(it["tick"]),
             "metadata": {"tick": it["tick"], **it["metadata"]}}
            for it in items
        ]  # fmt: skip
        units = self.memory.observe_many(batch)
        for unit in units:
            meta = unit.metadata
            if "actual" in meta:
                self.stage.tag(unit.id, bool(meta.get("risky")), float(meta["actual"]))
        if units:
            worst = min(units, key=lambda u: (u.affect.valence, -u.affect.arousal))
            self.mood = (
                worst.affect
                if worst.affect.valence < 0
                else max(units, key=lambda u: u.affect.valence).affect
            )
        return units

    # -- recall and briefing --------------------------------------------------------------------------------
    def recall(
        self, tick: int, query: str, entities: Sequence[str], persona: Persona, k: int
    ) -> RecallResult:
        """Cross-layer recall (empty without memory); affect modulation unless ablated."""
        if self.memory is None:
            return RecallResult([], [])
        ab = self.cfg.ablation
        policy = "conflict-first" if ab.affect_modulation else "none"
        return cross_layer_recall(
            self.memory, query, entities, k=k, depth=self.cfg.recall.graph_depth,
            now=tick_time(tick).timestamp(), persona=persona if ab.persona_recall else None,
            affect_state=self.mood if ab.affect_modulation else None, policy=policy,
            graph=self.knowledge.neighbours,
        )  # fmt: skip

    def situation(self, query: str, persona: Persona) -> tuple[str, int]:
        """The key a recall is reused under: the question and the persona's risk bucket."""
        return (query, round(persona.risk_preference * 10))

    def reusable(self, tick: int, situation: tuple[str, int]) -> Recalled | None:
        """A recall of the same situation younger than `refresh_every` ticks, unless a closer look was asked."""
        cached = self._recalls.get(situation)
        if (self.cfg.recall.reuse_briefing and cached is not None and not self.analyze_next
                and tick - cached[0] < self.cfg.recall.refresh_every):  # fmt: skip
            return cached[1], cached[2], cached[3]
        return None

    @property
    def recall_k(self) -> int:
        """Episodes to recall now: twice the usual after an ANALYZE decision."""
        return self.cfg.recall.k * (2 if self.analyze_next else 1)

    def keep_recall(self, tick: int, situation: tuple[str, int], episodes: list[Any],
                    beliefs: Sequence[tuple[str, str, int]], found: Briefing | None = None) -> Recalled:  # fmt: skip
        """Working items of a fresh recall (episodes, then beliefs by graph distance), cached for reuse with the
        `Memory.brief` it came from (None with the population memory)."""
        items = [WorkingItem("episode", u.content, s, u.id) for u, s, _ in episodes]
        items += [WorkingItem("belief", text, 1.0 / (1 + hops), uid) for uid, text, hops in beliefs]
        every = self.cfg.recall.refresh_every
        self._recalls = {k: v for k, v in self._recalls.items() if tick - v[0] < every}
        self._recalls[situation] = (tick, items, episodes, found)
        return items, episodes, found

    def brief(self, tick: int, query: str, observations: Sequence[Observed], entities: Sequence[str],
              persona: Persona) -> Briefing:  # fmt: skip
        """Working memory + <= N-word briefing. A recall of the same question at the same persona younger than
        `refresh_every` ticks is reused (seed 4.3: decide with an earlier tick's fused memory); observations and
        guardrail feedback are always fresh."""
        situation = self.situation(query, persona)
        cached = self.reusable(tick, situation)
        if cached is not None:
            return self.render(observations, persona, *cached, reused=True)
        found = self.recall(tick, query, entities, persona, self.recall_k)
        beliefs = [(u.id, u.content, hops) for u, hops in found.semantic]
        kept = self.keep_recall(tick, situation, found.episodes, beliefs, found.briefing)
        return self.render(observations, persona, *kept)

    def render(self, observations: Sequence[Observed], persona: Persona, items: list[WorkingItem],
               episodes: list[Any], found: Briefing | None = None, reused: bool = False) -> Briefing:  # fmt: skip
        """Load the working memory (recalled items + the last guardrail feedback) and write the briefing text."""
        self.working.load(
            [*items, *(WorkingItem("feedback", f, 3.0, "guardrails") for f in self.feedback[-2:])]
        )
        knowledge = tuple(sorted(it.source for it in self.working.items if it.kind == "belief"))
        known = self.summaries.get(knowledge, lambda: "; ".join(map(escape, self.working.texts("belief"))))
        lines = [f"Persona: risk {persona.risk_preference:.2f}, optimism {persona.optimism:+.2f}."]
        lines += [f"Now: {o.text}" for o in observations[:3]]
        if known:
            lines.append(f"Known: {known}.")
        past = self.working.texts("episode")
        if past:
            lines.append("Past: " + " | ".join(map(escape, past[:3])) + ".")  # stored text: quoted data
        if self.feedback:
            lines.append("Guardrails: " + " | ".join(self.feedback[-2:]))
        text = clip_words(" ".join(lines), self.cfg.recall.briefing_words)
        self.analyze_next = False
        self.briefing = briefing_of(text, list(self.working.items), episodes, found, reused)
        return self.briefing

    def reflect(self, tick: int) -> list[str]:
        """Periodic reflection: abstract beliefs into semantic memory, and consolidate tiers now and then."""
        if not self.remembers:
            return []
        formed = self.knowledge.reflect(tick_time(tick), self.cfg.reflection.min_evidence)
        every = self.cfg.reflection.consolidate_every
        if every and self.memory is not None and (tick + self.index) % every == 0:
            self.memory.consolidate(now=tick_time(tick))
        return formed
