"""The immutable per-tick view of the economy: the only thing a household's decision may read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class NewsItem:
    """One piece of news: what agents read, with a sentiment in [-1, 1] and the topic it is about."""

    tick: int
    """Month the item is published in (the tick whose decisions read it)."""
    headline: str
    """The one line agents read, remember and see in prompts."""
    sentiment: float
    """Tone in [-1, 1]: how good the news reads; on a firm's news, the sign of its effect on the good's price
    (news about a traded instrument becomes a belief about its price with this effect)."""
    topic: str = "macro"
    """What it is about: 'prices', 'jobs' or 'output' (statistics), a shock's 'policy', 'rates', 'demand' or
    sector, or a firm's traded good ('steel') or '<sector>_goods'."""
    source: str = "statistics"
    """Who published it: 'statistics' (the news generator), 'shock:<kind>' or 'firm:<sector>'."""
    body: str = ""
    """Longer text after the headline; empty in the news the model publishes."""


@dataclass(frozen=True)
class PublicAction:
    """Something another agent did in public last tick (a firm's price, its job offers, households' spending)."""

    actor: str
    """Who acted: 'firm:<sector>', 'households' or 'market:<instrument>'."""
    action: str
    """What was done: 'set_price', 'post_jobs', 'spend_share', 'work' or 'net_flow'."""
    value: float
    """The action's number: the firm's price or jobs offered, households' mean spending share or share
    working, an instrument's net order flow (bids - asks) / (bids + asks) in [-1, 1]."""
    detail: str = ""
    """Free text; empty in the actions the model publishes."""


def _frozen(mapping: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Snapshot:
    """Public state at the start of a tick: last tick's indicators plus this tick's news.

    Rates are per year (interest_rate) or year over year (inflation, wage_inflation); unemployment and the
    consumption share are fractions in [0, 1]. Mappings are read-only.
    """

    tick: int
    """Month whose decisions read this view (1 at the first step; 0 before it)."""
    prices: Mapping[str, float]
    """Sector -> price of its good this month, as its firm set it (currency units per unit)."""
    wages: Mapping[str, float]
    """Sector -> hourly wage its firm pays per unit of skill this month."""
    interest_rate: float
    """This month's policy rate: the Taylor rule's rate at its last review plus the rate shocks' deviation,
    floored at 0."""
    price_level: float
    """Consumer price index: the budget-share-weighted price of the final goods, last month."""
    inflation: float
    """Change of the price level over 12 months (since month 0 in the first year)."""
    wage: float
    """Mean hourly wage of households (skill x their sector's wage), worked or not, last month."""
    wage_inflation: float
    """Change of that mean wage over 12 months (since month 0 in the first year)."""
    nominal_gdp: float
    """Final output last month at the prices it sold at (currency units)."""
    real_gdp: float
    """Final output last month at month-0 prices."""
    gdp_growth: float
    """Real GDP growth of last month over the month before."""
    unemployment: float
    """Share of households that did not work last month."""
    tax_revenue: float
    """Tax collected on households' income last month (currency units)."""
    mean_consumption_share: float
    """Households' mean spending intent last month (share of wealth)."""
    shortages: Mapping[str, float] = field(default_factory=dict)
    """Sector -> units of last month's demand for its good that found no stock."""
    news: tuple[NewsItem, ...] = ()
    """This month's news: shocks starting or ending, the statistics office's, firms' notable actions."""
    public_actions: tuple[PublicAction, ...] = ()
    """What firms, households and markets did in public last month."""
    inflation_target: float = 0.02
    """The central bank's annual inflation target in force (a policy change may move it)."""
    natural_unemployment: float = 0.04
    """Unemployment the central bank's Taylor rule takes as normal (`BankConfig.natural_unemployment`)."""
    natural_rate: float = 0.01
    """Real natural rate r_n of the central bank's rule: the neutral nominal rate is r_n + inflation_target."""
    rate_gap: float = 0.0
    """Deviation of the policy rate from the Taylor rule this month (the rate shocks in force)."""
    rate_gap_ahead: float = 0.0
    """Announced sum of that deviation over this and the coming months, in rate x years (hold plus AR(1) tail)."""
    assets: Mapping[str, float] = field(default_factory=dict)
    """Last auction price of every listed instrument ('steel', 'stock:<firm>'); empty when trading is off."""

    def __post_init__(self) -> None:
        for name in ("prices", "wages", "shortages", "assets"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    @property
    def year(self) -> int:
        """Simulation year (0-based) of this tick, with 12 monthly ticks per year."""
        return max(self.tick - 1, 0) // 12

    @property
    def news_sentiment(self) -> float:
        """Mean sentiment of this tick's news, 0 when there is none."""
        return sum(n.sentiment for n in self.news) / len(self.news) if self.news else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (for prompts, journals and tests)."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("prices", "wages", "shortages", "assets"):
            out[name] = dict(out[name])
        out["news"] = [asdict(n) for n in self.news]
        out["public_actions"] = [asdict(a) for a in self.public_actions]
        return out
