"""The run starts at the steady state: a quiet burn-in, then the clock starts; no early depression."""

from __future__ import annotations

import numpy as np
import pytest

from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.model import EconomyModel


def test_the_clock_starts_after_the_burn_in() -> None:
    model = EconomyModel(EconomyConfig(burn_in=12), seed=3, households=30)
    assert model.tick == 0 and len(model.history) == 1 and model.history[0]["tick"] == 0
    assert model.money_created == 0.0 and model.markets.records == []
    assert model.history[0]["unemployment"] == pytest.approx(1.0 - model.households.worked.mean())
    opening = EconomyModel(EconomyConfig(burn_in=0), seed=3, households=30)
    # the balances came from the burn-in, not the opening
    assert not np.allclose(model.households.deposits, opening.households.deposits)
    model.run(2)
    assert [row["tick"] for row in model.history] == [0, 1, 2]


def test_a_shock_starts_in_the_run_month_it_names() -> None:
    from psychoagent.econ.scenario import Scenario

    sc = Scenario.model_validate({"shocks": [{"kind": "rate_shock", "start": 3, "delta": 0.04}]})
    model = EconomyModel(EconomyConfig(burn_in=12), seed=3, households=30, scenario=sc)
    model.run(3)
    assert model.history[2]["interest_rate"] + 0.035 < model.history[3]["interest_rate"]


def test_month_one_after_the_burn_in_keeps_the_layoff_bound() -> None:
    """Month 1 after a burn-in is not the economy's first month: no firm lays off more than `max_layoff_rate`
    of last month's workers (without this, composite households on seed 17 went from 8 % to 32 %)."""
    model = EconomyModel(seed=11, households=100)  # without the bound its consumer-goods firm cuts 5 jobs
    hh = model.households
    held = {f.name: int((hh.worked & (hh.sector == f.index)).sum()) for f in model.firms}
    model.run(1)
    keep = 1.0 - model.config.market.max_layoff_rate
    for name, workers in held.items():  # the bound is rounded at random: at most one more
        assert model.history[1][f"offers_{name}"] >= np.floor(keep * workers), name


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_a_quiet_economy_is_quiet_from_month_one(seed: int) -> None:
    model = EconomyModel(seed=seed, households=100)
    model.run(36)
    u = np.array([row["unemployment"] for row in model.history[1:]])
    assert u.max() <= 0.10, u.round(2)  # without the burn-in it reached 0.21-0.46 by month 13


def test_at_rest_needs_steady_prices_as_well_as_jobs() -> None:
    from psychoagent.econ.start import at_rest

    calm = [{"unemployment": 0.03, "inflation": 0.02}] * 8
    boom = calm[:2] + [{"unemployment": 0.03, "inflation": 0.13}] * 6
    assert at_rest(calm, 0.06, target=0.02, inflation=0.03)
    assert not at_rest(boom, 0.06, target=0.02, inflation=0.03)
    assert at_rest(boom, 0.06)  # unemployment alone would call the boom a rest


def test_month_one_starts_at_a_rate_review_of_the_burn_ins_last_year(monkeypatch: pytest.MonkeyPatch) -> None:
    """The policy rate in force in month 1 is the Taylor rule applied to the burn-in's last twelve months, not a
    rate a review set earlier in the burn-in (which held an 8.5 % rate through a run's first year)."""
    from psychoagent.econ import start
    from psychoagent.econ.rules import taylor_rate

    seen: list[list[dict[str, float]]] = []
    clock = start.start_clock
    monkeypatch.setattr(start, "start_clock", lambda m: (seen.append(list(m.history)), clock(m)))
    model = EconomyModel(EconomyConfig(burn_in=42, burn_in_max=42), seed=8, households=40)
    history = seen[0]
    assert (len(history) - 1) % 12  # the burn-in did not end on a review month of its own
    last, before = history[-12:], history[-24:-12]
    inflation = np.mean([r["price_level"] for r in last]) / np.mean([r["price_level"] for r in before]) - 1.0
    rate = taylor_rate(float(inflation), float(np.mean([r["unemployment"] for r in last])), model.config.bank)
    assert model.interest_rate == pytest.approx(max(rate, 0.0))  # 1.1 % set at month 36, 5.1 % by the review
    assert model.history[0]["interest_rate"] == pytest.approx(model.interest_rate)


def test_a_quarterly_review_reads_annual_inflation_and_the_quarters_unemployment() -> None:
    """A rule reviewed every 3 months still reads inflation over a year against the year before (read over
    the quarter, 1 % a month would look like 3 % a year) and the unemployment of the last quarter."""
    from psychoagent.econ.rules import taylor_rate

    cfg = EconomyConfig.model_validate({"burn_in": 0, "bank": {"review_months": 3}})
    model = EconomyModel(cfg, seed=2, households=20)
    model.history = [
        {**model.history[0], "price_level": 1.01**t, "unemployment": 0.10 if t > 21 else 0.02}
        for t in range(25)
    ]
    model.review_rate(24)
    year = np.mean([1.01**t for t in range(13, 25)]) / np.mean([1.01**t for t in range(1, 13)]) - 1.0
    assert year == pytest.approx(0.1268, abs=1e-3)
    assert model.rule_rate == pytest.approx(taylor_rate(float(year), 0.10, cfg.bank))


def test_inflation_in_the_first_year_reads_twelve_months_back_into_the_burn_in() -> None:
    """Month t < 12's inflation is against month t - 12 of the burn-in, and the review at month 12 reads the run's
    first year against the burn-in's last (with no past it read months 1-12 against month 0: half a year's)."""
    from psychoagent.econ.rules import taylor_rate

    model = EconomyModel(EconomyConfig(burn_in=30, burn_in_max=30), seed=4, households=30)
    past = model.prehistory
    assert len(past) == 24 and past[-1]["tick"] != 0  # the burn-in's months before tick 0
    assert model.history[0]["inflation"] != 0.0  # tick 0 keeps the burn-in's own 12-month inflation
    model.run(12)
    for t in (1, 5, 11):
        row = model.history[t]
        assert row["inflation"] == pytest.approx(row["price_level"] / past[t - 12]["price_level"] - 1.0)
    year = [r["price_level"] for r in model.history[1:13]]
    before = [r["price_level"] for r in past[-11:] + model.history[:1]]
    inflation = float(np.mean(year) / np.mean(before) - 1.0)
    unemployment = float(np.mean([r["unemployment"] for r in model.history[1:13]]))
    assert model.rule_rate == pytest.approx(taylor_rate(inflation, unemployment, model.config.bank))


def test_without_a_burn_in_inflation_reads_back_to_tick_zero() -> None:
    model = EconomyModel(EconomyConfig(burn_in=0), seed=4, households=20)
    assert model.prehistory == [] and model.history[0]["inflation"] == 0.0
    model.run(3)
    assert model.history[3]["inflation"] == pytest.approx(
        model.history[3]["price_level"] / model.history[0]["price_level"] - 1.0
    )
