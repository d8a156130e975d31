"""Scheduled shocks: data that changes the economy for a while and publishes news when it starts and ends.

Active shocks are folded into `Levers` every tick (factors multiply, overrides take the latest), so a shock
that ends is undone exactly. A rate shock is a deviation from the Taylor rule (a residual v_t added to the rule's
rate): held in full for its duration (by default until the bank's next review), then decaying as an AR(1),
v_t = persistence x v_{t-1}, as the monetary policy shock of the New Keynesian model (Gali 2008, ch. 3;
Woodford 2003).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from psychoagent.econ.snapshot import NewsItem


class _Shock(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    start: int = Field(ge=1, description="first tick (month) the shock is in force")
    duration: int = Field(0, ge=0, description="months in force; 0 = permanent")
    headline: str = Field("", description="news headline at the start (a default is written when empty)")
    sentiment: float | None = Field(None, ge=-1, le=1, description="news sentiment; default per kind")

    def active(self, tick: int) -> bool:
        """Whether the shock is in force at `tick`."""
        return tick >= self.start and (self.duration == 0 or tick < self.start + self.duration)

    def ends_at(self) -> int | None:
        """First tick after the shock, or None when permanent."""
        return self.start + self.duration if self.duration else None

    def news(self, tick: int, ending: bool = False) -> NewsItem:
        """The news item announcing the start (or the end) of this shock."""
        text, mood, topic = self._describe()
        if ending:
            return NewsItem(tick, f"Ended: {text}", -0.5 * mood, topic, f"shock:{self.kind_name()}")
        headline = self.headline or text
        sentiment = self.sentiment if self.sentiment is not None else mood
        return NewsItem(tick, headline, sentiment, topic, f"shock:{self.kind_name()}")

    def kind_name(self) -> str:
        return str(getattr(self, "kind", "shock"))

    def _describe(self) -> tuple[str, float, str]:
        raise NotImplementedError


class PolicyChange(_Shock):
    """Fiscal or monetary policy change: scale every tax rate (what the change adds may stay with the government,
    `to_balance`), and/or move the inflation target."""

    kind: Literal["policy_change"] = "policy_change"
    tax_scale: float = Field(1.0, gt=0, description="multiplies every bracket rate (capped at 100 %); > 0")
    to_balance: float = Field(
        0.0,
        ge=0,
        le=1,
        description=(
            "share of the revenue the tax change adds (or loses) that goes to the government's balance instead of "
            "the lump sum: 0 = redistributed (EconAgent's budget-neutral rule, so a rise only redistributes); 1 = "
            "a rise that cuts the deficit and repays debt, Romer and Romer (2010)'s deficit-driven tax changes, or "
            "a cut financed by borrowing"
        ),
    )
    inflation_target: float | None = Field(None, ge=-0.1, le=0.5, description="new pi_target while in force")

    def _describe(self) -> tuple[str, float, str]:
        parts = []
        if self.tax_scale != 1.0:
            parts.append(
                f"income tax rates {'raised' if self.tax_scale > 1 else 'cut'} by {abs(self.tax_scale - 1):.0%}"
            )
            if self.to_balance > 0:
                parts[-1] += " to cut the deficit" if self.tax_scale > 1 else ", financed by borrowing"
        if self.inflation_target is not None:
            parts.append(f"inflation target set to {self.inflation_target:.1%}")
        mood = -0.4 if self.tax_scale > 1 else 0.3 if self.tax_scale < 1 else 0.0
        return "Government announces policy change: " + ("; ".join(parts) or "no change"), mood, "policy"


class SupplyShock(_Shock):
    """A sector's productivity drops (or rises): e.g. a steel supply shock."""

    kind: Literal["supply_shock"] = "supply_shock"
    sector: str = "steel"
    productivity_factor: float = Field(0.5, gt=0, description="multiplies the sector's units per hour")

    def _describe(self) -> tuple[str, float, str]:
        change = self.productivity_factor - 1.0
        word = "collapses" if change < 0 else "surges"
        return (
            f"{self.sector} output {word}: capacity {change:+.0%}",
            -0.7 if change < 0 else 0.4,
            self.sector,
        )


