"""The catalogue of the event types the project publishes on its bus, with who publishes each and what it means.

Producers publish these members and consumers (metrics, reports, plots) filter on them, so a renamed or misspelt
type fails at import or in the catalogue test instead of silently counting nothing. The bus itself accepts any
dotted type: a user's own module may publish types of its own.
"""

from __future__ import annotations

from enum import StrEnum


class EventType(StrEnum):
    """Every event type the simulation and the agents publish (`events.jsonl`'s `type` field)."""

    ENV_UPDATED = "env.updated"
    DECISION_POINT = "decision.point"
    ACTION_RESULT = "action.result"
    NEWS_PUBLISHED = "news.published"
    MARKET_CLEARED = "market.cleared"
    LABOUR_MATCHED = "labour.matched"
    TAX_COLLECTED = "tax.collected"
    BANK_RATE_SET = "bank.rate_set"
    BANK_INTEREST_PAID = "bank.interest_paid"
    GUARD_FALLBACK = "guard.fallback"
    ORDER_FILLED = "market.order_filled"
    ORDER_EXPIRED = "market.order_expired"
    ORDER_REJECTED = "market.order_rejected"
    MEMORY_FORMED = "memory.formed"
    BELIEF_FORMED = "belief.formed"
    PERSONA_EVOLVED = "persona.evolved"
    DECISION_MADE = "decision.made"
    GUARDRAIL_ADJUSTED = "guardrail.adjusted"
    GUARDRAIL_REJECTED = "guardrail.rejected"
    GUARDRAIL_VETOED = "guardrail.vetoed"
    MIND_DECISION = "mind.decision"
    NEGOTIATION_OFFER = "negotiation.offer"
    NEGOTIATION_ACCEPTED = "negotiation.accepted"
    NEGOTIATION_BROKEN = "negotiation.broken"
    FIRM_DECIDED = "firm.decided"
    FIRM_PRICED = "firm.priced"
    FIRM_WAGE_SET = "firm.wage_set"
    FIRM_HIRED = "firm.hired"
    FIRM_EXPANSION_STARTED = "firm.expansion_started"
    FIRM_EXPANDED = "firm.expanded"
    FIRM_CLOSED_CAPACITY = "firm.closed_capacity"
    FIRM_RND = "firm.rnd"
    FIRM_BOUGHT_INPUT = "firm.bought_input"
    FIRM_GUARDRAIL_REJECTED = "firm.guardrail_rejected"
    FIRM_GUARDRAIL_ADJUSTED = "firm.guardrail_adjusted"
    FIRM_PERSONA_EVOLVED = "firm.persona_evolved"


DESCRIPTIONS: dict[EventType, str] = {
    EventType.ENV_UPDATED: "model, each month: the month's indicators (prices, wages, unemployment, rate, ...)",
    EventType.DECISION_POINT: "model, each month: households are about to decide",
    EventType.ACTION_RESULT: "model, each month: what the month's decisions produced",
    EventType.NEWS_PUBLISHED: "news generator or a scheduled shock: a headline agents may read",
    EventType.MARKET_CLEARED: "goods markets and call auctions: quantities, prices, rationing",
    EventType.LABOUR_MATCHED: "labour market, each month: hires by sector",
    EventType.TAX_COLLECTED: "government, each month: taxes, transfers and benefits",
    EventType.BANK_RATE_SET: "central bank: the policy rate, the Taylor rule's rate and a shock's deviation",
    EventType.BANK_INTEREST_PAID: "bank: interest on deposits (created, or paid by overdrawn borrowers)",
    EventType.GUARD_FALLBACK: "model: a non-finite or out-of-range value replaced by its fallback (counted)",
    EventType.ORDER_FILLED: "call auction: one order filled (price, quantity, who)",
    EventType.ORDER_EXPIRED: "call auction: an order left unfilled at the end of its life",
    EventType.ORDER_REJECTED: "call auction: an order refused at intake (no funds, no holding, bad price)",
    EventType.MEMORY_FORMED: "cognitive households: episodic memories written this month (count)",
    EventType.BELIEF_FORMED: "cognitive households: a semantic belief from reflection",
    EventType.PERSONA_EVOLVED: "cognitive households: persona traits moved by an outcome",
    EventType.DECISION_MADE: "econagent: a household's work and consumption answer (and trade)",
    EventType.GUARDRAIL_ADJUSTED: "guardrails: an intent trimmed to what is feasible or allowed",
    EventType.GUARDRAIL_REJECTED: "guardrails: an intent refused, with the reason",
    EventType.GUARDRAIL_VETOED: "guardrails: the persona check vetoed an intent",
    EventType.MIND_DECISION: "cognitive households (sampled): the briefing recalled and the guarded decision",
    EventType.NEGOTIATION_OFFER: "steel deals: one offer or counter-offer",
    EventType.NEGOTIATION_ACCEPTED: "steel deals: a negotiation closed with a deal",
    EventType.NEGOTIATION_BROKEN: "steel deals: talks broke down or a deal was not honoured",
    EventType.FIRM_DECIDED: "cognitive firms, each quarter: the whole decision and what the firm perceived",
    EventType.FIRM_PRICED: "cognitive firms: price posture set",
    EventType.FIRM_WAGE_SET: "cognitive firms: wage posture set",
    EventType.FIRM_HIRED: "cognitive firms: hiring plan",
    EventType.FIRM_EXPANSION_STARTED: "cognitive firms: a new plant started (cost, months until it produces)",
    EventType.FIRM_EXPANDED: "cognitive firms: a plant completed, capacity raised",
    EventType.FIRM_CLOSED_CAPACITY: "cognitive firms: capacity closed",
    EventType.FIRM_RND: "cognitive firms: R&D outlay",
    EventType.FIRM_BOUGHT_INPUT: "cognitive firms: steel bought ahead",
    EventType.FIRM_GUARDRAIL_REJECTED: "firm guardrails: a plan refused",
    EventType.FIRM_GUARDRAIL_ADJUSTED: "firm guardrails: a plan trimmed",
    EventType.FIRM_PERSONA_EVOLVED: "cognitive firms: persona traits moved by a forecast or outcome",
}
"""What each type means and who publishes it (the test checks every member has a line)."""


def known(value: str) -> bool:
    """Whether `value` is one of the project's event types."""
    return value in EventType._value2member_map_
