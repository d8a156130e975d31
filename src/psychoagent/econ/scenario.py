"""Scenarios: a TOML or YAML file of parameter overrides and scheduled shocks; a few ship with the package."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.config import AgentMemoryConfig, EconomyConfig, SimulationConfig
from psychoagent.econ.shocks import Shock
from psychoagent.persona.config import EvolutionConfig

_SUFFIXES = (".toml", ".yaml", ".yml")


class Scenario(BaseModel):
    """A named setting: overrides of the run's `SimulationConfig` (nested tables, partial: `economy`,
    `cognitive`, `evolution`, `memory`) plus a shock schedule."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "baseline"
    description: str = ""
    ticks: int | None = Field(None, ge=1, description="suggested run length in months (the CLI may override)")
    economy: dict[str, Any] = Field(default_factory=dict, description="overrides of EconomyConfig fields")
    cognitive: dict[str, Any] = Field(
        default_factory=dict,
        description="overrides of CognitiveConfig fields (policies with cognitive households)",
    )
    evolution: dict[str, Any] = Field(
        default_factory=dict,
        description="overrides of EvolutionConfig fields; `preset` names the preset they start from",
    )
    memory: dict[str, Any] = Field(
        default_factory=dict,
        description="overrides of the households' AgentMemoryConfig (`recall`, `affect`); `recipe` names the "
        "recall recipe they start from",
    )
    shocks: list[Shock] = Field(default_factory=list)

    @field_validator("cognitive")
    @classmethod
    def _cognitive(cls, value: dict[str, Any]) -> dict[str, Any]:
        _cognitive_config(value)
        return value

    @field_validator("evolution")
    @classmethod
    def _evolution(cls, value: dict[str, Any]) -> dict[str, Any]:
        _evolution_config(value)
        return value

    @field_validator("memory")
    @classmethod
    def _memory(cls, value: dict[str, Any]) -> dict[str, Any]:
        _memory_config(value)
        return value

    @property
    def configures_agents(self) -> bool:
        """Whether the scenario overrides the cognitive households' loop, their persona evolution or memories."""
        return bool(self.cognitive or self.evolution or self.memory)

    def settings(self, base: SimulationConfig | None = None) -> SimulationConfig:
        """`base` (defaults when None) with all of this scenario's overrides deep-merged in and validated."""
        base = base or SimulationConfig()
        return SimulationConfig(
            economy=self.apply(base.economy),
            cognitive=_cognitive_config(self.cognitive, base.cognitive),
            evolution=_evolution_config(self.evolution, base.evolution),
            memory=_memory_config(self.memory, base.memory),
        )

    def apply(self, base: EconomyConfig | None = None) -> EconomyConfig:
        """`base` (default config when None) with this scenario's overrides deep-merged in and validated."""
        data = (base or EconomyConfig()).model_dump()
        return EconomyConfig.model_validate(deep_merge(data, self.economy))

    def check(self, cfg: EconomyConfig) -> None:
        """Raise ValueError when a shock names a sector the economy does not have."""
        names = {s.name for s in cfg.sectors}
        for shock in self.shocks:
            sector = getattr(shock, "sector", None)
            if sector is not None and sector not in names:
                raise ValueError(
                    f"scenario {self.name!r}: shock {shock.kind} names sector {sector!r}; sectors: {sorted(names)}"
                )


def _cognitive_config(over: dict[str, Any], base: CognitiveConfig | None = None) -> CognitiveConfig:
    return CognitiveConfig.model_validate(deep_merge((base or CognitiveConfig()).model_dump(), over))


def _evolution_config(over: dict[str, Any], base: EvolutionConfig | None = None) -> EvolutionConfig:
    rest = dict(over)
    preset = rest.pop("preset", None)
    start = EvolutionConfig.preset(str(preset)) if preset is not None else (base or EvolutionConfig())
    return EvolutionConfig.model_validate(deep_merge(start.model_dump(), rest))


def _memory_config(over: dict[str, Any], base: AgentMemoryConfig | None = None) -> AgentMemoryConfig:
    from psychoagent.memory.config.recipes import recall_recipe

    rest = dict(over)
    recipe = rest.pop("recipe", None)
    start = (base or AgentMemoryConfig()).model_dump()
    if recipe is not None:
        start["recall"] = recall_recipe(str(recipe)).model_dump()
    return AgentMemoryConfig.model_validate(deep_merge(start, rest))


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `over` merged in: nested tables merge key by key, anything else in `over` replaces."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def builtin_scenarios() -> list[str]:
    """Names of the scenarios shipped in `psychoagent/econ/scenarios/`."""
    folder = resources.files("psychoagent.econ") / "scenarios"
    return sorted(Path(p.name).stem for p in folder.iterdir() if p.name.endswith(_SUFFIXES))


def parse_scenario(text: str, fmt: str, origin: str = "<text>") -> Scenario:
    """Parse scenario text in 'toml' or 'yaml'; errors name the origin and the offending field."""
    try:
        data = tomllib.loads(text) if fmt == "toml" else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise ValueError(f"{origin}: not valid {fmt.upper()}: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{origin}: a scenario is a table/mapping at the top level")
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"{origin}: invalid scenario: {exc}") from exc


def load_scenario(name_or_path: str | Path | None) -> Scenario:
    """A scenario from a file path, or by built-in name; None or 'baseline' gives the built-in baseline."""
    if name_or_path is None:
        name_or_path = "baseline"
    path = Path(name_or_path)
    if path.suffix in _SUFFIXES and path.exists():
        fmt = "toml" if path.suffix == ".toml" else "yaml"
        return parse_scenario(path.read_text(encoding="utf-8"), fmt, str(path))
    folder = resources.files("psychoagent.econ") / "scenarios"
    for suffix in _SUFFIXES:
        res = folder / f"{name_or_path}{suffix}"
        if res.is_file():
            fmt = "toml" if suffix == ".toml" else "yaml"
            return parse_scenario(res.read_text(encoding="utf-8"), fmt, f"scenario {name_or_path!r}")
    raise ValueError(
        f"unknown scenario {str(name_or_path)!r}: not a .toml/.yaml file and not one of {builtin_scenarios()}"
    )
