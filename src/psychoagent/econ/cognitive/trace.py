"""The `mind.decision` event: what one household's briefing recalled and what its decision became through the
guardrails, so a run can be inspected decision by decision. It only reads the month's blackboard, never the
generators, so journalling leaves every decision and number of the run unchanged."""

from __future__ import annotations

import math
import weakref
from typing import Any

from psychoagent.econ.cognitive.kit import Kit
from psychoagent.econ.cognitive.month import Deciding
from psychoagent.econ.mind.guardrails import PipelineResult
from psychoagent.events import EventType

TEXT = 160
"""Characters kept of each recalled memory, belief or conflict side (the briefing itself keeps `BRIEFING`)."""
BRIEFING = 600
RECALLED = 100
"""Characters kept of each recalled memory (five or so per decision: the largest part of a trace)."""
_LAST: weakref.WeakKeyDictionary[Any, dict[str, tuple[int, Any, Any]]] = weakref.WeakKeyDictionary()
"""Per household mind, the month, value and source of the lists its last trace wrote (kept only while the mind
lives)."""


def stride(kit: Kit, households: int) -> int:
    """Every k-th household of the economy is traced, k = ceil(households / trace_decisions): all of them up to
    `trace_decisions`, an even sample above (0: none). The same in one process and in shards."""
    limit = kit.cognitive.trace_decisions
    if limit <= 0:
        return 0
    return max(1, math.ceil(households / limit))


def _episode(item: Any) -> dict[str, Any]:
    """One recalled episode (a `MemoryUnit` or a population memory's row) with its score and parts."""
    unit, score, parts = item if isinstance(item, tuple) else (item, 0.0, {})
    meta = getattr(unit, "metadata", {}) or {}
    affect = getattr(unit, "affect", None)
    if affect is not None:
        valence, arousal, conflict = affect.valence, affect.arousal, affect.conflict_intensity
    else:
        valence, arousal = getattr(unit, "valence", 0), getattr(unit, "arousal", 1)
        conflict = getattr(unit, "conflict", 0)
    row = {"id": str(getattr(unit, "id", "")), "text": str(getattr(unit, "content", ""))[:RECALLED],
           "score": round(float(score), 4), "tick": meta.get("tick"), "kind": meta.get("kind_of", ""),
           "valence": int(valence), "arousal": int(arousal), "conflict": int(conflict)}  # fmt: skip
    if isinstance(parts, dict) and not (len(parts) == 1 and "score" in parts):  # a lone score adds no part
        kept = {
            k: round(float(v), 4) for k, v in parts.items() if isinstance(v, int | float) and k != "score"
        }
        if kept:
            row["parts"] = kept
    return row


def _same_as(
    seen: dict[str, tuple[int, Any, Any]], t: int, out: dict[str, Any], key: str, source: Any = None
) -> None:
    """Replace `out[key]` by the month of this household's last trace that listed the same (`<key>_as`): a reused
    recall or unchanged beliefs are written once, not every month. `source`, when given, is the object the list
    was built from: the same object again (a reused recall) lists the same, so the list is not rebuilt. `seen`:
    the household's entry of `_LAST`."""
    last = seen.get(key)
    if source is not None and last is not None and last[2] is source:
        out[f"{key}_as"] = last[0]
        del out[key]
        return
    value = out[key] if source is None else [_episode(e) for e in source]
    if last is not None and last[1] == value:
        out[f"{key}_as"] = last[0]
        del out[key]
        seen[key] = (last[0], last[1], source)
    else:
        out[key] = value
        seen[key] = (t, value, source)


def payload(d: Deciding, result: PipelineResult | None, t: int = 0) -> dict[str, Any]:
    """The compact trace of one household's decision in month `t` (lists unchanged since its last trace are
    written as the month they were written in)."""
    brief, decision = d.briefing, d.decision
    out: dict[str, Any] = {"briefing": "", "recalled": [], "beliefs": [], "conflicts": []}
    if brief is not None:
        meta = brief.metadata
        out["briefing"] = brief.text[:BRIEFING]
        out["reused"] = bool(meta.get("reused", False))
        out["beliefs"] = [
            it.text[:TEXT] for it in meta.get("working", []) if getattr(it, "kind", "") == "belief"
        ]
        out["conflicts"] = [{"a": c.description_a[:TEXT], "b": c.description_b[:TEXT], "intensity": c.intensity,
                             "status": str(c.status), "kind": c.kind} for c in brief.conflicts]  # fmt: skip
    seen = _LAST.setdefault(d.mind, {})
    _same_as(seen, t, out, "recalled", brief.metadata.get("episodes", []) if brief is not None else None)
    _same_as(seen, t, out, "beliefs")
    revised = d.mind.semantic.revised
    out["conflicts"] += [{"a": old[:TEXT], "b": new[:TEXT], "subject": subject, "kind": "belief",
                          "since": when.isoformat(), "status": "revised"} for subject, old, new, when in revised]  # fmt: skip
    revised.clear()
    if decision is not None:
        out["decision"] = {"type": decision.type, "intent": decision.intent[:TEXT], "reason": decision.reason[:TEXT],
                           "instrument": decision.instrument, "expected_return": decision.expected_return}  # fmt: skip
    if result is not None:
        out["approved"] = [
            f"{o.side} {o.quantity:.4g} {o.instrument} at {o.limit_price:.4g}" for o in result.approved
        ]
        out["adjusted"] = list(result.adjusted)
        out["rejected"] = [{"stage": r.stage, "rule": r.rule, "reason": r.reason, "order": r.order}
                           for r in result.rejected]  # fmt: skip
        out["vetoed"] = [{"rule": r.rule, "reason": r.reason, "order": r.order} for r in result.vetoed]
    return out


def trace(kit: Kit, t: int, d: Deciding, result: PipelineResult | None, households: int) -> None:
    """Publish `mind.decision` for household `d` when it is among the traced ones (of `households` in all)."""
    k = stride(kit, households)
    if k and d.index % k == 0:
        kit.emit(t, EventType.MIND_DECISION, payload(d, result, t), f"household:{d.index}")
