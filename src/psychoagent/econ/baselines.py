"""The rule policies: snapshot + household state -> intent (work, consume, save), and the bases to write one.

A policy implements `Policy`: `decide` for one household and `decide_batch` for all households of a tick. The
model only calls `decide_batch`, once per tick; rule policies vectorise it with numpy. Subclass `PerAgentPolicy`
to write only `decide`, or `VectorPolicy` to write only `decide_batch`. `composite` is EconAgent's rule baseline,
`persona` the persona heuristic every cognitive household also runs for work and spending.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from psychoagent.econ.config import PolicyConfig
from psychoagent.econ.intents import AgentState, HouseholdView, Intent, IntentBatch
from psychoagent.econ.rules import buffer_consumption, floor_step, price_consumption
from psychoagent.econ.snapshot import Snapshot

FloatArray = NDArray[np.float64]


class PerAgentPolicy:
    """Base for policies written per household: `decide_batch` calls `decide` for each, in index order."""

    name = "per-agent"

    def decide(self, snapshot: Snapshot, state: AgentState) -> Intent:
        raise NotImplementedError

    def decide_batch(self, snapshot: Snapshot, view: HouseholdView) -> IntentBatch:
        return IntentBatch.of([self.decide(snapshot, view.agent(i)) for i in range(len(view))])


class VectorPolicy:
    """Base for vectorised policies: `decide` runs `decide_batch` on a one-household view."""

    name = "vector"

    def decide(self, snapshot: Snapshot, state: AgentState) -> Intent:
        return self.decide_batch(snapshot, alone(snapshot, state))[0]

    def decide_batch(self, snapshot: Snapshot, view: HouseholdView) -> IntentBatch:
        raise NotImplementedError


def alone(snapshot: Snapshot, state: AgentState) -> HouseholdView:
    """A view of one household (to run a vectorised policy on it): the snapshot's sectors, and its own."""
    sectors = tuple(snapshot.wages) or (state.sector,)
    if state.sector not in sectors:
        sectors = (*sectors, state.sector)
    return HouseholdView.of([state], sectors)


