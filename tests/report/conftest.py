"""A tiny simulated run shared by the report tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from psychoagent.econ.run import simulate


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 households, 36 months (three years, so Phillips/Okun have points), a shock in month 13."""
    from psychoagent.econ.scenario import Scenario

    scen = Scenario.model_validate(
        {"name": "tiny", "shocks": [{"kind": "demand_shock", "start": 13, "duration": 6, "factor": 0.7}]}
    )
    out = tmp_path_factory.mktemp("run")
    simulate(out, agents=20, ticks=36, seed=3, policy="persona", scenario=scen)
    return out


@pytest.fixture(scope="session")
def cognitive_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 cognitive households over 30 months with a demand shock in month 13: memories and persona updates."""
    from psychoagent.econ.scenario import Scenario

    scen = Scenario.model_validate(
        {"name": "tiny", "shocks": [{"kind": "demand_shock", "start": 13, "duration": 6, "factor": 0.7}]}
    )
    out = tmp_path_factory.mktemp("cognitive")
    simulate(out, agents=12, ticks=30, seed=5, policy="cognitive", scenario=scen)
    return out
