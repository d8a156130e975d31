"""Persona-modulated, cross-layer recall and the bounded working memory (seed 2.2.2).

`PersonaStage` is a recall pipeline stage: a risk-seeking agent recalls risky successes more and suppresses
risky failures; a risk-averse one the opposite. It multiplies the score after the memory's own affect stage,
so both modulations combine. `cross_layer_recall` runs vector recall over episodes plus a depth-2 graph
traversal over semantic units from the situation's entities, and fills a `WorkingMemory`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from psychoagent.memory.config import RecallConfig
from psychoagent.memory.index.namespace import NamespaceIndex
from psychoagent.memory.recall.candidates import Candidates, RecallContext

if TYPE_CHECKING:
    from psychoagent.memory import Memory
    from psychoagent.types import Affect, Briefing, MemoryUnit


def persona_factor(
    risky: np.ndarray, outcome: np.ndarray, risk_preference: float, weight: float
) -> np.ndarray:
    """1 + w (2 risk - 1) for risky successes, 1 - w (2 risk - 1) for risky failures, 1 otherwise (>= 0.05)."""
    tilt = weight * (2.0 * risk_preference - 1.0)
    factor = np.ones(risky.shape, dtype=np.float64)
    factor = np.where(risky & (outcome > 0), 1.0 + tilt, factor)
    factor = np.where(risky & (outcome < 0), 1.0 - tilt, factor)
    return np.maximum(factor, 0.05)


class PersonaStage:
    """Recall stage reading the persona from the request; outcome tags come from `tag` (unit id -> flags)."""

    def __init__(self, weight: float) -> None:
        self.weight = weight
        self.tags: dict[str, tuple[bool, float]] = {}

    def tag(self, unit_id: str, risky: bool, outcome: float) -> None:
        """Mark a unit as the outcome of a (risky) action: outcome > 0 success, < 0 failure."""
        self.tags[unit_id] = (risky, outcome)

    def __call__(
        self, cands: Candidates, index: NamespaceIndex, ctx: RecallContext, cfg: RecallConfig
    ) -> None:
        persona = ctx.persona
        if persona is None or not self.tags or len(cands.rows) == 0:
            return
        risk = float(getattr(persona, "risk_preference", 0.5))
        flags = [self.tags.get(index.ids[int(r)], (False, 0.0)) for r in cands.rows]
        risky = np.array([f[0] for f in flags], dtype=bool)
        outcome = np.array([f[1] for f in flags], dtype=np.float64)
        cands.multiply("persona", persona_factor(risky, outcome, risk, self.weight))


@dataclass
class WorkingItem:
    """One active item: a recalled memory, a belief, a goal or a feedback message."""

    kind: str
    text: str
    score: float
    source: str = ""


@dataclass
class WorkingMemory:
    """Bounded, ranked set of what is active for this decision (capacity items, best first)."""

    capacity: int
    items: list[WorkingItem] = field(default_factory=list)

    def load(self, items: Sequence[WorkingItem]) -> None:
        """Replace the contents by the best `capacity` items (stable for ties)."""
        ranked = sorted(enumerate(items), key=lambda p: (-p[1].score, p[0]))
        self.items = [it for _, it in ranked[: self.capacity]]

    def texts(self, kind: str | None = None) -> list[str]:
        return [it.text for it in self.items if kind is None or it.kind == kind]


class SummaryCache:
    """LRU of texts rendered from semantic knowledge, keyed by the unit ids behind them (seed 4.3)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[tuple[str, ...], str] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def get(self, key: tuple[str, ...], render: Any) -> str:
        if key in self._data:
            self._data.move_to_end(key)
            self.hits += 1
            return self._data[key]
        self.misses += 1
        text = str(render())
        if self.size:
            self._data[key] = text
            if len(self._data) > self.size:
                self._data.popitem(last=False)
        return text


@dataclass
class RecallResult:
    """What cross-layer recall found: scored episodes, semantic units reached through the graph, and the
    `Memory.brief` the episodes came from (its conflicts among them with both sides)."""

    episodes: list[tuple[MemoryUnit, float, dict[str, float]]]
    semantic: list[tuple[MemoryUnit, int]]
    briefing: Briefing | None = None


def cross_layer_recall(
    memory: Memory,
    query: str,
    entities: Sequence[str],
    *,
    k: int,
    depth: int,
    now: float,
    persona: Any = None,
    affect_state: Affect | None = None,
    policy: str | None = None,
    graph: Callable[[Sequence[str], int], dict[str, int]] | None = None,
) -> RecallResult:
    """`Memory.brief` over episodes (persona/affect modulated recall, conflicts among what was recalled) and
    graph traversal over beliefs.

    `graph(entities, depth)` may serve the traversal from an in-process mirror of the belief edges; by default
    the memory's own graph is traversed."""
    found = memory.brief(
        query, k=k, where={"kind": ["episodic", "summary"]}, now=now, persona=persona,
        affect_state=affect_state, policy=policy,
    )  # fmt: skip
    episodes = [(h.unit, h.score, h.parts) for h in found.memories if "conflict_partner" not in h.parts]
    semantic: list[tuple[MemoryUnit, int]] = []
    if depth > 0 and entities:
        if graph is not None:
            reach = graph(entities, depth)
        else:
            reach = memory.neighbours(
                [f"entity:{e}" for e in entities], depth=depth, types=["about", "related"]
            )
        ids = [node for node in reach if node.startswith("mem_")]
        if ids:
            units = [u for u in memory.get_many(ids) if u.kind == "semantic" and u.is_current]
            semantic = sorted(((u, reach[u.id]) for u in units), key=lambda p: (p[1], p[0].id))
    return RecallResult(episodes, semantic, found)
