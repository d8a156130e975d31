"""One shard of a sharded run: the cognitive agents of some of the households (memory, persona, working state),
run by the cognitive policy's own steps and fed by the driver's messages instead of a model.

The shard's model is a Mesa model whose agents are its `CognitiveHousehold`s; its `CognitivePolicy` sees it as a
stand-in economy: the markets as the last message showed them (quotes, caps, fee, its households' holdings and
fills) and a bus that records what the households publish, so the driver can put the events of all shards into
the journal in the one-process order. A month runs the loop's steps perceive -> recall -> decide -> guard here, act
on the driver, and reflect here.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

import mesa
import numpy as np

from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.agents import CognitiveHousehold
from psychoagent.econ.cognitive.kit import Kit
from psychoagent.econ.cognitive.month import Month
from psychoagent.econ.cognitive.policy import CognitivePolicy
from psychoagent.econ.config import AgentMemoryConfig, PolicyConfig
from psychoagent.econ.distributed import messages as msg
from psychoagent.econ.intents import HouseholdView, Outcomes
from psychoagent.econ.snapshot import Snapshot
from psychoagent.persona import EvolutionEngine, Persona


@dataclass(frozen=True)
class Quote:
    """What the policy reads of a quote."""

    price: float
    net_flow: float


@dataclass(frozen=True)
class Fill:
    """What the policy reads of a fill."""

    instrument: str
    side: str
    quantity: float
    price: float


class ShardMarkets:
    """The markets as the shard's households last saw them in a message."""

    def __init__(self, rows: Mapping[int, int]) -> None:
        self.rows = rows
        self.market = msg.Market(
            (), {}, {}, 0.0, np.zeros((len(rows), 0)), np.zeros(len(rows)), np.zeros(len(rows))
        )
        self._fills: dict[int, list[Fill]] = {}

    def load(
        self, market: msg.Market, fills: Mapping[int, Sequence[tuple[str, str, float, float]]] | None = None
    ) -> None:
        self.market = market
        if fills is not None:
            self._fills = {i: [Fill(*f) for f in fs] for i, fs in fills.items()}

    @property
    def instruments(self) -> tuple[str, ...]:
        return self.market.instruments

    @property
    def fee_rate(self) -> float:
        return self.market.fee_rate

    def quote(self, instrument: str) -> Quote:
        found = self.market.quotes.get(instrument)
        if found is None:
            raise ValueError(f"{instrument!r} has no quote this tick")
        return Quote(*found)

    def holdings(self, agent_id: int) -> dict[str, float]:
        row = self.market.holdings[self.rows[agent_id]]
        return {inst: float(row[k]) for k, inst in enumerate(self.market.instruments)}

    def position_caps(self) -> dict[str, float]:
        return dict(self.market.caps)

    def fills(self, agent_id: int) -> list[Fill]:
        return list(self._fills.get(agent_id, []))

    def yield_of(self, instrument: str) -> float | None:
        """No yields in a shard (the policies that read them run in one process)."""
        return None


class RecordingBus:
    """Keeps what the households publish until the driver collects it."""

    def __init__(self) -> None:
        self.events: list[msg.Event] = []

    def emit(self, tick: int, type_: str, payload: dict[str, Any], source: str) -> None:
        self.events.append((tick, type_, payload, source))

    def take(self) -> list[msg.Event]:
        out, self.events = self.events, []
        return out


class ShardModel(mesa.Model):
    """The part of `EconomyModel` the cognitive policy reads (a `Marketplace`), filled from messages: a Mesa model
    whose agents are the shard's `CognitiveHousehold`s (the driver's model keeps plain `Household` agents)."""

    def __init__(self, n: int, rows: Mapping[int, int]) -> None:
        super().__init__(seed=0)  # nothing in a shard draws from the model's generators
        self.markets = ShardMarkets(rows)
        self.bus = RecordingBus()
        self.households = _Accounts(np.zeros(n), np.zeros(n))
        self.last: Snapshot | None = None

    def snapshot(self) -> Snapshot:
        assert self.last is not None, "a shard is asked for a snapshot before its first tick"
        return self.last


@dataclass
class _Accounts:
    cash: np.ndarray
    deposits: np.ndarray

    @property
    def wealth(self) -> np.ndarray:
        return self.cash + self.deposits


class _Personas(Sequence[Persona]):
    """The personas of the shard's households, indexed by household index like the model's tuple."""

    def __init__(self, personas: Mapping[int, Persona], n: int) -> None:
        self.personas = personas
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: Any) -> Any:
        return self.personas[int(i)]


