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
    headline: str
    sentiment: float
    topic: str = "macro"
    source: str = "statistics"
    body: str = ""


@dataclass(frozen=True)
class PublicAction:
    """Something another agent did in public last tick (a firm's price, its job offers, households' spending)."""

    actor: str
    action: str
    value: float
    detail: str = ""


def _frozen(mapping: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Snapshot:
    """Public state at the start of a tick: last tick's indicators plus this tick's news.

    Rates are per year (interest_rate) or year over year (inflation, wage_inflation); unemployment and the
    consumption share are fractions in [0, 1]. Mappings are read-only.
    """

    tick: int
    prices: Mapping[str, float]
    wages: Mapping[str, float]
    interest_rate: float
    price_level: float
    inflation: float
    wage: float
    wage_inflation: float
    nominal_gdp: float
    real_gdp: float
    gdp_growth: float
    unemployment: float
    tax_revenue: float
    mean_consumption_share: float
    shortages: Mapping[str, float] = field(default_factory=dict)
    news: tuple[NewsItem, ...] = ()
    public_actions: tuple[PublicAction, ...] = ()
    inflation_target: float = 0.02
    natural_unemployment: float = 0.04
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
