"""Treasury bills at the bank's window: the portfolio channel of monetary policy (Godley and Lavoie 2007, model PC).

The bank holds a legacy stock of government bills (paid for before the simulation, like the households' legacy
bonds, so no money moves when it is created). Households keep a share of their liquid wealth (cash, deposits and
bills) in bills that rises with the policy rate (the opportunity cost of money), and each month move part of the way to it, buying
bills from the bank or selling them back at par. The bank holds every bill the households do not, so the supply is
elastic at the policy rate, as model PC's central bank supplies the bills households want: a hike moves money
out of deposits into bills, the money stock (cash and deposits) falls and so does what households spend from it.
The bank keeps what it receives for the bills it sells as reserves, which are not money. Households' bills earn
the policy rate from the government each month; the bank's remit what they earn to the government (model PC's
central bank returns its profits), so they carry no flow. Bills are the short end of the government's debt;
the traded, floating-coupon bonds of the markets are its long end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from psychoagent.econ.bills_config import BillsConfig

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy


def target_share(rate: float, cfg: BillsConfig) -> float:
    """Households' target share of liquid wealth in bills at policy rate `rate`: the opportunity cost of money is
    the rate itself (deposits earn a fraction of it), above the cost of a trip to the bank."""
    return float(np.clip(cfg.semi_elasticity * (rate - cfg.threshold), 0.0, cfg.max_share))


class Bills:
    """The bank's bills and the households' bills: monthly trades at par and the interest on households' bills."""

    def __init__(self, model: Economy, cfg: BillsConfig, opening: float) -> None:
        self.model = model
        self.cfg = cfg
        self.issued = float(opening)
        """Bills the government owes (constant: the legacy stock; deficits are financed by the market's bonds)."""
        self.bank = float(opening)
        """Bills the bank holds: every bill the households do not."""
        self.households = np.zeros(model.households.n)
        """Bills each household holds, at par."""
        self.reserves = 0.0
        """What the bank received for the bills it sold, less what it paid for those it bought back (not money)."""

    def interest(self) -> np.ndarray:
        """This month's interest on households' bills at the policy rate, charged to the government's balance."""
        paid = self.households * max(float(self.model.interest_rate), 0.0) / 12.0
        self.model.gov_balance -= float(paid.sum())
        return np.asarray(paid, dtype=float)

    def trade(self) -> float:
        """Households move `speed` of the way to their target bill share, buying from the bank (from deposits,
        then cash) or selling back to it (into deposits); returns the net amount bought."""
        model = self.model
        hh = model.households
        share = target_share(float(model.interest_rate), self.cfg)
        money = np.maximum(hh.cash, 0.0) + np.maximum(hh.deposits, 0.0)
        gap = self.cfg.speed * (share * (money + self.households) - self.households)
        buy = np.clip(gap, 0.0, money)
        sell = np.minimum(np.maximum(-gap, 0.0), self.households)
        wanted = float(buy.sum())
        available = self.bank + float(sell.sum())
        if wanted > available > 0:
            buy *= available / wanted
        elif available <= 0:
            buy[:] = 0.0
        net = buy - sell
        from_deposits = np.minimum(np.maximum(hh.deposits, 0.0), np.maximum(net, 0.0))
        hh.deposits -= from_deposits + np.minimum(net, 0.0)
        hh.cash -= np.maximum(net, 0.0) - from_deposits
        self.households += net
        total = float(net.sum())
        self.bank -= total
        self.reserves += total
        return total
