"""The cognitive policy's population memory: public events written once for every household, each tick's
private events encoded in one batch, and the recall of every household deciding in a tick run as one
vectorised operation (`memory.population_recall`).

Public events (news, others' trades) go through one shared `Memory` first, so the rule-based slot clashes
between them (a new inflation figure updates the last one) are detected once and applied to every copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from psychoagent.agent.cognition import SECONDS_PER_TICK, CognitiveAgent, tick_time
from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.cognitive.streams import HouseholdDraws
from psychoagent.econ.config import AgentMemoryConfig
from psychoagent.embed import Embedder
from psychoagent.memory.population import Batch, PopulationMemory, Recalled, Request, recall_many
from psychoagent.persona import Persona
from psychoagent.types import Affect

_OUTCOME_FIELDS = ("instrument", "side", "signal", "expected", "actual", "risky", "stake")
"""Metadata an outcome memory keeps as columns (what the heuristic decision and the persona tilt read)."""


def formed_payload(units: Sequence[tuple[str, Affect, str]], ids: Sequence[str]) -> dict[str, Any]:
    """The `memory.formed` payload of one household-month: count, first ids, the most striking memory, how many
    of each kind, and how many clashed with an earlier memory (conflict >= 2) with the sharpest one."""
    text, a, _ = max(units, key=lambda u: (abs(u[1].valence), u[1].arousal))
    clashes = [u for u in units if u[1].conflict_intensity >= 2]
    kinds: dict[str, int] = {}  # counted in first-seen order, as Counter does
    for u in units:
        kinds[u[2]] = kinds.get(u[2], 0) + 1
    payload = {"count": len(units), "ids": list(ids[:4]), "strongest": text[:160], "valence": a.valence,
               "arousal": a.arousal, "conflict": a.conflict_intensity, "kinds": kinds,
               "clashes": len(clashes)}  # fmt: skip
    if clashes:
        sharp = max(clashes, key=lambda u: u[1].conflict_intensity)
        payload["clash"] = sharp[0][:160]
        payload["clash_conflict"] = sharp[1].conflict_intensity
    return payload


def _mood(units: Sequence[tuple[str, Affect, str]]) -> tuple[int, int, int]:
    """(valence, arousal, conflict) of a household-month's mood: its worst memory when that is negative, else
    its best."""
    worst = min(units, key=lambda u: (u[1].valence, -u[1].arousal))[1]
    mood = worst if worst.valence < 0 else max(units, key=lambda u: u[1].valence)[1]
    return mood.valence, mood.arousal, mood.conflict_intensity


class PopulationMind:
    """Population memory of the cognitive households of one run (their indices `ids`), with their moods (the
    affect of the tick's most striking memory, as `CognitiveAgent.encode` sets it)."""

    def __init__(self, ids: Sequence[int], embedder: Embedder, cfg: CognitiveConfig,
                 memory: AgentMemoryConfig, seed: int,
                 generators: Mapping[int, np.random.Generator] | None = None) -> None:  # fmt: skip
        from psychoagent.memory import Memory

        self.cfg = cfg
        self.affect = memory.affect
        self.recall_cfg = memory.recall
        self.embedder = embedder
        self.memory = PopulationMemory(list(ids), embedder, SECONDS_PER_TICK)
        self.public = Memory(path=None, namespace="public", embedder=embedder, appraiser=None,
                             affect_config=memory.affect)  # fmt: skip
        self.rng = np.random.default_rng(seed)
        self.generators = generators
        """Households' own generators: exploration draws then do not depend on who else recalls in a batch."""
        n = len(self.memory.agent_ids)
        self.mood = np.zeros((n, 3), dtype=np.int64)
        self.mood[:, 1] = 1
        self._public: list[tuple[str, Affect, str]] = []

    # -- writing ---------------------------------------------------------------------------------------------
    def broadcast(self, tick: int, text: str, affect: Affect, kind_of: str) -> Affect:
        """A public event becomes a memory of every household; returns its affect after conflict detection."""
        unit = self.public.observe(text, affect=affect, timestamp=tick_time(tick),
                                   metadata={"tick": tick, "kind_of": kind_of})  # fmt: skip
        for rec in self.public.conflicts(ids=[unit.id]):
            other = self.public.get(rec.side_b if rec.side_a == unit.id else rec.side_a)
            if other is not None and other.invalid_at is not None and other.id != unit.id:
                self.memory.table.intern([text])
                self.memory.supersede(other.content, text, tick)
        a = unit.affect
        self.memory.broadcast(text, a.valence, a.arousal, a.conflict_intensity, kind_of, tick)
        self._public.append((text, a, kind_of))
        return a

    def encode(self, tick: int, minds: Iterable[tuple[int, CognitiveAgent]]) -> dict[int, dict[str, Any]]:
        """Store the queued events of every household (index, mind) and this tick's public ones; set the moods.
        Returns, per household that formed memories, the `memory.formed` payload."""
        batch = Batch()
        own: dict[int, list[tuple[str, Affect, str]]] = {}
        for i, agent in minds:
            items, agent.pending = agent.pending, []
            for it in items:
                a, meta = it["affect"], it["metadata"]
                outcome = {k: meta.get(k) for k in _OUTCOME_FIELDS} if "actual" in meta else None
                batch.add(i, it["text"], a.valence, a.arousal, a.conflict_intensity,
                          str(meta.get("kind_of", "episodic")), outcome)  # fmt: skip
                own.setdefault(i, []).append((it["text"], a, batch.kind_of[-1]))
        _, pos = self.memory.add(batch, tick)
        public, self._public = self._public, []
        first: dict[int, list[str]] = {}
        for j, i in enumerate(batch.agents):
            ids = first.setdefault(i, [])
            if len(ids) < 4:
                ids.append(f"pop_{i}_{int(pos[j])}")
        out: dict[int, dict[str, Any]] = {}
        slots: list[int] = []
        moods: list[tuple[int, int, int]] = []
        alike: tuple[tuple[int, int, int], dict[str, Any]] | None = None  # of those with only public events
        for slot, i in enumerate(self.memory.agent_ids.tolist()):
            mine = own.get(i)
            if mine is None:
                if not public:
                    continue
                if alike is None:
                    alike = _mood(public), formed_payload(public, [])
                mood, same = alike
                payload = {**same, "ids": [], "kinds": dict(same["kinds"])}
            else:
                units = mine + public
                mood, payload = _mood(units), formed_payload(units, first.get(i, []))
            slots.append(slot)
            moods.append(mood)
            out[i] = payload
        if slots:
            self.mood[slots] = moods
        return out

    def forget(self, household: int) -> None:
        """A newcomer takes household's place: its memories and mood are gone."""
        self.memory.forget_agent(household)
        self.mood[self.memory.slot[household]] = (0, 1, 0)

    # -- reading ---------------------------------------------------------------------------------------------
    def recall(self, tick: int, asks: Sequence[tuple[int, str, int, Persona]]) -> list[list[tuple[Recalled, float, dict[str, float]]]]:  # fmt: skip
        """Recall for every (household, query, k, persona) in one vectorised run per distinct k (a batch's pool
        sizes follow its largest k, so grouping keeps each household's recall independent of the others');
        per ask, (memory, score, parts)."""
        out: list[list[tuple[Recalled, float, dict[str, float]]]] = [[] for _ in asks]
        for k in sorted({a[2] for a in asks}):
            group = [j for j, a in enumerate(asks) if a[2] == k]
            for j, hits in zip(group, self._recall(tick, [asks[j] for j in group]), strict=True):
                out[j] = hits
        return out

    def _recall(self, tick: int, asks: Sequence[tuple[int, str, int, Persona]]) -> list[list[tuple[Recalled, float, dict[str, float]]]]:  # fmt: skip
        if not asks:
            return []
        slots = np.fromiter((self.memory.slot[a[0]] for a in asks), dtype=np.int64, count=len(asks))
        ab = self.cfg.ablation
        risk = np.array([a[3].risk_preference for a in asks]) if ab.persona_recall else None
        req = Request(slots=slots, queries=[a[1] for a in asks], k=np.array([a[2] for a in asks]),
                      mood_valence=self.mood[slots, 0], mood_conflict=self.mood[slots, 2], risk=risk,
                      modulated=ab.affect_modulation, window=self.cfg.recall.window,
                      kept=self.cfg.recall.kept_own)  # fmt: skip
        rng: Any = self.rng
        if self.generators is not None:
            rng = HouseholdDraws([self.generators[a[0]] for a in asks])
        hits = recall_many(
            self.memory, req, tick, self.recall_cfg, self.affect, float(getattr(self.embedder, "dense_weight", 0.5)),
            getattr(self.embedder, "similarity_floor", None), self.cfg.recall.persona_weight, rng,
        )  # fmt: skip
        lengths = [len(p) for p in hits.positions]
        flat = self.memory.recalled_many(
            np.repeat(slots, lengths), np.concatenate([*hits.positions, np.zeros(0, np.int64)])
        )
        scores = np.concatenate([*hits.scores, np.zeros(0)]).tolist()
        out, at = [], 0
        for n in lengths:
            out.append([(flat[j], scores[j], {"score": scores[j]}) for j in range(at, at + n)])
            at += n
        return out
