"""Tiny simulated runs shared by the report tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from psychoagent.econ.run import simulate


def shocked_run(
    factory: pytest.TempPathFactory, name: str, *, agents: int, ticks: int, seed: int, policy: str,
    crash: bool = False,
) -> Path:  # fmt: skip
    """A run folder of `policy` households under a scenario with a demand shock in month 13 (six months, x0.7);
    `crash`: stocks also crash in month 13 (x0.6, valued lower for six months), so holdings move and households
    live through it."""
    from psychoagent.econ.scenario import Scenario

    shocks: list[dict[str, object]] = [{"kind": "demand_shock", "start": 13, "duration": 6, "factor": 0.7}]
    if crash:
        shocks.append({"kind": "market_crash", "start": 13, "duration": 6, "factor": 0.6})
    scen = Scenario.model_validate({"name": "tiny", "shocks": shocks})
    out = factory.mktemp(name)
    simulate(out, agents=agents, ticks=ticks, seed=seed, policy=policy, scenario=scen)
    return out


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 households, 36 months (three years, so Phillips/Okun have points), a shock in month 13."""
    return shocked_run(tmp_path_factory, "run", agents=20, ticks=36, seed=3, policy="persona")


@pytest.fixture(scope="session")
def cognitive_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 cognitive households over 30 months with a demand shock and a stock market crash in month 13: memories,
    lived months and persona updates."""
    return shocked_run(
        tmp_path_factory, "cognitive", agents=12, ticks=30, seed=5, policy="cognitive", crash=True
    )
