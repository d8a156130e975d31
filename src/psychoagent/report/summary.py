"""The story of a run in plain sentences, generated from its files: what happened to unemployment, prices, output,
wealth and inequality, the shocks and the recovery, what the agents remembered and how their personas changed."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from psychoagent.eval.behaviour import TRAITS
from psychoagent.eval.rundata import RunData
from psychoagent.events import EventType
from psychoagent.report import expectation_plots, experience_plots
from psychoagent.report.firms import summary as firms_summary

TRAIT_NAMES = {
    "risk_preference": "risk appetite", "optimism": "optimism", "learning_rate": "learning rate",
    "social_tendency": "social tendency", "alloc_consume": "budget share for spending",
    "alloc_save": "budget share for saving", "alloc_invest": "budget share for investing",
    "alloc_rnd": "budget share for R&D",
}  # fmt: skip
AFTER_SHOCK_MONTHS = 12
"""The window after a shock's start over which the personas' reaction is reported."""
NOTABLE_TRAIT_CHANGE = 0.02
"""A population-mean trait change below this (on 0-1 scales) is reported as 'about unchanged'."""


def pct(x: float, digits: int = 1) -> str:
    """0.053 -> '5.3 %'."""
    return f"{100 * x:.{digits}f} %"


def _year_means(series: pd.Series) -> tuple[float, float]:
    """Mean of the first and of the last 12 months (the whole series when shorter)."""
    v = series.to_numpy(dtype=float)
    n = min(12, max(len(v) // 2, 1))
    return float(np.nanmean(v[:n])), float(np.nanmean(v[-n:]))


def _change(a: float, b: float) -> str:
    """'+38 %', '−2.4 %', or 'about unchanged' below half a percent."""
    if a == 0 or not np.isfinite(a) or not np.isfinite(b):
        return ""
    rel = abs(b / a - 1)
    if rel < 0.005:
        return "about unchanged"
    return f"{'+' if b >= a else '−'}{100 * rel:.{0 if rel >= 0.1 else 1}f} %"


def clip_words(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def economy(run: RunData, metrics: Mapping[str, Any]) -> list[str]:
    """Unemployment, inflation, output, wealth and inequality from the macro table, the agents table and the metrics."""
    m = run.macro
    out = []
    if "unemployment" in m.columns and len(m):
        u = m["unemployment"].astype(float)
        peak = int(m.loc[u.idxmax(), "tick"])
        first, last = _year_means(u)
        out.append(f"Unemployment averaged {pct(u.mean())}: {pct(first)} in the first year, {pct(last)} in the last, "
                   f"highest {pct(u.max())} in month {peak}.")  # fmt: skip
    infl = metrics.get("macro.annual_inflation")
    if infl is not None and "price_level" in m.columns:
        p = m["price_level"].astype(float)
        out.append(f"Prices {'rose' if infl >= 0 else 'fell'} {pct(abs(infl))} a year on average (price level "
                   f"{p.iloc[0]:.3g} → {p.iloc[-1]:.3g}).")  # fmt: skip
    if "real_gdp" in m.columns and len(m) > 1:
        first, last = _year_means(m["real_gdp"].astype(float))
        out.append(f"Real output went from {first:,.0f} to {last:,.0f} goods a month ({_change(first, last)}, "
                   "first year against last year).")  # fmt: skip
    col = run.wealth_column
    if col is not None:
        w = run.panel(col)
        assert w is not None
        price = m.set_index("tick")["price_level"].reindex(w.index) if "price_level" in m.columns else 1.0
        med = w.div(price, axis=0).median(axis=1)
        out.append(f"The median household's real wealth went from {med.iloc[0]:,.0f} to {med.iloc[-1]:,.0f} "
                   f"({_change(float(med.iloc[0]), float(med.iloc[-1]))}).")  # fmt: skip
    if "gini" in m.columns and len(m) > 1:
        g0, g1 = float(m["gini"].iloc[0]), float(m["gini"].iloc[-1])
        trend = "rose" if g1 > g0 + 0.01 else "fell" if g1 < g0 - 0.01 else "stayed about the same"
        out.append(
            f"Inequality of wealth {trend}: Gini {g0:.2f} → {g1:.2f} (0 = equal, 1 = one household owns all)."
        )
    return out


def shocks(run: RunData, metrics: Mapping[str, Any]) -> list[str]:
    """The scenario's shocks and how mean wealth and households recovered from them."""
    scen = run.config.get("scenario") or {}
    listed = scen.get("shocks") or [] if isinstance(scen, dict) else []
    if not listed:
        return ["The scenario has no shocks, so there is no recovery to measure."]
    names = "; ".join(f"{s.get('kind', 'shock').replace('_', ' ')} from month {s.get('start')}"
                      + (f" for {s['duration']} months" if s.get("duration") else "") for s in listed)  # fmt: skip
    out = [f"Shocks: {names}."]
    rec, share = metrics.get("adaptability.recovery_ticks"), metrics.get("adaptability.agent_recovered_share")
    med = metrics.get("adaptability.agent_median_recovery_ticks")
    if rec is None and share is None:
        out.append("No shock lowered real wealth enough to measure a recovery.")
    else:
        parts = []
        if rec is not None:
            parts.append(f"mean real wealth was back at its pre-shock level after {rec:.0f} months")
        if share is not None:
            parts.append(f"{pct(share, 0)} of households recovered before the next shock")
        if med is not None:
            parts.append(f"the median household took {med:.0f} months")
        out.append("After the shocks " + ", ".join(parts) + ".")
    return out


