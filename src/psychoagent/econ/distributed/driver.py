"""The driver of a sharded run: a cognitive policy whose households live in shards.

Each tick it sends every shard the snapshot and its households' accounts, relays the events the shards
return into the journal in the one-process order (every phase's events by household), negotiates the steel
deals between households of any shards centrally (with the policy's generator and a mirror of the
households' negotiation reputations), submits the orders, and after the markets have cleared sends each
shard its fills and what the central steps left for its households. Same seed, same run files as one process.
"""

from __future__ import annotations

import heapq
import logging
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from psychoagent.econ.baselines import PersonaHeuristicPolicy, alone
from psychoagent.econ.cognitive.act import Act
from psychoagent.econ.cognitive.kit import Kit, KitSettings
from psychoagent.econ.cognitive.month import Month
from psychoagent.econ.cognitive.policy import CognitivePolicy, draw_households, spending_view
from psychoagent.econ.contracts import Shards
from psychoagent.econ.distributed.backends import LocalShards, RayShards, ShardSpec
from psychoagent.econ.distributed.messages import (
    Central,
    DecideReply,
    DecideRequest,
    Event,
    FeedbackReply,
    FeedbackRequest,
    Market,
    Note,
    nbytes,
    pack_snapshot,
)
from psychoagent.econ.intents import AgentState, HouseholdView, Intent, IntentBatch, Outcomes
from psychoagent.econ.snapshot import Snapshot
from psychoagent.persona import Persona
from psychoagent.types import Affect


class _Reputation:
    """The driver's mirror of a household's negotiation reputations (they change only in central deals)."""

    def __init__(self) -> None:
        self.reputation: defaultdict[int, list[float]] = defaultdict(list)
        self.sent: dict[int, int] = {}

    def reputation_of(self, counterpart: int) -> float:
        """Mean share of the gap the counterpart conceded in past talks (0.5 when unknown), as SemanticMemory."""
        seen = self.reputation.get(counterpart)
        return sum(seen) / len(seen) if seen else 0.5

    def new(self) -> list[tuple[int, float]]:
        """Reputation entries added since the last call."""
        out = []
        for other, values in self.reputation.items():
            start = self.sent.get(other, 0)
            out += [(other, v) for v in values[start:]]
            self.sent[other] = len(values)
        return out


