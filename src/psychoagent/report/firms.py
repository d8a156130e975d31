"""The report's "Firms" part for runs with cognitive firms: decisions by kind, expansions and closures with their
months, guardrail refusals, capacity over time (macro-table columns `capacity_<firm>`) and how the firms' risk appetite
moved (`firm.persona_evolved`). Empty for rule firms."""

from __future__ import annotations

from collections import Counter
from typing import Any

from psychoagent.econ.firms.events import FIRM_EVENTS
from psychoagent.eval.rundata import RunData
from psychoagent.events import EventType
from psychoagent.report.figures import COLOURS, figure, label, legend_outside, mark_ticks, png_base64, styled

KINDS = FIRM_EVENTS


def cognitive(run: RunData) -> bool:
    """Whether the run's firms decided as cognitive agents (config.json `firms`)."""
    return str(run.config.get("firms", "rule")) in ("cognitive", "llm")


def _firm(event: dict[str, Any]) -> str:
    return str(event.get("source", "")).removeprefix("firm:").replace("_", " ")


def capacities(run: RunData) -> dict[str, tuple[float, float, float, int]]:
    """Per firm: (first, last, peak capacity, month of the peak) from the macro table."""
    m = run.macro
    out = {}
    for col in (c for c in m.columns if c.startswith("capacity_")):
        s = m[col].astype(float)
        peak = int(s.idxmax())
        out[col.removeprefix("capacity_").replace("_", " ")] = (
            float(s.iloc[0]),
            float(s.iloc[-1]),
            float(s.max()),
            int(m["tick"].iloc[peak]),
        )
    return out


def summary(run: RunData) -> list[str]:
    """Sentences for the summary: counts by kind, each expansion with its dates, capacity and risk over the run."""
    if not cognitive(run):
        return []
    events = run.events(prefix="firm.")
    counts = Counter(str(e.get("type")) for e in events)
    mode = run.config.get("firms")
    model = run.config.get("firms_model")
    who = f"a model ({model})" if mode == "llm" and model else "the persona heuristic"
    out = [f"Firms decided each quarter as cognitive agents (decisions from {who}): "
           + ", ".join(f"{n:,} {KINDS.get(k, k)}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1]))
           + "."]  # fmt: skip
    started = [e for e in events if e.get("type") == EventType.FIRM_EXPANSION_STARTED]
    done = {(_firm(e), int((e.get("payload") or {}).get("started", -1))): int(e.get("tick", 0))
            for e in events if e.get("type") == EventType.FIRM_EXPANDED}  # fmt: skip
    if started:
        parts = []
        for e in started[:8]:
            p, t = e.get("payload") or {}, int(e.get("tick", 0))
            online = done.get((_firm(e), t))
            parts.append(f"{_firm(e)} in month {t} (+{float(p.get('share', 0)):.0%}, cost {float(p.get('cost', 0)):,.0f}, "
                         + (f"online in month {online})" if online is not None else "not finished by the end)"))  # fmt: skip
        more = f" and {len(started) - 8} more" if len(started) > 8 else ""
        out.append("Plants were started by " + "; ".join(parts) + more + ".")
    else:
        out.append("No firm started a plant.")
    closed = [e for e in events if e.get("type") == EventType.FIRM_CLOSED_CAPACITY]
    if closed:
        out.append("Capacity was closed " + "; ".join(
            f"by {_firm(e)} in month {e.get('tick')} ({float((e.get('payload') or {}).get('share', 0)):.0%})"
            for e in closed[:6]) + (f" and {len(closed) - 6} more times" if len(closed) > 6 else "") + ".")  # fmt: skip
    caps = capacities(run)
    if caps:
        out.append("Capacity (units a month): " + "; ".join(
            f"{name} {a:,.0f} → {b:,.0f} (peak {p:,.0f} in month {t})" for name, (a, b, p, t) in caps.items()) + ".")  # fmt: skip
    refused = Counter(
        str((e.get("payload") or {}).get("rule"))
        for e in events
        if e.get("type") == EventType.FIRM_GUARDRAIL_REJECTED
    )
    if refused:
        out.append("Guardrails refused " + ", ".join(f"{n} {rule.replace('_', ' ')}" for rule, n in refused.items())
                   + " plans (each with its reason in the events).")  # fmt: skip
    risk: dict[str, list[float]] = {}
    for e in events:
        if e.get("type") == EventType.FIRM_PERSONA_EVOLVED:
            p = e.get("payload") or {}
            before = (p.get("deltas") or {}).get("risk_preference", 0.0)
            risk.setdefault(_firm(e), []).extend(
                [float(p["risk_preference"]) - float(before), float(p["risk_preference"])]
            )
    if risk:
        out.append(
            "Risk appetite of the firms: "
            + "; ".join(f"{k} {v[0]:.2f} → {v[-1]:.2f}" for k, v in risk.items())
            + "."
        )
    return out


def decisions_table(run: RunData) -> list[tuple[str, ...]]:
    """(firm, month, action, detail) for every plant, closure and refusal (the report's table)."""
    rows: list[tuple[str, ...]] = []
    for e in run.events(prefix="firm."):
        kind, p = str(e.get("type")), e.get("payload") or {}
        if kind == EventType.FIRM_EXPANSION_STARTED:
            detail = f"+{float(p.get('share', 0)):.0%} capacity, cost {float(p.get('cost', 0)):,.0f}, ready month {p.get('ready')}"
        elif kind == EventType.FIRM_EXPANDED:
            detail = f"capacity {float(p.get('capacity_before', 0)):,.0f} → {float(p.get('capacity_after', 0)):,.0f}"
        elif kind == EventType.FIRM_CLOSED_CAPACITY:
            detail = (
                f"closed {float(p.get('share', 0)):.0%}: capacity → {float(p.get('capacity_after', 0)):,.0f}"
            )
        elif kind == EventType.FIRM_GUARDRAIL_REJECTED:
            detail = str(p.get("reason", ""))[:200]
        else:
            continue
        rows.append((_firm(e), str(e.get("tick")), KINDS.get(kind, kind), detail))
    return rows


@styled
def capacity_plot(run: RunData) -> str | None:
    """Capacity and output of each firm over the months (the macro table), or None without capacity columns."""
    m = run.macro
    names = [c.removeprefix("capacity_") for c in m.columns if c.startswith("capacity_")]
    if not names:
        return None
    fig, axes = figure(1, len(names), height=3.4)
    for ax, name in zip(axes, names, strict=True):
        ax.plot(m["tick"], m[f"capacity_{name}"], color=COLOURS[0], linewidth=1.8, label="capacity")
        if f"produced_{name}" in m.columns:
            ax.plot(m["tick"], m[f"produced_{name}"], color=COLOURS[1], linewidth=1.0, label="output")
        label(ax, name.replace("_", " "), "month", "units a month")
        mark_ticks(ax, run.shock_ticks())
        legend_outside(ax)
    return png_base64(fig)
