"""What the steps of one cognitive policy share: its settings and the guardrails built from them, the market side
it trades through (quotes, holdings, limits, submission), the journal (events and counts), the policy's generator,
the population memory, and the orders submitted this month.

The households themselves are the model's (`CognitiveHousehold` agents in its AgentSets); the kit reads them from
the model it is bound to. A sharded run's driver holds stand-ins for them instead (`remote`).
"""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import Any

import numpy as np
from mesa.agent import AgentSet

from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.agents import CognitiveHousehold
from psychoagent.econ.cognitive.population import PopulationMind
from psychoagent.econ.config import AgentMemoryConfig, SimulationConfig
from psychoagent.econ.contracts import MarketAccess, Marketplace
from psychoagent.econ.intents import HouseholdView
from psychoagent.econ.mind.guardrails import Account, Guardrails
from psychoagent.econ.mind.perception import PriceHistory
from psychoagent.econ.mind.schema import ApprovedOrder
from psychoagent.econ.orders import Order
from psychoagent.econ.snapshot import Snapshot
from psychoagent.forward import Forward
from psychoagent.persona import EvolutionEngine
from psychoagent.types import Affect


class Kit:
    """Settings, market side, journal and shared memory of one cognitive policy (one per shard in a sharded run)."""

    def __init__(self, cognitive: CognitiveConfig, engine: EvolutionEngine, memory: AgentMemoryConfig,
                 pin: Mapping[str, Any] | None = None) -> None:  # fmt: skip
        self.pin = dict(pin or {})
        """Cognitive settings a variant fixes whatever the run's settings say (econagent: `decide_every`)."""
        self.memory_settings = memory
        """How the households' memories recall and appraise (a scenario's `memory` table)."""
        self.settle(cognitive, engine)
        self.host: Marketplace | None = None
        self.rng = np.random.default_rng(0)
        """The policy's generator (drawn from the model's): who thinks, pairing for steel deals."""
        self.population: PopulationMind | None = None
        """The population memory of all cognitive households (None with private memories or no memory)."""
        self.remote: dict[int, Any] | None = None
        """A sharded run's driver: stand-ins of the households whose minds live in the shards."""
        self.submitted: dict[int, list[tuple[ApprovedOrder, str]]] = {}
        """This month's approved orders per household, with the signal behind each (scored when filled)."""
        self.counts: dict[str, int] = {}
        self.limits: tuple[dict[str, float], float] = ({}, 0.0)
        """The markets' position caps and fee rate, read once at the start of the month."""

    def settle(self, cognitive: CognitiveConfig, engine: EvolutionEngine) -> None:
        """Run with these cognitive settings (the pinned ones kept) and this evolution engine."""
        if self.pin:
            cognitive = cognitive.model_copy(update=self.pin)
        self.cognitive, self.engine = cognitive, engine
        self.history = PriceHistory(cognitive.perception.history)
        self.guardrails = Guardrails(
            cognitive.guardrails, cognitive.lookahead, enabled=cognitive.ablation.guardrails
        )

    # -- the households ------------------------------------------------------------------------------------------
    def households(self) -> AgentSet[Any]:
        """The model's cognitive households as a Mesa AgentSet in index order (empty before the policy is bound)."""
        found = getattr(self.host, "agents_by_type", {}).get(CognitiveHousehold)
        return found if found is not None else AgentSet([], random=Random(0))

    def minds(self) -> Mapping[int, Any]:
        """Household index -> mind, in index order (a driver's stand-ins when the minds live in shards)."""
        if self.remote is not None:
            return self.remote
        return {a.index: a.mind for a in self.households()}

    # -- the journal ---------------------------------------------------------------------------------------------
    def count(self, key: str, n: int = 1) -> None:
        """Add `n` to the count of `key` (an event type, a decision type, a fallback)."""
        self.counts[key] = self.counts.get(key, 0) + n

    def emit(self, tick: int, type_: str, payload: dict[str, Any], source: str) -> None:
        """Publish an event on the model's bus and count it."""
        if self.host is not None:
            self.host.bus.emit(tick, type_, payload, source)
        self.count(type_)

    # -- the market side -----------------------------------------------------------------------------------------
    @property
    def markets(self) -> MarketAccess | None:
        """The bound model's markets (None before binding)."""
        return getattr(self.host, "markets", None)

    def instruments(self) -> list[str]:
        """Listed instruments the households may trade (`CognitiveConfig.instruments`, empty: all)."""
        m = self.markets
        listed = list(m.instruments) if m is not None else []
        wanted = self.cognitive.instruments
        return [x for x in listed if not wanted or x in wanted]

    def prices(self, snapshot: Snapshot) -> dict[str, float]:
        """Last price of every tradable instrument (a quote that fails is skipped this month and counted)."""
        m = self.markets
        out = {}
        for name in self.instruments():
            try:
                out[name] = float(m.quote(name).price)  # type: ignore[union-attr]
            except Exception:  # a quote that fails is skipped this tick, never fatal
                self.count("quote.failed")
        return out

    def flows(self) -> dict[str, float]:
        """Net order flow of every tradable instrument (0 when its quote fails)."""
        m = self.markets
        out = {}
        for name in self.instruments():
            try:
                out[name] = float(m.quote(name).net_flow)  # type: ignore[union-attr]
            except Exception:
                out[name] = 0.0
        return out

    def holdings(self, i: int) -> dict[str, float]:
        """Units household i holds of each listed instrument (none without markets)."""
        m = self.markets
        return dict(m.holdings(i)) if m is not None else {}

    def read_limits(self) -> None:
        """Read the position caps and fee rate of the markets for this month (empty / 0 without markets)."""
        m = self.markets
        caps = dict(m.position_caps()) if m is not None else {}
        fee = float(m.fee_rate or 0.0) if m is not None else 0.0
        self.limits = caps, fee

    def account(self, i: int, view: HouseholdView, prices: Mapping[str, float],
                changes: Mapping[str, float] | None = None) -> Account:  # fmt: skip
        """Household i's account as the guardrails see it: cash, holdings, income, spending, room under the caps."""
        income = float(view.potential_income[i])
        held = self.holdings(i)
        caps, fee = self.limits
        room = {k: max(c - held.get(k, 0.0), 0.0) for k, c in caps.items()}
        return Account(agent=i, cash=float(view.cash[i] + view.deposits[i]), holdings=held, prices=prices,
                       income=income, spending=float(view.consume_share[i]) * income, supply=room, fee_rate=fee,
                       changes=changes or {})  # fmt: skip

    def submit(self, t: int, orders: list[ApprovedOrder]) -> None:
        """Send the month's approved orders to the markets at once; a refusal becomes the household's feedback."""
        m = self.markets
        if m is None or not orders:
            return
        receipt = m.submit([Order(agent_id=o.agent, instrument=o.instrument, side=o.side, quantity=o.quantity,
                                  limit_price=o.limit_price) for o in orders])  # fmt: skip
        minds = self.minds() if receipt.rejected else {}
        for rej in receipt.rejected:
            agent = minds.get(rej.agent_id)
            if agent is not None:
                agent.feedback.append(f"market: {rej.reason}: {rej.detail}")
                agent.note(t, f"The market refused my order: {rej.detail}",
                           Affect(valence=-1, arousal=2, reason="market rejection"), kind_of="refusal")  # fmt: skip
            self.count("market.rejected")


class KitSettings:
    """The `Configurable` face of a policy whose steps share a `Kit`: its cognitive, evolution and memory
    settings, `configure` to replace them before the model is built, and the counts of what happened."""

    kit: Kit

    cognitive = Forward[CognitiveConfig]("kit")
    engine = Forward[EvolutionEngine]("kit")
    memory_settings = Forward[AgentMemoryConfig]("kit")
    counts = Forward[dict[str, int]]("kit", doc="How often each event, decision type and fallback occurred.")

    def configure(self, settings: SimulationConfig) -> None:
        """Run with the settings' cognitive loop, persona evolution and memories (a scenario's `cognitive`,
        `evolution` and `memory` tables)."""
        self.kit.settle(settings.cognitive, EvolutionEngine(settings.evolution))
        self.kit.memory_settings = settings.memory