def _pattern(text: str) -> str:
    """A memory's text with its numbers replaced by '#', so the same kind of event counts once."""
    return clip_words(_NUMBER.sub("#", text), 90)


_NUMBER = re.compile(r"[-+]?\d[\d,.]*")


def memory(run: RunData) -> list[str]:
    """What the agents remembered: memories formed, their affect, conflicts and the beliefs they drew."""
    events = run.events(EventType.MEMORY_FORMED)
    if not events:
        return ["The agents formed no memories: this policy decides without memory (use --policy cognitive)."]
    agents = max(int(run.config.get("agents", 1)), 1)
    count = sum(float((e.get("payload") or {}).get("count", 1)) for e in events)
    val = np.array([float((e.get("payload") or {}).get("valence", 0)) for e in events])
    conf = np.array([float((e.get("payload") or {}).get("conflict", 0)) for e in events])
    out = [f"The agents stored {count:,.0f} memories ({count / agents:,.0f} per household, "
           f"{count / (agents * max(run.ticks, 1)):.1f} a month). Of the most striking memory of each household-month, "
           f"{np.mean(val < 0):.0%} felt bad, {np.mean(val > 0):.0%} good, and {np.mean(conf >= 2):.0%} clashed "
           "with a goal or an earlier memory (conflict ≥ 2)."]  # fmt: skip
    out += _kinds_and_conflicts(events)
    top = Counter(_pattern(str((e.get("payload") or {}).get("strongest", ""))) for e in events)
    common = [(t, n) for t, n in top.most_common(4) if t]
    if common:
        out.append("What stood out most often (numbers shown as #): "
                   + "; ".join(f"“{t}” ({n:,} times)" for t, n in common) + ".")  # fmt: skip
    beliefs = run.events(EventType.BELIEF_FORMED)
    if beliefs:
        example = clip_words(str((beliefs[-1].get("payload") or {}).get("belief", "")), 160)
        out.append(f"Reflection turned experience into {len(beliefs):,} beliefs, e.g. “{example}”.")
    rejected, vetoed = (
        run.event_counts.get(EventType.GUARDRAIL_REJECTED, 0),
        run.event_counts.get(EventType.GUARDRAIL_VETOED, 0),
    )
    if rejected or vetoed:
        out.append(f"Guardrails stopped {rejected:,} orders by rule and vetoed {vetoed:,} after a look-ahead; "
                   "each refusal was remembered.")  # fmt: skip
    return out


KIND_NAMES = {
    "news": "news", "public": "others' trades", "fill": "their own fills", "outcome": "outcomes of earlier decisions",
    "refusal": "refused orders", "negotiation": "negotiations", "episodic": "other events", "semantic": "beliefs",
}  # fmt: skip


