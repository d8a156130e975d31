"""The experiment report: a written conclusion (which condition wins on what, with 95 % intervals, and what the
seeds leave unresolved), the comparison tables with intervals clipped to possible values, and plots."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from psychoagent.eval.experiment import load_experiment, paired, summarise
from psychoagent.eval.glossary import TERMS, clip, term
from psychoagent.eval.tables import comparison_markdown, direction, fmt, shown_metrics
from psychoagent.report import experiment_plots
from psychoagent.report.page import (
    Section,
    esc,
    glossary_html,
    image_html,
    markdown_tables,
    model_note,
    page,
    summary_html,
    table_html,
)


def clipped(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary with every interval end clipped to the range its metric can take (a Gini is never below 0)."""
    out = summary.copy()
    for col in ("ci_low", "ci_high"):
        out[col] = [clip(m, float(v)) for m, v in zip(out["metric"], out[col], strict=True)]
    return out


def _interval(row: pd.Series, key: str = "mean") -> str:
    ci = f" [{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]" if pd.notna(row["ci_low"]) else ""
    return f"{fmt(row[key])}{ci}"


def conclusion(summary: pd.DataFrame, diffs: pd.DataFrame, labels: Sequence[str]) -> dict[str, list[str]]:
    """Sentences: seeds and reference, per condition what it does better or worse than the reference (paired 95 %
    intervals that exclude 0), the best mean per metric, and the metrics no condition resolves."""
    judged = [m for m in shown_metrics(summary) if direction(m)]
    ref = labels[0]
    n = int(summary["n"].max()) if len(summary) else 0
    out: dict[str, list[str]] = {"Setup": [
        f"{len(labels)} conditions, {n} seeds each; differences are paired over the same seeds against {ref}. "
        "A difference counts as resolved when its 95 % interval excludes 0."]}  # fmt: skip
    resolved: set[str] = set()
    lines = []
    for label in labels[1:]:
        better: list[str] = []
        worse: list[str] = []
        for m in judged:
            d = diffs[(diffs["condition"] == label) & (diffs["metric"] == m)]
            if d.empty or pd.isna(d["ci_low"].iloc[0]):
                continue
            r = d.iloc[0]
            if r["ci_low"] > 0 or r["ci_high"] < 0:
                resolved.add(m)
                good = (r["diff"] > 0) == (direction(m) == "higher")
                text = f"{term(m).name} ({'+' if r['diff'] > 0 else ''}{_interval(r, 'diff')})"
                (better if good else worse).append(text)
        if better or worse:
            said = []
            if better:
                said.append("better on " + "; ".join(better))
            if worse:
                said.append("worse on " + "; ".join(worse))
            lines.append(f"{label} against {ref}: " + ", ".join(said) + ".")
        elif len(labels) > 1:
            lines.append(f"{label} against {ref}: no resolved difference on any judged metric.")
    if lines:
        out["What differs"] = lines
    best: dict[str, list[str]] = {}
    for m in [m for m in judged if m in resolved]:
        s = summary[(summary["metric"] == m) & summary["mean"].notna()]
        if len(s) < 2:
            continue
        row = s.loc[s["mean"].idxmax() if direction(m) == "higher" else s["mean"].idxmin()]
        best.setdefault(str(row["condition"]), []).append(f"{term(m).name} {_interval(row)}")
    if best:
        out["Best mean where a difference is resolved"] = [
            f"{c}: " + "; ".join(ms) + "." for c, ms in best.items()
        ]
    unresolved = [term(m).name for m in judged if m not in resolved]
    if unresolved and len(labels) > 1:
        out["Not resolved"] = [f"With {n} seeds no condition differs from {ref} at 95 % on: " + ", ".join(unresolved)
                               + ". More seeds would be needed to tell them apart."]  # fmt: skip
    return out


def readable(md: str) -> str:
    """Comparison Markdown with each row's metric key replaced by its readable name and unit."""
    out = []
    for line in md.splitlines():
        cells = line.split(" | ")
        if line.startswith("| ") and len(cells) > 1:
            key = cells[0][2:].strip()
            t = term(key)
            if key in TERMS:
                cells[0] = f"| {t.name} ({t.unit})" if t.unit else f"| {t.name}"
        out.append(" | ".join(cells))
    return "\n".join(out) + "\n"


def experiment_report(path: str | Path, progress: Callable[[str], None] | None = None) -> str:
    """The HTML of an experiment directory's report."""
    folder = Path(path)
    meta, runs = load_experiment(folder)
    labels = [c["label"] for c in meta["conditions"]]
    summary = clipped(summarise(runs, labels))
    diffs = paired(runs, labels, labels[0])
    md = readable(comparison_markdown(summary, diffs, labels))
    info = esc(f"scenario {meta.get('scenario')} · {meta.get('agents')} households · "
               f"{meta.get('ticks') or 'scenario'} months · seeds {meta.get('seeds')} · conditions {', '.join(labels)}")  # fmt: skip
    info += esc(_model_note(folder, meta["conditions"]))
    command = f"<p>Command: <code>{esc(meta.get('command'))}</code></p>" if meta.get("command") else ""
    fails = meta.get("failures") or []
    failed = ("<p>Failed runs (left out of the tables):</p>"
              + table_html(("condition", "seed", "error"), [(f["condition"], f["seed"], f["error"][:300]) for f in fails])
              if fails else "")  # fmt: skip
    conds = meta["conditions"]
    shown = shown_metrics(summary)
    sections: list[Section] = [
        ("story", "Conclusion", lambda: summary_html(conclusion(summary, diffs, labels))),
        ("comparison", "Comparison", lambda: command + markdown_tables(md) + failed),
        ("intervals", "Metrics with 95 % intervals", lambda: image_html(
            lambda: experiment_plots.metric_intervals(summary, labels), "metric intervals", "has no metric values",
            "Dot: mean over seeds; bar: 95 % t interval, clipped to the values the metric can take.")),
        ("macro", "Economy per condition", lambda: image_html(
            lambda: experiment_plots.macro_by_condition(folder, conds), "macro per condition",
            "found no run folders", "Line: median over seeds; band: range over seeds.")),
        ("personas", "Persona traits per condition", lambda: image_html(
            lambda: experiment_plots.personas_by_condition(folder, conds), "personas per condition",
            "found no agents table in the run folders", "Mean over households; band: range over seeds. Conditions with fixed personas draw the same line (dashed and dotted styles keep each visible).")),
        ("phillips", "Phillips curve and Okun's law per condition", lambda: image_html(
            lambda: experiment_plots.phillips_okun_by_condition(folder, conds), "Phillips and Okun",
            "found no run folders")),
        ("conditions", "Conditions", lambda: table_html(
            ("condition", "variant", "what runs", "runs folder"),
            [(c["label"], c["variant"], _describe(c["variant"]), f"runs/{c['folder']}/") for c in conds])),
        ("glossary", "Glossary", lambda: glossary_html(shown)),
    ]  # fmt: skip
    return page(f"PsychoAgent experiment report: {folder.name}", info, sections, progress)


def _model_note(folder: Path, conditions: Sequence[dict]) -> str:
    """' · model: ...' for experiments whose runs called a model (the offline stand-in marked as such)."""
    for c in conditions:
        for usage in sorted((folder / "runs" / c["folder"]).glob("seed-*/llm_usage.json")):
            return model_note(
                json.loads((usage.parent / "config.json").read_text(encoding="utf-8")).get("llm")
            )
    return ""


def _describe(variant: str) -> str:
    from psychoagent.eval.variants import VARIANTS

    v = VARIANTS.get(variant)
    return v.description if v is not None else ""
