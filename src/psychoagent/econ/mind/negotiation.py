"""Bilateral negotiation (seed 2.2.1's 'three rounds with Agent_B' example): alternating offers on a steel deal.

The seller opens above and the buyer below the market price; each round the party whose turn it is concedes a
share of the gap set by its persona (social agents concede more, risk-seekers less) and by the counterpart's
remembered reputation (one expects a hard bargainer to move little and opens further out). A deal is struck
when the offers cross or come within the walk-away distance; otherwise talks break after `rounds`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from psychoagent.agent.config import NegotiationConfig


@dataclass(frozen=True)
class Party:
    """One side: who, its persona traits that matter, what the counterpart conceded before (0..1)."""

    agent: int
    """Who: the agent's number (a household's index in the economy)."""
    social_tendency: float
    """Persona trait in [0, 1]: a more social side concedes more each round."""
    risk_preference: float
    """Persona trait in [0, 1]: a risk-seeker concedes less."""
    counterpart_reputation: float = 0.5
    """Mean share of the gap the counterpart conceded in past talks (0.5 when unknown); the lower it is, the
    further out this side opens."""
    limit: float | None = None
    """Walk-away price: the most a buyer pays, the least a seller takes; None: the market price x
    (1 +- walk_away)."""


@dataclass(frozen=True)
class Offer:
    """One offer in the talks."""

    round: int
    """Round of the talks, from 1 (the seller offers first in each)."""
    by: int
    """The `Party.agent` who made it."""
    price: float
    """Price per unit offered, rounded to 4 decimals."""


@dataclass
class NegotiationResult:
    """The talks: offers in order, whether a deal was made, at what price, and each side's concession share."""

    buyer: int
    """The buyer's `Party.agent`."""
    seller: int
    """The seller's `Party.agent`."""
    market_price: float
    """Market price of steel the talks start from."""
    quantity: float
    """Units of steel the talks are about (`NegotiationConfig.quantity`)."""
    offers: list[Offer] = field(default_factory=list)
    """Every offer in the order made."""
    accepted: bool = False
    """Whether the talks ended in a deal."""
    price: float = 0.0
    """Agreed price per unit (0 without a deal)."""
    concession: dict[int, float] = field(default_factory=dict)
    """`Party.agent` -> share of the opening gap that side gave up (each remembers the other's as its
    reputation)."""
    reason: str = ""
    """Why the talks broke down; empty after a deal."""


def concession_rate(party: Party, cfg: NegotiationConfig) -> float:
    """Share of the gap conceded per round: base x (1 + social - 0.5) x (1.5 - risk), in [0.05, 0.9]."""
    rate = cfg.concession * (0.5 + party.social_tendency) * (1.5 - party.risk_preference)
    return min(max(rate, 0.05), 0.9)


def negotiate(buyer: Party, seller: Party, market_price: float, cfg: NegotiationConfig) -> NegotiationResult:
    """Alternating offers, seller first; deterministic given the parties and the price."""
    res = NegotiationResult(buyer.agent, seller.agent, market_price, cfg.quantity)
    w = cfg.reputation_weight
    ask = market_price * (1.0 + cfg.opening_margin * (1.0 + w * (0.5 - seller.counterpart_reputation)))
    bid = market_price * (1.0 - cfg.opening_margin * (1.0 + w * (0.5 - buyer.counterpart_reputation)))
    buyer_max = buyer.limit if buyer.limit is not None else market_price * (1.0 + cfg.walk_away)
    seller_min = seller.limit if seller.limit is not None else market_price * (1.0 - cfg.walk_away)
    ask0, bid0 = ask, bid
    r_buy, r_sell = concession_rate(buyer, cfg), concession_rate(seller, cfg)
    for rnd in range(1, cfg.rounds + 1):
        res.offers.append(Offer(rnd, seller.agent, round(ask, 4)))
        if ask <= buyer_max and ask - bid <= cfg.walk_away * market_price:
            res.accepted, res.price = True, ask
            break
        bid = min(bid + r_buy * (ask - bid), buyer_max)
        res.offers.append(Offer(rnd, buyer.agent, round(bid, 4)))
        if bid >= seller_min and ask - bid <= cfg.walk_away * market_price:
            res.accepted, res.price = True, bid
            break
        ask = max(ask - r_sell * (ask - bid), seller_min)
    gap = max(ask0 - bid0, 1e-12)
    res.concession = {seller.agent: (ask0 - ask) / gap, buyer.agent: (bid - bid0) / gap}
    if not res.accepted:
        res.reason = f"no agreement after {cfg.rounds} rounds (ask {ask:.4g}, bid {bid:.4g})"
    return res
