"""The economy's protocols: what a decision policy declares, and what the model's parts read of the economy.

Policy protocols: the model and the runner test them with `isinstance` instead of probing attributes, so a policy
declares what it does (binds to the model, enrols cognitive households, learns from outcomes, asks a language
model, needs closing). Economy protocols: what the model's parts (markets, bank, indicators, collectors, monthly
steps, firms, the cognitive deciders) read of the model, so none of them imports it; `EconomyModel` implements
`Economy`. The data a decision reads and returns is in `econ.intents`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from psychoagent.persona import Persona

if TYPE_CHECKING:
    import mesa
    from mesa import DataCollector

    from psychoagent.agent.bus import EventBus
    from psychoagent.econ.config import EconomyConfig, SimulationConfig
    from psychoagent.econ.firm import Firm
    from psychoagent.econ.households import HouseholdArrays
    from psychoagent.econ.intents import AgentState, HouseholdView, Intent, IntentBatch, Outcomes
    from psychoagent.econ.orders import Order, Receipt
    from psychoagent.econ.shocks import Levers
    from psychoagent.econ.snapshot import Snapshot
    from psychoagent.econ.streams import Streams

__all__ = [
    "Binds", "Closes", "Configurable", "Economy", "Enrols", "Exchange", "Filled", "FirmBoard", "Learner", "Lender",
    "MarketAccess", "Marketplace", "Policy", "Publishes", "Quoted", "Shards", "UsesModel",
]  # fmt: skip


# -- what a policy declares ---------------------------------------------------------------------------------------


@runtime_checkable
class Policy(Protocol):
    """Decides what households do; reads only the snapshot and the household's own state."""

    name: str

    def decide(self, snapshot: Snapshot, state: AgentState) -> Intent: ...

    def decide_batch(self, snapshot: Snapshot, view: HouseholdView) -> IntentBatch: ...


@runtime_checkable
class Learner(Protocol):
    """A policy that is called after each tick with the outcomes; may return new personas (household index ->
    Persona) that the model installs before the next decision."""

    def feedback(self, outcomes: Outcomes, view: HouseholdView) -> Mapping[int, Persona] | None: ...


@runtime_checkable
class Binds(Protocol):
    """A policy that trades or keeps per-agent state: it gets the model once the model is complete."""

    def bind(self, model: Any) -> None: ...


@runtime_checkable
class Enrols(Protocol):
    """A policy with cognitive households: when the model creates its households it asks the policy which of
    them think (drawn from the model's generator right after the households) and the mind and own generator of
    each; the model registers those as `CognitiveHousehold` agents. An empty answer keeps plain households (a
    sharded policy's minds live in its shards)."""

    def enrol(
        self, rng: np.random.Generator, personas: Sequence[Persona]
    ) -> Mapping[int, tuple[Any, np.random.Generator]]: ...


@runtime_checkable
class Expects(Protocol):
    """A policy whose households form their own inflation expectations (`econ/cognitive/inflation.py`): after
    each feedback, those formed in that month, by household index (the agents table's `expected_inflation`)."""

    def expected_inflation(self) -> Mapping[int, float]: ...


@runtime_checkable
class Renews(Protocol):
    """A policy with per-household minds: newcomers take the place of households (`econ.cohorts`), and their
    minds start empty (no memories, beliefs, expectations or open trades)."""

    def renew(self, households: Sequence[int], tick: int) -> None: ...


@runtime_checkable
class Configurable(Protocol):
    """A policy with cognitive households: it runs with the `cognitive`, `evolution` and `memory` parts of the
    run's settings (`cognitive`, `engine.config`, `memory_settings`), which `configure` replaces before the model
    is built."""

    cognitive: Any
    engine: Any
    memory_settings: Any

    def configure(self, settings: SimulationConfig) -> None: ...


@runtime_checkable
class UsesModel(Protocol):
    """A policy that asks a language model: `use_llm` installs the model named by `--llm` as its `client`."""

    client: Any

    def use_llm(self, spec: str | None) -> None: ...


@runtime_checkable
class Closes(Protocol):
    """A policy that started something (shards, a local Ray cluster) and must stop it after the run."""

    def close(self) -> None: ...


class Shards(Protocol):
    """Where a sharded policy's households live: one method called on every shard with its own request, the
    replies in shard order (`econ.distributed.backends`: in this process or in Ray actors)."""

    def call(self, method: str, requests: Sequence[Any]) -> list[Any]: ...

    def close(self) -> None: ...


# -- what the model's parts read of the economy -------------------------------------------------------------------


class Publishes(Protocol):
    """Where events go: the model's `EventBus`, or a shard's recorder."""

    def emit(self, tick: int, type_: str, payload: dict[str, Any], source: str, /) -> object: ...


class Quoted(Protocol):
    """What an agent reads of a quote."""

    @property
    def price(self) -> float: ...

    @property
    def net_flow(self) -> float: ...


class Filled(Protocol):
    """What an agent reads of a fill (quantity 0: the rest of the order expired)."""

    @property
    def instrument(self) -> str: ...

    @property
    def side(self) -> str: ...

    @property
    def quantity(self) -> float: ...

    @property
    def price(self) -> float: ...


