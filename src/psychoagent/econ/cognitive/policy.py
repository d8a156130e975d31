"""`cognitive`: households that perceive, remember, recall, decide, pass guardrails, trade and evolve.

Work, spending and saving come from the persona rule (with the evolving persona); the cognitive loop decides
trades in the markets (`model.markets`) and bilateral steel deals. The loop is a list of steps
(`psychoagent.agent.loop.Loop`), assembled by `household_loop`: perceive -> recall -> decide -> guard -> act before
the markets clear, reflect after them. Every step reads and writes the month's blackboard (`Month`) and shares the
policy's `Kit` (settings, market side, journal, population memory); the `llm` and `econagent` variants swap the
decide step (and econagent the reflect step). A `share` of households below 1 keeps the rest on the rule.

The model owns the households: when it creates them it asks the policy which ones think (`enrol`, drawn from the
model's generator) and registers those as `CognitiveHousehold` Mesa agents holding their minds and generators;
the steps reach them through the model's AgentSet (`select`, `do`, `map`, in index order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from psychoagent.agent.config import CognitiveConfig
from psychoagent.agent.contracts import Step
from psychoagent.agent.loop import STEPS, Loop
from psychoagent.econ.baselines import PersonaHeuristicPolicy, alone
from psychoagent.econ.cognitive.act import Act, Guard
from psychoagent.econ.cognitive.heuristic import HeuristicDecide
from psychoagent.econ.cognitive.kit import Kit, KitSettings
from psychoagent.econ.cognitive.month import Month
from psychoagent.econ.cognitive.perceive import Perceive, Recall
from psychoagent.econ.cognitive.population import PopulationMind
from psychoagent.econ.cognitive.reflect import Reflect
from psychoagent.econ.cognitive.streams import household_generator
from psychoagent.econ.config import AgentMemoryConfig, PolicyConfig
from psychoagent.econ.intents import AgentState, HouseholdView, Intent, IntentBatch, Outcomes
from psychoagent.econ.mind.household import HouseholdMind
from psychoagent.econ.snapshot import Snapshot
from psychoagent.persona import EvolutionEngine, Persona

BEFORE_MARKETS = STEPS[:-1]
"""The steps of a month before the markets clear; `reflect` runs after them."""


def household_loop(
    kit: Kit, decide: Step[Month] | None = None, reflect: Step[Month] | None = None
) -> Loop[Month]:
    """The cognitive household's loop: the default steps, with the decide and reflect steps given (if any)."""
    return Loop({"perceive": Perceive(kit), "recall": Recall(kit), "decide": decide or HeuristicDecide(kit),
                 "guard": Guard(kit), "act": Act(kit), "reflect": reflect or Reflect(kit)})  # fmt: skip


def spending_view(view: HouseholdView, cfg: CognitiveConfig) -> HouseholdView:
    """The view the persona rule sets spending from: the households' own expected inflation in its buy-ahead
    term when `inflation.in_spending`, else the published inflation for everyone."""
    if cfg.inflation.in_spending or view.expected_inflation is None:
        return view
    return replace(view, expected_inflation=None)


def draw_households(
    rng: np.random.Generator, share: float, n: int
) -> tuple[np.random.Generator, np.ndarray, int, int]:
    """The policy's generator, the cognitive households (`share` of `n`, in index order), and the seeds of their
    own generators and of the population memory, all from `rng` (a sharded run draws the same on its driver)."""
    policy_rng = np.random.default_rng(int(rng.integers(2**32)))
    k = max(1, round(share * n))
    chosen = np.sort(policy_rng.choice(n, size=k, replace=False)) if k < n else np.arange(n)
    base = int(policy_rng.integers(2**32))
    return policy_rng, chosen, base, int(policy_rng.integers(2**32))


