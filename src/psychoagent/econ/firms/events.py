"""The event types cognitive firms publish on the bus (source `firm:<sector>`), each with what it means: one
list shared by the firms that emit them and the report that reads them."""

from __future__ import annotations

from psychoagent.events import EventType

FIRM_EVENTS: dict[str, str] = {
    EventType.FIRM_DECIDED: "decisions",
    EventType.FIRM_PRICED: "price settings",
    EventType.FIRM_WAGE_SET: "wage settings",
    EventType.FIRM_HIRED: "hiring plans",
    EventType.FIRM_EXPANSION_STARTED: "plants started",
    EventType.FIRM_EXPANDED: "plants completed",
    EventType.FIRM_CLOSED_CAPACITY: "closures",
    EventType.FIRM_RND: "R&D outlays",
    EventType.FIRM_BOUGHT_INPUT: "input bought ahead",
    EventType.FIRM_GUARDRAIL_REJECTED: "plans refused",
    EventType.FIRM_GUARDRAIL_ADJUSTED: "plans trimmed",
    EventType.FIRM_PERSONA_EVOLVED: "persona updates",
}
"""Type -> what a count of it is called in the report."""
