"""Cognitive firms in the model: the monthly books and, each quarter, perceive -> brief -> decide -> guard ->
act -> evolve for every firm, with every action published on the bus as a `firm.*` event.

Firms keep their own clock: the model's month plus the months of the burn-in (`restart_clock`), so a plant
started in the burn-in comes online six months later, not six months after month 0 of the new clock, and
lessons fade by their age. Events and news name model months; a firm's memories and prompts count its own.

The model calls four hooks: `cap_output` and `draw_input` in production, `month` after the demand-gap rule has
moved prices and wages, and `news` when the month's news is published (last month's notable firm actions,
so households read "steel producer expanded capacity: supply likely to rise"). Money a firm spends on plants,
upkeep and R&D is paid to households as an equal lump sum (the builders' and researchers' pay), and input
bought ahead moves between firms, so total money is conserved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from mesa.agent import AgentSet

from psychoagent.agent.cognition import tick_time
from psychoagent.econ.config import event_memory
from psychoagent.econ.firm import CognitiveFirm
from psychoagent.econ.firms.archetypes import firm_persona
from psychoagent.econ.firms.config import FirmsConfig
from psychoagent.econ.firms.decision import FirmDecision, Perceived, heuristic_decision
from psychoagent.econ.firms.events import FIRM_EVENTS
from psychoagent.econ.firms.guard import Guarded, guard_decision, limits_for
from psychoagent.econ.firms.lesson import recalled_lesson
from psychoagent.econ.firms.state import FirmState, Month, Plant
from psychoagent.econ.snapshot import NewsItem
from psychoagent.events import EventType
from psychoagent.persona import EvolutionEngine, OutcomeEvent
from psychoagent.types import Affect

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy
    from psychoagent.econ.firm import Firm


QUARTER_STAKE = 0.05
"""Stake of a quarter's demand forecast in persona evolution: a plan stakes little next to a plant."""


def label(name: str) -> str:
    """How the news names a sector's firm: 'steel producer', 'consumer goods producer'."""
    return f"{name.replace('_', ' ')} producer"


