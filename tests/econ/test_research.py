"""Cognitive firms' R&D pays researchers, and their hiring counts the output per worker R&D has reached."""

from __future__ import annotations

from typing import Any

import pytest

from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.firm import Firm
from psychoagent.econ.firms.config import FirmsConfig
from psychoagent.econ.model import EconomyModel
from psychoagent.events import EventType


def _model(**firms: Any) -> EconomyModel:
    cfg = EconomyConfig.model_validate({"burn_in": 24, "firms": firms})
    return EconomyModel(cfg, seed=4, households=40, firms="cognitive")


def test_a_quarters_budget_is_paid_out_over_about_three_months() -> None:
    model = _model()
    board, firm = model.firm_board, model.firms[0]
    assert board is not None
    board.states[firm.index].rnd_budget = 900.0
    assert board.research_jobs(firm, seekers=10, pay=100.0) == 4  # a third of 900, plus one head
    assert board.states[firm.index].rnd_budget == pytest.approx(500.0)
    assert board.research_jobs(firm, seekers=2, pay=100.0) == 2  # no more than the job seekers
    assert board.research_jobs(firm, seekers=0, pay=100.0) == 0
    off = _model(rnd_jobs=False)
    assert off.firm_board is not None
    off.firm_board.states[off.firms[0].index].rnd_budget = 900.0
    assert off.firm_board.research_jobs(off.firms[0], seekers=10, pay=100.0) == 0


def test_researchers_work_are_paid_and_make_nothing() -> None:
    model = _model()
    board = model.firm_board
    assert board is not None
    matched: list[Any] = []
    model.bus.subscribe(EventType.LABOUR_MATCHED, matched.append)
    for s in board.states.values():
        s.rnd_budget = 1e9  # every job seeker a firm has no production job for becomes a researcher
    model.step()
    sectors = {row["sector"]: row for row in matched[-1].payload["sectors"]}
    hours = model.config.household.hours
    hired_any = False
    for f in model.firms:
        row = sectors[f.name]
        production = row["hired"] - row["researchers"]
        assert row["hired"] <= row["applicants"]  # researchers come from the applicants
        made = hours * production * f.cfg.productivity * board.productivity(f) * (1 + 1e-9)
        assert f.produced <= max(made, 1e-9) + 1e-6  # researchers add nothing to output
        hired_any |= row["researchers"] > 0
    assert hired_any
    assert model.households.worked.sum() == sum(row["hired"] for row in sectors.values())


def test_without_research_jobs_rnd_is_a_lump_sum() -> None:
    model = _model(rnd_jobs=False)
    model.run(6)
    assert model.firm_board is not None
    assert all(s.rnd_budget == 0.0 for s in model.firm_board.states.values())


def test_hiring_counts_the_output_per_worker_rnd_has_reached(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model()
    board = model.firm_board
    assert board is not None
    seen: dict[str, float] = {}
    original = Firm.labour_demand

    def spy(self: Firm, workforce: int, output_per_worker: float, mcfg: Any) -> None:
        seen[self.name] = output_per_worker
        original(self, workforce, output_per_worker, mcfg)

    monkeypatch.setattr(Firm, "labour_demand", spy)
    for s in board.states.values():
        s.productivity = 1.2
    model.step()
    hours = model.config.household.hours
    for f in model.firms:
        assert seen[f.name] == pytest.approx(hours * f.cfg.productivity * 1.2)


def test_research_jobs_is_a_firms_setting() -> None:
    assert FirmsConfig().rnd_jobs is True