class DemandShock(_Shock):
    """Households' spending shares are scaled (a confidence shock or a boom)."""

    kind: Literal["demand_shock"] = "demand_shock"
    factor: float = Field(0.8, gt=0, le=5, description="multiplies every household's spending share")

    def _describe(self) -> tuple[str, float, str]:
        change = self.factor - 1.0
        word = "slumps" if change < 0 else "booms"
        return f"Consumer demand {word} ({change:+.0%})", -0.6 if change < 0 else 0.5, "demand"


class Regulation(_Shock):
    """A sector is regulated: its firm may employ at most a share of its workforce and/or loses productivity."""

    kind: Literal["regulation"] = "regulation"
    sector: str = "tech"
    offer_cap: float = Field(0.7, ge=0, le=1, description="max share of the sector's workforce employed")
    productivity_factor: float = Field(1.0, gt=0, description="compliance cost as lost productivity")

    def _describe(self) -> tuple[str, float, str]:
        return (
            f"New regulation caps {self.sector} employment at {self.offer_cap:.0%} of its workforce",
            -0.4,
            self.sector,
        )


class RateShock(_Shock):
    """The central bank sets its rate `delta` off its Taylor rule: held for `duration` months (0: until its next
    review), then the deviation decays by `persistence` a month (0: gone at once, the rule takes over)."""

    kind: Literal["rate_shock"] = "rate_shock"
    duration: int = Field(
        0,
        ge=0,
        description="months the deviation is held in full; 0 = until the bank's next review (not permanent)",
    )
    delta: float = Field(
        0.02, ge=-0.5, le=0.5, description="change of the annual policy rate (floored at `floor`)"
    )
    floor: float = Field(
        0.0,
        ge=0,
        le=0.5,
        description="lowest policy rate while the deviation is held (0: the zero lower bound)",
    )
    persistence: float = Field(
        0.0,
        ge=0,
        lt=1,
        description=(
            "monthly AR(1) coefficient of the deviation after the hold: v_t = persistence x v_{t-1} (Gali 2008, "
            "ch. 3: rho_v = 0.5 a quarter, 0.79 a month); 0 = the rule's rate at once"
        ),
    )

    def hold_end(self, review_months: int) -> int:
        """Last month the deviation is held in full: start + duration - 1, or the first review month from start."""
        if self.duration:
            return self.start + self.duration - 1
        return -(-self.start // review_months) * review_months

    def gap(self, tick: int, review_months: int) -> float:
        """The deviation from the rule's rate in month `tick` (0 before the start)."""
        if tick < self.start:
            return 0.0
        end = self.hold_end(review_months)
        return self.delta if tick <= end else self.delta * self.persistence ** (tick - end)

    def gap_ahead(self, tick: int, review_months: int) -> float:
        """Sum of the deviation over month `tick` and all later months, in rate x years (0 before the start:
        the shock is not anticipated): the hold left plus the AR(1) tail, v / (1 - persistence)."""
        if tick < self.start:
            return 0.0
        end = self.hold_end(review_months)
        tail = self.persistence / (1.0 - self.persistence)
        if tick <= end:
            return self.delta * (end - tick + 1 + tail) / 12.0
        return self.gap(tick, review_months) / (1.0 - self.persistence) / 12.0

    def _describe(self) -> tuple[str, float, str]:
        word = "raises" if self.delta > 0 else "cuts"
        held = f" for {self.duration} months" if self.duration else ""
        return (
            f"Central bank {word} rates by {abs(self.delta) * 100:.1f} points{held}",
            -0.5 if self.delta > 0 else 0.4,
            "rates",
        )


class MarketCrash(_Shock):
    """A stock market crash: every stock opens month `start` at `factor` x its last price (19 October 1987: -23 % in
    a day), and traders value stocks at `factor` x their usual value, back to 1 over `duration` months (a risk
    premium that jumps and fades). How far prices fall and how fast they recover is the households' trading."""

    kind: Literal["market_crash"] = "market_crash"
    factor: float = Field(
        0.6, gt=0, lt=1, description="every stock's price is multiplied by this at the open"
    )

    def gap(self, tick: int) -> float:
        """The price gap at the open of `tick` (only the first month's)."""
        return self.factor if tick == self.start else 1.0

    def haircut(self, tick: int) -> float:
        """Traders' valuation of stocks over its usual level: `factor` in the crash month, back to 1 linearly over
        `duration` months (a risk premium that rises at once and fades)."""
        if not self.active(tick) or self.duration == 0:
            return 1.0
        return self.factor + (1.0 - self.factor) * (tick - self.start) / self.duration

    def _describe(self) -> tuple[str, float, str]:
        return f"Stock markets crash ({self.factor - 1.0:+.0%} at the open)", -0.9, "markets"


class Cohort(_Shock):
    """A new generation joins: at `start`, a `share` of the households (drawn from the run's seed) is replaced by
    newcomers who keep the household's place, skills and wealth (an inheritance) but none of its memories, beliefs
    or expectations, and start again from its first persona (cohorts with different lived experience,
    Malmendier & Nagel 2016)."""

    kind: Literal["cohort"] = "cohort"
    share: float = Field(
        0.25, gt=0, le=1, description="share of the households replaced by newcomers, in (0, 1]"
    )

    def _describe(self) -> tuple[str, float, str]:
        return f"A new generation joins ({self.share:.0%} of households)", 0.1, "households"


Shock = Annotated[
    PolicyChange | SupplyShock | DemandShock | Regulation | RateShock | MarketCrash | Cohort,
    Field(discriminator="kind"),
]


@dataclass
class Levers:
    """What active shocks change this tick; neutral values mean no shock."""

    productivity: dict[str, float] = field(default_factory=dict)
    offer_cap: dict[str, float] = field(default_factory=dict)
    demand_factor: float = 1.0
    tax_scale: float = 1.0
    tax_to_balance: float = 0.0
    """Share of the revenue the tax change adds or loses that goes to the government's balance (the latest)."""
    inflation_target: float | None = None
    rate_gap: float = 0.0
    """Sum of the rate shocks' deviations from the Taylor rule this tick."""
    rate_gap_ahead: float = 0.0
    """Their announced sum over this and the coming months, in rate x years (what the Euler term reads)."""
    rate_floor: float = 0.0
    """The policy rate's floor this tick: the highest floor of the rate shocks held now (0: zero lower bound)."""
    stock_gap: float = 1.0
    """Stock prices are multiplied by this at the open of this tick's session (a market crash starting now)."""
    stock_value: float = 1.0
    """Investors value stocks at this x their usual value (a market crash's risk premium, fading)."""
    newcomers: float = 0.0
    """Share of the households replaced by newcomers at the start of this tick (a cohort joining now)."""

    @classmethod
    def fold(cls, shocks: list[Shock], tick: int, review_months: int = 12) -> Levers:
        """Combine the shocks in force at `tick` (in schedule order); `review_months` dates a rate shock's end."""
        lev = cls()
        for s in shocks:
            if isinstance(s, RateShock):
                lev.rate_gap += s.gap(tick, review_months)
                lev.rate_gap_ahead += s.gap_ahead(tick, review_months)
                if s.start <= tick <= s.hold_end(review_months):
                    lev.rate_floor = max(lev.rate_floor, s.floor)
                continue
            if not s.active(tick):
                continue
            if isinstance(s, SupplyShock | Regulation):
                lev.productivity[s.sector] = lev.productivity.get(s.sector, 1.0) * s.productivity_factor
            if isinstance(s, Regulation):
                lev.offer_cap[s.sector] = min(lev.offer_cap.get(s.sector, 1.0), s.offer_cap)
            elif isinstance(s, DemandShock):
                lev.demand_factor *= s.factor
            elif isinstance(s, Cohort):
                if tick == s.start:
                    lev.newcomers = 1.0 - (1.0 - lev.newcomers) * (1.0 - s.share)
            elif isinstance(s, MarketCrash):
                lev.stock_gap *= s.gap(tick)
                lev.stock_value *= s.haircut(tick)
            elif isinstance(s, PolicyChange):
                lev.tax_scale *= s.tax_scale
                if s.tax_scale != 1.0:
                    lev.tax_to_balance = s.to_balance
                if s.inflation_target is not None:
                    lev.inflation_target = s.inflation_target
        return lev
