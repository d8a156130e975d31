"""All knobs of a `Memory` as one tree, `MemoryConfig`: store durability, recall weights (and the named recipes of
them) and the affect-memory settings (conflicts, modulation, decay, safety, monitor, fusion, consolidation)."""

from __future__ import annotations

from pydantic import Field

from psychoagent.config import ConfigModel, NonNegativeInt
from psychoagent.memory.config.affect import (
    AffectiveMemoryConfig,
    ConflictConfig,
    ConsolidationConfig,
    DecayConfig,
    ModulationConfig,
    MonitorConfig,
    SafetyConfig,
)
from psychoagent.memory.config.fusion import DEFAULT_STRATEGIES, FusionConfig, StrategyTemplate
from psychoagent.memory.config.recall import DEFAULT_DENSE_WEIGHT, RecallConfig
from psychoagent.memory.config.recipes import RECALL_RECIPES, RecallRecipe, recall_recipe, recipe_names
from psychoagent.memory.config.store import StoreConfig

__all__ = [
    "DEFAULT_DENSE_WEIGHT", "DEFAULT_STRATEGIES", "RECALL_RECIPES", "AffectiveMemoryConfig", "ConflictConfig", "ConsolidationConfig",
    "DecayConfig", "FusionConfig", "MemoryConfig", "ModulationConfig", "MonitorConfig", "RecallConfig",
    "RecallRecipe", "SafetyConfig", "StoreConfig", "StrategyTemplate", "recall_recipe", "recipe_names",
]  # fmt: skip


class MemoryConfig(ConfigModel):
    """All knobs of a `Memory`: store durability, recall weights and the affect-memory settings (`affect`, used
    when `Memory(affect_config=...)` is not given)."""

    store: StoreConfig = Field(default_factory=StoreConfig)
    recall: RecallConfig = Field(default_factory=RecallConfig)
    affect: AffectiveMemoryConfig = Field(default_factory=AffectiveMemoryConfig)
    embed_cache_size: NonNegativeInt = 10000
    """texts whose embeddings are kept in process memory (the SQLite cache is unbounded)"""