class CompositePolicy(VectorPolicy):
    """EconAgent's rule baseline (Li et al. 2024, `complex_actions` in its code): rules from the literature.

    work = (income / (wealth (1 + r)))^e with income the month's potential pay; each household keeps one of two
    consumption rules drawn at random: `price_consumption` (c = (P / (wealth + pay))^e) or the CATS buffer rule
    (`buffer_consumption`), rounded down to 0.02. A household learns whether it has a job only in the labour
    market, so this month's pay is what last month's job paid (workers keep their jobs first). The buffer rule
    spends out of the income the household lives on: its pay, or out of work last month's net income (benefits,
    transfers, interest). EconAgent had no unemployment insurance and its rule spent nothing without pay; here
    that made half the laid-off stop spending at once, and the composite economy slid into 20-44 % unemployment
    on 3 of 10 seeds. Everything not spent is deposited.
    """

    name = "composite"

    def __init__(self, cfg: PolicyConfig | None = None) -> None:
        self.cfg = cfg or PolicyConfig()
        self.buffer_rule: NDArray[np.bool_] | None = None
        self._paid: FloatArray | None = None

    def bind(self, model: object) -> None:
        """Draw each household's consumption rule (EconAgent draws it once per agent, uniformly)."""
        rng = getattr(model, "rng", None)
        n = int(getattr(getattr(model, "households", None), "n", 0))
        if isinstance(rng, np.random.Generator) and n > 0:
            self.buffer_rule = rng.random(n) < self.cfg.composite_buffer_share

    def decide_batch(self, snapshot: Snapshot, view: HouseholdView) -> IntentBatch:
        c = self.cfg
        e = c.composite_exponent
        wealth = np.maximum(view.wealth, 0.0)
        potential = np.maximum(view.potential_income, 0.0)
        pay = np.where(view.worked, potential, 0.0)
        last = self._paid if self._paid is not None and self._paid.shape == pay.shape else potential
        self._paid = np.where(
            view.worked, potential, last
        )  # EconAgent's last income: pay of the last month worked
        buffer_rule = self.buffer_rule
        if buffer_rule is None or buffer_rule.shape != pay.shape:
            buffer_rule = view.ids % 2 == 1
        lives_on = np.where(view.worked, pay, np.maximum(view.last_income, 0.0))
        consume = np.where(
            buffer_rule,
            buffer_consumption(wealth, lives_on, last, snapshot.interest_rate, c.composite_buffer_months),
            price_consumption(snapshot.price_level, wealth, pay, e),
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = potential / (wealth * (1.0 + snapshot.interest_rate))
            work = np.where(wealth > 0, ratio**e, 1.0)
        return IntentBatch(
            np.clip(np.nan_to_num(work, nan=1.0), 0.0, 1.0),
            floor_step(consume, c.composite_step),
            np.ones(len(view)),
        )


class PersonaHeuristicPolicy(VectorPolicy):
    """Work, spending and saving propensities from the persona, adjusted toward targets at its learning rate.

    mood = optimism + news_weight x today's news sentiment. Spending target rises with allocation.consume,
    mood and inflation above target (the household's own expectation where the view carries one), and falls with unemployment above its natural rate in proportion to risk
    aversion (precautionary saving), and scales with the interest-rate channel (`rate_factor`: a rate above
    neutral defers spending, the consumption Euler equation); social households move toward the population's last spending share. Work
    rises with the shortfall of the savings buffer (larger for savers) and falls with mood. The share of the
    rest kept as interest-bearing deposits is 1 - allocation.consume.
    """

    name = "persona"

    def __init__(self, cfg: PolicyConfig | None = None) -> None:
        self.cfg = cfg or PolicyConfig()

    def decide_batch(self, snapshot: Snapshot, view: HouseholdView) -> IntentBatch:
        c = self.cfg
        alloc_consume, alloc_save = view.allocation[:, 0], view.allocation[:, 1]
        mood = np.clip(view.optimism + c.news_weight * snapshot.news_sentiment, -1.0, 1.0)
        slack = max(snapshot.unemployment - snapshot.natural_unemployment, 0.0)
        inflation = (
            snapshot.inflation
            if view.expected_inflation is None
            else np.where(np.isnan(view.expected_inflation), snapshot.inflation, view.expected_inflation)
        )
        target = (
            c.consume_base
            + c.consume_alloc * (alloc_consume - 0.4)
            + c.consume_optimism * mood
            + c.consume_inflation * (inflation - snapshot.inflation_target)
            - c.consume_unemployment * (1.0 - view.risk_preference) * slack
        ) * rate_factor(snapshot, c)
        herd = view.social_tendency * c.social_weight
        if snapshot.mean_consumption_share > 0:
            target = (1.0 - herd) * target + herd * snapshot.mean_consumption_share
        speed = np.maximum(view.learning_rate, c.min_learning)
        consume = view.consume_share + speed * (target - view.consume_share)
        buffer = (c.buffer_months + 9.0 * alloc_save) * view.potential_income
        with np.errstate(divide="ignore", invalid="ignore"):
            shortfall = np.clip(1.0 - view.wealth / buffer, 0.0, 1.0)
        work = c.work_base + c.work_need * np.nan_to_num(shortfall, nan=1.0) - c.work_optimism * mood
        lo, hi = c.consume_range
        return IntentBatch(
            np.clip(work, 0.0, 1.0), np.clip(consume, lo, hi), np.clip(1.0 - alloc_consume, 0.0, 1.0)
        )


def rate_factor(snapshot: Snapshot, cfg: PolicyConfig) -> float:
    """Spending multiplier of the interest-rate channel: 1 - sigma x (summed expected rate gap, in years).

    Log-linear consumption Euler equation iterated forward (c_t = -sigma sum_k E(r_t+k - r*), Gali 2008 ch. 3):
    a rate above its neutral level moves spending to later. The rule's gap r - r_n - pi_target is expected to
    last `rate_horizon` (until the next review); a rate shock's deviation for as long as it is announced to
    (`Snapshot.rate_gap_ahead`). The real-rate part of expected inflation is the rule's buy-ahead term
    (consume_inflation), so this factor carries the nominal gap.
    """
    rule_gap = snapshot.interest_rate - snapshot.rate_gap - snapshot.natural_rate - snapshot.inflation_target
    return max(1.0 - cfg.consume_rate * (cfg.rate_horizon * rule_gap + snapshot.rate_gap_ahead), 0.0)
