"""Macro indicators of one tick, computed from the model's state (the rows of macro.csv)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from psychoagent.econ.rules import gini

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy

SECTOR_FIELDS = ("price", "wage", "inventory", "produced", "sold", "demand", "shortage", "phi", "offers")


class Indicators:
    """Computes the indicator dict of a tick: price level (CPI), inflation, wages, GDP, unemployment, Gini, ...

    price_level is the budget-share-weighted price of the final goods households buy at this tick's prices;
    inflation and wage_inflation are 12-month changes (in the first year: against the burn-in's months, or since
    tick 0 without a burn-in); unemployment
    is the share of households that did not work this month (EconAgent's definition); real GDP values final
    output at tick-0 prices.
    """

    def __init__(self, model: Economy) -> None:
        self.model = model

    def price_level(self, prices: np.ndarray | None = None) -> float:
        """Basket price of final goods at `prices` (default: the prices charged this tick)."""
        p = prices if prices is not None else np.array([f.market_price for f in self.model.firms])
        return float(self.model.basket @ p)

    def unemployment(self) -> float:
        """Share of households that did not work this tick."""
        return float(1.0 - self.model.households.worked.mean())

    def mean_wage(self) -> float:
        """Average hourly wage of households (skill x their sector's wage level), worked or not."""
        hh = self.model.households
        wages = np.array([f.wage for f in self.model.firms])
        return float((hh.skill * wages[hh.sector]).mean())

    def initial(self) -> dict[str, float]:
        """Indicators of tick 0 (before anything happened)."""
        m = self.model
        for f in m.firms:
            f.market_price = f.price
        row: dict[str, float] = {
            "tick": 0, "price_level": self.price_level(), "inflation": 0.0, "wage": self.mean_wage(),
            "wage_inflation": 0.0, "unemployment": 0.0, "involuntary_unemployment": 0.0, "nominal_gdp": 0.0,
            "real_gdp": 0.0, "gdp_growth": 0.0, "interest_rate": m.interest_rate, "tax_revenue": 0.0,
            "gini": gini(m.households.wealth), "consumption": 0.0, "mean_consumption_share": 0.0,
            "money_created": 0.0, "total_money": m.total_money(), "gov_balance": m.gov_balance,
            "fallbacks": 0.0,
        }  # fmt: skip
        for f in m.firms:
            for field in SECTOR_FIELDS:
                row[f"{field}_{f.name}"] = float(getattr(f, field)) if field != "price" else f.price
        return row

    def balances(self) -> dict[str, float]:
        """Money and credit: the money stock (households' cash and deposits, firms' positive balances), firms'
        overdrafts (loans), the bank's equity, bills held by households and by the bank, and households' bonds
        at face."""
        m = self.model
        face = m.config.trading.bonds.face
        return {"money": m.money(), "loans": float(sum(max(-f.cash, 0.0) for f in m.firms)),
                "bank_equity": m.bank.equity, "bills_households": float(m.bills.households.sum()),
                "bills_bank": m.bills.bank, "bonds_households": m.markets.bonds_outstanding() * face}  # fmt: skip

    def compute(self, t: int, flows: dict[str, np.ndarray]) -> dict[str, float]:
        """Indicators after tick `t`; `flows` holds this tick's per-household arrays (wages, tax, ...)."""
        m = self.model
        hist = m.history
        hh = m.households
        p_level = self.price_level()
        wage = self.mean_wage()
        past = m.prehistory
        ref = hist[t - 12] if t >= 12 else past[t - 12] if len(past) >= 12 - t else hist[0]
        final = m.basket > 0
        output = np.array([f.produced for f in m.firms])
        prices = np.array([f.market_price for f in m.firms])
        real = float((output * m.base_prices)[final].sum())
        prev_real = hist[-1]["real_gdp"]
        row: dict[str, float] = {
            "tick": t, "price_level": p_level, "inflation": p_level / ref["price_level"] - 1.0, "wage": wage,
            "wage_inflation": wage / ref["wage"] - 1.0, "unemployment": self.unemployment(),
            "involuntary_unemployment": float(flows["involuntary"].mean()),
            "nominal_gdp": float((output * prices)[final].sum()), "real_gdp": real,
            "gdp_growth": real / prev_real - 1.0 if prev_real > 0 else 0.0, "interest_rate": m.interest_rate,
            "tax_revenue": float(flows["tax"].sum()), "gini": gini(hh.wealth),
            "consumption": float(hh.consumption.sum()), "mean_consumption_share": float(hh.consume_share.mean()),
            "money_created": m.money_created, "total_money": m.total_money(), "gov_balance": m.gov_balance,
            "fallbacks": float(m.fallbacks), **self.balances(),
        }  # fmt: skip
        for f in m.firms:
            for field in SECTOR_FIELDS:
                value = f.market_price if field == "price" else getattr(f, field)
                row[f"{field}_{f.name}"] = float(value)
        return row