class MarketAccess(Protocol):
    """What the agent side relies on (implemented by `psychoagent.econ.markets.Markets` and a shard's stand-in):
    listed instruments, quotes, holdings, position caps and fee, order submission and the last session's fills."""

    @property
    def instruments(self) -> tuple[str, ...]: ...

    @property
    def fee_rate(self) -> float: ...

    def submit(self, orders: Iterable[Order | Mapping[str, Any]]) -> Receipt: ...

    def fills(self, agent_id: int) -> Sequence[Filled]: ...  # one per auction that filled part of an order

    def quote(self, instrument: str) -> Quoted: ...

    def holdings(self, agent_id: int) -> dict[str, float]: ...

    def position_caps(self) -> dict[str, float]: ...

    def yield_of(self, instrument: str) -> float | None: ...


class HoldsCash(Protocol):
    """A sector of the markets that holds money (the market maker)."""

    cash: float


class Exchange(MarketAccess, Protocol):
    """The markets as the model's monthly steps use them: dividends by shares held, the government's payments
    financed by bonds, and the auction records of assets.csv."""

    records: list[tuple[Any, ...]]

    def prices(self) -> dict[str, float]: ...

    def pay_dividend(self, firm: Firm, payout: float) -> np.ndarray: ...

    def government_payments(self, nominal_gdp: float) -> tuple[np.ndarray, np.ndarray]: ...

    def bonds_outstanding(self) -> float: ...  # bond units held (the government's debt in bonds, at face)

    def risky_values(self) -> np.ndarray: ...  # each household's stocks and steel at the last prices

    @property
    def maker(self) -> HoldsCash: ...  # the stocks' market maker: its cash is part of the money stock


class Lender(Protocol):
    """The bank as the month's steps use it: what a firm's overdraft cost this month, and deposit interest."""

    equity: float

    def month_cost(self, index: int) -> float: ...

    def settle(self, deposits: np.ndarray) -> np.ndarray: ...


class BillWindow(Protocol):
    """Treasury bills at the bank's window (econ/bills.py): who holds them, their interest and the month's trades."""

    households: np.ndarray
    bank: float

    def interest(self) -> np.ndarray: ...

    def trade(self) -> float: ...


class FirmBoard(Protocol):
    """Cognitive firms in production: output under their plants' capacity and R&D, researchers hired with their R&D
    budget, input drawn from their own stock."""

    def cap_output(self, f: Firm, potential: float) -> float: ...

    def productivity(self, f: Firm) -> float: ...

    def research_jobs(self, f: Firm, seekers: int, pay: float) -> int: ...

    def draw_input(self, f: Firm, need: float) -> float: ...


class Marketplace(Protocol):
    """What a cognitive decider reads of the model it is bound to (`EconomyModel`, or a shard's stand-in)."""

    @property
    def markets(self) -> MarketAccess: ...

    @property
    def bus(self) -> Publishes: ...

    @property
    def agents_by_type(self) -> dict[type[mesa.Agent], mesa.agent.AgentSet[Any]]: ...

    def snapshot(self) -> Snapshot: ...


class Economy(Protocol):
    """The economy as the model's parts read and move it (implemented by `EconomyModel`): the markets, bank,
    treasury, indicators, collectors, monthly steps and cognitive firms take this instead of the model, so the
    arrows run from the model down to them. Money balances the parts move are attributes; the rest is read."""

    gov_balance: float
    money_created: float

    @property
    def config(self) -> EconomyConfig: ...

    @property
    def streams(self) -> Streams: ...  # a generator per part of the month (parts never draw from `model.rng`)

    @property
    def bus(self) -> EventBus: ...

    @property
    def tick(self) -> int: ...

    @property
    def households(self) -> HouseholdArrays: ...

    @property
    def personas(self) -> tuple[Persona, ...]: ...

    @property
    def first_personas(self) -> tuple[Persona, ...]: ...  # each household's persona at the start

    @property
    def run_seed(self) -> int: ...

    @property
    def policy(self) -> Policy: ...

    def set_personas(self, updates: Mapping[int, Persona]) -> None: ...

    @property
    def firms(self) -> list[Firm]: ...

    @property
    def sector_names(self) -> tuple[str, ...]: ...

    @property
    def production_order(self) -> list[int]: ...

    @property
    def basket(self) -> np.ndarray: ...

    @property
    def base_prices(self) -> np.ndarray: ...

    @property
    def interest_rate(self) -> float: ...

    @property
    def fallbacks(self) -> int: ...

    @property
    def levers(self) -> Levers: ...

    @property
    def metrics(self) -> dict[str, float]: ...

    @property
    def history(self) -> list[dict[str, float]]: ...

    @property
    def prehistory(self) -> list[dict[str, float]]: ...

    @property
    def agent_table(self) -> list[tuple[object, ...]]: ...

    @property
    def bank(self) -> Lender: ...

    @property
    def markets(self) -> Exchange: ...

    @property
    def bills(self) -> BillWindow: ...

    @property
    def firm_board(self) -> FirmBoard | None: ...

    @property
    def datacollector(self) -> DataCollector: ...

    @property
    def agents_by_type(self) -> dict[type[mesa.Agent], mesa.agent.AgentSet[Any]]: ...

    def snapshot(self) -> Snapshot: ...

    def total_money(self) -> float: ...

    def money(self) -> float: ...
