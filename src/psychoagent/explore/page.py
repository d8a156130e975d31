"""One agent's page for the explorer, made from its rows of the agents table and its mind events (as the bus's
payloads, grouped by type): persona and series over months, memories, moves, conflicts, guardrails, traced decisions;
and what it recalled and decided at one month.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from psychoagent.events import EventType

TRAITS = ("risk_preference", "optimism", "learning_rate", "social_tendency")
SERIES = ("income", "worked", "consumption", "consume_share", "cash", "deposits")
LABELS = ("persona", "sector")
GUARDS = (EventType.GUARDRAIL_ADJUSTED, EventType.GUARDRAIL_REJECTED, EventType.GUARDRAIL_VETOED)
MIND = (EventType.MEMORY_FORMED, EventType.PERSONA_EVOLVED, EventType.BELIEF_FORMED, EventType.MIND_DECISION,
        *GUARDS)  # fmt: skip
"""The event types read per household (by their `household:N` source)."""

Events = dict[str, list[dict[str, Any]]]
"""One household's mind events: type -> payloads in publication order, each with its `tick`."""


def num(value: Any) -> float | None:
    """A JSON-safe number (None for NaN or infinity)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def column(frame: pd.DataFrame, name: str) -> list[float | None]:
    """Column `name` of `frame` as JSON-safe numbers ([] when it lacks the column)."""
    return [num(v) for v in frame[name]] if name in frame.columns else []


def _label(rows: pd.DataFrame | None, name: str) -> str:
    return str(rows[name].iloc[-1]) if rows is not None and len(rows) and name in rows.columns else ""


def build(agent_id: int, rows: pd.DataFrame | None, wealth: str | None, events: Events, min_delta: float,
          shared: tuple[str, ...] = ("recalled", "beliefs")) -> dict[str, Any]:  # fmt: skip
    """One agent's page: series from its agents-table rows (sorted by tick), the mind from its events (the lists
    of `shared` written once are resolved; others, kept apart, when their month is asked)."""
    ticks = [int(t) for t in rows["tick"]] if rows is not None else []
    persona = {"tick": ticks, **{t: column(rows, t) for t in TRAITS}} if rows is not None else {"tick": []}
    series = {"tick": ticks, **({s: column(rows, s) for s in SERIES} if rows is not None else {})}
    if rows is not None and wealth is not None:
        series["wealth"] = column(rows, wealth)
    memories = [{"tick": m["tick"], "count": m.get("count", 1), "text": m.get("strongest", ""),
                 "valence": m.get("valence", 0), "arousal": m.get("arousal", 1), "conflict": m.get("conflict", 0),
                 "clashes": m.get("clashes", 0), "clash": m.get("clash", ""), "kinds": m.get("kinds", {})}
                for m in events.get(EventType.MEMORY_FORMED, [])]  # fmt: skip
    moves = [{"tick": m["tick"], "expected": num(m.get("expected")), "actual": num(m.get("actual")),
              "stake": num(m.get("stake")), "why": str(m.get("explanation", "")).split("\n")[0],
              "deltas": {k: v for k, v in (m.get("deltas") or {}).items() if abs(num(v) or 0) >= min_delta}}
             for m in events.get(EventType.PERSONA_EVOLVED, [])]  # fmt: skip
    guards = [{"tick": g["tick"], "kind": kind.split(".")[-1], "rule": g.get("rule", ""),
               "reason": g.get("reason", ""), "order": g.get("order", g.get("intent", ""))}
              for kind in GUARDS for g in events.get(kind, [])]  # fmt: skip
    traces = {str(d["tick"]): d for d in events.get(EventType.MIND_DECISION, [])}
    for trace in traces.values():  # lists written once and referred to by month after that
        for name in shared:
            month = trace.pop(f"{name}_as", None)
            if month is not None:
                trace[name] = traces.get(str(month), {}).get(name, [])
    conflicts, seen = [], set()
    for tick, trace in sorted(traces.items(), key=lambda p: int(p[0])):
        for c in trace.get("conflicts", []):
            key = (c.get("a"), c.get("b"))
            if key not in seen:
                seen.add(key)
                conflicts.append({**c, "tick": int(tick), "current": "b"})
    return {
        "id": agent_id, "persona_label": _label(rows, "persona"), "sector": _label(rows, "sector"),
        "persona": persona, "series": series, "memories": memories, "moves": moves,
        "affect": [{"tick": m["tick"], "valence": m["valence"], "arousal": m["arousal"],
                    "conflict": m["conflict"]} for m in memories],
        "beliefs": [{"tick": b["tick"], "text": b.get("belief", "")} for b in events.get(EventType.BELIEF_FORMED, [])],
        "conflicts": conflicts, "guardrails": sorted(guards, key=lambda g: g["tick"]), "traces": traces,
        "decisions": [{"tick": int(t), "type": (d.get("decision") or {}).get("type", ""),
                       "intent": (d.get("decision") or {}).get("intent", ""),
                       "approved": len(d.get("approved", [])), "rejected": len(d.get("rejected", [])),
                       "vetoed": len(d.get("vetoed", [])), "adjusted": len(d.get("adjusted", []))}
                      for t, d in sorted(traces.items(), key=lambda p: int(p[0]))],
    }  # fmt: skip


def month(page: dict[str, Any], tick: int) -> dict[str, Any]:
    """What the agent of `page` recalled, decided and went through at month `tick`."""
    traces = page["traces"]
    at = page["persona"]["tick"]
    persona = {t: page["persona"][t][at.index(tick)] for t in TRAITS if tick in at and page["persona"].get(t)}
    return {"id": page["id"], "tick": tick, "traced": bool(traces), "decision": traces.get(str(tick)),
            "persona": persona, "memories": [m for m in page["memories"] if m["tick"] == tick],
            "moves": [m for m in page["moves"] if m["tick"] == tick],
            "guardrails": [g for g in page["guardrails"] if g["tick"] == tick],
            "decided_months": sorted(int(k) for k in traces)}  # fmt: skip
