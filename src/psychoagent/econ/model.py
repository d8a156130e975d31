"""The economy as a Mesa 3 model: households, sector firms, labour and goods markets, bank, government, news.

One tick is one month. Order within a tick (all randomness from `model.rng`, a stream per part: econ/streams.py):
shocks and news -> snapshot -> policy decides (one batch) -> labour market -> production (inputs bought) ->
wages, dividends, deposit interest -> taxes, lump sums, unemployment insurance -> goods market (rationing) ->
saving -> asset markets -> bills bought or sold at the bank -> interest accrues on overdrafts -> prices, wages and hiring by the demand gap -> central bank review ->
indicators, events, data. The policy rate is the Taylor rule's plus the rate shocks' deviation (econ/shocks.py).

Money enters only as deposit interest (paid by the central bank, counted in `money_created`; EconAgent's rule, the
default); with `BankConfig.interest = "paid"` overdrawn firms and the government pay it through the bank
(econ/bank.py) and no money enters. Every other flow moves money between households, firms, the government and
the bank (bond coupons and sales included), so the total is conserved otherwise.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import mesa
import numpy as np

from psychoagent.agent.bus import EventBus
from psychoagent.econ.agents import CognitiveFirm, CognitiveHousehold, Firm, Household
from psychoagent.econ.bank import Bank
from psychoagent.econ.bills import Bills
from psychoagent.econ.cohorts import newcomers
from psychoagent.econ.collect import agent_rows, make_collector
from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.contracts import Binds, Enrols, Expects, Learner, Policy
from psychoagent.econ.firms.board import CognitiveFirms
from psychoagent.econ.firms.config import FirmsConfig
from psychoagent.econ.households import TRAIT_COLUMNS, make_households
from psychoagent.econ.indicators import Indicators
from psychoagent.econ.intents import HouseholdView, IntentBatch, Outcomes
from psychoagent.econ.markets import Markets
from psychoagent.econ.month import goods_market, incomes, labour_and_production
from psychoagent.econ.news import NewsGenerator
from psychoagent.econ.policies import make_policy
from psychoagent.econ.rules import taylor_rate
from psychoagent.econ.scenario import Scenario
from psychoagent.econ.shocks import Levers
from psychoagent.econ.snapshot import NewsItem, PublicAction, Snapshot
from psychoagent.econ.start import burn_in
from psychoagent.econ.streams import Streams
from psychoagent.events import EventType
from psychoagent.persona import Persona

log = logging.getLogger(__name__)


class EconomyModel(mesa.Model):
    """EconAgent's macro core (Li et al. 2024) extended with sector firms, job offers, shocks and news."""

    def __init__(
        self,
        config: EconomyConfig | None = None,
        *,
        seed: int,
        policy: Policy | str = "persona",
        scenario: Scenario | None = None,
        households: int | None = None,
        events_path: str | Path | None = None,
        bus: EventBus | None = None,
        firms: str | None = None,
    ) -> None:
        super().__init__(seed=seed)
        self.run_seed = seed
        """The seed the run was started with (the cohorts' draws read it)."""
        cfg = config or EconomyConfig()
        if scenario is not None:
            cfg = scenario.apply(cfg)
            scenario.check(cfg)
        if households is not None:
            cfg = cfg.model_copy(update={"households": households})
        if firms is not None:  # firms decide by rule, or as cognitive agents (econ/firms)
            cfg = cfg.model_copy(
                update={"firms": FirmsConfig.model_validate({**cfg.firms.model_dump(), "mode": firms})}
            )
        self.config = cfg
        self.scenario = scenario or Scenario()
        self.policy: Policy = make_policy(policy, cfg.policy) if isinstance(policy, str) else policy
        self.bus = bus or EventBus(journal=events_path)
        self.news_generator = NewsGenerator(cfg.news_threshold)
        self.sector_names = tuple(s.name for s in cfg.sectors)
        self.production_order = cfg.production_order()
        """Sector indices with every input sector before the sectors that use it."""
        final = np.array([s.budget_share if s.final else 0.0 for s in cfg.sectors])
        self.basket = final / final.sum()
        mean_skill = cfg.household.pareto_shape / (cfg.household.pareto_shape - 1.0)
        self.firms: list[Firm] = []
        prices = np.zeros(len(cfg.sectors))
        for k in self.production_order:
            s = cfg.sectors[k]
            cost = mean_skill * cfg.market.initial_wage / s.productivity
            if s.input_sector is not None:
                cost += s.input_per_unit * prices[self.sector_names.index(s.input_sector)]
            prices[k] = max(cost * (1.0 + s.markup), cfg.market.price_floor)
        firm_type = Firm if cfg.firms.mode == "rule" else CognitiveFirm  # a cognitive firm's mind comes below
        for k, s in enumerate(cfg.sectors):
            self.firms.append(firm_type(self, k, s, float(prices[k]), cfg.market.initial_wage))
        self.base_prices = prices.copy()
        wages = np.array([f.wage for f in self.firms])
        self.households, personas = make_households(
            cfg.households, cfg.household, cfg.sectors, wages, self.rng
        )
        minds = self.policy.enrol(self.rng, personas) if isinstance(self.policy, Enrols) else {}
        self.members: list[Household] = [
            CognitiveHousehold(self, i, p, *minds[i]) if i in minds else Household(self, i, p)
            for i, p in enumerate(personas)
        ]
        """Household i's Mesa agent: a `CognitiveHousehold` (with its mind) for each household the policy enrols."""
        self.personas = tuple(personas)
        self.first_personas = self.personas
        """Each household's persona at the start (a cohort's newcomer starts again from it)."""
        self.streams = Streams.spawn(self.rng)
        """The month's parts draw from their own generators (common random numbers across runs of one seed)."""
        hh = self.households
        for f in self.firms:
            mask = hh.sector == f.index
            f.wage_bill = float(cfg.household.hours * f.wage * hh.skill[mask].sum())
            f.cash = cfg.market.reserve_months * f.wage_bill
        self.interest_rate = cfg.bank.initial_rate
        self.rule_rate = cfg.bank.initial_rate
        """The Taylor rule's rate at the last review; `interest_rate` adds the rate shocks' deviation to it."""
        self.bank = Bank(self)
        opening = cfg.bank.bills.bank_months * sum(f.wage_bill for f in self.firms)
        self.bills = Bills(self, cfg.bank.bills, opening)
        """Treasury bills: the bank holds those households do not (econ/bills.py)."""
        self.money_created = 0.0
        self.gov_balance = 0.0
        self.fallbacks = 0
        self.levers = Levers()
        self.markets = Markets(self)
        self.indicators = Indicators(self)
        self.metrics: dict[str, float] = self.indicators.initial()
        self.history: list[dict[str, float]] = [dict(self.metrics)]
        """The indicator rows of every month so far (tick 0 first)."""
        self.prehistory: list[dict[str, float]] = []
        """The burn-in's last months before tick 0 (econ/start.py): what 12-month inflation reads back to."""
        self._news: tuple[NewsItem, ...] = ()
        self._snapshot: Snapshot | None = None
        self.agent_table: list[tuple[object, ...]] = []
        self.metrics.update(self.indicators.balances())  # money and credit need the markets' bonds
        self.history[-1].update(self.metrics)
        self.firm_board = CognitiveFirms(self, cfg.firms) if cfg.firms.mode != "rule" else None
        if self.firm_board is not None:
            self.metrics.update(self.firm_board.columns())
            self.history[-1].update(self.firm_board.columns())
        self.datacollector = make_collector(self)
        # policies that trade or keep per-agent state get the model once it is complete
        if isinstance(self.policy, Binds):
            self.policy.bind(self)
        burn_in(self, cfg.burn_in)  # month 1 starts where the quiet economy settled (econ/start.py)

    # -- public view -------------------------------------------------------------------------------------------

    @property
    def tick(self) -> int:
        """Ticks (months) completed so far."""
        return int(self.steps)

    def total_money(self) -> float:
        """Household cash and deposits + firm cash + the market maker's cash + government balance + the bank's
        retained earnings and the reserves it received for bills."""
        hh = self.households
        firms = sum(f.cash for f in self.firms) + self.markets.maker.cash
        bank = self.bank.equity + self.bills.reserves
        return float(hh.cash.sum() + hh.deposits.sum() + firms + self.gov_balance + bank)

    def money(self) -> float:
        """The money stock: households' cash and deposits plus firms' positive balances (overdrafts are loans)."""
        hh = self.households
        return float(hh.cash.sum() + hh.deposits.sum() + sum(max(f.cash, 0.0) for f in self.firms))

    def snapshot(self) -> Snapshot:
        """The immutable public view the decisions of the current tick read (last tick's indicators plus this
        tick's news); after a step it stays the view that step's decisions read, before the first it is tick 0."""
        if self._snapshot is not None:
            return self._snapshot
        m = self.metrics
        actions = [PublicAction(f"firm:{f.name}", "set_price", f.price) for f in self.firms]
        actions += [PublicAction(f"firm:{f.name}", "post_jobs", float(f.offers)) for f in self.firms]
        actions.append(PublicAction("households", "spend_share", m["mean_consumption_share"]))
        actions.append(PublicAction("households", "work", 1.0 - m["unemployment"]))
        actions += [PublicAction(f"market:{q.instrument}", "net_flow", q.net_flow)
                    for q in map(self.markets.quote, self.markets.instruments)]  # fmt: skip
        target = self.levers.inflation_target
        self._snapshot = Snapshot(
            tick=self.tick, prices={f.name: f.price for f in self.firms},
            wages={f.name: f.wage for f in self.firms}, interest_rate=self.interest_rate,
            price_level=m["price_level"], inflation=m["inflation"], wage=m["wage"],
            wage_inflation=m["wage_inflation"], nominal_gdp=m["nominal_gdp"], real_gdp=m["real_gdp"],
            gdp_growth=m["gdp_growth"], unemployment=m["unemployment"], tax_revenue=m["tax_revenue"],
            mean_consumption_share=m["mean_consumption_share"],
            shortages={f.name: m[f"shortage_{f.name}"] for f in self.firms}, news=self._news,
            public_actions=tuple(actions),
            inflation_target=self.config.bank.inflation_target if target is None else target,
            natural_unemployment=self.config.bank.natural_unemployment, assets=self.markets.prices(),
            natural_rate=self.config.bank.natural_rate, rate_gap=self.levers.rate_gap,
            rate_gap_ahead=self.levers.rate_gap_ahead,
        )  # fmt: skip
        return self._snapshot

    def view(self) -> HouseholdView:
        """Households' private state as read-only arrays (what `Policy.decide_batch` receives)."""
        hh, cfg = self.households, self.config
        wages = np.array([f.wage for f in self.firms])

        def ro(a: np.ndarray) -> np.ndarray:
            b = a.view()
            b.flags.writeable = False
            return b

        return HouseholdView(
            ids=ro(np.array([m.unique_id for m in self.members], dtype=np.int64)), sectors=self.sector_names,
            sector=ro(hh.sector), skill=ro(hh.skill), cash=ro(hh.cash), deposits=ro(hh.deposits + self.bills.households),
            potential_income=cfg.household.hours * hh.skill * wages[hh.sector], last_income=ro(hh.income),
            worked=ro(hh.worked), consume_share=ro(hh.consume_share), risk_preference=ro(hh.traits[:, 0]),
            optimism=ro(hh.traits[:, 1]), learning_rate=ro(hh.traits[:, 2]), social_tendency=ro(hh.traits[:, 3]),
            allocation=ro(hh.allocation), personas=self.personas, expected_inflation=ro(hh.expected_inflation),
        )  # fmt: skip

    # -- the tick ----------------------------------------------------------------------------------------------

    def step(self) -> None:
        """Advance one month (Mesa increments `steps` before calling this)."""
        t = self.tick
        shocks = self.scenario.shocks
        self.levers = Levers.fold(shocks, t, self.config.bank.review_months)
        self.interest_rate = max(self.rule_rate + self.levers.rate_gap, self.levers.rate_floor)
        newcomers(self, t)
        self._snapshot = None
        self._publish_news(t)
        snap = self.snapshot()
        self.bus.emit(t, EventType.DECISION_POINT, {"decision": "work_consume_save", "households": self.households.n,
                                            "policy": self.policy.name}, "model")  # fmt: skip
        intents = self._guard(self.policy.decide_batch(snap, self.view()), t)
        flows = labour_and_production(self, intents, t)
        incomes(self, flows, t)
        flows["budget"] = goods_market(self, intents, t)
        self.markets.session(t)
        self.bills.trade()
        self.bank.accrue()
        self._adjust_firms(t)
        self.metrics = self.indicators.compute(t, flows)
        if self.firm_board is not None:
            self.metrics.update(self.firm_board.columns())
        self.history.append(dict(self.metrics))
        self._central_bank(t)
        self.bus.emit(t, EventType.ENV_UPDATED, dict(self.metrics), "model")
        if isinstance(self.policy, Learner):
            outcomes = Outcomes(
                tick=t, wanted_work=flows["willing"], worked=self.households.worked.copy(),
                wage_income=self.households.wage_income.copy(), income=self.households.income.copy(),
                budget=flows["budget"], spent=self.households.consumption.copy(),
                wealth=self.households.wealth, metrics=dict(self.metrics),
            )  # fmt: skip
            self.set_personas(self.policy.feedback(outcomes, self.view()) or {})
        if isinstance(self.policy, Expects) and (expected := self.policy.expected_inflation()):
            self.households.expected_inflation[list(expected)] = list(expected.values())
        if self.config.record_agents:
            self.agent_table = agent_rows(self)
        self.datacollector.collect(self)

    def run(self, ticks: int, progress: object | None = None) -> None:
        """Run `ticks` months; `progress(tick)` is called after each if given."""
        for _ in range(ticks):
            self.step()
            if callable(progress):
                progress(self.tick)
        self.bus.flush()

    def _publish_news(self, t: int) -> None:
        items: list[NewsItem] = []
        for s in self.scenario.shocks:
            if s.start == t:
                items.append(s.news(t))
            elif s.ends_at() == t:
                items.append(s.news(t, ending=True))
        before = self.history[-2] if len(self.history) > 1 else self.history[-1]
        items += self.news_generator.generate(t, self.history[-1], before)
        if self.firm_board is not None:
            items += self.firm_board.news(t)
        for item in items:
            self.bus.emit(t, EventType.NEWS_PUBLISHED, {"headline": item.headline, "sentiment": item.sentiment,
                                                "topic": item.topic, "source": item.source}, item.source)  # fmt: skip
        self._news = tuple(items)

    def _guard(self, intents: IntentBatch, t: int) -> IntentBatch:
        """Replace non-finite intents by last month's values, clip to [0, 1]; count and log replacements."""
        hh = self.households
        n = hh.n
        arrays = []
        for name, prev in (("work", hh.work_prob), ("consume", hh.consume_share), ("save", np.ones(n))):
            a = np.asarray(getattr(intents, name), dtype=float)
            if a.shape != (n,):
                log.warning(
                    "policy %s returned %s of shape %s; using last month's", self.policy.name, name, a.shape
                )
                a = prev.copy()
                bad = n
            else:
                mask = ~np.isfinite(a)
                bad = int(mask.sum())
                a = np.where(mask, prev, a)
            if bad:
                self.fallbacks += bad
                log.warning("tick %d: %d non-finite %s intents replaced by last month's", t, bad, name)
                self.bus.emit(t, EventType.GUARD_FALLBACK, {"field": name, "count": bad}, "model")
            arrays.append(np.clip(a, 0.0, 1.0))
        consume = np.clip(arrays[1] * self.levers.demand_factor, 0.0, 1.0)
        hh.work_prob, hh.consume_share = arrays[0], arrays[1]
        return IntentBatch(arrays[0], consume, arrays[2])

    def _adjust_firms(self, t: int) -> None:
        draws = self.streams.firms.random((len(self.firms), 2))
        for f in self.firms:
            stock = f.inventory + f.sold + f.spare_output(self.config.household.hours)
            f.phi = 0.0 if f.demand == 0 and stock == 0 else (f.demand - stock) / max(f.demand, stock)
            line = self.config.bank.credit_months * f.sold * f.market_price  # the bank's line (econ/bank.py)
            price, wage = f.adjust(
                self.config.market, float(draws[f.index, 0]), float(draws[f.index, 1]), line
            )
            if not (np.isfinite(price) and np.isfinite(wage)):
                self.fallbacks += 1
                log.warning("tick %d: non-finite price/wage for %s; kept last month's", t, f.name)
                self.bus.emit(t, EventType.GUARD_FALLBACK, {"field": f"{f.name}.price_wage"}, "model")
                continue
            f.price, f.wage = price, wage
        if self.firm_board is not None:
            self.firm_board.month(t)

    def _central_bank(self, t: int) -> None:
        if t % self.config.bank.review_months == 0:
            self.review_rate(t)

    def review_rate(self, t: int | None = None) -> None:
        """The central bank's review: the Taylor rate from annual inflation (`inflation_months`) and the
        unemployment since the last review, plus any rate shock in force (at tick `t`; the current tick when None)."""
        t = self.tick if t is None else t
        bank = self.config.bank
        n, k = bank.review_months, bank.inflation_months
        past = self.prehistory + self.history
        months = past[-k:]
        prev = past[-2 * k : -k] if len(past) > 2 * k else past[:1]
        inflation = float(
            np.mean([m["price_level"] for m in months]) / np.mean([m["price_level"] for m in prev])
        )
        inflation -= 1.0
        unemployment = float(np.mean([m["unemployment"] for m in self.history[-n:]]))
        target = self.levers.inflation_target
        rule = bank if target is None else bank.model_copy(update={"inflation_target": target})
        self.rule_rate = taylor_rate(inflation, unemployment, rule)
        ahead = Levers.fold(self.scenario.shocks, t + 1, n)  # a rate shock still in force stays on
        gap = ahead.rate_gap
        self.interest_rate = max(self.rule_rate + gap, ahead.rate_floor)
        self.bus.emit(t, EventType.BANK_RATE_SET, {"rate": self.interest_rate, "rule_rate": self.rule_rate, "gap": gap,
                                           "inflation": inflation, "unemployment": unemployment},
                      "central_bank")  # fmt: skip

    def set_personas(self, updates: Mapping[int, Persona]) -> None:
        """Install new personas (household index -> Persona), e.g. evolved from outcomes; traits follow."""
        if not updates:
            return
        hh = self.households
        personas = list(self.personas)
        for i, persona in updates.items():
            if not isinstance(persona, Persona) or not 0 <= int(i) < hh.n:
                raise ValueError(
                    f"persona update needs an index in [0, {hh.n}) and a Persona, got {i!r}: {persona!r}"
                )
            personas[i] = persona
            self.members[i].persona = persona
            hh.traits[i] = [getattr(persona, name) for name in TRAIT_COLUMNS]
            hh.allocation[i] = persona.allocation.as_tuple()
        self.personas = tuple(personas)

    def close(self) -> None:
        """Flush and close the event journal."""
        self.bus.close()