def _kinds_and_conflicts(events: list[dict]) -> list[str]:
    """Which kinds of events the memories were (from `memory.formed`'s kind counts) and the sharpest clash."""
    kinds: Counter[str] = Counter()
    for e in events:
        for kind, n in ((e.get("payload") or {}).get("kinds") or {}).items():
            kinds[str(kind)] += int(n)
    out = []
    total = sum(kinds.values())
    if total:
        out.append("They were " + ", ".join(f"{KIND_NAMES.get(k, k)} {n / total:.0%}" for k, n in kinds.most_common(5))
                   + " of all memories.")  # fmt: skip
    clashes = [(e.get("payload") or {}) for e in events if (e.get("payload") or {}).get("clashes")]
    if clashes:
        n = sum(int(p["clashes"]) for p in clashes)
        sharp = max(clashes, key=lambda p: float(p.get("clash_conflict", 0)))
        out.append(f"{n:,} memories carried a conflict (≥ 2 of 4: an outcome against its expectation, or a new "
                   f"figure that updates an earlier memory); the sharpest: “{clip_words(str(sharp.get('clash', '')), 200)}”.")  # fmt: skip
    return out


def _biggest_mover(run: RunData, panel: pd.DataFrame) -> str:
    """The household whose risk appetite moved most over the run, and the update that moved it most."""
    change = panel.iloc[-1] - panel.iloc[0]
    if change.empty or not np.isfinite(change.abs().max()) or change.abs().max() < NOTABLE_TRAIT_CHANGE:
        return ""
    mesa_id = change.abs().idxmax()
    who = run.household_index().get(
        int(mesa_id), int(mesa_id)
    )  # events name households by index, not Mesa id
    first, last = float(panel.iloc[0][mesa_id]), float(panel.iloc[-1][mesa_id])
    line = f"The biggest mover, household {who}, went from risk appetite {first:.2f} to {last:.2f}"
    sign = 1.0 if last >= first else -1.0
    steps = panel[mesa_id].diff().fillna(0.0) * sign
    month, size = steps.idxmax(), float(steps.max())
    if size <= 0:
        return line + "."
    mine = [e for e in run.events(EventType.PERSONA_EVOLVED) if e.get("source") == f"household:{who}"
            and e.get("tick") in (month - 1, month)]  # fmt: skip
    if mine:
        why = str((mine[-1].get("payload") or {}).get("explanation", "")).splitlines()[0].rstrip(".")
        line += f"; its largest monthly step ({sign * size:+.2f}, month {month}) came from an outcome: {clip_words(why, 200)}"
    else:
        line += f"; its largest monthly step ({sign * size:+.2f}, month {month}) came in a month without a scored outcome"
    return line + "."


def personas(run: RunData) -> list[str]:
    """How the population's persona traits moved from the first to the last month, and why."""
    panels = {t: p for t in TRAITS if (p := run.panel(t)) is not None}
    if not panels:
        return []
    moved, still = [], []
    for trait, p in panels.items():
        first, last = float(p.iloc[0].mean()), float(p.iloc[-1].mean())
        spread = float((p.iloc[-1] - p.iloc[0]).abs().max())
        name = TRAIT_NAMES.get(trait, trait)
        if abs(last - first) >= NOTABLE_TRAIT_CHANGE:
            moved.append(f"{name} {'rose' if last > first else 'fell'} from {first:.2f} to {last:.2f} on average "
                         f"(largest change of one household {spread:.2f})")  # fmt: skip
        else:
            still.append(name)
    updates = run.events(EventType.PERSONA_EVOLVED)
    if not updates and not moved:
        return ["Personas stayed fixed: this policy does not let experience change them."]
    out = []
    if updates:
        major = sum(bool((e.get("payload") or {}).get("major")) for e in updates)
        losses = sum(float((e.get("payload") or {}).get("impact", 0)) < 0 for e in updates)
        weight = _loss_weight(updates)
        weigh = f", which weigh {weight:g} times more" if weight else ""
        out.append(f"Personas changed {len(updates):,} times from prediction errors ({major:,} surprises big enough "
                   f"to count as major; {losses / len(updates):.0%} of the updates came from outcomes worse than "
                   f"expected{weigh}).")  # fmt: skip
    risk = panels.get("risk_preference")
    if risk is not None and len(risk) > 1:
        first, last = float(risk.iloc[0].mean()), float(risk.iloc[-1].mean())
        out.append(f"Mean risk appetite went from {first:.2f} in the first month to {last:.2f} in the last.")
        if updates and (mover := _biggest_mover(run, risk)):
            out.append(mover)
    moved = [
        m
        for m in moved
        if not (risk is not None and len(risk) > 1 and m.startswith(TRAIT_NAMES["risk_preference"]))
    ]
    if moved:
        out.append(("Over the run, " if risk is None else "Of the other traits, ") + "; ".join(moved) + ".")
    out += _after_shocks(run, panels)
    if still:
        out.append(f"About unchanged on average (less than {NOTABLE_TRAIT_CHANGE}): {', '.join(still)}.")
    return out


