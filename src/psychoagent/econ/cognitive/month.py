"""One month of the cognitive loop, as its steps share it: the snapshot and households' view it starts from, what
each deciding household perceived, recalled and decided, the orders the guardrails approved, and after the
markets the outcomes and the personas they evolved into."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from psychoagent.econ.intents import HouseholdView, IntentBatch, Outcomes
from psychoagent.econ.mind.household import HouseholdMind
from psychoagent.econ.mind.perception import Observation
from psychoagent.econ.mind.schema import ApprovedOrder, Decision
from psychoagent.econ.snapshot import Snapshot
from psychoagent.persona import Persona

if TYPE_CHECKING:
    from psychoagent.types import Briefing


@dataclass
class Deciding:
    """One household that decides this month: its mind, persona and own generator, and what the steps found."""

    index: int
    mind: HouseholdMind
    persona: Persona
    draws: np.random.Generator
    observations: list[Observation] = field(default_factory=list)
    briefing: Briefing | None = None
    decision: Decision | None = None


@dataclass
class Month:
    """The blackboard of one month: `perceive` fills prices, flows and who decides; `recall` their briefings;
    `decide` their decisions (and may replace the intents); `guard` the approved orders and deal seekers; `act`
    adds the deals and submits; `reflect` reads the outcomes and leaves the persona updates."""

    tick: int
    snapshot: Snapshot | None
    view: HouseholdView
    intents: IntentBatch | None = None
    """Work, spending and saving of every household: the persona rule's, unless the decide step sets them."""
    prices: dict[str, float] = field(default_factory=dict)
    flows: dict[str, float] = field(default_factory=dict)
    deciding: list[Deciding] = field(default_factory=list)
    orders: list[ApprovedOrder] = field(default_factory=list)
    negotiators: list[int] = field(default_factory=list)
    outcomes: Outcomes | None = None
    updates: dict[int, Persona] = field(default_factory=dict)
    expected: dict[int, float] = field(default_factory=dict)
    """Expected inflation of the households that hold one this month (from the first anniversary of joining)."""
