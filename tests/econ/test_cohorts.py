"""Cohorts: newcomers take the place of a share of the households when a `cohort` shock starts, with empty minds;
every thinking household expects inflation from the years it lived (econ/cognitive/inflation.py)."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from psychoagent.agent.config import AblationConfig, CognitiveConfig
from psychoagent.econ.cognitive.inflation import INSTRUMENT, blend, lived_year, recalled_inflation
from psychoagent.econ.cognitive.policy import CognitivePolicy
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.run import simulate
from psychoagent.econ.scenario import builtin_scenarios
from psychoagent.econ.shocks import Cohort, Levers

from .conftest import scenario


def cohort_model(policy: object, start: int = 3, share: float = 0.5, households: int = 12) -> EconomyModel:
    return EconomyModel(seed=5, policy=policy, households=households,  # type: ignore[arg-type]
                        scenario=scenario(shocks=[{"kind": "cohort", "start": start, "share": share}]))  # fmt: skip


def test_a_cohort_joins_in_its_month_only() -> None:
    shocks = [Cohort(start=5, share=0.25), Cohort(start=5, share=0.5), Cohort(start=9, share=0.1)]
    assert [Levers.fold(shocks, t).newcomers for t in (4, 6, 9)] == [0.0, 0.0, pytest.approx(0.1)]
    assert Levers.fold(shocks, 5).newcomers == pytest.approx(1 - 0.75 * 0.5)
    for bad in (0.0, -0.2, 1.5):
        with pytest.raises(ValidationError, match="share"):
            Cohort(start=5, share=bad)
    assert "inflation_cohorts" in builtin_scenarios()


def test_newcomers_keep_their_place_and_start_from_their_first_persona() -> None:
    model = cohort_model("persona", households=20)
    model.run(2)
    assert (model.households.joined == 0).all()
    skill, sector = model.households.skill.copy(), model.households.sector.copy()
    model.run(1)
    joined = model.households.joined
    chosen = np.flatnonzero(joined == 3)
    assert len(chosen) == 10 and set(np.unique(joined)) == {0, 3}
    assert all(model.personas[i] == model.first_personas[i] for i in chosen)
    assert np.isnan(model.households.expected_inflation).all()  # rule households form no expectations
    again = cohort_model("persona", households=20)
    again.run(3)
    assert (again.households.joined == joined).all()  # the same newcomers for the same seed
    assert (model.households.skill == skill).all() and (model.households.sector == sector).all()


def test_thinking_households_expect_inflation_and_newcomers_start_empty() -> None:
    model = cohort_model(CognitivePolicy(), start=13)
    model.run(12)
    hh = model.households
    assert np.isfinite(hh.expected_inflation).all()  # every founder's first anniversary
    population = model.policy.kit.population  # type: ignore[attr-defined]
    founders_memories = population.memory.count.copy()
    model.run(1)
    newcomers = np.flatnonzero(hh.joined == 13).tolist()
    assert len(newcomers) == 6
    assert np.isnan(hh.expected_inflation[newcomers]).all()
    minds = model.policy.kit.minds()  # type: ignore[attr-defined]
    assert all(minds[i].joined == 13 and minds[i].expected_inflation is None for i in newcomers)
    founders = [i for i in range(12) if i not in newcomers]
    published, weight = model.snapshot().inflation, model.policy.kit.cognitive.inflation.experience_weight  # type: ignore[attr-defined]
    for i in founders:  # between anniversaries the published part follows the news every month
        assert hh.expected_inflation[i] == pytest.approx(
            blend(published, minds[i].recalled_inflation, weight)
        )
    slots = [population.memory.slot[i] for i in newcomers]
    assert (population.memory.count[slots] < founders_memories[slots]).all()  # only month 13's memories
    model.run(12)
    assert np.isfinite(hh.expected_inflation[newcomers]).all()  # their own first anniversary
    recalled = [
        population.memory.recalled(population.memory.slot[0], p)
        for p in range(int(population.memory.count[population.memory.slot[0]]))
    ]
    years = [r for r in recalled if r.metadata.get("instrument") == INSTRUMENT]
    assert len(years) == 2 and years[0].content.startswith("Prices")


def test_without_memory_households_expect_the_published_inflation() -> None:
    cfg = CognitiveConfig(ablation=AblationConfig(memory=False))
    model = EconomyModel(seed=5, policy=CognitivePolicy(cognitive=cfg), households=8)
    model.run(12)
    published = model.snapshot().inflation
    assert model.households.expected_inflation == pytest.approx(np.full(8, published))


def test_expectation_reads_only_lived_years_weighted_by_recall() -> None:
    hits = [({"instrument": INSTRUMENT, "actual": 0.10}, 3.0), ({"instrument": "stock:tech", "actual": -0.5}, 9.0),
            ({"instrument": INSTRUMENT, "actual": 0.02}, 1.0), ({"kind_of": "news"}, 5.0)]  # fmt: skip
    assert recalled_inflation(hits) == pytest.approx((3 * 0.10 + 0.02) / 4)
    assert recalled_inflation([({"kind_of": "news"}, 1.0)]) is None
    assert blend(0.02, None, 0.67) == 0.02 and blend(0.02, 0.10, 0.5) == pytest.approx(0.06)
    assert lived_year(0.034) == "Prices rose 3.4% over the past year"
    assert lived_year(-0.01) == "Prices fell 1.0% over the past year"


def test_cohorts_run_in_one_process(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="cohorts"):
        simulate(tmp_path / "r", agents=6, ticks=2, seed=1, policy="cognitive", scenario="inflation_cohorts",
                 shards=2)  # fmt: skip
