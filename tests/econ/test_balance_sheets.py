"""Stock-flow consistency: every month the financial balance sheets of all sectors sum to zero, on every built-in
scenario, whichever way deposit interest is paid.

Households hold cash, deposits, bills and bonds (at face); firms and the government hold a balance at the bank
(negative: an overdraft) and the government owes the bonds and the bills; the stocks' market maker holds cash; the
bank holds the bills households do not, the reserves it received for those it sold, and its equity, what its loans
earned above what it paid;
the central bank owes the outside money, the money stock the run started with plus any interest it created. Shares
are claims on firms' real capital and stay outside the financial account.
"""

from __future__ import annotations

import pytest

from psychoagent.econ.config import EconomyConfig
from psychoagent.econ.model import EconomyModel
from psychoagent.econ.scenario import builtin_scenarios, load_scenario


def net_worths(model: EconomyModel, outside: float) -> dict[str, float]:
    """Each sector's net financial worth; `outside` is the central bank's money owed."""
    hh = model.households
    face = model.config.trading.bonds.face
    bonds = model.markets.treasury.outstanding() * face
    bills = model.bills
    return {
        "households": float(hh.cash.sum() + hh.deposits.sum() + bills.households.sum()) + bonds,
        "firms": sum(f.cash for f in model.firms),
        "market maker": model.markets.maker.cash,
        "government": model.gov_balance - bonds - bills.issued,
        "bank": model.bank.equity + bills.reserves + bills.bank,
        "central bank": -(outside + model.money_created),
    }


@pytest.mark.parametrize("interest", ["created", "paid"])
@pytest.mark.parametrize("name", builtin_scenarios())
def test_balance_sheets_close_every_month(name: str, interest: str) -> None:
    sc = load_scenario(name)
    # every shock starts within the 14 months
    early = [s.model_copy(update={"start": 2 + k}) for k, s in enumerate(sc.shocks)]
    cfg = EconomyConfig.model_validate({"bank": {"interest": interest, "interest_months": 6}, "burn_in": 24})
    model = EconomyModel(cfg, seed=4, households=20, scenario=sc.model_copy(update={"shocks": early}))
    outside = model.total_money()
    units = model.markets.treasury.outstanding()
    for _ in range(14):
        model.step()
        sheets = net_worths(model, outside)
        assert sum(sheets.values()) == pytest.approx(0.0, abs=1e-6 * outside), sheets
        assert model.bills.households.sum() + model.bills.bank == pytest.approx(model.bills.issued, rel=1e-12)
        assert (model.bills.households >= 0).all() and model.bills.bank >= 0
        t = model.markets.treasury
        assert t.outstanding() == pytest.approx(units + t.issued - t.bought_back, rel=1e-9)