class CognitivePolicy(KitSettings):
    """The cognitive decider: the persona rule for work and spending, and the household loop for trading."""

    name = "cognitive"

    def __init__(self, cfg: PolicyConfig | None = None, cognitive: CognitiveConfig | None = None,
                 memory: AgentMemoryConfig | None = None, *, kit: Kit | None = None,
                 decide: Step[Month] | None = None, reflect: Step[Month] | None = None) -> None:  # fmt: skip
        self.cfg = cfg or PolicyConfig()
        self.rule = PersonaHeuristicPolicy(self.cfg)
        self.kit = kit or Kit(
            cognitive or CognitiveConfig(), EvolutionEngine(), memory or AgentMemoryConfig()
        )
        self.loop = household_loop(self.kit, decide, reflect)
        self.model: Any = None
        self.expected: dict[int, float] = {}
        """Expected inflation the households formed in the last reflection (`Expects`)."""

    # -- the households (Enrols, Binds) ----------------------------------------------------------------------
    def enrol(self, rng: np.random.Generator, personas: Sequence[Persona]) -> dict[int, tuple[HouseholdMind, np.random.Generator]]:  # fmt: skip
        """Draw which households think and build their minds and generators (the model registers them)."""
        self.kit.rng, chosen, base, mind_seed = draw_households(rng, self.kit.cognitive.share, len(personas))
        return self.minds_for(chosen, personas, base, mind_seed)

    def minds_for(self, chosen: Sequence[int] | np.ndarray, personas: Mapping[int, Persona] | Sequence[Persona],
                  base: int, mind_seed: int) -> dict[int, tuple[HouseholdMind, np.random.Generator]]:  # fmt: skip
        """The mind and own generator of each household in `chosen` (a run's, or one shard's), and their shared
        population memory (generators seeded from `base` and the index: what one decides does not depend on who
        shares its process)."""
        kit, cfg = self.kit, self.kit.cognitive
        embedder = None
        if cfg.ablation.memory:
            from psychoagent.embed import get_embedder

            embedder = get_embedder("hash")
        shared = embedder is not None and cfg.memory_backend == "population"
        out = {i: (self._mind(i, personas[i], embedder, shared), household_generator(base, i))
               for i in map(int, chosen)}  # fmt: skip
        if shared:
            assert embedder is not None
            kit.population = PopulationMind(list(out), embedder, cfg, kit.memory_settings, mind_seed,
                                            generators={i: draws for i, (_, draws) in out.items()})  # fmt: skip
        return out

    def bind(self, model: Any) -> None:
        """Called by the model once it is complete: the markets, bus and households the steps use."""
        self.model = model
        self.kit.host = model

    # -- the month (Policy, Learner) -------------------------------------------------------------------------
    def decide(self, snapshot: Snapshot, state: AgentState) -> Intent:
        """`decide_batch` on a view of this one household."""
        return self.decide_batch(snapshot, alone(snapshot, state))[0]

    def decide_batch(self, snapshot: Snapshot, view: HouseholdView) -> IntentBatch:
        """The persona rule's intents; with cognitive households, the loop's steps up to `act` (whose decide
        step may replace the intents)."""
        intents = self.rule.decide_batch(snapshot, spending_view(view, self.kit.cognitive))
        if self.model is None or not len(self.kit.households()):
            return intents
        month = self.loop.run(Month(snapshot.tick, snapshot, view, intents), *BEFORE_MARKETS)
        assert month.intents is not None
        return month.intents

    def feedback(self, outcomes: Outcomes, view: HouseholdView) -> Mapping[int, Persona] | None:
        """The reflect step on the month's outcomes; returns the evolved personas."""
        if self.model is None:
            return None
        month = self.loop.run(Month(outcomes.tick, None, view, outcomes=outcomes), "reflect")
        self.expected = month.expected
        return month.updates

    def expected_inflation(self) -> Mapping[int, float]:
        """Expected inflation formed in the last reflection, by household (`Expects`)."""
        return self.expected

    def renew(self, households: Sequence[int], tick: int) -> None:
        """Newcomers take the place of these households (`Renews`): each thinking one gets an empty mind (its rows
        of the population memory cleared), its own generator kept."""
        population, chosen = self.kit.population, set(households)
        for agent in self.kit.households().select(lambda a: a.index in chosen):
            memory = agent.mind.memory
            embedder = memory.embedder if memory is not None else population.embedder if population else None
            if population is not None:
                population.forget(agent.index)
            agent.mind = self._mind(agent.index, agent.persona, embedder, population is not None, joined=tick)

    def _mind(self, i: int, persona: Persona, embedder: Any, shared: bool, joined: int = 0) -> HouseholdMind:
        """Household i's mind: rows of the population memory (`shared`), its own in-memory `Memory` (an
        embedder, not shared) or none (memory ablated)."""
        kit, mem = self.kit, None
        if embedder is not None and not shared:
            from psychoagent.memory import Memory
            from psychoagent.memory.config import MemoryConfig

            mem = Memory(path=None, namespace=f"household:{i}", embedder=embedder, appraiser=None,
                         config=MemoryConfig(recall=kit.memory_settings.recall),
                         affect_config=kit.memory_settings.affect)  # fmt: skip
        return HouseholdMind(i, persona, mem, kit.cognitive, population=shared, joined=joined)
