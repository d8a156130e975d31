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
    sector: str
    skill: float
    cash: float
    deposits: float
    potential_income: float
    last_income: float
    worked: bool
    consume_share: float
    persona: Persona

    @property
    def wealth(self) -> float:
        """Cash plus deposits."""
        return self.cash + self.deposits


@dataclass(frozen=True)
class HouseholdView:
    """All households' private state as read-only arrays (index i is household `ids[i]`)."""

    ids: NDArray[np.int64]
    sectors: tuple[str, ...]
    sector: NDArray[np.int64]
    skill: FloatArray
    cash: FloatArray
    deposits: FloatArray
    potential_income: FloatArray
    last_income: FloatArray
    worked: NDArray[np.bool_]
    consume_share: FloatArray
    risk_preference: FloatArray
    optimism: FloatArray
    learning_rate: FloatArray
    social_tendency: FloatArray
    allocation: FloatArray
    personas: tuple[Persona, ...]

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
    consume: float
    save: float
    reason: str = ""


@dataclass(frozen=True)
class IntentBatch:
    """Intents of all households as arrays aligned with the `HouseholdView`."""

    work: FloatArray
    consume: FloatArray
    save: FloatArray

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
    wanted_work: NDArray[np.bool_]
    worked: NDArray[np.bool_]
    wage_income: FloatArray
    income: FloatArray
    budget: FloatArray
    spent: FloatArray
    wealth: FloatArray
    metrics: Mapping[str, float]

    @property
    def rationed(self) -> NDArray[np.bool_]:
        """Households that could not buy all they wanted (a shortage hit them)."""
        return np.asarray(self.spent < self.budget * (1.0 - 1e-9) - 1e-9)
