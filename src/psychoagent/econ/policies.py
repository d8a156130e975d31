"""Decision policies: snapshot + household state -> intent (work, consume, save).

A policy implements `Policy`: `decide` for one household and `decide_batch` for all households of a tick. The
model only calls `decide_batch`, once per tick, so a cognitive policy (memory + persona + LLM) makes one batched
LLM request per tick there; rule policies vectorise it with numpy. Subclass `PerAgentPolicy` to write only
`decide`, or `VectorPolicy` to write only `decide_batch`. Register a new one with `register_policy`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from psychoagent.econ.config import PolicyConfig
from psychoagent.econ.contracts import (
    Learner as Learner,  # re-exported: declared in psychoagent.econ.contracts
)
from psychoagent.econ.contracts import Policy as Policy
from psychoagent.econ.rules import buffer_consumption, floor_step, price_consumption
from psychoagent.econ.snapshot import Snapshot
from psychoagent.persona import Persona

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class AgentState:
    """One household's private state as its policy sees it (money in currency units, income per month)."""

    id: int
    sector: str
    skill: float
    cash: float
    deposits: float
    potential_income: float
    last_income: float
    worked: bool
    consume_share: float
    persona: Persona

    @property
    def wealth(self) -> float:
        """Cash plus deposits."""
        return self.cash + self.deposits


@dataclass(frozen=True)
class HouseholdView:
    """All households' private state as read-only arrays (index i is household `ids[i]`)."""

    ids: NDArray[np.int64]
    sectors: tuple[str, ...]
    sector: NDArray[np.int64]
    skill: FloatArray
    cash: FloatArray
    deposits: FloatArray
    potential_income: FloatArray
    last_income: FloatArray
    worked: NDArray[np.bool_]
    consume_share: FloatArray
    risk_preference: FloatArray
    optimism: FloatArray
    learning_rate: FloatArray
    social_tendency: FloatArray
    allocation: FloatArray
    personas: tuple[Persona, ...]

    def __len__(self) -> int:
        return int(self.ids.size)

    @property
    def wealth(self) -> FloatArray:
        """Cash plus deposits."""
        return self.cash + self.deposits

    def agent(self, i: int) -> AgentState:
        """The state of household at index i."""
        return AgentState(
            id=int(self.ids[i]), sector=self.sectors[int(self.sector[i])], skill=float(self.skill[i]),
            cash=float(self.cash[i]), deposits=float(self.deposits[i]),
            potential_income=float(self.potential_income[i]), last_income=float(self.last_income[i]),
            worked=bool(self.worked[i]), consume_share=float(self.consume_share[i]), persona=self.personas[i],
        )  # fmt: skip

    @classmethod
    def of(cls, states: Sequence[AgentState], sectors: tuple[str, ...]) -> HouseholdView:
        """Build a view from single states (used to run a vectorised policy on one household)."""
        p = [s.persona for s in states]
        return cls(
            ids=np.array([s.id for s in states], dtype=np.int64), sectors=sectors,
            sector=np.array([sectors.index(s.sector) for s in states], dtype=np.int64),
            skill=np.array([s.skill for s in states]), cash=np.array([s.cash for s in states]),
            deposits=np.array([s.deposits for s in states]),
            potential_income=np.array([s.potential_income for s in states]),
            last_income=np.array([s.last_income for s in states]),
            worked=np.array([s.worked for s in states], dtype=bool),
            consume_share=np.array([s.consume_share for s in states]),
            risk_preference=np.array([x.risk_preference for x in p]), optimism=np.array([x.optimism for x in p]),
            learning_rate=np.array([x.learning_rate for x in p]),
            social_tendency=np.array([x.social_tendency for x in p]),
            allocation=np.array([x.allocation.as_tuple() for x in p]).reshape(len(p), 4), personas=tuple(p),
        )  # fmt: skip


@dataclass(frozen=True)
class Intent:
    """What one household wants: work propensity, share of wealth to spend, share of the rest to deposit."""

    work: float
    consume: float
    save: float
    reason: str = ""


@dataclass(frozen=True)
class IntentBatch:
    """Intents of all households as arrays aligned with the `HouseholdView`."""

    work: FloatArray
    consume: FloatArray
    save: FloatArray

    def __getitem__(self, i: int) -> Intent:
        return Intent(float(self.work[i]), float(self.consume[i]), float(self.save[i]))

    @classmethod
    def of(cls, intents: Sequence[Intent]) -> IntentBatch:
        """Stack single intents."""
        return cls(
            np.array([x.work for x in intents], dtype=float),
            np.array([x.consume for x in intents], dtype=float),
            np.array([x.save for x in intents], dtype=float),
        )


