"""`ConfigModel`, the base every tuning model of the package derives from, and the shared field types that
write a repeated constraint once.

Each package keeps its knobs in its own config module: `psychoagent.memory.config` (the `MemoryConfig` tree:
store, recall, affect inside memory), `psychoagent.affect.config` (appraisal), `psychoagent.persona.config`,
`psychoagent.llm.config`, `psychoagent.econ.config`, `psychoagent.econ.markets.config` and `psychoagent.agent.config`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field


class ConfigModel(BaseModel):
    """The one base of every tuning model in the package: unknown keys are errors, assignments are validated and
    NaN or infinity is refused, so a misspelt or broken setting fails where it is given."""

    model_config = ConfigDict(
        extra="forbid", validate_assignment=True, allow_inf_nan=False, use_attribute_docstrings=True
    )

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Descriptions come from attribute docstrings; a docstring wrapped over lines reads as one line."""
        super().__pydantic_init_subclass__(**kwargs)
        wrapped = [f for f in cls.model_fields.values() if f.description and "\n" in f.description]
        for field in wrapped:
            field.description = " ".join((field.description or "").split())
        if wrapped:
            cls.model_rebuild(force=True)


class FrozenConfigModel(ConfigModel):
    """A tuning model that cannot change once built (presets shared between agents)."""

    model_config = ConfigDict(frozen=True)


Share = Annotated[float, Field(ge=0.0, le=1.0)]
"""A fraction, probability or weight in [0, 1]."""

PositiveShare = Annotated[float, Field(gt=0.0, le=1.0)]
"""A fraction in (0, 1]: a rate or share that must not be zero."""

NonNegative = Annotated[float, Field(ge=0.0)]
"""A weight, scale or amount that may be zero."""

Positive = Annotated[float, Field(gt=0.0)]
"""A scale, time or amount that must be above zero."""

Count = Annotated[int, Field(ge=1)]
"""A size, limit or number of steps: at least one."""

NonNegativeInt = Annotated[int, Field(ge=0)]
"""A count that may be zero (0 often switches the feature off)."""

ConflictLevel = Annotated[int, Field(ge=0, le=4)]
"""A conflict intensity on the 0..4 scale of `Affect.conflict_intensity`."""
