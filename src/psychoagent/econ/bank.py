"""The commercial bank: overdrafts of firms and the government pay interest, and households' deposits earn what
it pays, so interest moves money from borrowers to savers instead of creating it.

A firm's or the government's negative balance is a loan from the bank; each month the bank books the interest
it accrues at the policy rate plus `BankConfig.loan_spread`, and every `interest_months` it charges the borrowers
(their overdraft grows by it, as an overdraft's interest is debited to the account) and credits depositors, in
proportion to their deposits, with what the loans earned, at most `deposit_beta` x the policy rate on the
deposits (deposit rates follow the policy rate only partly, Drechsler, Savov and Schnabl 2017). What the loans
earn above that is the bank's retained earnings (`equity`, part of the money total), so money is conserved.
Interest on the part of a firm's overdraft beyond its credit line (`credit_months` of its sales) is charged but not
paid out: an impaired loan's interest is capitalised, not received, and stays in the bank's equity, so a firm that
borrows its interest does not create deposits with it. By default (`BankConfig.pay_capitalised = False`) that holds
for any interest a firm still overdrawn at the credit date pays by borrowing more: depositors earn only what the
bank received in cash.
Positive firm cash and household cash are current accounts and earn nothing (US Regulation Q barred interest on
business demand deposits until 2011). This is `BankConfig.interest = "paid"`; the default, "created", keeps
EconAgent's interest: deposits earn the policy rate in new money and overdrafts are free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy


class Bank:
    """Books the interest borrowers owe month by month and settles it with depositors at each credit date."""

    def __init__(self, model: Economy) -> None:
        self.model = model
        self.owed = np.zeros(len(model.firms))
        """Interest each firm has accrued since the last credit date."""
        self.impaired = 0.0
        """Interest accrued since the last credit date on overdrafts beyond their credit lines (not paid out)."""
        self.gov_owed = 0.0
        self.paid_out = 0.0
        """Interest paid to depositors so far (all of it charged to borrowers)."""
        self.equity = 0.0
        """Retained earnings: what the loans earned above what deposits may earn (deposit_beta x the policy rate)."""

    def loan_rate(self) -> float:
        """Annual rate on overdrafts: the policy rate plus the spread."""
        return float(self.model.interest_rate) + self.model.config.bank.loan_spread

    def charges(self) -> bool:
        """Whether overdrafts pay interest (`BankConfig.interest = "paid"`; with created interest they are free)."""
        return self.model.config.bank.interest == "paid"

    def accrue(self) -> None:
        """Book one month of interest on every overdraft (firms' negative cash, the government's negative balance)."""
        if not self.charges():
            return
        months = self.model.config.bank.credit_months
        for f in self.model.firms:
            cost = self.month_cost(f.index)
            self.owed[f.index] += cost
            debt = max(-f.cash, 0.0)
            if debt > 0:
                line = months * f.sold * f.market_price
                self.impaired += cost * max(debt - line, 0.0) / debt
        self.gov_owed += self.loan_rate() / 12.0 * max(-self.model.gov_balance, 0.0)

    def month_cost(self, index: int) -> float:
        """Interest firm `index` accrued this month: part of its cost of producing (the cost channel)."""
        f = self.model.firms[index]
        return self.loan_rate() / 12.0 * max(-f.cash, 0.0) if self.charges() else 0.0

    def settle(self, deposits: np.ndarray) -> np.ndarray:
        """Charge the borrowers what they owe and return each household's deposit interest: pro rata to deposits,
        at most deposit_beta x the policy rate on them since the last credit date and at most what the bank received
        (`BankConfig.pay_capitalised`: or what performing loans earned); the rest is retained."""
        model = self.model
        base = np.maximum(deposits, 0.0)
        received = self.gov_owed
        for f in model.firms:
            owed = float(self.owed[f.index])
            received += min(max(f.cash, 0.0), owed)  # what a positive balance pays; the rest is capitalised
            f.cash -= owed
        model.gov_balance -= self.gov_owed
        earned = float(self.owed.sum()) + self.gov_owed
        payable = earned - self.impaired if model.config.bank.pay_capitalised else received
        self.owed[:] = 0.0
        self.gov_owed = self.impaired = 0.0
        held = float(base.sum())
        bank = model.config.bank
        cap = held * bank.deposit_beta * float(model.interest_rate) * bank.interest_months / 12.0
        paid = max(min(payable, cap), 0.0) if held > 0 else 0.0
        self.equity += earned - paid
        self.paid_out += paid
        return np.asarray(base * (paid / held), dtype=float) if held > 0 else np.zeros_like(base)