@dataclass(frozen=True)
class Outcomes:
    """What happened to each household this tick (arrays aligned with the `HouseholdView`) plus the macro row.

    A learning policy turns these into memories and persona updates (prediction error = outcome - intent).
    """

    tick: int
    wanted_work: NDArray[np.bool_]
    worked: NDArray[np.bool_]
    wage_income: FloatArray
    income: FloatArray
    budget: FloatArray
    spent: FloatArray
    wealth: FloatArray
    metrics: Mapping[str, float]

    @property
    def rationed(self) -> NDArray[np.bool_]:
        """Households that could not buy all they wanted (a shortage hit them)."""
        return np.asarray(self.spent < self.budget * (1.0 - 1e-9) - 1e-9)


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
        sectors = tuple(snapshot.wages) or (state.sector,)
        if state.sector not in sectors:
            sectors = (*sectors, state.sector)
        return self.decide_batch(snapshot, HouseholdView.of([state], sectors))[0]

    def decide_batch(self, snapshot: Snapshot, view: HouseholdView) -> IntentBatch:
        raise NotImplementedError


class CompositePolicy(VectorPolicy):
    """EconAgent's rule baseline (Li et al. 2024, `complex_actions` in its code): rules from the literature.

    work = (income / (wealth (1 + r)))^e with income the month's potential pay; each household keeps one of two
    consumption rules drawn at random: `price_consumption` (c = (P / (wealth + pay))^e) or the CATS buffer rule
    (`buffer_consumption`), both on this month's pay (nothing when not working) and rounded down to 0.02. A
    household learns whether it has a job only in the labour market, so this month's pay is what last month's job
    paid (workers keep their jobs first). Everything not spent is deposited.
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
        consume = np.where(
            buffer_rule,
            buffer_consumption(wealth, pay, last, snapshot.interest_rate, c.composite_buffer_months),
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
    mood and inflation above target, and falls with unemployment above its natural rate in proportion to risk
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
        target = (
            c.consume_base
            + c.consume_alloc * (alloc_consume - 0.4)
            + c.consume_optimism * mood
            + c.consume_inflation * (snapshot.inflation - snapshot.inflation_target)
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


PolicyFactory = Callable[[PolicyConfig], Policy]


def _cognitive(cfg: PolicyConfig) -> Policy:
    from psychoagent.econ.cognitive.policy import CognitivePolicy  # lazy: memory and agent modules

    return CognitivePolicy(cfg)


def _llm(cfg: PolicyConfig) -> Policy:
    from psychoagent.econ.cognitive.llm_policy import LLMPolicy  # lazy: the LLM layer

    return LLMPolicy(cfg)


def _econagent(cfg: PolicyConfig) -> Policy:
    from psychoagent.econ.cognitive.econagent import EconAgentPolicy  # lazy: the LLM layer

    return EconAgentPolicy(cfg)


_REGISTRY: dict[str, PolicyFactory] = {
    "composite": CompositePolicy,
    "persona": PersonaHeuristicPolicy,
    "cognitive": _cognitive,
    "llm": _llm,
    "econagent": _econagent,
}


def register_policy(name: str, factory: PolicyFactory) -> None:
    """Make `name` available to `make_policy` and `psychoagent simulate --policy`."""
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"policy names are words like 'my-policy', got {name!r}")
    _REGISTRY[name] = factory


def policy_names() -> list[str]:
    """Registered policy names, sorted."""
    return sorted(_REGISTRY)


def make_policy(name: str, cfg: PolicyConfig | None = None) -> Policy:
    """A policy by registered name, or by import path 'package.module:Class' (called with the config)."""
    cfg = cfg or PolicyConfig()
    if name in _REGISTRY:
        return _REGISTRY[name](cfg)
    if ":" in name:
        module, _, attr = name.partition(":")
        try:
            factory = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load policy {name!r}: {exc}") from exc
        policy = factory(cfg)
        if not isinstance(policy, Policy):
            raise ValueError(f"{name!r} does not implement Policy (name, decide, decide_batch)")
        return policy
    raise ValueError(f"unknown policy {name!r}; choose one of: {', '.join(policy_names())} or 'module:Class'")
