"""Bilateral steel deals between cognitive households: pairing, the negotiation, and the two orders of a deal."""

from __future__ import annotations

from collections.abc import Mapping

from psychoagent.econ.cognitive.kit import Kit
from psychoagent.econ.intents import HouseholdView
from psychoagent.econ.mind.negotiation import Party, negotiate
from psychoagent.econ.mind.schema import ApprovedOrder
from psychoagent.events import EventType
from psychoagent.types import Affect

_MIN_UNITS = 0.01
"""Steel holdings below a hundredth of a unit are residue of earlier sales, too small for a deal."""


def negotiate_deals(kit: Kit, t: int, negotiators: list[int], view: HouseholdView,
                    prices: Mapping[str, float]) -> list[ApprovedOrder]:  # fmt: skip
    """Each agent seeking a deal finds a counterpart among the cognitive agents (a steel holder when it
    wants to buy, anyone when it holds steel to sell), paired with the policy's generator; a deal becomes two
    limit orders at the agreed price."""
    price = prices.get("steel", 0.0)
    if price <= 0 or not negotiators:
        return []
    agents = kit.minds()
    holders = [i for i in agents if kit.holdings(i).get("steel", 0.0) > _MIN_UNITS]
    busy: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for i in (negotiators[j] for j in kit.rng.permutation(len(negotiators))):
        if i in busy:
            continue
        sells = i in holders
        pool = [j for j in (holders if holders and not sells else agents) if j != i and j not in busy]
        if not pool:
            continue
        other = pool[int(kit.rng.integers(len(pool)))]
        pairs.append((other, i) if sells else (i, other))
        busy.update((i, other))
    out: list[ApprovedOrder] = []
    cfg = kit.cognitive.negotiation
    for b, s in pairs:
        pb, ps = view.personas[b], view.personas[s]
        ab, as_ = agents[b], agents[s]
        res = negotiate(Party(b, pb.social_tendency, pb.risk_preference, ab.semantic.reputation_of(s)),
                        Party(s, ps.social_tendency, ps.risk_preference, as_.semantic.reputation_of(b)),
                        price, cfg)  # fmt: skip
        for off in res.offers:
            kit.emit(t, EventType.NEGOTIATION_OFFER, {"buyer": b, "seller": s, "round": off.round, "by": off.by,
                                                     "price": off.price, "instrument": "steel"}, f"household:{off.by}")  # fmt: skip
        qty = min(cfg.quantity, kit.holdings(s).get("steel", 0.0))
        ab.semantic.reputation[s].append(res.concession[s])
        as_.semantic.reputation[b].append(res.concession[b])
        if res.accepted and qty > _MIN_UNITS and float(view.cash[b] + view.deposits[b]) >= qty * res.price:
            kit.emit(t, EventType.NEGOTIATION_ACCEPTED, {"buyer": b, "seller": s, "price": res.price, "quantity": qty,
                                                        "rounds": len(res.offers)}, "negotiation")  # fmt: skip
            for who, side, other in ((b, "BUY", s), (s, "SELL", b)):
                agents[who].note(t, f"Agreed a steel deal with agent {other}: {side.lower()} {qty:g} at "
                                    f"{res.price:.4g} after {len(res.offers)} offers",
                                 Affect(valence=1, arousal=2, reason="deal agreed"), kind_of="negotiation")  # fmt: skip
                o = ApprovedOrder(agent=who, side=side, instrument="steel", quantity=qty,
                                  limit_price=res.price, stake=0.0, notes=(f"negotiated with {other}",))  # fmt: skip
                out.append(o)
                kit.submitted.setdefault(who, []).append((o, "negotiated"))
        else:
            why = res.reason or (f"agreed at {res.price:.4g} but the seller holds no steel to deliver" if qty <= _MIN_UNITS
                                 else f"agreed at {res.price:.4g} but the buyer lacks the cash")  # fmt: skip
            kit.emit(t, EventType.NEGOTIATION_BROKEN, {"buyer": b, "seller": s, "reason": why}, "negotiation")
            for who, other in ((b, s), (s, b)):
                agents[who].note(t, f"Steel talks with agent {other} broke down: {why}",
                                 Affect(valence=-1, arousal=2, reason="talks failed"), kind_of="negotiation")  # fmt: skip
    return out
