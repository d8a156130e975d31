"""The decision schema (seed 4.1: one of ANALYZE, DECIDE, NEGOTIATE, WAIT) and structured orders."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from psychoagent.llm.schema import CRITICAL as CRITICAL_KEY

DecisionType = Literal["ANALYZE", "DECIDE", "NEGOTIATE", "WAIT"]
CRITICAL: dict[str, Any] = {CRITICAL_KEY: True}
"""`psychoagent.llm.schema.CRITICAL`: a model's out-of-range value here is refused (then the fallback), never clamped."""
Side = Literal["BUY", "SELL"]


class OrderSpec(BaseModel):
    """One order as a decision states it: side, instrument and either a quantity or a budget share.

    `quantity=None` with a budget share means "as much as the budget buys" (BUY) or a share of the holding
    (SELL). `limit_price=None` is a market order at the quoted price.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    side: Side
    instrument: str = Field(..., min_length=1, description="e.g. 'steel' or a firm's stock 'stock:tech'")
    quantity: float | None = Field(
        None, gt=0, description="units; None: derived from budget_share", json_schema_extra=CRITICAL
    )
    budget_share: float | None = Field(
        None, gt=0, le=1, description="BUY: share of cash to spend; SELL: share of the holding to sell",
        json_schema_extra=CRITICAL,
    )  # fmt: skip
    limit_price: float | None = Field(
        None, gt=0, description="worst acceptable price; None: market", json_schema_extra=CRITICAL
    )

    @model_validator(mode="after")
    def _sized(self) -> OrderSpec:
        if self.quantity is None and self.budget_share is None:
            raise ValueError("an order needs a quantity or a budget_share")
        return self

    def describe(self) -> str:
        """Short text: 'BUY steel 20% of cash @<=125'."""
        size = f"{self.quantity:g} units" if self.quantity is not None else ""
        if self.budget_share is not None:
            base = "cash" if self.side == "BUY" else "holding"
            size = (size + " / " if size else "") + f"{self.budget_share:.0%} of {base}"
        limit = f" @<={self.limit_price:g}" if self.side == "BUY" and self.limit_price else ""
        limit = f" @>={self.limit_price:g}" if self.side == "SELL" and self.limit_price else limit
        return f"{self.side} {self.instrument} {size}{limit}"


class Decision(BaseModel):
    """What a policy returns for one agent and tick (the JSON schema an LLM must fill)."""

    model_config = ConfigDict(extra="forbid")

    type: DecisionType = Field("WAIT", description="ANALYZE: look closer next tick; DECIDE: trade; ...")
    orders: list[OrderSpec] = Field(default_factory=list, description="structured orders (DECIDE)")
    intent: str = Field("", description="the same decision in words; parsed when orders are missing")
    instrument: str = Field("", description="NEGOTIATE / ANALYZE: what it is about")
    expected_return: float = Field(
        0.0, ge=-1.0, le=1.0, description="expected return over the horizon, e.g. 0.05 for +5 %",
        json_schema_extra=CRITICAL,
    )  # fmt: skip
    reason: str = Field("", description="one sentence why")


class ApprovedOrder(BaseModel):
    """An order after guardrails: concrete quantity and limit, plus what the pipeline changed and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: int
    side: Side
    instrument: str
    quantity: float = Field(..., gt=0)
    limit_price: float = Field(..., gt=0)
    stake: float = Field(..., ge=0, description="share of total assets committed")
    expected_return: float = 0.0
    high_risk: bool = False
    notes: tuple[str, ...] = ()
