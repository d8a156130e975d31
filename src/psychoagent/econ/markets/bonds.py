"""Government bonds: the treasury finances its deficit by issuing them in the call auctions and pays coupons.

One line of floating-coupon perpetuals ("bond"): each unit pays face x (policy rate + premium) / 12 a month, so
the coupon follows the Taylor rule and the yield, coupon / price, moves with the rule and with demand. Bonds
outstanding at the start are legacy debt held by households (weight x allocation.invest of wealth); they were
paid for before the simulation, so no money moves. Each month the government pays coupons and any deficit
spending out of its balance (`model.gov_balance`); in the next trading session the treasury offers, in every
round, bonds worth its shortfall a little below the last price (so an issue the market cannot absorb at par
lowers the price and raises the yield), or bids with a surplus to retire bonds. Money only moves between households and the government, so
the total is conserved; bond units change only by what the treasury sells or buys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from psychoagent.econ.investors import OrderArrays
from psychoagent.econ.markets.config import BondConfig

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy

_TREASURY = np.array([-1], dtype=np.int64)
"""The treasury's orders carry owner -1 in an auction, like the steel dealer's."""


class Treasury:
    """The government's side of the bond market: quotes, settlement, coupons and deficit spending."""

    def __init__(self, model: Economy, cfg: BondConfig, held: Callable[[], float]) -> None:
        self.model = model
        self.cfg = cfg
        self.held = held
        """Bond units households hold now (read from the markets' holdings)."""
        self.issued = 0.0
        self.bought_back = 0.0

    def coupon_rate(self) -> float:
        """Annual coupon per unit of face value: the policy rate plus the premium."""
        return float(self.model.interest_rate) + self.cfg.premium

    def weight(self) -> float:
        """Households' strategic bond weight at today's policy rate: `weight` + `rate_weight` x (rate - neutral),
        neutral = natural rate + inflation target (Godley and Lavoie's bills demand, model PC)."""
        bank = self.model.config.bank
        gap = float(self.model.interest_rate) - bank.natural_rate - bank.inflation_target
        return float(np.clip(self.cfg.weight + self.cfg.rate_weight * gap, 0.0, 1.0))

    def yield_at(self, price: float) -> float:
        """Current yield of a bond bought at `price`: annual coupon / price."""
        return self.coupon_rate() * self.cfg.face / price if price > 0 else float("nan")

    def opening_units(self, wealth: np.ndarray, invest: np.ndarray) -> np.ndarray:
        """Legacy debt per household: weight x allocation.invest of its wealth, in bonds at face."""
        return self.cfg.weight * np.clip(invest, 0.0, 1.0) * np.maximum(wealth, 0.0) / self.cfg.face

    def quotes(self, last: float) -> tuple[OrderArrays, OrderArrays]:
        """(bid, ask) of the treasury for one auction at last price `last`: it sells bonds for its shortfall at no
        less than last x (1 - issue_spread) (a price taker, floored at face x min_price), or buys back with a
        surplus at no more than last x (1 + issue_spread), capped at face x (1 + issue_spread)."""
        face, spread = self.cfg.face, self.cfg.issue_spread
        balance = float(self.model.gov_balance)
        if balance < 0:
            floor = max(last * (1.0 - spread), face * self.cfg.min_price)
            ask = OrderArrays(_TREASURY, np.array([-balance / floor]), np.array([floor]))
            return OrderArrays.empty(), ask
        if balance > 0 and self.outstanding() > 0:
            cap = min(last, face) * (1.0 + spread)
            bid = OrderArrays(_TREASURY, np.array([min(balance / cap, self.outstanding())]), np.array([cap]))
            return bid, OrderArrays.empty()
        return OrderArrays.empty(), OrderArrays.empty()

    def outstanding(self) -> float:
        """Bonds held by households."""
        return self.held()

    def settle(self, sold: float, bought: float, price: float, fee_rate: float) -> None:
        """The treasury's side of an auction: proceeds of bonds sold in, cost of bonds bought back out."""
        self.model.gov_balance += sold * price * (1.0 - fee_rate) - bought * price * (1.0 + fee_rate)
        self.issued += sold
        self.bought_back += bought

    def pay(self, units: np.ndarray, nominal_gdp: float) -> tuple[np.ndarray, np.ndarray]:
        """This month's (coupons, deficit transfers) per household, charged to the government's balance."""
        n = units.size
        coupons = units * self.cfg.face * self.coupon_rate() / 12.0
        spending = np.full(n, self.cfg.deficit_share * max(nominal_gdp, 0.0) / n) if n else np.zeros(0)
        self.model.gov_balance -= float(coupons.sum() + spending.sum())
        return coupons, spending
