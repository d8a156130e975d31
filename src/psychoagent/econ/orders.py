"""Order types of the economy's markets and how agents trade (the protocol is `econ.contracts.MarketAccess`).

Instruments: ``"steel"`` (the commodity, in units of the steel firm's output), ``"stock:<firm>"`` (one share of
a sector firm, e.g. ``"stock:tech"``) and ``"bond"`` (the government bond, listed unless
``trading.bonds.enabled`` is false).
``agent_id`` is the household index ``i`` (0 .. n-1, the same ``i`` as in ``household:i`` event sources).

How an agent trades (the model owns one ``Markets`` object, ``model.markets``)::

    receipt = model.markets.submit([
        Order(agent_id=3, instrument="stock:tech", side="BUY", budget_share=0.2, limit_price=51.0),
        Order(agent_id=3, instrument="steel", side="SELL", quantity=4.0),            # market order
    ])
    receipt.rejected            # [Rejection(order_id, agent_id, reason, detail)], checked at submission
    model.step()                # the tick's trading session runs the auctions
    model.markets.fills(3)      # [Fill(...)] of agent 3 in the last session
    model.markets.quote("stock:tech")   # Quote: last price, fundamental value, return, volume, net flow

Rules (documented here once; the market config holds the numbers):
- Orders are good for one session: they rest in every call auction of the next trading session (the session
  runs inside ``model.step()``, after the goods market) until filled, trimmed before each auction to the cash
  and holding the agent has then; what is left at the session's end expires (``market.order_expired``, a Fill
  with quantity 0 in ``fills``).
- A market order (``limit_price=None``) is executed as a limit order at the last price times (1 + collar) for
  a buy or (1 - collar) for a sell, so a buyer's cash can be checked before clearing.
- ``quantity`` is in units (shares or steel units, fractions allowed); ``budget_share`` instead sizes a BUY
  as that share of the agent's cash (cash + deposits) at the limit price and a SELL as that share of the
  holding. Exactly one of the two must be given.
- No short sales: a SELL beyond the holding not already offered is rejected (``short_sale``); a BUY needs the
  cash for quantity x limit x (1 + fee) not already reserved (``insufficient_cash``); a BUY that would take
  the holding above the position limit is rejected (``position_limit``).
- Results: ``market.order_filled`` per fill and ``market.order_rejected`` per rejection on the bus (source
  ``household:i``), and ``market.cleared`` once per instrument per session with the session's prices and
  volume.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

STEEL = "steel"
BOND = "bond"
STOCK_PREFIX = "stock:"
_STOCK = re.compile(r"^stock:[a-z0-9_]+$")

RejectReason = Literal[
    "invalid",
    "unknown_instrument",
    "unknown_agent",
    "insufficient_cash",
    "short_sale",
    "position_limit",
    "markets_closed",
]
"""Why an order was refused: malformed, not listed, no such household, no cash, selling what is not held,
above the position limit, or markets switched off."""


class Side(StrEnum):
    """Direction of an order."""

    BUY = "BUY"
    SELL = "SELL"


def stock(firm: str) -> str:
    """Instrument id of a firm's share: ``stock("tech") == "stock:tech"``."""
    return check_instrument(STOCK_PREFIX + firm)


def check_instrument(value: str) -> str:
    """Return `value` when it is a well-formed instrument id, else raise ValueError naming the allowed forms."""
    if value in (STEEL, BOND) or _STOCK.match(value):
        return value
    raise ValueError(f"instrument must be 'steel', 'bond' or 'stock:<firm>' (lower-case), got {value!r}")


def firm_of(instrument: str) -> str | None:
    """The firm behind a stock id (``"stock:tech" -> "tech"``), None for steel and bond."""
    return instrument[len(STOCK_PREFIX) :] if instrument.startswith(STOCK_PREFIX) else None


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Order(_Frozen):
    """A limit (or market) order of one household for one instrument."""

    agent_id: int = Field(ge=0, description="household index i (0 .. n-1)")
    instrument: str = Field(description="'steel', 'stock:<firm>' or 'bond'")
    side: Side = Field(description="BUY or SELL")
    quantity: float | None = Field(None, gt=0, description="units to trade; or give budget_share")
    limit_price: float | None = Field(
        None, gt=0, description="worst acceptable price; None = market order (executed at the collar)"
    )
    budget_share: float | None = Field(
        None, gt=0, le=1, description="BUY: share of cash to spend; SELL: share of the holding to sell"
    )
    order_id: str | None = Field(None, description="set by the market on submission when not given")

    @field_validator("instrument")
    @classmethod
    def _instrument(cls, value: str) -> str:
        return check_instrument(value)

    @model_validator(mode="after")
    def _one_size(self) -> Order:
        if (self.quantity is None) == (self.budget_share is None):
            raise ValueError("give exactly one of quantity and budget_share")
        return self

    @property
    def is_market(self) -> bool:
        """True for a market order (no limit price)."""
        return self.limit_price is None


class Fill(_Frozen):
    """An executed (part of an) order: the uniform auction price, the quantity and the fee paid."""

    order_id: str
    agent_id: int
    instrument: str
    side: Side
    quantity: float = Field(
        ge=0, description="units executed in this auction (0: the rest expired at session end)"
    )
    price: float = Field(gt=0, description="uniform clearing price of the auction")
    fee: float = Field(ge=0, description="transaction cost paid on this fill")
    tick: int = Field(ge=0)
    round: int = Field(ge=0, description="trading round (auction) within the tick's session")
    requested: float = Field(ge=0, description="units the order asked for")

    @property
    def cash_flow(self) -> float:
        """Change of the agent's cash: -(q p + fee) for a buy, q p - fee for a sell."""
        gross = self.quantity * self.price
        return -(gross + self.fee) if self.side is Side.BUY else gross - self.fee


class Rejection(_Frozen):
    """An order refused at submission, with a machine-readable reason and a sentence for the agent."""

    order_id: str
    agent_id: int = Field(ge=-1, description="-1 when the order was too malformed to name its agent")
    reason: RejectReason
    detail: str


class Receipt(_Frozen):
    """What `submit` returns: ids of the accepted orders and the rejections."""

    accepted: tuple[str, ...] = ()
    rejected: tuple[Rejection, ...] = ()


class Quote(_Frozen):
    """Public market data of one instrument after the last auction (what a snapshot shows)."""

    instrument: str
    price: float = Field(description="last auction price")
    fundamental: float = Field(description="value from dividends (stocks) or the producer's price (steel)")
    last_return: float = Field(description="log return of the last auction")
    volume: float = Field(description="units traded in the last session")
    net_flow: float = Field(
        description="(buy - sell) / (buy + sell) of the last auction's orders, in [-1, 1]"
    )
