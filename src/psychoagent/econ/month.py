"""The central steps of a month, after the households' intents are known: the labour market and production
(inputs bought along the supply chain), incomes (wages, dividends, deposit interest from the bank, bond coupons) with taxes and
lump-sum transfers, and the goods market with random-order rationing and saving. Each is a function of the
model (as `Economy`); `EconomyModel.step` calls them in this order, all randomness from the model's streams
(`model.streams`, econ/streams.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from psychoagent.econ.intents import IntentBatch
from psychoagent.econ.rules import clear_goods, labour_gap, progressive_tax, unemployment_insurance
from psychoagent.events import EventType

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy


def labour_and_production(model: Economy, intents: IntentBatch, t: int) -> dict[str, np.ndarray]:
    """Who works (last month's workers first, newcomers by the job-finding rate), what each firm makes and
    buys from its supplier; returns the wage, willingness and involuntary-unemployment arrays."""
    hh, cfg = model.households, model.config
    for f in model.firms:
        f.demand = f.sold = f.produced = 0.0
        f.market_price = f.price
    rng = model.streams.labour  # a fixed number of draws a month, whatever the state
    willing = rng.random(hh.n) < intents.work
    # frictions: last month's workers keep their jobs first; a newcomer reaches an open job with probability f
    first = t == 1 and not hh.worked.any()  # month 1 after a burn-in is not the economy's first month
    held = np.ones(hh.n, dtype=bool) if first else hh.worked  # the economy starts with everyone in a job
    found = held | (rng.random(hh.n) < cfg.market.job_finding_rate)
    place = rng.random(hh.n)  # each applicant's place in a firm's queue
    coins = rng.random(len(model.firms))  # rounds the labour-hoarding bound
    worked = np.zeros(hh.n, dtype=bool)
    research = np.zeros(hh.n, dtype=bool)  # researchers: paid from R&D budgets, they make nothing this month
    labour = []
    for f in model.firms:
        members = np.flatnonzero(hh.sector == f.index)
        applicants = members[willing[members]]
        if cfg.market.hiring == "demand":
            per_worker = cfg.household.hours * f.cfg.productivity * model.levers.productivity.get(f.name, 1.0)
            if model.firm_board is not None:  # what a worker makes after the firm's R&D
                per_worker *= model.firm_board.productivity(f)
            f.labour_demand(members.size, per_worker, cfg.market)
        cap = model.levers.offer_cap.get(f.name, 1.0)
        f.offers = f.post_offers(members.size, cap)
        # labour hoarding: at most this share laid off a month
        if not first and cfg.market.max_layoff_rate < 1.0:
            keep = (1.0 - cfg.market.max_layoff_rate) * int(held[members].sum())  # rounded at random: on
            kept = int(np.floor(keep + coins[f.index]))  # average the bound holds for a firm of any size
            f.offers = min(max(f.offers, kept), int(np.floor(cap * members.size + 0.5)))
        queue = applicants[np.argsort(place[applicants], kind="stable")]
        queue = np.concatenate([queue[held[queue]], queue[~held[queue] & found[queue]]])
        hired, seekers = queue[: f.offers], queue[f.offers :]
        n_r = 0
        if model.firm_board is not None and seekers.size:
            head_pay = cfg.household.hours * f.wage * float(hh.skill[seekers].mean())
            n_r = model.firm_board.research_jobs(f, int(seekers.size), head_pay)
            research[seekers[:n_r]] = True
            hired = queue[: f.offers + n_r]
        worked[hired] = True
        f.turned_away = int(queue.size - hired.size)
        jobs = max(f.offers, int(hired.size))  # researchers are jobs too
        f.labour_phi = labour_gap(jobs, int(applicants.size), cfg.market.wage_neutral_gap)
        labour.append({"sector": f.name, "offers": f.offers, "applicants": int(applicants.size),
                       "hired": int(hired.size), "researchers": n_r})  # fmt: skip
    model.bus.emit(t, EventType.LABOUR_MATCHED, {"sectors": labour}, "model")
    hh.worked = worked
    wages = np.array([f.wage for f in model.firms])
    pay = np.where(worked, cfg.household.hours * hh.skill * wages[hh.sector], 0.0)
    for k in model.production_order:
        f = model.firms[k]
        mask = worked & (hh.sector == k)
        f.wage_bill = float(pay[mask].sum())
        f.cash -= f.wage_bill
        hours = cfg.household.hours * int((mask & ~research).sum())
        potential = hours * f.cfg.productivity * model.levers.productivity.get(f.name, 1.0)
        if model.firm_board is not None:
            potential = model.firm_board.cap_output(f, potential)
        output, inputs = potential, 0.0
        if f.cfg.input_sector is not None and f.cfg.input_per_unit > 0:
            supplier = model.firms[model.sector_names.index(f.cfg.input_sector)]
            need = potential * f.cfg.input_per_unit
            own = model.firm_board.draw_input(f, need) if model.firm_board is not None else 0.0
            bought = min(need - own, supplier.inventory)
            supplier.demand += need
            supplier.inventory -= bought
            supplier.sold += bought
            supplier.cash += bought * supplier.price
            inputs = bought * supplier.price
            f.cash -= inputs
            output = (bought + own) / f.cfg.input_per_unit
            model.bus.emit(t, EventType.MARKET_CLEARED, {"market": supplier.name, "buyer": f.name, "demand": need,
                                                "sold": bought, "price": supplier.price,
                                                "shortage": need - own - bought}, "model")  # fmt: skip
        f.produced = output
        f.inventory += output
        f.unit_cost = (f.wage_bill + inputs) / output if output > 0 else 0.0
    unhired = np.where(willing & ~worked, cfg.household.hours * hh.skill * wages[hh.sector], 0.0)
    return {"wages": pay, "involuntary": willing & ~worked, "willing": willing, "unhired_pay": unhired}


def incomes(model: Economy, flows: dict[str, np.ndarray], t: int) -> None:
    """Dividends, deposit interest, bond coupons and government spending paid, taxed and redistributed."""
    hh, cfg = model.households, model.config
    dividends = np.zeros(hh.n)
    for f in model.firms:
        payout = f.dividend(cfg.market)
        f.cash -= payout
        dividends += model.markets.pay_dividend(f, payout)
    interest = np.zeros(hh.n)
    if t % cfg.bank.interest_months == 0:
        if cfg.bank.interest == "created":  # EconAgent: the central bank pays the policy rate in new money
            interest = hh.deposits * model.interest_rate * cfg.bank.interest_months / 12.0
            model.money_created += float(interest.sum())
        else:  # borrowers pay, depositors receive (econ/bank.py)
            interest = model.bank.settle(hh.deposits)
        model.bus.emit(t, EventType.BANK_INTEREST_PAID, {"total": float(interest.sum()), "rate": model.interest_rate,
                                                 "mode": cfg.bank.interest}, "bank")  # fmt: skip
    coupons, spending = model.markets.government_payments(model.metrics["nominal_gdp"])  # bonds finance them
    interest = interest + model.bills.interest()  # households' bills earn the policy rate (econ/bills.py)
    gross = flows["wages"] + dividends + interest + coupons
    tax_cfg = cfg.tax
    if model.levers.tax_scale != 1.0:
        rates = tuple(min(r * model.levers.tax_scale, 1.0) for r in tax_cfg.rates)
        tax_cfg = tax_cfg.model_copy(update={"rates": rates})
    tax = progressive_tax(gross, tax_cfg)
    revenue = float(tax.sum())
    kept = 0.0  # what a tax change adds (or loses) that the government keeps (PolicyChange.to_balance)
    if model.levers.tax_to_balance > 0:
        kept = model.levers.tax_to_balance * (revenue - float(progressive_tax(gross, cfg.tax).sum()))
    pool = max(revenue - kept + debt_rule(model), 0.0)  # the debt rule adds a surplus, withholds an overdraft
    transfer = np.full(hh.n, pool / hh.n) if tax_cfg.redistribute else np.zeros(hh.n)
    model.gov_balance += revenue - float(transfer.sum())
    transfer = transfer + spending
    benefit, contribution = unemployment_insurance(flows["wages"], flows["unhired_pay"], cfg.benefit)
    model.gov_balance += float(contribution.sum() - benefit.sum())  # a deficit is financed by bonds
    hh.cash += gross - tax + transfer + benefit - contribution
    hh.wage_income = flows["wages"]
    hh.income = gross - tax + transfer + benefit - contribution
    flows.update(dividends=dividends, interest=interest, tax=tax, transfer=transfer, benefit=benefit)
    model.bus.emit(t, EventType.TAX_COLLECTED, {"revenue": revenue, "redistributed": float(transfer.sum()),
                                       "balance": model.gov_balance}, "government")  # fmt: skip


def debt_rule(model: Economy) -> float:
    """What the debt rule adds to this month's lump sum (negative: withholds): `balance_speed` x the balance the
    last bond auctions left, less `debt_speed` / 12 x the debt above `debt_anchor` x annual nominal GDP."""
    fiscal, gdp = model.config.fiscal, 12.0 * max(model.metrics["nominal_gdp"], 0.0)
    bonds = model.markets.bonds_outstanding() * model.config.trading.bonds.face
    excess = max(bonds + max(-model.gov_balance, 0.0) - fiscal.debt_anchor * gdp, 0.0)
    return fiscal.balance_speed * model.gov_balance - fiscal.debt_speed / 12.0 * excess


def goods_market(model: Economy, intents: IntentBatch, t: int) -> np.ndarray:
    """Spending on each final good, rationed in random order; saving splits wealth into cash and deposits.
    Returns each household's budget."""
    hh = model.households
    budget = intents.consume * np.maximum(hh.wealth, 0.0)
    spent = np.zeros(hh.n)
    for f in model.firms:
        share = model.basket[f.index]
        if share <= 0:
            continue
        demand = budget * share / f.price
        c = clear_goods(demand, f.inventory, model.streams.goods)
        f.demand += c.demand
        f.inventory -= c.sold
        f.sold += c.sold
        f.cash += c.sold * f.price
        spent += c.served * f.price
        model.bus.emit(t, EventType.MARKET_CLEARED, {"market": f.name, "buyer": "households", "demand": c.demand,
                                            "sold": c.sold, "price": f.price, "shortage": c.shortage,
                                            "rationed": c.rationed}, "model")  # fmt: skip
    from_cash = np.minimum(hh.cash, spent)
    hh.cash -= from_cash
    hh.deposits -= spent - from_cash
    hh.consumption = spent
    wealth = hh.cash + hh.deposits
    hh.deposits = intents.save * wealth
    hh.cash = wealth - hh.deposits
    model.bus.emit(t, EventType.ACTION_RESULT, {"intended_work": float(intents.work.mean()),
                                       "worked": float(hh.worked.mean()), "spent": float(spent.sum()),
                                       "budget": float(budget.sum())}, "model")  # fmt: skip
    if model.config.household_events:
        for i in range(hh.n):
            model.bus.emit(t, EventType.ACTION_RESULT, {"work_intent": float(intents.work[i]),
                                               "worked": bool(hh.worked[i]), "budget": float(budget[i]),
                                               "spent": float(spent[i])}, f"household:{i}")  # fmt: skip
    return budget