_LOSS_WEIGHT = re.compile(r"losses weigh x(\d+(?:\.\d+)?)")


def _loss_weight(updates: list[dict]) -> float | None:
    """How much more a loss weighs than a gain in these updates, as their explanations state it."""
    for e in updates[:50]:
        found = _LOSS_WEIGHT.search(str((e.get("payload") or {}).get("explanation", "")))
        if found:
            return float(found.group(1))
    return None


def _after_shocks(run: RunData, panels: Mapping[str, pd.DataFrame]) -> list[str]:
    """How mean optimism and risk appetite moved in the year after each shock's start (when they moved)."""
    out = []
    for start in run.shock_ticks():
        moves = []
        for trait in ("optimism", "risk_preference"):
            p = panels.get(trait)
            if p is None or start not in p.index:
                continue
            mean = p.mean(axis=1)
            end = min(start + AFTER_SHOCK_MONTHS, int(mean.index.max()))
            before, after = float(mean.loc[start]), float(mean.loc[end])
            if abs(after - before) >= NOTABLE_TRAIT_CHANGE:
                moves.append(
                    f"{TRAIT_NAMES[trait]} {'rose' if after > before else 'fell'} from {before:.2f} to {after:.2f}"
                )
        if moves:
            out.append(
                f"In the {end - start} months after the shock of month {start}, mean "
                + " and ".join(moves)
                + "."
            )
    if run.shock_ticks() and not out and any(t in panels for t in ("optimism", "risk_preference")):
        out.append(f"In the {AFTER_SHOCK_MONTHS} months after each shock, mean optimism and risk appetite moved less "
                   f"than {NOTABLE_TRAIT_CHANGE}: the changes above built up over the whole run.")  # fmt: skip
    return out


def model_line(run: RunData) -> str:
    """Which model decided, and whether it was the offline stand-in; empty for policies without a model."""
    spec = run.config.get("llm")
    usage_file = run.path / "llm_usage.json"
    if not usage_file.is_file():
        return ""
    from psychoagent.llm.accounting import usage_summary

    s = usage_summary(json.loads(usage_file.read_text(encoding="utf-8")))
    who = (
        "the offline stand-in (deterministic rules posing as a model: no language model was asked)"
        if spec in (None, "offline")
        else f"model {s.get('model')} ({spec})"
    )
    return (f"Decisions came from {who}: {s['calls']:,} calls, {s['fallbacks']:,} fell back to a stand-in answer "
            f"({s['fallback_share']:.0%}), {s['repaired']:,} repaired, {s['retried']:,} retried.")  # fmt: skip


def run_summary(run: RunData, metrics: Mapping[str, Any]) -> dict[str, list[str]]:
    """Paragraphs of the run's story by topic (empty topics left out)."""
    parts = {
        "Economy": economy(run, metrics),
        "Shocks and recovery": shocks(run, metrics),
        "Memory": memory(run),
        "Personas": personas(run),
        "Experience": experience_plots.sentence(run),
        "Expectations": expectation_plots.sentence(run),
        "Firms": firms_summary(run),
        "Decisions": [line] if (line := model_line(run)) else [],
    }
    return {k: v for k, v in parts.items() if v}
