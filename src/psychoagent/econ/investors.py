"""Persona-driven investors: households' expectations and orders in the call auctions, vectorised.

Expected log return over the horizon tau (rounds) of household i (heterogeneous expectations in the line of
Brock & Hommes 1998, Lux & Marchesi 1999, Franke & Westerhoff 2012; orders as in Chiarella, Iori & Perello 2009):

    e_i = tau x [(1 - w_i) ln(V / P) / tau_F  +  w_i x chi x m]  +  herding x s_i x flow  +  optimism x o_i
          + I^a x [(1 - w_i) x noise_value x xi_value  +  w_i x noise_trend x xi_trend]  +  I^b x noise_private x eps_i

- V the fundamental value (stocks: a level anchored to households' money, split by dividends, markets/state.py;
  steel: the producer's price), P the last price, m the EWMA of recent returns, flow last round's public net order flow (buy - sell) / (buy + sell);
- trend weight w_i = clip(2 n_c x (trend_base + trend_risk x risk_i + trend_learning x learning_i), 0, 1):
  risk takers and fast learners (whose beliefs are least stable) follow trends, cautious and slow learners
  trade on value; n_c in [0, 1] is the market's chartist share, moved by discrete choice (markets/state.py):
  far from value, value trading gains followers; herding makes the majority rule more attractive;
- s_i social_tendency (herding on others' public orders), o_i optimism; xi_value and xi_trend are one draw per
  auction shared by each style's followers (they read the same news or charts), eps_i is private; all come
  from the model's seeded generator;
- I the instrument's information intensity this round (markets/state.py; mean 1, persistent, raised by news
  surprises): the mixture-of-distributions hypothesis (Clark 1973; Tauchen & Pitts 1983) lets the arrival of
  information drive both price changes and volume. The shared news scales with I^a (a = 0.5: variance per
  event), disagreement with I^b (b = 1: opinions spread as news comes, Harris & Raviv 1993), and the review
  chance with I (every event draws traders in), so busy rounds move prices and trade more at once.

Position: target share of wealth in the instrument = invest_i x weight + kappa_i x e_i, clipped to
[0, max_share], kappa_i = invest_i x tilt x (0.5 + risk_i): allocation['invest'] sets the strategic holding
(weight = the stock's market-cap share; 0 for steel), risk preference scales how far expectations tilt it.
A household reviews a position with probability activity x (0.5 + risk_i) x [liquidity + (1 - liquidity) x
attention^attention_exponent x I] (attention = recent / long-run |r|, bounded): a `liquidity` part of trading
does not wait for news or big moves (liquidity traders, Kyle 1985; the noise traders of Chiarella, Iori & Perello
2009). The order closes the gap between target and holding; its limit
lies between the last and the expected price, P exp(u e_i) with u ~ U(0, 1), within +-max_move; buys are
trimmed to the cash and the position limit, sales to the holding (no short sales).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # the markets package imports this module
    from psychoagent.econ.markets.config import InvestorConfig

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class Signals:
    """Public state the investors read before a round, one entry per instrument (or per household-instrument
    pair once indexed with `at`)."""

    price: FloatArray
    fundamental: FloatArray
    trend: FloatArray
    attention: FloatArray
    flow: FloatArray
    chartist_share: FloatArray
    weight: FloatArray
    news_value: FloatArray
    news_trend: FloatArray
    arrivals: FloatArray
    spread_shared: FloatArray
    spread_private: FloatArray

    def at(self, cols: IntArray) -> Signals:
        """The signals seen by each (household, instrument) pair whose instrument column is `cols`."""
        return Signals(*(getattr(self, f.name)[cols] for f in fields(self)))


@dataclass(frozen=True)
class Holdings:
    """Private state of all households: cash (n), units (n x k), wealth (n) and the position caps (k)."""

    cash: FloatArray
    units: FloatArray
    wealth: FloatArray
    unit_cap: FloatArray


@dataclass(frozen=True)
class OrderArrays:
    """Orders of one side in one instrument: household indices, quantities and limit prices."""

    agent: IntArray
    quantity: FloatArray
    limit: FloatArray

    @classmethod
    def empty(cls) -> OrderArrays:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0))

    @classmethod
    def join(cls, a: OrderArrays, b: OrderArrays) -> OrderArrays:
        """The orders of `a` followed by those of `b`."""
        if not b.agent.size:
            return a
        if not a.agent.size:
            return b
        return cls(np.concatenate([a.agent, b.agent]), np.concatenate([a.quantity, b.quantity]),
                   np.concatenate([a.limit, b.limit]))  # fmt: skip


def trend_weight(risk: FloatArray, learning: FloatArray, cfg: InvestorConfig) -> FloatArray:
    """Persona part of the trend weight (before the market's chartist share scales it)."""
    return np.clip(cfg.trend_base + cfg.trend_risk * risk + cfg.trend_learning * learning, 0.0, 1.0)


def expectations(sig: Signals, traits: FloatArray, eps: FloatArray, cfg: InvestorConfig) -> FloatArray:
    """Expected horizon log return for each row of `traits` (risk, optimism, learning, social), with `sig`
    giving that row's instrument (element-wise)."""
    w = np.clip(2.0 * sig.chartist_share * trend_weight(traits[:, 0], traits[:, 2], cfg), 0.0, 1.0)
    value = np.log(sig.fundamental / sig.price) / cfg.reversion_rounds
    trend = cfg.extrapolation * sig.trend
    e = cfg.horizon * ((1.0 - w) * value + w * trend)
    shared = (1.0 - w) * cfg.noise_value * sig.news_value + w * cfg.noise_trend * sig.news_trend
    private = sig.spread_private * cfg.noise_private * eps
    e += (
        cfg.herding * traits[:, 3] * sig.flow
        + cfg.optimism * traits[:, 1]
        + sig.spread_shared * shared
        + private
    )
    return np.asarray(e, dtype=float)


def investor_orders(
    sig: Signals,
    traits: FloatArray,
    invest: FloatArray,
    hold: Holdings,
    cfg: InvestorConfig,
    fee_rate: float,
    rng: np.random.Generator,
    allowed: NDArray[np.bool_] | None = None,
) -> list[tuple[OrderArrays, OrderArrays]]:
    """(bids, asks) per instrument of the households reviewing positions this round (draws: n x k, then 2 per
    reviewed pair). A household's buys across instruments together stay within its cash."""
    n, k = hold.units.shape
    drawn = cfg.liquidity + (1.0 - cfg.liquidity) * sig.attention**cfg.attention * sig.arrivals
    chance = cfg.activity * np.outer(0.5 + traits[:, 0], drawn)
    active = rng.random((n, k)) < chance
    if allowed is not None:
        active &= allowed[:, None]
    who, col = np.nonzero(active)
    if not who.size:
        return [(OrderArrays.empty(), OrderArrays.empty()) for _ in range(k)]
    eps, u = rng.standard_normal(who.size), rng.random(who.size)
    tr, ps = traits[who], sig.at(col)
    e = expectations(ps, tr, eps, cfg)
    kappa = invest[who] * cfg.tilt * (0.5 + tr[:, 0])
    target = np.clip(invest[who] * ps.weight + kappa * e, 0.0, cfg.max_share)
    wealth = np.maximum(hold.wealth[who], 1e-9)
    units = hold.units[who, col]
    gap = target - units * ps.price / wealth
    limit = ps.price * np.exp(np.clip(u * e, -cfg.max_move, cfg.max_move))
    qty = np.abs(gap) * wealth / limit
    buy = gap > 0
    qty = np.where(buy, np.minimum(qty, np.maximum(hold.unit_cap[col] - units, 0.0)), np.minimum(qty, units))
    cost = np.where(buy, qty * limit * (1.0 + fee_rate), 0.0)
    total = np.bincount(who, weights=cost, minlength=n)
    scale = np.minimum(np.maximum(hold.cash, 0.0) / np.maximum(total, 1e-300), 1.0)
    qty = np.where(buy, qty * scale[who], qty)
    keep = qty * limit > cfg.min_order_value
    out = []
    for j in range(k):
        b = keep & buy & (col == j)
        a = keep & ~buy & (col == j)
        out.append((OrderArrays(who[b], qty[b], limit[b]), OrderArrays(who[a], qty[a], limit[a])))
    return out
