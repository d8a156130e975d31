"""Plots and tables of what cognitive agents did, from the events: affect of the memories they formed,
memory and persona-update counts, guardrail rejections and vetoes, negotiations. None when the events are absent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from psychoagent.eval.rundata import RunData
from psychoagent.events import EventType
from psychoagent.report.figures import COLOURS, figure, label, legend_outside, mark_ticks, png_base64, styled

AFFECT_KEYS = ("valence", "arousal", "conflict")
SMOOTH_MONTHS = 6
"""Scores are small integers: a half-year moving average shows the trend their monthly mean hides."""
AFFECT_SCALES = {"valence": "valence (-2 bad .. +2 good)", "arousal": "arousal (1 calm .. 3 alarmed)",
                 "conflict": "conflict (0 none .. 4 strong)"}  # fmt: skip


def _affect_of(payload: Mapping[str, Any]) -> dict[str, float]:
    src = payload.get("affect") if isinstance(payload.get("affect"), Mapping) else payload
    assert isinstance(src, Mapping)
    out = {}
    for key in AFFECT_KEYS:
        v = src.get(key, src.get(f"{key}_intensity"))
        if isinstance(v, int | float):
            out[key] = float(v)
    return out


def affect_frame(events: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per memory.formed event: tick, valence, arousal, conflict (the columns the payload has)."""
    rows = [{"tick": e.get("tick"), **_affect_of(e.get("payload") or {})} for e in events]
    return pd.DataFrame(rows)


@styled
def affect_over_time(run: RunData) -> str | None:
    """Mean valence, arousal and conflict intensity of the memories formed each month (with a moving average),
    and their distribution over the whole run."""
    df = affect_frame(run.events(EventType.MEMORY_FORMED))
    keys = [k for k in AFFECT_KEYS if k in df.columns and df[k].notna().any()]
    if df.empty or not keys:
        return None
    fig, axes = figure(2, 2, height=4.0)
    g = df.groupby("tick")
    for ax, key, c in zip(axes, keys, COLOURS, strict=False):
        mean = g[key].mean()
        ax.plot(mean.index, mean.to_numpy(), color=c, linewidth=0.8, alpha=0.4, label="mean of the month")
        smooth = mean.rolling(SMOOTH_MONTHS, min_periods=1, center=True).mean()
        ax.plot(
            smooth.index, smooth.to_numpy(), color=c, linewidth=2.2, label=f"{SMOOTH_MONTHS}-month average"
        )
        label(ax, f"{key} of the memories formed each month", "month", AFFECT_SCALES[key])
        mark_ticks(ax, run.shock_ticks())
        legend_outside(ax)
    last = axes[len(keys)]
    for key, c in zip(keys, COLOURS, strict=False):
        last.hist(
            df[key].dropna(), bins=np.arange(-2.5, 5.0, 1.0), histtype="step", color=c, linewidth=2, label=key
        )
    legend_outside(last)
    label(last, "all memories of the run", "score", "memories")
    return png_base64(fig)


def _per_tick(events: Sequence[Mapping[str, Any]], ticks: int, weight: str | None = None) -> np.ndarray:
    out = np.zeros(ticks + 1)
    for e in events:
        t = e.get("tick")
        if isinstance(t, int) and 0 <= t <= ticks:
            w = (e.get("payload") or {}).get(weight, 1) if weight else 1
            out[t] += float(w) if isinstance(w, int | float) else 1.0
    return out


