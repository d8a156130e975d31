"""The one root of a simulation's settings: the economy, the cognitive agents' loop, their persona evolution and
their memories.

A scenario file overrides any part (`economy`, `cognitive`, `evolution`, `memory` tables); `config.json` records
them as the run used them, and the evaluation's switches and sweeps are looked up in this one tree.
"""

from __future__ import annotations

from pydantic import Field

from psychoagent.agent.config import CognitiveConfig
from psychoagent.config import ConfigModel
from psychoagent.econ.config import EconomyConfig
from psychoagent.memory.config import AffectiveMemoryConfig, ConflictConfig, RecallConfig
from psychoagent.persona.config import EvolutionConfig

__all__ = ["AgentMemoryConfig", "SimulationConfig", "event_memory"]


def event_memory() -> AffectiveMemoryConfig:
    """Affect settings of memories of numeric market events: a later price is news, not a correction of an
    earlier one, so change detection is off and only rule-based slot clashes (same slot, different value) link
    them, as the economy was calibrated."""
    return AffectiveMemoryConfig(conflicts=ConflictConfig(detect_changes=False))


class AgentMemoryConfig(ConfigModel):
    """How the cognitive households' memories recall and appraise (a scenario's `[memory]` table; its `recipe`
    key starts `recall` from a named recipe of `psychoagent.memory.recipes`)."""

    recall: RecallConfig = Field(
        default_factory=RecallConfig,
        description="recall weights of the households' memories (population recall reads the ones it has)",
    )
    affect: AffectiveMemoryConfig = Field(
        default_factory=event_memory,
        description="conflicts, modulation, decay and fusion of the households' memories (change detection off)",
    )


class SimulationConfig(ConfigModel):
    """Everything a run is configured by, apart from the run's size and seed (arguments of `simulate`)."""

    economy: EconomyConfig = Field(default_factory=EconomyConfig, description="the macro economy and markets")
    cognitive: CognitiveConfig = Field(
        default_factory=CognitiveConfig,
        description="the cognitive households' loop (memory, recall, guardrails, look-ahead, negotiation, ablations)",
    )
    evolution: EvolutionConfig = Field(
        default_factory=EvolutionConfig, description="how the cognitive households' personas evolve"
    )
    memory: AgentMemoryConfig = Field(
        default_factory=AgentMemoryConfig,
        description="how the cognitive households' memories recall and appraise",
    )
