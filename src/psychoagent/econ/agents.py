"""Households and firms as Mesa agents: the model owns them all, plain and cognitive, in its AgentSets.

`Household` points into the model's household arrays (`econ.households`) and carries a Persona; a
`CognitiveHousehold` also carries a mind (memory, beliefs, open expectations) and its own generator, and is what
`model.agents_by_type[CognitiveHousehold]` returns for the cognitive policies. Firms (`Firm`, `CognitiveFirm`
with `--firms cognitive|llm`) live in `econ.firm` and are re-exported here. The month steps cognitive
agents with AgentSet verbs in index order (`select`, `do`, `map`): every phase's events are journaled in household
order, so `shuffle_do` would change the run files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import mesa
import numpy as np

from psychoagent.econ.firm import CognitiveFirm, Firm
from psychoagent.persona import Persona
from psychoagent.types import Affect, MemoryUnit

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy
    from psychoagent.econ.mind.household import HouseholdMind
    from psychoagent.memory import Memory

__all__ = ["CognitiveFirm", "CognitiveHousehold", "Firm", "Household"]


class Household(mesa.Agent):
    """One household: a Mesa agent that points into the model's household arrays and carries a Persona."""

    def __init__(self, model: mesa.Model, index: int, persona: Persona) -> None:
        super().__init__(model)
        self.index = index
        self.persona = persona

    @property
    def economy(self) -> Economy:
        """The model as the economy's parts read it."""
        return cast("Economy", self.model)

    @property
    def wealth(self) -> float:
        """Cash plus deposits."""
        return float(self.economy.households.wealth[self.index])

    @property
    def sector(self) -> str:
        """Name of the sector whose firm this household works for."""
        return self.economy.sector_names[int(self.economy.households.sector[self.index])]


class CognitiveHousehold(Household):
    """A household that remembers, recalls, decides through guardrails and evolves: its memory handle, beliefs
    and open expectations are `mind`, its own random generator `draws` (what it decides does not depend on who
    shares its process). The model creates it in the place of a plain `Household` for each household its policy
    enrols (`Enrols`), so agents.csv and the journal name it by the same `unique_id`."""

    def __init__(self, model: mesa.Model, index: int, persona: Persona, mind: HouseholdMind,
                 draws: np.random.Generator) -> None:  # fmt: skip
        super().__init__(model, index, persona)
        self.mind = mind
        self.draws = draws

    @property
    def memory(self) -> Memory | None:
        """The household's own `Memory` (None with the population memory, whose rows it reads instead)."""
        return self.mind.memory

    @property
    def risk_preference(self) -> float:
        """The current (evolved) persona's risk preference: `select(lambda a: a.risk_preference > 0.7)`."""
        return float(self.persona.risk_preference)

    @property
    def holdings(self) -> dict[str, float]:
        """Units held per instrument."""
        return dict(self.economy.markets.holdings(self.index))

    def decides(self, tick: int) -> bool:
        """Whether it makes a trading decision this tick (every `decide_every` ticks, staggered by index)."""
        return not (tick + self.index) % self.mind.cfg.decide_every

    def rests(self, tick: int) -> bool:
        """Whether its traits drift toward their baseline this tick when no outcome arrived."""
        return (tick + self.index) % self.mind.cfg.decay_every == 0

    def reflects(self, tick: int) -> bool:
        """Whether it reflects (abstracts beliefs) this tick."""
        return (tick + self.index) % self.mind.cfg.reflection.every == 0

    def note(self, tick: int, text: str, affect: Affect | None = None, **metadata: Any) -> None:
        """Queue an event for its memory (stored at the next encoding)."""
        self.mind.note(tick, text, affect, **metadata)

    def encode(self, tick: int) -> list[MemoryUnit]:
        """Store its queued events in its own `Memory` (the population memory encodes them all at once)."""
        return self.mind.encode(tick)
