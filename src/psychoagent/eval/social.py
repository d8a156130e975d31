"""Social emergence (seed 4.4, fifth criterion): cooperation, broken deals and reputation from negotiation events.

Events are `negotiation.offer` (one per offer or counter-offer), and one closing event per negotiation:
`negotiation.accepted` or `negotiation.broken` (talks broke down or the deal was not honoured). An agent's
reputation is the share of its negotiations that ended in a deal. A negotiation is identified by the first payload
key found in ID_KEYS, its parties by PARTY_KEYS; without ids each closing event is one negotiation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from psychoagent.eval.stats import NAN
from psychoagent.events import EventType

ID_KEYS = ("negotiation_id", "deal_id", "negotiation", "id")
PARTY_KEYS = (
    "parties",
    "agents",
    "buyer",
    "seller",
    "proposer",
    "responder",
    "from",
    "to",
    "agent",
    "counterparty",
)
CLOSED = (EventType.NEGOTIATION_ACCEPTED, EventType.NEGOTIATION_BROKEN)


def _payload(event: Mapping[str, Any]) -> Mapping[str, Any]:
    p = event.get("payload", {})
    return p if isinstance(p, Mapping) else {}


def _deal_id(event: Mapping[str, Any]) -> str | None:
    p = _payload(event)
    for key in ID_KEYS:
        if key in p and p[key] is not None and not isinstance(p[key], dict | list):
            return str(p[key])
    return None


def parties(event: Mapping[str, Any]) -> list[str]:
    """Agent ids named by a negotiation event (any of PARTY_KEYS; lists are flattened)."""
    p = _payload(event)
    out: list[str] = []
    for key in PARTY_KEYS:
        v = p.get(key)
        if isinstance(v, list | tuple):
            out.extend(str(x) for x in v if x is not None)
        elif v is not None and not isinstance(v, dict):
            out.append(str(v))
    return list(dict.fromkeys(out))


def reputations(events: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Each agent's reputation: the share of the negotiations it took part in that ended in agreement
    (accepted / (accepted + broken))."""
    agreed: dict[str, int] = defaultdict(int)
    closed: dict[str, int] = defaultdict(int)
    for e in events:
        kind = e.get("type")
        if kind not in CLOSED:
            continue
        for a in parties(e):
            closed[a] += 1
            agreed[a] += kind == EventType.NEGOTIATION_ACCEPTED
    return {a: agreed[a] / n for a, n in closed.items() if n > 0}


def social_metrics(events: Iterable[Mapping[str, Any]], agent_ticks: int | None = None) -> dict[str, float]:
    """Cooperation rate (accepted / negotiations), broken-deal rate (broken / negotiations), negotiations per 100
    agent-ticks and reputation dispersion (standard deviation across agents); {} without negotiation events."""
    evs = [e for e in events if str(e.get("type", "")).startswith("negotiation.")]
    if not evs:
        return {}
    counts: dict[str, int] = defaultdict(int)
    ids: set[str] = set()
    for e in evs:
        counts[str(e.get("type"))] += 1
        d = _deal_id(e)
        if d is not None:
            ids.add(d)
    accepted = counts[EventType.NEGOTIATION_ACCEPTED]
    broken = counts[EventType.NEGOTIATION_BROKEN]
    opened = len(ids) if ids else accepted + broken
    if opened == 0:
        opened = counts[EventType.NEGOTIATION_OFFER]
    reps = list(reputations(evs).values())
    out = {
        "negotiations": float(opened),
        "cooperation_rate": min(accepted / opened, 1.0) if opened else NAN,
        "broken_rate": broken / opened if opened else NAN,
        "offers_per_negotiation": counts[EventType.NEGOTIATION_OFFER] / opened if opened else NAN,
        "reputation_dispersion": float(np.std(reps, ddof=1)) if len(reps) >= 2 else NAN,
    }
    if agent_ticks:
        out["negotiations_per_100_agent_ticks"] = 100.0 * opened / agent_ticks
    return out