class RemoteHousehold:
    """What the central steps touch of a household whose mind lives in a shard: its reputations, the events
    queued for its memory and the guardrail feedback it is given."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.semantic = _Reputation()
        self.notes: list[Note] = []
        self.feedback: list[str] = []

    def note(self, tick: int, text: str, affect: Affect | None = None, **metadata: Any) -> None:
        self.notes.append((tick, text, affect, metadata))


def _household(event: Event) -> int:
    return int(event[3].rpartition(":")[2])


class ShardedCognitivePolicy(KitSettings):
    """`cognitive` with its households in `shards` shards (`backend` 'local': in this process, 'ray': actors).

    The shards run the loop's steps up to `guard` for their households; the driver runs `act` (steel deals between
    households of any shards, and the submission) with the model's markets, then the shards `reflect`."""

    name = "cognitive"

    def __init__(self, base: CognitivePolicy, shards: int = 2, backend: str = "local",
                 address: str | None = None, measure: bool = False) -> None:  # fmt: skip
        if type(base) is not CognitivePolicy:
            raise ValueError(
                f"--shards and --backend ray run the cognitive policy and its variants, not {base.name!r}"
            )
        if shards < 1:
            raise ValueError(f"--shards must be 1 or more, got {shards}")
        self.cfg = base.cfg
        self.rule = PersonaHeuristicPolicy(self.cfg)
        self.kit = Kit(base.cognitive, base.engine, base.memory_settings)
        self.act = Act(self.kit)
        self.expected: dict[int, float] = {}
        self.model: Any = None
        self.n_shards, self.backend, self.address = shards, backend, address
        self.shards: Shards | None = None
        self.parts: list[np.ndarray] = []
        self.seeds = (0, 0)
        self.measure = measure
        self.traffic: list[dict[str, Any]] = []
        """With `measure`: per tick, bytes sent to and received from the shards and seconds spent in them."""
        self._traded: set[int] = set()

    @property
    def remote(self) -> dict[int, RemoteHousehold]:
        """The households as the driver holds them (their minds are in the shards)."""
        return self.kit.remote or {}

    def enrol(self, rng: np.random.Generator, personas: Sequence[Persona]) -> dict[int, Any]:
        """Draw what one process draws and split the cognitive households into contiguous parts; their minds
        live in the shards, so the model keeps plain households for them (an empty answer)."""
        self.kit.rng, chosen, base, mind_seed = draw_households(rng, self.kit.cognitive.share, len(personas))
        self.seeds = (base, mind_seed)
        self.kit.remote = {int(i): RemoteHousehold(int(i)) for i in chosen}
        self.parts = [p for p in np.array_split(np.asarray(chosen, dtype=np.int64), self.n_shards) if len(p)]
        return {}

    def bind(self, model: Any) -> None:
        """Start a shard for each part of the households."""
        self.model = model
        self.kit.host = model
        base, mind_seed = self.seeds
        specs = [ShardSpec(self.cfg, self.cognitive, self.engine, p.tolist(), [model.personas[i] for i in p],
                           len(model.personas), base, mind_seed, self.memory_settings)
                 for p in self.parts]  # fmt: skip
        self.shards = RayShards(specs, self.address) if self.backend == "ray" else LocalShards(specs)

    def close(self) -> None:
        """Stop the shards (and the local Ray cluster this run started)."""
        if self.shards is not None:
            self.shards.close()
            self.shards = None

    # -- the tick --------------------------------------------------------------------------------------------
    def decide(self, snapshot: Snapshot, state: AgentState) -> Intent:
        """`decide_batch` on a view of this one household."""
        return self.decide_batch(snapshot, alone(snapshot, state))[0]

    def decide_batch(self, snapshot: Snapshot, view: HouseholdView) -> IntentBatch:
        intents = self.rule.decide_batch(snapshot, spending_view(view, self.kit.cognitive))
        if self.model is None or not self.remote:
            return intents
        t, kit = snapshot.tick, self.kit
        prices = kit.prices(snapshot)
        kit.read_limits()
        packed = pack_snapshot(snapshot)
        reqs = [DecideRequest(t, packed, self._market(p, view), view.potential_income[p], view.consume_share[p])
                for p in self.parts]  # fmt: skip
        replies = cast(list[DecideReply], self._call(t, "decide", reqs))
        self._relay([r.formed for r in replies])
        self._relay([r.guarded for r in replies])
        for r in replies:
            self._merge(r.counts, r.logs)
        month = Month(t, snapshot, view, intents, prices=prices)
        month.orders = list(heapq.merge(*(r.orders for r in replies), key=lambda o: o.agent))
        month.negotiators = list(heapq.merge(*(r.negotiators for r in replies)))
        self.act(month)
        self._traded = {o.agent for o in month.orders}
        return intents

    def feedback(self, outcomes: Outcomes, view: HouseholdView) -> Mapping[int, Persona] | None:
        t, kit = outcomes.tick, self.kit
        if self.model is None or not self.remote:
            return None
        m = kit.markets
        reqs = []
        for p in self.parts:
            central: dict[int, Central] = {}
            for i in p.tolist():
                h = self.remote[i]
                c = Central(h.notes, h.feedback, h.semantic.new(), [o for o, _ in kit.submitted.get(i, [])])
                if c.notes or c.feedback or c.reputation or c.negotiated:
                    central[i] = c
                h.notes, h.feedback = [], []
            fills = {i: [(f.instrument, str(f.side), f.quantity, f.price) for f in m.fills(i)]
                     for i in p.tolist() if i in self._traded} if m is not None else {}  # fmt: skip
            reqs.append(FeedbackRequest(t, self._market(p, view), central, fills))
        kit.submitted = {}
        replies = cast(list[FeedbackReply], self._call(t, "feedback", reqs))
        self._relay([r.events for r in replies])
        updates: dict[int, Persona] = {}
        self.expected = {}
        for r in replies:
            self._merge(r.counts, r.logs)
            updates.update(r.personas)
            self.expected.update(r.expected)
        return dict(sorted(updates.items()))

    def expected_inflation(self) -> Mapping[int, float]:
        """Expected inflation the shards' households formed in the last month (`Expects`)."""
        return self.expected

    # -- plumbing --------------------------------------------------------------------------------------------
    def _market(self, part: np.ndarray, view: HouseholdView) -> Market:
        """The markets' public data and the accounts of the households in `part`."""
        m: Any = getattr(self.model, "markets", None)  # the model's `Markets` (its holdings matrix included)
        instruments = tuple(m.instruments) if m is not None else ()
        quotes = {}
        for name in instruments:
            try:
                q = m.quote(name)
            except Exception:  # the shard's policy counts it as the one-process policy does
                continue
            quotes[name] = (float(q.price), float(q.net_flow))
        units = np.asarray(m.units)[part] if m is not None and instruments else np.zeros((len(part), 0))
        caps, fee = self.kit.limits
        return Market(instruments, quotes, dict(caps), fee, units, np.asarray(view.cash)[part],
                      np.asarray(view.deposits)[part])  # fmt: skip

    def _call(self, t: int, method: str, requests: Sequence[Any]) -> list[Any]:
        assert self.shards is not None, "a sharded policy is stepped before it is bound to a model"
        start = time.perf_counter()
        replies = self.shards.call(method, requests)
        if self.measure:
            row = {"tick": t, "call": method, "sent": sum(map(nbytes, requests)),
                   "received": sum(map(nbytes, replies)), "seconds": time.perf_counter() - start}  # fmt: skip
            self.traffic.append(row)
        return replies

    def _relay(self, per_shard: Sequence[list[Event]]) -> None:
        """Publish the shards' events of one phase in household order (each shard's are in that order)."""
        for tick, type_, payload, source in heapq.merge(*per_shard, key=_household):
            self.model.bus.emit(tick, type_, payload, source)

    def _merge(self, counts: Mapping[str, int], logs: Sequence[tuple[int, str, str]]) -> None:
        for key, n in counts.items():
            self.kit.count(key, n)
        for level, name, message in logs:
            logging.getLogger(name).log(level, "%s", message)


def sharded(
    policy: Any, shards: int, backend: str = "local", address: str | None = None
) -> ShardedCognitivePolicy:
    """`policy` (the cognitive policy or a variant of it) with its households in shards; ValueError otherwise."""
    return ShardedCognitivePolicy(policy, shards, backend, address)
