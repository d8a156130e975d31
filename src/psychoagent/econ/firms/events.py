"""The event types cognitive firms publish on the bus (source `firm:<sector>`), each with what it means: one
list shared by the firms that emit them and the report that reads them."""

from __future__ import annotations

FIRM_EVENTS: dict[str, str] = {
    "firm.decided": "decisions",
    "firm.priced": "price settings",
    "firm.wage_set": "wage settings",
    "firm.hired": "hiring plans",
    "firm.expansion_started": "plants started",
    "firm.expanded": "plants completed",
    "firm.closed_capacity": "closures",
    "firm.rnd": "R&D outlays",
    "firm.bought_input": "input bought ahead",
    "firm.guardrail_rejected": "plans refused",
    "firm.guardrail_adjusted": "plans trimmed",
    "firm.persona_evolved": "persona updates",
}
"""Type -> what a count of it is called in the report."""