class HouseholdShard:
    """The cognitive households `households` of a run of `n` households, stepped by `decide` and `feedback`."""

    def __init__(self, cfg: PolicyConfig, cognitive: CognitiveConfig, engine: EvolutionEngine,
                 households: Sequence[int], personas: Sequence[Persona], n: int, base: int, mind_seed: int,
                 forward_logs: bool = False, public_logs: bool = True,
                 memory: AgentMemoryConfig | None = None) -> None:  # fmt: skip
        self.ids = np.asarray(households, dtype=np.int64)
        self.rows = {int(i): r for r, i in enumerate(self.ids.tolist())}
        self.n = n
        self.personas = dict(zip(self.rows, personas, strict=True))
        self.model = ShardModel(n, self.rows)
        self.policy = CognitivePolicy(cfg, kit=Kit(cognitive, engine, memory or AgentMemoryConfig()))
        for i, (mind, draws) in self.policy.minds_for(
            list(self.rows), self.personas, base, mind_seed
        ).items():
            CognitiveHousehold(self.model, i, self.personas[i], mind, draws)
        self.policy.bind(self.model)
        self.forward_logs = forward_logs
        population = self.policy.kit.population
        if not public_logs and population is not None:
            population.public.monitor.logs = False  # every shard holds the same public memory: one logs
        self._zeros = np.zeros(n)

    def decide(self, req: msg.DecideRequest) -> msg.DecideReply:
        """Perceive, recall, decide and guard; the orders and deal seekers go back to the driver."""
        with self._logs() as logs:
            snapshot = msg.unpack_snapshot(req.snapshot)
            self.model.last = snapshot
            self._load(req.market)
            month = Month(req.tick, snapshot, self._view(req.potential_income, req.consume_share))
            loop = self.policy.loop
            loop.run(month, "perceive")
            formed = self.model.bus.take()
            loop.run(month, "recall", "decide", "guard")
            guarded = self.model.bus.take()
        return msg.DecideReply(formed, guarded, month.orders, month.negotiators, self._counts(), logs)

    def feedback(self, req: msg.FeedbackRequest) -> msg.FeedbackReply:
        """Apply the central steps' results, then the reflect step: fills, scoring, persona evolution, reflection."""
        with self._logs() as logs:
            pol, kit = self.policy, self.policy.kit
            self._load(req.market, req.fills)
            minds = kit.minds()
            for i, c in sorted(req.central.items()):
                agent = minds[i]
                for tick, text, affect, meta in c.notes:
                    agent.note(tick, text, affect, **meta)
                agent.feedback.extend(c.feedback)
                for other, value in c.reputation:
                    agent.semantic.reputation[other].append(value)
                kit.submitted.setdefault(i, []).extend((o, "negotiated") for o in c.negotiated)
            empty = np.zeros(0)
            outcomes = Outcomes(
                req.tick, empty.astype(bool), empty.astype(bool), empty, empty, empty, empty, empty, {}
            )
            updates = dict(pol.feedback(outcomes, self._view(None, None)) or {})
            self.personas.update(updates)
            kit.households().select(lambda h: h.index in updates).do(
                lambda h: setattr(h, "persona", updates[h.index])
            )
            events = self.model.bus.take()
        return msg.FeedbackReply(updates, events, self._counts(), logs, dict(pol.expected_inflation()))

    def stats(self, _: object = None) -> dict[str, float]:
        """Households held and the peak resident memory of this shard's process (MB), for capacity planning."""
        import resource

        return {"households": float(len(self.ids)),
                "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}  # fmt: skip

    def _load(
        self, market: msg.Market, fills: Mapping[int, Sequence[tuple[str, str, float, float]]] | None = None
    ) -> None:
        self.model.markets.load(market, fills)
        hh = self.model.households
        hh.cash[self.ids] = market.cash
        hh.deposits[self.ids] = market.deposits

    def _view(self, potential_income: np.ndarray | None, consume_share: np.ndarray | None) -> HouseholdView:
        """A view with the shard's households' entries filled (the others are never read)."""
        z, hh = self._zeros, self.model.households
        income, share = z.copy(), z.copy()
        if potential_income is not None and consume_share is not None:
            income[self.ids] = potential_income
            share[self.ids] = consume_share
        ids = np.arange(self.n, dtype=np.int64)
        personas = cast(tuple[Persona, ...], _Personas(self.personas, self.n))
        return HouseholdView(ids=ids, sectors=(), sector=ids, skill=z, cash=hh.cash, deposits=hh.deposits,
                             potential_income=income, last_income=z, worked=z.astype(bool), consume_share=share,
                             risk_preference=z, optimism=z, learning_rate=z, social_tendency=z,
                             allocation=np.zeros((self.n, 4)), personas=personas)  # fmt: skip

    def _counts(self) -> dict[str, int]:
        out, self.policy.kit.counts = self.policy.kit.counts, {}
        return out

    @contextmanager
    def _logs(self) -> Iterator[list[tuple[int, str, str]]]:
        """In a separate process, collect the library's log records for the driver's run.log."""
        records: list[tuple[int, str, str]] = []
        if not self.forward_logs:
            yield records
            return
        handler = _Collect(records)
        logger = logging.getLogger("psychoagent")
        level, propagate = logger.level, logger.propagate
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
        try:
            yield records
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate


class _Collect(logging.Handler):
    def __init__(self, records: list[tuple[int, str, str]]) -> None:
        super().__init__()
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelno, record.name, record.getMessage()))
