"""The one root of a simulation's settings: the economy, the cognitive agents' loop and their persona evolution.

A scenario file overrides any part (`economy`, `cognitive`, `evolution` tables); `config.json` records the three
as the run used them, and the evaluation's switches and sweeps are looked up in this one tree.
"""

from __future__ import annotations

from pydantic import Field

from psychoagent.agent.config import CognitiveConfig
from psychoagent.config import ConfigModel
from psychoagent.econ.config import EconomyConfig
from psychoagent.persona.config import EvolutionConfig

__all__ = ["SimulationConfig"]


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
