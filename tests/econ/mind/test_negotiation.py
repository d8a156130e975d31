"""Bilateral negotiation: offers alternate, personas and reputation matter, talks can break."""

from __future__ import annotations

from psychoagent.agent.config import NegotiationConfig
from psychoagent.econ.mind.negotiation import Party, negotiate


def test_deal_between_flexible_parties() -> None:
    res = negotiate(Party(1, 0.8, 0.3), Party(2, 0.8, 0.3), 100.0, NegotiationConfig())
    assert res.accepted and 90 < res.price < 110
    assert [o.by for o in res.offers][:2] == [2, 1]  # the seller opens, the buyer counters
    assert res.concession[1] > 0 and res.concession[2] > 0


def test_stubborn_parties_break_off() -> None:
    cfg = NegotiationConfig(rounds=2, walk_away=0.01)
    res = negotiate(Party(1, 0.0, 1.0), Party(2, 0.0, 1.0), 100.0, cfg)
    assert not res.accepted and "no agreement after 2 rounds" in res.reason


def test_bad_reputation_opens_further_out() -> None:
    cfg = NegotiationConfig()
    trusting = negotiate(Party(1, 0.5, 0.5), Party(2, 0.5, 0.5, counterpart_reputation=0.9), 100.0, cfg)
    wary = negotiate(Party(1, 0.5, 0.5), Party(2, 0.5, 0.5, counterpart_reputation=0.1), 100.0, cfg)
    assert wary.offers[0].price > trusting.offers[0].price
