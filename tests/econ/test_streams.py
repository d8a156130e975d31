"""Common random numbers: two runs of one seed that differ in a policy keep drawing alike in every part of the
month whose number of draws does not depend on the state (econ/streams.py)."""

from __future__ import annotations

import numpy as np

from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.scenario import Scenario
from psychoagent.econ.streams import Streams


def _state(g: np.random.Generator) -> object:
    return g.bit_generator.state


def test_a_hike_leaves_the_labour_goods_and_firm_draws_of_its_seed_alone() -> None:
    hike = Scenario.model_validate(
        {"shocks": [{"kind": "rate_shock", "start": 2, "delta": 0.04, "duration": 12}]}
    )
    base = EconomyModel(EconomyConfig(burn_in=6), seed=5, households=40, policy="persona")
    other = EconomyModel(EconomyConfig(burn_in=6), seed=5, households=40, policy="persona", scenario=hike)
    base.run(8)
    other.run(8)
    # the runs did diverge: the hike moved the economy ...
    assert [r["interest_rate"] for r in base.history] != [r["interest_rate"] for r in other.history]
    assert not np.array_equal(base.households.deposits, other.households.deposits)
    # ... but the labour market, the rationing order and the firms' steps drew the same numbers in both
    for part in ("labour", "goods", "firms"):
        assert _state(getattr(base.streams, part)) == _state(getattr(other.streams, part)), part


def test_the_streams_are_independent_children_of_the_model_generator() -> None:
    a, b = Streams.spawn(np.random.default_rng(9)), Streams.spawn(np.random.default_rng(9))
    draws = [g.random(4).tolist() for g in (a.labour, a.goods, a.markets, a.firms)]
    assert len({tuple(d) for d in draws}) == 4  # no two parts share a sequence
    assert draws[0] == b.labour.random(4).tolist()  # and the same seed gives the same streams
