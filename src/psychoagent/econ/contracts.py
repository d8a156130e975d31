"""The economy's extension points: the protocols a decision policy implements.

The model and the runner test these with `isinstance` instead of probing attributes with `getattr`, so a policy
declares what it does (binds to the model, learns from outcomes, asks a language model, needs closing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from psychoagent.econ.policies import AgentState, HouseholdView, Intent, IntentBatch, Outcomes
    from psychoagent.econ.settings import SimulationConfig
    from psychoagent.econ.snapshot import Snapshot
    from psychoagent.persona import Persona

__all__ = ["Binds", "Closes", "Configurable", "Learner", "Policy", "UsesModel"]


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
