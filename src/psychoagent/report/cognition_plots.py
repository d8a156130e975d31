"""Plots and tables of what cognitive agents did, from events.jsonl: affect of the memories they formed,
memory and persona-update counts, guardrail rejections and vetoes, negotiations. None when the events are absent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from psychoagent.eval.rundata import RunData
from psychoagent.report.figures import COLOURS, figure, mark_ticks, png_base64

AFFECT_KEYS = ("valence", "arousal", "conflict")


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


def affect_over_time(run: RunData) -> str | None:
    """Distribution of valence, arousal and conflict intensity of formed memories per tick (median, 10-90 %)."""
    df = affect_frame(run.events("memory.formed"))
    keys = [k for k in AFFECT_KEYS if k in df.columns and df[k].notna().any()]
    if df.empty or not keys:
        return None
    fig, axes = figure(1, len(keys) + 1, width=12, height=3.0)
    g = df.groupby("tick")
    for ax, key, c in zip(axes, keys, COLOURS, strict=False):
        q = g[key].quantile([0.1, 0.5, 0.9]).unstack()
        ax.fill_between(q.index, q[0.1], q[0.9], color=c, alpha=0.2, linewidth=0)
        ax.plot(q.index, q[0.5], color=c, linewidth=1.2)
        ax.set_title(f"{key} of formed memories", fontsize=10)
        mark_ticks(ax, run.shock_ticks())
    last = axes[len(keys)]
    for key, c in zip(keys, COLOURS, strict=False):
        last.hist(df[key].dropna(), bins=20, histtype="step", color=c, label=key)
    last.legend(fontsize=8)
    last.set_title("all memories", fontsize=10)
    return png_base64(fig)


def _per_tick(events: Sequence[Mapping[str, Any]], ticks: int, weight: str | None = None) -> np.ndarray:
    out = np.zeros(ticks + 1)
    for e in events:
        t = e.get("tick")
        if isinstance(t, int) and 0 <= t <= ticks:
            w = (e.get("payload") or {}).get(weight, 1) if weight else 1
            out[t] += float(w) if isinstance(w, int | float) else 1.0
    return out


def activity(run: RunData) -> str | None:
    """Per tick: memories formed, persona updates, guardrail rejections and vetoes, negotiations closed."""
    series = {
        "memories formed": _per_tick(run.events("memory.formed"), run.ticks, "count"),
        "persona updates": _per_tick(run.events("persona.evolved"), run.ticks),
        "guardrail rejections": _per_tick(run.events("guardrail.rejected"), run.ticks),
        "guardrail vetoes": _per_tick(run.events("guardrail.vetoed"), run.ticks),
        "deals agreed": _per_tick(run.events("negotiation.accepted"), run.ticks),
        "talks broken": _per_tick(run.events("negotiation.broken"), run.ticks),
    }
    series = {k: v for k, v in series.items() if v.sum() > 0}
    if not series:
        return None
    fig, axes = figure(1, 3, width=12, height=3.0)
    groups = (("memories formed", "persona updates"), ("guardrail rejections", "guardrail vetoes"),
              ("deals agreed", "talks broken"))  # fmt: skip
    for ax, names in zip(axes, groups, strict=True):
        for k, name in enumerate(names):
            if name in series:
                ax.plot(np.arange(run.ticks + 1), series[name], color=COLOURS[k], linewidth=1, label=name)
        mark_ticks(ax, run.shock_ticks())
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    axes[0].set_title("memory and persona", fontsize=10)
    axes[1].set_title("guardrails", fontsize=10)
    axes[2].set_title("negotiations", fontsize=10)
    return png_base64(fig)


def memory_table(run: RunData) -> list[tuple[str, str]]:
    """(statistic, value) rows: memories formed, per agent-tick, affect means, conflicting share, beliefs."""
    events = run.events("memory.formed")
    if not events:
        return []
    df = affect_frame(events)
    count = sum(float((e.get("payload") or {}).get("count", 1)) for e in events)
    agents = max(int(run.config.get("agents", 1)), 1)
    rows = [
        ("memories formed", f"{count:.0f}"),
        ("per agent per tick", f"{count / (agents * run.ticks):.2f}"),
    ]
    for key in AFFECT_KEYS:
        if key in df.columns:
            rows.append((f"mean {key} (strongest memory per agent-tick)", f"{df[key].mean():.3f}"))
    if "conflict" in df.columns:
        rows.append(("share with conflict intensity >= 2", f"{(df['conflict'] >= 2).mean():.1%}"))
    beliefs = run.event_counts.get("belief.formed", 0)
    if beliefs:
        rows.append(("beliefs formed by reflection", str(beliefs)))
    evolved = run.event_counts.get("persona.evolved", 0)
    if evolved:
        rows.append(("persona updates", str(evolved)))
    return rows


def guardrail_table(run: RunData, top: int = 10) -> list[tuple[str, str, str]]:
    """(outcome, rule, count) of the most frequent guardrail rejections and vetoes."""
    counts: Counter[tuple[str, str]] = Counter()
    for kind in ("guardrail.rejected", "guardrail.vetoed"):
        for e in run.events(kind):
            p = e.get("payload") or {}
            counts[(kind.split(".")[1], str(p.get("rule") or p.get("reason") or "?"))] += 1
    return [(k, r, str(n)) for (k, r), n in counts.most_common(top)]


def guardrail_examples(run: RunData, per_kind: int = 3) -> list[tuple[str, str]]:
    """A few reasons given with rejections and vetoes, verbatim (what the policy was told)."""
    out = []
    for kind in ("guardrail.rejected", "guardrail.vetoed"):
        seen: set[str] = set()
        for e in run.events(kind):
            reason = str((e.get("payload") or {}).get("reason", ""))
            if reason and reason not in seen:
                seen.add(reason)
                out.append((kind.split(".")[1], reason[:240]))
            if len(seen) >= per_kind:
                break
    return out
