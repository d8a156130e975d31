"""Comparison tables of an experiment: wide CSV and Markdown (mean [95 % CI] per condition; paired differences)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

from psychoagent.eval.glossary import clip
from psychoagent.eval.metrics import HIGHER_IS_BETTER

HIDDEN_SUFFIXES = ("_p", "_n")
"""p-values and point counts stay in the CSV files; the Markdown table shows the values themselves."""


def fmt(x: float) -> str:
    """A number with 3 significant digits (n/a for NaN)."""
    if x is None or not math.isfinite(x):
        return "n/a"
    if x == 0:
        return "0"
    if 1000 <= abs(x) < 1e12:  # 337,000 rather than 3.37e+05: 3 significant digits, thousands separated
        return f"{float(f'{x:.3g}'):,.0f}"
    if abs(x) >= 1e12:
        return f"{x:.3g}"
    if abs(x) < 1e-9:  # a float's dust, not a measurement
        return "0"
    if abs(x) < 0.001:  # 0.0000417 rather than 4.17e-05: readers of a report do not read exponents
        return f"{x:.{2 - math.floor(math.log10(abs(x)))}f}"
    return f"{x:.3g}" if abs(x) >= 1 else f"{x:.3f}".rstrip("0").rstrip(".")


def shown_metrics(summary: pd.DataFrame) -> list[str]:
    """Metrics with a value for at least one condition, without p-values and counts, in a stable order."""
    has = summary.groupby("metric")["mean"].apply(lambda s: s.notna().any())
    names = [m for m in has.index if has[m] and not m.endswith(HIDDEN_SUFFIXES)]
    return sorted(names, key=lambda m: (_GROUP_ORDER.get(m.split(".")[0], 99), m))


_GROUP_ORDER = {g: i for i, g in enumerate(
    ("adaptability", "robustness", "persona_consistency", "diversity", "social", "macro", "stylized", "welfare",
     "cognition"))}  # fmt: skip


def direction(metric: str) -> str:
    """'higher', 'lower' or '' (no judgement) for the 'better' column."""
    if metric not in HIGHER_IS_BETTER:
        return ""
    return "higher" if HIGHER_IS_BETTER[metric] else "lower"


def comparison_frame(summary: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """Wide table: metric, better, then '<condition> mean', '<condition> ci_low', '<condition> ci_high'."""
    rows = []
    for m in sorted(summary["metric"].unique(), key=lambda m: (_GROUP_ORDER.get(m.split(".")[0], 99), m)):
        row: dict[str, object] = {"metric": m, "better": direction(m)}
        for label in labels:
            s = summary[(summary["metric"] == m) & (summary["condition"] == label)]
            for col in ("mean", "ci_low", "ci_high"):
                row[f"{label} {col}"] = float(s[col].iloc[0]) if len(s) else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def best_condition(summary: pd.DataFrame, metric: str) -> str | None:
    """The condition with the best mean for `metric` (None without a direction or values)."""
    d = direction(metric)
    s = summary[(summary["metric"] == metric) & summary["mean"].notna()]
    if not d or s.empty:
        return None
    row = s.loc[s["mean"].idxmax() if d == "higher" else s["mean"].idxmin()]
    return str(row["condition"])


def _cells(
    table: pd.DataFrame,
    metric: str,
    conditions: Sequence[str],
    value: str,
    text: Callable[[pd.Series, str], str],
) -> list[str]:
    """One Markdown cell a condition: `text(row, condition)` of the metric's row in `table`, or n/a where the row
    or its `value` is missing."""
    cells = []
    for condition in conditions:
        rows = table[(table["metric"] == metric) & (table["condition"] == condition)]
        missing = rows.empty or pd.isna(rows[value].iloc[0])
        cells.append("n/a" if missing else text(rows.iloc[0], condition))
    return cells


def _interval(row: pd.Series, metric: str | None = None) -> str:
    """' [low, high]' of a row's 95 % interval, or nothing when it has none; with `metric`, clipped to the values
    that metric can take (a t interval of a share near 0 would reach below 0)."""
    if not pd.notna(row["ci_low"]):
        return ""
    low, high = float(row["ci_low"]), float(row["ci_high"])
    if metric is not None:
        low, high = clip(metric, low), clip(metric, high)
    return f" [{fmt(low)}, {fmt(high)}]"


def _difference(row: pd.Series, _condition: str) -> str:
    """'+0.12 [0.01, 0.2] *': a paired difference, its interval and '*' when the interval excludes 0."""
    sig = pd.notna(row["ci_low"]) and (row["ci_low"] > 0 or row["ci_high"] < 0)
    return ("+" if row["diff"] > 0 else "") + fmt(row["diff"]) + _interval(row) + (" *" if sig else "")


def comparison_markdown(summary: pd.DataFrame, diffs: pd.DataFrame, labels: Sequence[str]) -> str:
    """Markdown: the metric table (best mean in bold) and, with several conditions, paired differences to the
    first condition where '*' marks a 95 % interval that excludes 0."""
    ns = sorted({int(x) for x in summary.groupby("condition")["n"].max()}) if len(summary) else [0]
    n = f"{ns[-1]}" if len(ns) == 1 else f"{ns[0]}-{ns[-1]} (see summary.csv)"
    metrics = shown_metrics(summary)
    lines = [f"Mean [95 % t interval] over {n} seeds; **bold** = best mean where a direction is defined.", ""]
    lines.append("| metric | better | " + " | ".join(labels) + " |")
    lines.append("|---|---|" + "---|" * len(labels))
    for m in metrics:
        best = best_condition(summary, m) if len(labels) > 1 else None

        def mean(row: pd.Series, label: str, best: str | None = best, metric: str = m) -> str:
            text = fmt(row["mean"]) + _interval(row, metric)
            return f"**{text}**" if label == best else text

        cells = _cells(summary, m, labels, "mean", mean)
        lines.append(f"| {m} | {direction(m)} | " + " | ".join(cells) + " |")
    if len(labels) > 1 and not diffs.empty:
        ref = labels[0]
        others = [label for label in labels[1:]]
        lines += ["", f"Paired difference (condition - {ref}) over the same seeds, mean [95 % t interval]; "
                  "* = the interval excludes 0.", ""]  # fmt: skip
        lines.append("| metric | " + " | ".join(others) + " |")
        lines.append("|---|" + "---|" * len(others))
        for m in metrics:
            lines.append(f"| {m} | " + " | ".join(_cells(diffs, m, others, "diff", _difference)) + " |")
    return "\n".join(lines) + "\n"
