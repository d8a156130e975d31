"""Semantic memory (seed 2.2.1 tier 2): beliefs abstracted from episodes by periodic reflection.

A belief is a semantic unit in the agent's memory plus graph edges: the unit is `about` the entity nodes it
concerns (`entity:steel`), entity nodes are `related` along causal chains ("interest_rate -> financing_cost ->
stocks"), and the unit is `derived_from` the episodes behind it. A changed belief supersedes the old unit, so
its history stays visible. Counterpart reputation ("agent 7 opens high and concedes little") is one kind.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from psychoagent.econ.mind.perception import Belief
from psychoagent.types import Affect, Edge

if TYPE_CHECKING:
    from psychoagent.memory import Memory

PRIOR_CHAINS: tuple[tuple[str, str, str, float, str], ...] = (
    ("interest_rate", "raises", "financing_cost", -1.0, "a rate rise raises financing costs"),
    ("financing_cost", "lowers", "stock", -1.0, "higher financing costs weigh on share prices"),
    ("financing_cost", "lowers", "steel", -1.0, "higher financing costs slow building and steel demand"),
)
"""Textbook causal chains every agent starts with (the seed's 'rate rise -> financing cost -> expansion')."""


@dataclass
class TradeRecord:
    """One scored decision, the raw material of reflection."""

    instrument: str
    side: str
    signal: str
    actual: float
    unit_id: str


class SemanticMemory:
    """An agent's beliefs: kept in memory (semantic units + edges) and mirrored here for fast perception."""

    def __init__(self, memory: Memory | None, keep_graph: bool = False) -> None:
        self.memory = memory
        self.keep_graph = keep_graph
        """Without a `Memory` (population memory), still keep the belief graph and texts here."""
        self.texts: dict[str, str] = {}
        """Belief id -> text of the current beliefs kept without a `Memory`."""
        self._seq = 0
        self._by_subject: dict[str, list[Belief]] | None = None
        self.beliefs: dict[tuple[str, str], Belief] = {}
        self.unit_of: dict[tuple[str, str], str] = {}
        self.records: list[TradeRecord] = []
        self.reputation: dict[int, list[float]] = defaultdict(list)
        self.adjacency: dict[str, set[str]] = defaultdict(set)
        """In-process mirror of the belief graph's `about`/`related` edges (traversal without a SQLite read)."""
        self.revised: deque[tuple[str, str, str, datetime]] = deque(maxlen=8)
        """The latest revisions (subject, old text, new text, when): the two sides a decision trace shows."""

    def seed_priors(self, when: datetime) -> None:
        """Store the prior causal chains once."""
        for subject, relation, obj, effect, text in PRIOR_CHAINS:
            self.set(subject, f"{relation}:{obj}", text, effect, 1, when, (), links=(obj,))

    def by_subject(self) -> dict[str, list[Belief]]:
        """Beliefs grouped by the entity they are about (for perception); cached until a belief changes."""
        if self._by_subject is not None:
            return self._by_subject
        out: dict[str, list[Belief]] = defaultdict(list)
        for (subject, _), belief in sorted(self.beliefs.items()):
            out[subject].append(belief)
            if subject.startswith("stock:"):
                out.setdefault(subject, [])
        stock_rules = out.get("stock", [])
        for key in list(out):
            if key.startswith("stock:") and stock_rules:
                out[key] = [*out[key], *stock_rules]
        self._by_subject = dict(out)
        return self._by_subject

    def set(
        self, subject: str, relation: str, text: str, effect: float, evidence: int, when: datetime,
        sources: Sequence[str], links: Sequence[str] = (),
    ) -> str | None:  # fmt: skip
        """Create or revise one belief; returns the semantic unit id (None without memory)."""
        key = (subject, relation)
        old = self.beliefs.get(key)
        belief = Belief(subject, relation.split(":")[0], relation.split(":")[-1], effect, evidence, text)
        if old is not None and old.text != text:
            self.revised.append((subject, old.text, text, when))
        self.beliefs[key] = belief
        self._by_subject = None
        if self.memory is None and not self.keep_graph:
            return None
        if old is not None and old.text == text and key in self.unit_of:
            return self.unit_of[key]
        pairs = [(f"entity:{subject}", f"entity:{o}") for o in links]
        if self.memory is not None:
            valence = 1 if effect > 0 else -1 if effect < 0 else 0
            unit = self.memory.observe(
                text, kind="semantic", timestamp=when, sources=[s for s in sources if s],  # a trade without a unit has ''
                affect=Affect(valence=valence, arousal=1, reason="belief formed by reflection"),
                metadata={"subject": subject, "relation": relation, "effect": effect, "evidence": evidence},
            )  # fmt: skip
            uid = unit.id
            edges = [Edge(src=uid, dst=f"entity:{subject}", type="about", created_at=when)]
            edges += [Edge(src=a, dst=b, type="related", created_at=when) for a, b in pairs]
            self.memory.add_edges(edges)
        else:
            uid = f"belief_{self._seq}"
            self._seq += 1
            self.texts[uid] = text
        for a, b in [(uid, f"entity:{subject}"), *pairs]:
            self.adjacency[a].add(b)
            self.adjacency[b].add(a)
        if key in self.unit_of:
            old_id = self.unit_of[key]
            if self.memory is not None:
                self.memory.supersede(old_id, unit, reason="belief revised by reflection")
            self.texts.pop(old_id, None)
            for node in self.adjacency.pop(old_id, set()):
                self.adjacency[node].discard(old_id)
        self.unit_of[key] = uid
        return uid

    def neighbours(self, entities: Sequence[str], depth: int) -> dict[str, int]:
        """Belief-graph nodes within `depth` hops of the entities' nodes (breadth first) -> hop count."""
        dist = {f"entity:{e}": 0 for e in entities if f"entity:{e}" in self.adjacency}
        frontier = list(dist)
        for hop in range(1, depth + 1):
            nxt = []
            for node in frontier:
                for other in sorted(self.adjacency.get(node, ())):
                    if other not in dist:
                        dist[other] = hop
                        nxt.append(other)
            frontier = nxt
        return dist

    def beliefs_near(self, entities: Sequence[str], depth: int) -> list[tuple[str, str, int]]:
        """(id, text, hops) of the current beliefs kept here within `depth` hops of the entities, nearest first."""
        reach = self.neighbours(entities, depth)
        found = [(uid, self.texts[uid], hops) for uid, hops in reach.items() if uid in self.texts]
        return sorted(found, key=lambda b: (b[2], b[0]))

    def reflect(self, when: datetime, min_evidence: int) -> list[str]:
        """Abstract trade records into 'after SIGNAL, INSTRUMENT tends to rise/fall' beliefs; returns texts."""
        groups: dict[tuple[str, str], list[TradeRecord]] = defaultdict(list)
        for r in self.records:
            groups[(r.instrument, r.signal)].append(r)
        formed = []
        for (instrument, signal), recs in sorted(groups.items()):
            if len(recs) < min_evidence:
                continue
            old = self.beliefs.get((instrument, f"after:{signal}"))
            if old is not None and old.evidence == len(recs):  # no new trade of this kind since
                continue
            mean = sum(r.actual for r in recs) / len(recs)
            direction = "rise" if mean > 0 else "fall"
            text = (
                f"after a {signal.replace('_', ' ')} signal, {instrument} tended to {direction} "
                f"({mean:+.1%} on average over {len(recs)} trades)"
            )
            self.set(
                instrument, f"after:{signal}", text, mean, len(recs), when, [r.unit_id for r in recs[-5:]]
            )
            formed.append(text)
        for counterpart, concessions in sorted(self.reputation.items()):
            if len(concessions) < min_evidence:
                continue
            mean = sum(concessions) / len(concessions)
            style = "concedes readily" if mean > 0.5 else "drives a hard bargain"
            text = f"agent {counterpart} {style} in steel negotiations ({len(concessions)} talks)"
            old = self.beliefs.get((f"agent_{counterpart}", "negotiates"))
            if old is None or old.text != text:
                self.set(f"agent_{counterpart}", "negotiates", text, mean - 0.5, len(concessions), when, ())
                formed.append(text)
        return formed

    def news_belief(self, subject: str, headline: str, sentiment: float, when: datetime) -> str | None:
        """A known event ('a new steel mill opened') becomes a belief about its subject's prices."""
        effect = max(-1.0, min(1.0, sentiment))
        if abs(effect) < 0.2:
            return None
        lean = "higher" if effect > 0 else "lower"
        text = f"known event: {headline.rstrip('.')} -> {lean} {subject} prices more likely"
        return self.set(subject, "event", text, effect, 1, when, ())

    def reputation_of(self, counterpart: int) -> float:
        """Mean share of the gap the counterpart conceded in past talks (0.5 when unknown)."""
        seen = self.reputation.get(counterpart)
        return sum(seen) / len(seen) if seen else 0.5