class CognitiveFirms:
    """The quarterly decision loop of the model's cognitive firms; each firm's state (`FirmState`) is its agent's
    `mind`, set here when the model is built."""

    def __init__(self, model: Economy, cfg: FirmsConfig) -> None:
        self.model = model
        self.cfg = cfg
        self.engine = EvolutionEngine()
        self.client: Any = None
        self.spec = "offline"
        self.counts: dict[str, int] = {}
        self.epoch = 0
        """Months the model's clock was restarted by (the burn-in): a firm's own month is the model's + this."""
        self._news: list[NewsItem] = []
        hh = model.households
        hours = model.config.household.hours
        embedder = None
        if cfg.memory:
            from psychoagent.embed import get_embedder

            embedder = get_embedder("hash")
        for f in model.firms:
            assert isinstance(f, CognitiveFirm), "cognitive firm modes build every firm as a CognitiveFirm"
            workforce = int(np.count_nonzero(hh.sector == f.index))
            capacity = max(cfg.capacity_headroom * hours * workforce * f.cfg.productivity, 1e-9)
            mem = None
            if embedder is not None:
                from psychoagent.memory import Memory

                mem = Memory(path=None, namespace=f"firm:{f.name}", embedder=embedder, appraiser=None,
                             affect_config=event_memory())  # fmt: skip
            persona = firm_persona(cfg.personas.get(f.name, cfg.default_persona))
            f.mind = FirmState(f.index, f.name, persona, capacity, capacity, mem, price=f.price, wage=f.wage)

    @property
    def agents(self) -> AgentSet:
        """The model's cognitive firms as a Mesa AgentSet, in sector order (what the loops below step)."""
        return self.model.agents_by_type[CognitiveFirm]

    @property
    def states(self) -> dict[int, FirmState]:
        """Each cognitive firm's state (its agent's `mind`) by sector index, in sector order."""
        return {f.index: f.mind for f in self.agents if f.mind is not None}

    def restart_clock(self, months: int) -> None:
        """The model's clock restarts at 0 after `months` months: the firms' own clock runs on."""
        self.epoch += months

    def use_llm(self, spec: str | None) -> None:
        """Choose the model firms ask in `llm` mode ('offline', 'local', 'local:PATH', 'env' or a URL)."""
        from psychoagent.llm import LLMConfig, get_model

        self.spec = spec or "offline"
        self.client = get_model(self.spec, LLMConfig.from_env())

    # -- hooks called by the model ------------------------------------------------------------------------------
    def cap_output(self, f: Firm, potential: float) -> float:
        """Output of `potential` labour output (at base productivity) under R&D and the plants' capacity."""
        s = self.states[f.index]
        return min(potential * s.productivity, s.effective_capacity)

    def productivity(self, f: Firm) -> float:
        """The factor R&D has raised the firm's output per worker by (1 without R&D)."""
        return float(self.states[f.index].productivity)

    def research_jobs(self, f: Firm, seekers: int, pay: float) -> int:
        """Researchers the firm hires this month from `seekers` job seekers it has no production job for."""
        return self.states[f.index].pay_researchers(seekers, pay) if self.cfg.rnd_jobs else 0

    def draw_input(self, f: Firm, need: float) -> float:
        """Units of input taken from the firm's own stock (bought ahead) for this month's production."""
        return self.states[f.index].take_input(need)

    def news(self, t: int) -> list[NewsItem]:
        """Notable firm actions since the last news, as news items of tick `t`."""
        items, self._news = self._news, []
        return [NewsItem(t, n.headline, n.sentiment, n.topic, n.source) for n in items]

    def columns(self) -> dict[str, float]:
        """Per-firm rows for macro.csv: effective capacity, capacity under construction, unit cost, productivity."""
        return {k: v for s in self.states.values() for k, v in s.columns().items()}

    def month(self, t: int) -> None:
        """The month's books for every firm (upkeep, plant payments and completions, reviews); between decisions
        price and wage stay where the last decision set them, or follow the demand-gap rule (`monthly_rule`); the
        rule lowers hiring below the firm's cap; every `decide_every` months, the decisions. `t` is the model's
        month; everything below runs on the firms' own clock."""
        own = t + self.epoch
        self.agents.do(self._month_of, own)
        self._remember()  # a plant reviewed this month is recalled at this month's decision
        if t % self.cfg.decide_every == 0:
            self.decide(own)
            self._remember()

    # -- the books -------------------------------------------------------------------------------------------
    def _month_of(self, f: Firm, t: int) -> None:
        s = self.states[f.index]
        self._books(t, f, s)
        self._build(t, f, s)
        f.offer_rate = min(f.offer_rate, s.target_rate)
        if self.cfg.monthly_rule:  # the demand-gap rule moved price and wage this month
            s.price, s.wage = max(f.price, s.price_floor), f.wage
        f.price, f.wage = max(s.price, s.price_floor), s.wage

    def _pay_households(self, amount: float) -> None:
        hh = self.model.households
        if amount:
            hh.cash += amount / hh.n

    def _emit(self, t: int, kind: str, payload: dict[str, Any], s: FirmState) -> None:
        assert kind in FIRM_EVENTS, kind  # the catalogue lists every type firms publish
        self.model.bus.emit(t - self.epoch, kind, payload, f"firm:{s.name}")
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def _input_price(self, f: Firm) -> float:
        if f.cfg.input_sector is None:
            return 0.0
        return self.model.firms[self.model.sector_names.index(f.cfg.input_sector)].price

    def _books(self, t: int, f: Firm, s: FirmState) -> None:
        upkeep = self.cfg.upkeep_rate * s.capacity * f.market_price
        f.cash -= upkeep
        self._pay_households(upkeep)
        inputs = f.produced * f.cfg.input_per_unit * self._input_price(f)
        interest = self.model.bank.month_cost(f.index)  # an overdraft's interest is a cost of producing
        cost = (f.wage_bill + inputs + upkeep + interest) / f.produced if f.produced > 0 else float("nan")
        s.months.append(Month(t, f.demand, f.produced, f.sold, f.inventory, f.market_price, cost,
                              f.sold * f.market_price, f.wage_bill, s.effective_capacity, f.phi, f.labour_phi))  # fmt: skip

    def _build(self, t: int, f: Firm, s: FirmState) -> None:
        """Pay plant installments, bring finished plants online, judge plants whose review is due."""
        done = []
        for p in s.plants:
            pay = min(p.cost / self.cfg.construction_months, p.cost - p.paid)
            f.cash -= pay
            p.paid += pay
            self._pay_households(pay)
            if t >= p.ready:
                done.append(p)
        for p in done:
            s.plants.remove(p)
            before = s.effective_capacity
            s.capacity += p.capacity
            p.review = t + self.cfg.review_months
            s.reviews.append(p)
            self._emit(t, EventType.FIRM_EXPANDED, {"capacity_before": before, "capacity_after": s.effective_capacity,
                                            "added": p.capacity * s.productivity, "started": p.start - self.epoch,
                                            "cost": p.cost}, s)  # fmt: skip
            self._headline(t, s, f"{label(s.name).capitalize()} expanded capacity by "
                                 f"{p.capacity / max(s.capacity - p.capacity, 1e-9):.0%}: supply likely to rise",
                           -self.cfg.news_sentiment)  # fmt: skip
            self._note(t, s, f"The plant started in month {p.start} came online: capacity {before:.0f} -> "
                             f"{s.effective_capacity:.0f} units a month",
                       Affect(valence=1, arousal=2, reason="plant online"), kind_of="plant_online")  # fmt: skip
        for p in [p for p in s.reviews if t >= p.review]:
            s.reviews.remove(p)
            self._review(t, f, s, p)

    def _review(self, t: int, f: Firm, s: FirmState, p: Plant) -> None:
        """A plant's outcome: output growth since its start against the capacity it added (an idle plant is a
        failure); kept as a memory and moves the persona."""
        now = s.mean("produced")
        actual = float(np.clip(now / p.output_before - 1.0, -1.0, 1.0)) if p.output_before > 0 else 0.0
        error = actual - p.expected_growth
        s.lessons.append((t, error))
        ok = error >= 0
        self._note(t, s, f"Expansion of month {p.start} (cost {p.cost:.0f}) reviewed: output {actual:+.1%} against "
                         f"{p.expected_growth:+.1%} of capacity added ({'success' if ok else 'failure'})",
                   Affect(valence=1 if ok else -2, arousal=2 if ok else 3, reason="expansion outcome"),
                   kind_of="expansion_outcome", error=error, expected=p.expected_growth, actual=actual)  # fmt: skip
        self._evolve(t, s, p.expected_growth, actual, p.stake, "expansion")

    def _evolve(self, t: int, s: FirmState, expected: float, actual: float, stake: float, about: str) -> None:
        new, why = self.engine.update(s.persona, OutcomeEvent(expected=expected, actual=actual, stake=stake,
                                                              domain=f"{s.name}:{about}", time=t))  # fmt: skip
        s.persona = new
        self._emit(t, EventType.FIRM_PERSONA_EVOLVED, {"about": about, "expected": expected, "actual": actual,
                                               "stake": stake, "major": why.major, "impact": why.impact,
                                               "deltas": why.deltas, "risk_preference": new.risk_preference,
                                               "explanation": why.text()}, s)  # fmt: skip

    def _note(self, t: int, s: FirmState, text: str, affect: Affect | None = None, **meta: Any) -> None:
        """Queue a memory; `_remember` stores a firm's queue in one batch (one transaction)."""
        if s.memory is not None:
            s.pending.append({"text": text, "affect": affect or Affect(reason="routine event"),
                              "timestamp": tick_time(t), "metadata": {"tick": t, **meta}})  # fmt: skip

    def _remember(self) -> None:
        for s in self.states.values():
            if s.memory is not None and s.pending:
                s.memory.observe_many(s.pending)
                s.pending = []

    def _headline(self, t: int, s: FirmState, text: str, sentiment: float) -> None:
        # the topic is the traded instrument when the good is one (steel): the news then forms a price belief
        topic = s.name if s.name in self.model.markets.instruments else f"{s.name}_goods"
        self._news.append(
            NewsItem(t - self.epoch, text, float(np.clip(sentiment, -1.0, 1.0)), topic, f"firm:{s.name}")
        )

    # -- the quarterly loop ------------------------------------------------------------------------------------
    def perceive(self, t: int, f: Firm, s: FirmState) -> Perceived:
        """The firm's reading of its last quarter and the lesson its memory holds about past expansions."""
        cap = max(s.effective_capacity, 1e-9)
        demand, before = s.mean("demand"), s.mean("demand", skip=3)
        sales = s.mean("sold")
        cost = s.unit_cost()
        revenue = s.mean("revenue")
        budget = f.cash + self.cfg.credit_months * revenue - s.committed
        gap = None
        if f.cfg.input_sector is not None:
            k = self.model.sector_names.index(f.cfg.input_sector)
            series = [h[f"price_{f.cfg.input_sector}"] for h in self.model.history[-6:]]
            avg = float(np.mean(series)) if series else 0.0
            gap = self.model.firms[k].price / avg - 1.0 if avg > 0 else 0.0
        lesson, n = recalled_lesson(t, s, self.cfg.lesson_months)
        s.idle = s.idle + 1 if np.isfinite(demand) and demand / cap < self.cfg.close_at else 0
        workforce = int(np.count_nonzero(self.model.households.sector == f.index))
        labour = self.model.config.household.hours * workforce * f.cfg.productivity * s.productivity / cap
        return Perceived(
            tick=t, firm=s.name, capacity=cap, building=s.building * s.productivity,
            demand_ratio=demand / cap if np.isfinite(demand) else 0.0,
            utilisation=s.mean("produced") / cap if s.months else 0.0, labour=labour,
            demand_growth=demand / before - 1.0 if np.isfinite(before) and before > 0 else 0.0,
            market_gap=s.mean("phi") if s.months else 0.0,
            inventory_months=f.inventory / sales if sales > 0 else (0.0 if f.inventory <= 0 else 12.0),
            cash=f.cash, budget=budget, plant_cost=s.capacity * self.cfg.plant_cost_months * f.price,
            margin=f.price / cost - 1.0 if np.isfinite(cost) and cost > 0 else 0.0,
            below_cost_quarters=s.below_cost, idle_quarters=s.idle, interest_rate=self.model.interest_rate,
            input_gap=gap,
            lesson=lesson, lessons=n, labour_gap=s.mean("labour_phi") if s.months else 0.0,
        )  # fmt: skip

    def decide(self, t: int) -> None:
        """One quarter: perceive, decide (heuristic, or one model batch), then guard, act and evolve each firm."""
        firms = self.agents.map(lambda f: (f, self.states[f.index]))
        seen = [self.perceive(t, f, s) for f, s in firms]
        if self.cfg.mode == "llm":
            from psychoagent.econ.firms.prompt import ask_model

            if self.client is None:
                self.use_llm(self.spec)
            decisions, sources = ask_model(self.client, self.cfg, seen, [s for _, s in firms])
        else:
            decisions = [
                heuristic_decision(p, s.persona, self.cfg) for p, (_, s) in zip(seen, firms, strict=True)
            ]
            sources = ["heuristic"] * len(firms)
        for (f, s), p, d, src in zip(firms, seen, decisions, sources, strict=True):
            s.persona = self.engine.tick(s.persona, dt=self.cfg.decide_every)  # traits drift back to baseline
            self._score(t, s)
            guarded = guard_decision(d, limits_for(self.model, self.cfg, f, s, p), self.cfg)
            self._act(t, f, s, p, guarded, src)

    def _score(self, t: int, s: FirmState) -> None:
        """Last quarter's demand forecast against the demand that came: a small outcome for the persona."""
        last = s.last
        if last is None or last["demand"] <= 0:
            return
        actual = float(np.clip(s.mean("demand") / last["demand"] - 1.0, -1.0, 1.0))
        self._evolve(t, s, float(last["expected"]), actual, QUARTER_STAKE, "forecast")

    def _act(self, t: int, f: Firm, s: FirmState, p: Perceived, g: Guarded, source: str) -> None:
        """Apply an approved decision to the firm, publish each action and remember the quarter."""
        d = g.decision
        for n in g.notes:
            self._emit(t, f"firm.guardrail_{n.outcome}", {"rule": n.rule, "reason": n.reason}, s)
            self._note(t, s, f"My plan was refused: {n.reason}", Affect(valence=-1, arousal=2, reason="guardrail"),
                       kind_of="refusal")  # fmt: skip
        self._emit(t, EventType.FIRM_DECIDED, {**d.model_dump(), "source": source, "perceived": p.text()}, s)
        market = self.model.config.market
        old = f.price
        f.price = s.price = max(f.price * (1.0 + d.price_change), market.price_floor)
        cost = s.unit_cost()
        self._emit(t, EventType.FIRM_PRICED, {"old": old, "new": f.price, "change": f.price / old - 1.0,
                                      "unit_cost": cost if np.isfinite(cost) else None}, s)  # fmt: skip
        if abs(f.price / old - 1.0) >= self.cfg.news_price_move:
            word = "raises" if f.price > old else "cuts"
            move = f.price / old - 1.0
            self._headline(
                t,
                s,
                f"{label(s.name).capitalize()} {word} prices {abs(move):.0%}",
                self.cfg.news_sentiment * float(np.clip(move / 0.05, -1.0, 1.0)),
            )
        s.below_cost = s.below_cost + 1 if np.isfinite(cost) and f.price < cost * (1.0 - 1e-9) else 0
        s.price_floor = (
            cost if s.below_cost >= self.cfg.below_cost_quarters - 1 and np.isfinite(cost) else 0.0
        )
        old_wage = f.wage
        f.wage = s.wage = max(f.wage * (1.0 + d.wage_change), market.wage_floor)
        self._emit(t, EventType.FIRM_WAGE_SET, {"old": old_wage, "new": f.wage}, s)
        self._hire(t, f, s, d)
        if d.expand > 0 and g.plant_cost > 0:
            plant = Plant(t, t + self.cfg.construction_months, d.expand * s.capacity, g.plant_cost, d.expand,
                          s.mean("produced"), float(min(g.plant_cost / max(p.budget, g.plant_cost), 1.0)))  # fmt: skip
            s.plants.append(plant)
            self._emit(t, EventType.FIRM_EXPANSION_STARTED, {"capacity": plant.capacity * s.productivity, "cost": plant.cost,
                                                     "ready": plant.ready - self.epoch, "share": d.expand}, s)  # fmt: skip
            self._headline(t, s, f"{label(s.name).capitalize()} starts a new plant (+{d.expand:.0%} capacity by month "
                                 f"{plant.ready - self.epoch}): supply likely to rise", -self.cfg.news_sentiment)  # fmt: skip
        if d.close > 0:
            before = s.effective_capacity
            s.capacity *= 1.0 - d.close
            s.idle = 0  # the next closure waits for idle quarters after this one
            self._emit(t, EventType.FIRM_CLOSED_CAPACITY, {"share": d.close, "capacity_before": before,
                                                   "capacity_after": s.effective_capacity}, s)  # fmt: skip
            self._headline(t, s, f"{label(s.name).capitalize()} closes {d.close:.0%} of its capacity: supply likely "
                                 "to fall", self.cfg.news_sentiment)  # fmt: skip
        self._spend(t, f, s, g)
        self._note(t, s, f"Quarter to month {t}: {p.text()} Decided: {d.reason}", kind_of="decision",
                   expand=d.expand, close=d.close, price_change=d.price_change)  # fmt: skip
        s.last = {"tick": t, "expected": d.expected_growth, "demand": s.mean("demand")}

    def _hire(self, t: int, f: Firm, s: FirmState, d: FirmDecision) -> None:
        """Job offers for the planned output (target x capacity over one worker's month of output); until the
        next decision the demand-gap rule may lower them month by month, never above the plan."""
        hh = self.model.households
        workforce = int(np.count_nonzero(hh.sector == f.index))
        per_worker = (self.model.config.household.hours * f.cfg.productivity * s.productivity
                      * self.model.levers.productivity.get(f.name, 1.0))  # fmt: skip
        rate = d.production_target * s.effective_capacity / (per_worker * workforce) if workforce else 0.0
        old = f.offer_rate
        s.target_rate += self.cfg.target_speed * (float(np.clip(rate, 0.0, 1.0)) - s.target_rate)
        f.offer_rate = s.target_rate
        self._emit(t, EventType.FIRM_HIRED, {"offer_rate": f.offer_rate, "before": old, "target": d.production_target,
                                     "jobs": round(f.offer_rate * workforce)}, s)  # fmt: skip

    def _spend(self, t: int, f: Firm, s: FirmState, g: Guarded) -> None:
        """R&D (raises productivity) and input bought ahead from the supplier's stock."""
        if g.rnd_spend > 0:
            revenue = max(s.mean("revenue"), 1e-9)
            if self.cfg.rnd_jobs:  # paid month by month as researchers' wages (`research_jobs`)
                s.rnd_budget += g.rnd_spend
            else:
                f.cash -= g.rnd_spend
                self._pay_households(g.rnd_spend)
            s.productivity = min(
                s.productivity + self.cfg.rnd_gain * g.rnd_spend / revenue, self.cfg.max_productivity
            )
            self._emit(t, EventType.FIRM_RND, {"spend": g.rnd_spend, "productivity": s.productivity}, s)
        if g.input_units > 0 and f.cfg.input_sector is not None:
            supplier = self.model.firms[self.model.sector_names.index(f.cfg.input_sector)]
            cost = g.input_units * supplier.price
            supplier.inventory -= g.input_units
            supplier.sold += g.input_units
            supplier.demand += g.input_units
            supplier.cash += cost
            f.cash -= cost
            s.input_stock += g.input_units
            self._emit(t, EventType.FIRM_BOUGHT_INPUT, {"input": f.cfg.input_sector, "units": g.input_units,
                                                "price": supplier.price, "cost": cost}, s)  # fmt: skip
