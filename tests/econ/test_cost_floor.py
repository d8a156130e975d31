"""A rule firm beyond its credit line prices no lower than its average cost: the demand-gap rule alone let steel
sell below its wage bill for decades, an overdraft that created money every month."""

from __future__ import annotations

import pytest

from psychoagent.econ.agents import Firm
from psychoagent.econ.config import EconomyConfig, MarketConfig, SectorConfig
from psychoagent.econ.model import EconomyModel


def _firm(price: float) -> Firm:
    model = EconomyModel(seed=1, households=5)
    return Firm(model, 0, SectorConfig(name="x", labour_share=1.0), price, 10.0)


def test_a_price_below_unit_cost_rises_toward_it_by_at_most_one_price_step() -> None:
    mcfg = MarketConfig()
    f = _firm(10.0)
    f.unit_cost, f.phi, f.cash = 20.0, -0.5, -1.0  # in overdraft, with unsold stock the gap rule would cut
    price, _ = f.adjust(mcfg, 0.9, 0.5)
    assert price == pytest.approx(10.0 * (1.0 + mcfg.price_step))
    f.unit_cost = 10.5
    price, _ = f.adjust(mcfg, 0.9, 0.5)
    assert price == pytest.approx(10.5)  # within one step: the floor itself
    f.unit_cost = 5.0
    price, _ = f.adjust(mcfg, 0.9, 0.5)
    assert price == pytest.approx(10.0 * (1.0 - 0.9 * mcfg.price_step * 0.5))  # above cost: the gap rule
    off = MarketConfig(cost_floor=False)
    f.unit_cost = 20.0
    assert f.adjust(off, 0.9, 0.5)[0] < 10.0
    f.cash = 100.0  # a firm that pays its costs from its cash may price below them
    assert f.adjust(mcfg, 0.9, 0.5)[0] < 10.0
    f.cash = -50.0  # and so may one whose overdraft is within its credit line
    assert f.adjust(mcfg, 0.9, 0.5, credit_line=60.0)[0] < 10.0
    assert f.adjust(mcfg, 0.9, 0.5, credit_line=40.0)[0] > 10.0


def test_unit_cost_is_the_wage_bill_and_inputs_per_unit_made() -> None:
    model = EconomyModel(seed=4, households=40, policy="persona")
    model.run(3)
    for f in model.firms:
        assert f.produced > 0 and f.unit_cost > 0
        if f.cfg.input_sector is None:
            assert f.unit_cost == pytest.approx(f.wage_bill / f.produced)
    goods = model.firms[model.sector_names.index("consumer_goods")]
    assert goods.unit_cost > goods.wage_bill / goods.produced  # steel bought is part of its cost


def test_steel_in_overdraft_prices_at_its_cost_with_the_floor_and_below_it_without() -> None:
    ratios: dict[bool, list[float]] = {}
    for floor in (True, False):
        model = EconomyModel(EconomyConfig(market=MarketConfig(cost_floor=floor)), seed=5, households=100)
        steel = model.firms[model.sector_names.index("steel")]
        steel.cash -= (
            24 * steel.wage_bill
        )  # two years of pay in overdraft: beyond its line of 12 months of sales
        ratios[floor] = []
        for _ in range(36):
            before = steel.price
            model.step()
            if steel.cash < 0 and steel.price < before * 1.0999:  # not capped by the one-step rise
                ratios[floor].append(steel.price / steel.unit_cost)
    assert (
        ratios[True] and min(ratios[True]) >= 0.999
    )  # the price set beyond the line covers the month's cost
    assert min(ratios[False]) < 0.99  # the demand-gap rule alone lets steel sell below its cost