@styled
def activity(run: RunData) -> str | None:
    """Per tick: memories formed, persona updates, guardrail rejections and vetoes, negotiations closed."""
    series = {
        "memories formed": _per_tick(run.events(EventType.MEMORY_FORMED), run.ticks, "count"),
        "persona updates": _per_tick(run.events(EventType.PERSONA_EVOLVED), run.ticks),
        "guardrail rejections": _per_tick(run.events(EventType.GUARDRAIL_REJECTED), run.ticks),
        "guardrail vetoes": _per_tick(run.events(EventType.GUARDRAIL_VETOED), run.ticks),
        "deals agreed": _per_tick(run.events(EventType.NEGOTIATION_ACCEPTED), run.ticks),
        "talks broken": _per_tick(run.events(EventType.NEGOTIATION_BROKEN), run.ticks),
    }
    series = {k: v for k, v in series.items() if v.sum() > 0}
    if not series:
        return None
    fig, axes = figure(1, 3, height=4.2)
    groups = (("memories formed", "persona updates"), ("guardrail rejections", "guardrail vetoes"),
              ("deals agreed", "talks broken"))  # fmt: skip
    for ax, names in zip(axes, groups, strict=True):
        for k, name in enumerate(names):
            if name in series:
                ax.plot(np.arange(run.ticks + 1), series[name], color=COLOURS[k], linewidth=1.4, label=name)
        mark_ticks(ax, run.shock_ticks())
        if ax.get_legend_handles_labels()[0]:
            legend_outside(ax)
        else:
            ax.text(
                0.5, 0.5, "none in this run", ha="center", va="center", transform=ax.transAxes, color="#555"
            )
    label(axes[0], "memory and persona", "month", "events per month")
    label(axes[1], "guardrails", "month", "orders per month")
    label(axes[2], "negotiations", "month", "negotiations per month")
    return png_base64(fig)


def memory_table(run: RunData) -> list[tuple[str, str]]:
    """(statistic, value) rows: memories formed, per agent-tick, affect means, conflicting share, beliefs."""
    events = run.events(EventType.MEMORY_FORMED)
    if not events:
        return []
    df = affect_frame(events)
    count = sum(float((e.get("payload") or {}).get("count", 1)) for e in events)
    agents = max(int(run.config.get("agents", 1)), 1)
    rows = [
        ("memories formed", f"{count:.0f}"),
        ("per household per month", f"{count / (agents * run.ticks):.2f}"),
    ]
    for key in AFFECT_KEYS:
        if key in df.columns:
            rows.append((f"mean {key} (strongest memory per household-month)", f"{df[key].mean():.3f}"))
    if "conflict" in df.columns:
        rows.append(("share with conflict intensity >= 2", f"{(df['conflict'] >= 2).mean():.1%}"))
    beliefs = run.event_counts.get(EventType.BELIEF_FORMED, 0)
    if beliefs:
        rows.append(("beliefs formed by reflection", str(beliefs)))
    evolved = run.event_counts.get(EventType.PERSONA_EVOLVED, 0)
    if evolved:
        rows.append(("persona updates", str(evolved)))
    return rows


def guardrail_table(run: RunData, top: int = 10) -> list[tuple[str, str, str]]:
    """(outcome, rule, count) of the most frequent guardrail rejections and vetoes."""
    counts: Counter[tuple[str, str]] = Counter()
    for kind in (EventType.GUARDRAIL_REJECTED, EventType.GUARDRAIL_VETOED):
        for e in run.events(kind):
            p = e.get("payload") or {}
            counts[(kind.split(".")[1], str(p.get("rule") or p.get("reason") or "?"))] += 1
    return [(k, r, str(n)) for (k, r), n in counts.most_common(top)]


def guardrail_examples(run: RunData, per_kind: int = 3) -> list[tuple[str, str]]:
    """A few reasons given with rejections and vetoes, verbatim (what the policy was told)."""
    out = []
    for kind in (EventType.GUARDRAIL_REJECTED, EventType.GUARDRAIL_VETOED):
        seen: set[str] = set()
        for e in run.events(kind):
            reason = str((e.get("payload") or {}).get("reason", ""))
            if reason and reason not in seen:
                seen.add(reason)
                out.append((kind.split(".")[1], reason[:240]))
            if len(seen) >= per_kind:
                break
    return out
