"""Small seeded economies shared by the economy tests."""

from __future__ import annotations

import pandas as pd

from psychoagent.econ.collect import macro_frame
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.scenario import Scenario


def run(
    ticks: int = 24, households: int = 30, seed: int = 7, **kw: object
) -> tuple[EconomyModel, pd.DataFrame]:
    """Run a small economy and return the model with its macro frame."""
    model = EconomyModel(seed=seed, households=households, **kw)  # type: ignore[arg-type]
    model.run(ticks)
    return model, macro_frame(model)


def scenario(**data: object) -> Scenario:
    """A scenario from keyword data (validated like a file)."""
    return Scenario.model_validate(data)
