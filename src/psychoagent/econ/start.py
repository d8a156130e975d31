"""Start at the steady state: a burn-in that runs the economy quietly until its stocks settle, then starts the clock.

The hand-set opening balances (two months of pay in deposits, one month of wage bill in firm cash, a spending
share of 0.5, empty inventories) are not where the model rests: firms' end-of-month cash settles near two wage
bills and households' spending share near 0.4, so in the first year money drained from households to firms, demand
fell short of output and unemployment rose to 20-45 % before the economy recovered. Instead of solving for the
steady state of a model whose policies are arbitrary code, the model runs `EconomyConfig.burn_in` months with no
shocks, no journal and no collected data, and on until unemployment has been low and 12-month inflation near the
central bank's target for six months (`rest_unemployment`, `rest_inflation`, at most `burn_in_max` months), the
common practice of agent-based macro models (Dosi et al. 2010 and Caiani et al. 2016 discard their first periods
as a transient); month 1 of the run is the month after, and starts at a review of the policy rate. Wages,
prices, inventories, firm cash, savings, employment, bond and share holdings all come out of the burn-in; only
the clock and the records restart, and real GDP is valued at the prices of the burn-in's last month. The
burn-in's last two years stay as the run's past (`prehistory`), so inflation reads 12 months back from month 1.

The built-in rule policies (persona, composite) burn in as themselves. Households whose policy keeps minds
(cognitive, llm, econagent) burn in under the persona rule, which their own work and spending rules extend, and so
does a user's policy, so no household's model is called and no household memory is written before month
1. Cognitive firms decide through the burn-in as they will after it (their plants and books are part of the state;
with `firms.mode = "llm"` that calls their model, `burn_in = 0` avoids it): handing a rule economy to the board at
month 1 left a transient of 13-14 % unemployment in its first three years.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psychoagent.agent.bus import EventBus
from psychoagent.econ.baselines import CompositePolicy, PersonaHeuristicPolicy
from psychoagent.econ.collect import make_collector
from psychoagent.econ.scenario import Scenario

EconomyModel = Any
"""The model these functions start (`psychoagent.econ.model.EconomyModel`, which imports this module: naming it
here would close an import circle)."""


REST_MONTHS = 6
"""Months of low unemployment that make the economy at rest: half a year, longer than a month's noise."""


PAST_MONTHS = 12
"""The burn-in's last two years of this many months stay readable after the clock restarts: month t < 12's
12-month inflation is read against month t - 12 of the burn-in, and the review at month 12 reads a year's prices
against the year before (with no past, it read months 1-12 against month 0, about half a year's inflation)."""


class _Uncollected:
    """Stands in for the DataCollector during the burn-in: its months are not data."""

    def collect(self, model: object) -> None:
        return None


def burn_in_policy_is_own(model: EconomyModel) -> bool:
    """Whether the run's own policy decides during the burn-in (the built-in rule policies) or the persona rule
    stands in (cognitive, LLM and user policies: no model calls, memories or user code before month 1)."""
    return type(model.policy) in (PersonaHeuristicPolicy, CompositePolicy)


def at_rest(
    history: list[dict[str, float]], rest: float, months: int = REST_MONTHS,
    target: float = 0.0, inflation: float = float("inf"),
) -> bool:  # fmt: skip
    """Whether unemployment was at or below `rest`, and 12-month inflation within `inflation` of `target`, in
    each of the last `months` months."""
    recent = history[-months:]
    return len(history) > months and all(
        row["unemployment"] <= rest and abs(row["inflation"] - target) <= inflation for row in recent
    )


def burn_in(model: EconomyModel, months: int) -> None:
    """Run at least `months` quiet months (no shocks, a bus without journal, nothing collected) and on until the
    economy is at rest, then restart the clock: tick 0 is the state the burn-in ends in."""
    if months <= 0:
        return
    scenario, bus, policy, record = model.scenario, model.bus, model.policy, model.config.record_agents
    model.scenario = Scenario()
    model.bus = EventBus()
    if not burn_in_policy_is_own(model):
        model.policy = PersonaHeuristicPolicy(model.config.policy)
    model.config = model.config.model_copy(update={"record_agents": False})
    model.datacollector = _Uncollected()
    cfg = model.config
    limit = max(months, cfg.burn_in_max)

    def resting() -> bool:
        return at_rest(model.history, cfg.rest_unemployment, target=cfg.bank.inflation_target,
                       inflation=cfg.rest_inflation)  # fmt: skip

    try:
        while model.tick < months or (model.tick < limit and not resting()):
            model.step()
        model.review_rate()  # month 1 starts at a policy review: no rate left from an earlier phase of the burn-in
    finally:
        model.scenario, model.bus, model.policy = scenario, bus, policy
        model.config = model.config.model_copy(update={"record_agents": record})
    start_clock(model)


def start_clock(model: EconomyModel) -> None:
    """Make the current state tick 0: steps, history, records, counters and real GDP's base prices restart."""
    if model.firm_board is not None:
        model.firm_board.restart_clock(model.steps)
    model.prehistory = [dict(row) for row in model.history[-2 * PAST_MONTHS - 1 : -1]]
    model.steps = 0
    model.base_prices = np.array([f.market_price for f in model.firms])
    row = dict(model.metrics)
    row.update(tick=0, real_gdp=row["nominal_gdp"], gdp_growth=0.0,
               money_created=0.0, fallbacks=0.0, total_money=model.total_money(),
               interest_rate=model.interest_rate)  # fmt: skip
    model.metrics = row
    model.history = [dict(row)]
    model.money_created = 0.0
    model.bank.paid_out = 0.0
    model.markets.treasury.issued = model.markets.treasury.bought_back = 0.0
    model.fallbacks = 0
    model.agent_table = []
    model.markets.records.clear()
    model.markets.rejections.clear()
    model._snapshot = None
    model._news = ()
    model.datacollector = make_collector(model)
