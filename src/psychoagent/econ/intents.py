"""A household decision's data: the private state it reads (`AgentState` for one household, `HouseholdView`
for all), what it returns (`Intent`, `IntentBatch`) and what came of it (`Outcomes`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from psychoagent.persona import Persona

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class AgentState:
    """One household's private state as its policy sees it (money in currency units, income per month)."""

    id: int
    """The household's agent id (its `unique_id`, the name agents.csv and the journal use)."""
    sector: str
    """Name of the sector it works in."""
    skill: float
    """Its skill (Pareto-drawn): pay is hours x skill x its sector's hourly wage."""
    cash: float
    """Money on hand."""
    deposits: float
    """Savings at the bank, earning interest: deposits and bills (econ/bills.py)."""
    potential_income: float
    """Pay for a month's work at this month's wage: hours x skill x its sector's wage, before tax."""
    last_income: float
    """Last month's net income: wages, dividends, interest, coupons, transfers and benefits, less tax and
    insurance contributions."""
    worked: bool
    """Whether it worked last month."""
    consume_share: float
    """Last month's spending intent (share of wealth, before a demand shock's factor); 0.5 at the start."""
    persona: Persona
    """Its current persona (traits and budget allocation), evolved by a learning policy."""

    @property
    def wealth(self) -> float:
        """Cash plus deposits."""
        return self.cash + self.deposits


@dataclass(frozen=True)
class HouseholdView:
    """All households' private state as read-only arrays (index i is household `ids[i]`)."""

    ids: NDArray[np.int64]
    """Each household's agent id (`AgentState.id`)."""
    sectors: tuple[str, ...]
    """Sector names in sector-index order."""
    sector: NDArray[np.int64]
    """Each household's sector, as an index into `sectors`."""
    skill: FloatArray
    """`AgentState.skill` of each household."""
    cash: FloatArray
    """Money on hand."""
    deposits: FloatArray
    """Savings at the bank: deposits and bills (econ/bills.py)."""
    potential_income: FloatArray
    """`AgentState.potential_income`: a month's pay at this month's wage, before tax."""
    last_income: FloatArray
    """`AgentState.last_income`: last month's net income."""
    worked: NDArray[np.bool_]
    """Who worked last month."""
    consume_share: FloatArray
    """`AgentState.consume_share`: last month's spending intent."""
    risk_preference: FloatArray
    """Persona trait in [0, 1] (the columns below follow the personas when they change)."""
    optimism: FloatArray
    """Persona trait in [-1, 1]."""
    learning_rate: FloatArray
    """Persona trait in [0, 1]."""
    social_tendency: FloatArray
    """Persona trait in [0, 1]."""
    allocation: FloatArray
    """Persona budget shares, one row per household: consume, save, invest, R&D (each row sums to 1)."""
    personas: tuple[Persona, ...]
    """Each household's persona."""
    expected_inflation: FloatArray | None = None
    """Inflation each household expects over the next 12 months, NaN where it forms none; None: the rule reads the
    published inflation for everyone (`econ/cognitive/inflation.py`)."""

    def __len__(self) -> int:
        return int(self.ids.size)

    @property
    def wealth(self) -> FloatArray:
        """Cash plus deposits."""
        return self.cash + self.deposits

    def agent(self, i: int) -> AgentState:
        """The state of household at index i."""
        return AgentState(
            id=int(self.ids[i]), sector=self.sectors[int(self.sector[i])], skill=float(self.skill[i]),
            cash=float(self.cash[i]), deposits=float(self.deposits[i]),
            potential_income=float(self.potential_income[i]), last_income=float(self.last_income[i]),
            worked=bool(self.worked[i]), consume_share=float(self.consume_share[i]), persona=self.personas[i],
        )  # fmt: skip

    @classmethod
    def of(cls, states: Sequence[AgentState], sectors: tuple[str, ...]) -> HouseholdView:
        """Build a view from single states (used to run a vectorised policy on one household)."""
        p = [s.persona for s in states]
        return cls(
            ids=np.array([s.id for s in states], dtype=np.int64), sectors=sectors,
            sector=np.array([sectors.index(s.sector) for s in states], dtype=np.int64),
            skill=np.array([s.skill for s in states]), cash=np.array([s.cash for s in states]),
            deposits=np.array([s.deposits for s in states]),
            potential_income=np.array([s.potential_income for s in states]),
            last_income=np.array([s.last_income for s in states]),
            worked=np.array([s.worked for s in states], dtype=bool),
            consume_share=np.array([s.consume_share for s in states]),
            risk_preference=np.array([x.risk_preference for x in p]), optimism=np.array([x.optimism for x in p]),
            learning_rate=np.array([x.learning_rate for x in p]),
            social_tendency=np.array([x.social_tendency for x in p]),
            allocation=np.array([x.allocation.as_tuple() for x in p]).reshape(len(p), 4), personas=tuple(p),
        )  # fmt: skip


@dataclass(frozen=True)
class Intent:
    """What one household wants: work propensity, share of wealth to spend, share of the rest to deposit."""

    work: float
    """Chance in [0, 1] that it offers to work this month."""
    consume: float
    """Share of its wealth it means to spend on goods this month, in [0, 1]."""
    save: float
    """Share of the wealth left after spending it keeps as deposits (the rest as cash), in [0, 1]."""
    reason: str = ""
    """The policy's explanation, free text; the model does not read it (an `IntentBatch` drops it)."""


@dataclass(frozen=True)
class IntentBatch:
    """Intents of all households as arrays aligned with the `HouseholdView`."""

    work: FloatArray
    """`Intent.work` of each household."""
    consume: FloatArray
    """`Intent.consume` of each household."""
    save: FloatArray
    """`Intent.save` of each household."""

    def __getitem__(self, i: int) -> Intent:
        return Intent(float(self.work[i]), float(self.consume[i]), float(self.save[i]))

    @classmethod
    def of(cls, intents: Sequence[Intent]) -> IntentBatch:
        """Stack single intents."""
        return cls(
            np.array([x.work for x in intents], dtype=float),
            np.array([x.consume for x in intents], dtype=float),
            np.array([x.save for x in intents], dtype=float),
        )


@dataclass(frozen=True)
class Outcomes:
    """What happened to each household this tick (arrays aligned with the `HouseholdView`) plus the macro row.

    A learning policy turns these into memories and persona updates (prediction error = outcome - intent).
    """

    tick: int
    """The month these outcomes are of."""
    wanted_work: NDArray[np.bool_]
    """Who offered to work (a draw under its work intent)."""
    worked: NDArray[np.bool_]
    """Who got a job and worked."""
    wage_income: FloatArray
    """Wages earned this month, before tax (0 without work)."""
    income: FloatArray
    """This month's net income (`AgentState.last_income` next month)."""
    budget: FloatArray
    """What each household meant to spend: its consume intent (after any demand shock) x its wealth."""
    spent: FloatArray
    """What it did spend on goods (less than the budget when rationed)."""
    wealth: FloatArray
    """Cash plus deposits at the month's end."""
    metrics: Mapping[str, float]
    """This month's macro indicators (its row of macro.csv)."""

    @property
    def rationed(self) -> NDArray[np.bool_]:
        """Households that could not buy all they wanted (a shortage hit them)."""
        return np.asarray(self.spent < self.budget * (1.0 - 1e-9) - 1e-9)
