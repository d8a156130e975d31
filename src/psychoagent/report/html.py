"""report.html: one self-contained page (inline CSS, PNGs as base64 data URIs) that opens offline.

It tells the story first: a plain-language summary generated from the run files, then the metrics with readable
names, units and the better direction, then labelled plots, and a glossary of every metric shown at the end.
An experiment directory gets a written conclusion (which condition wins on what, with intervals, and what the
seeds do not resolve), the comparison tables and per-condition plots. Sections without data say why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from psychoagent.eval.experiment import is_experiment
from psychoagent.eval.glossary import term
from psychoagent.eval.metrics import GROUPS, write_metrics
from psychoagent.eval.rundata import RunData
from psychoagent.eval.stylized import fact_checks
from psychoagent.eval.tables import fmt
from psychoagent.report import (
    cognition_plots,
    expectation_plots,
    experience_plots,
    firms,
    money_plots,
    run_plots,
)
from psychoagent.report.experiment_html import experiment_report
from psychoagent.report.page import (
    Section,
    esc,
    glossary_html,
    image_html,
    model_note,
    page,
    summary_html,
    table_html,
)
from psychoagent.report.summary import run_summary


def metrics_html(metrics: Mapping[str, Any], not_available: Mapping[str, str]) -> str:
    """Metrics by group with readable names, units and the better direction (keys in small print)."""
    groups: dict[str, list[tuple[str, str, str, str]]] = {}
    for key, value in metrics.items():
        if key.endswith(("_p", "_n")) or value is None:
            continue
        t = term(key)
        groups.setdefault(key.split(".")[0], []).append((t.name, fmt(value), t.unit, t.better(key)))
    parts = ['<div class="groups">' + "".join(
        f"<div><h3>{esc(g.replace('_', ' '))}</h3>{table_html(('measure', 'value', 'unit', 'better'), rows)}</div>"
        for g, rows in groups.items()) + "</div>"]  # fmt: skip
    if not_available:
        items = "".join(
            f"<li>{esc(g.replace('_', ' '))}: n/a, because it {esc(w)}</li>" for g, w in not_available.items()
        )
        parts.append(f"<p>Not measured in this run:</p><ul>{items}</ul>")
    parts.append('<p class="meta">One run: no confidence intervals (an experiment shows mean and 95 % interval over '
                 'seeds). Definitions are in the <a href="#glossary">glossary</a>.</p>')  # fmt: skip
    return "\n".join(parts)


def run_meta(run: RunData) -> str:
    """One line naming policy, model, scenario, size and seed."""
    cfg = run.config
    scen = cfg.get("scenario") or {}
    model = model_note(cfg.get("llm")) if (run.path / "llm_usage.json").is_file() else ""
    return esc(f"policy {cfg.get('policy')}{model} · scenario {scen.get('name', '?')} · {cfg.get('agents')} "
               f"households · {run.ticks} months · seed {cfg.get('seed')}")  # fmt: skip


def run_report(path: str | Path, progress: Callable[[str], None] | None = None) -> str:
    """The HTML of a run directory's report."""
    run = RunData.open(path)
    result = write_metrics(path)  # fresh: a rerun into the same folder must not show old numbers
    metrics: dict[str, Any] = result.get("metrics", {})
    shown = [k for k, v in metrics.items() if v is not None and not k.endswith(("_p", "_n"))]
    sections: list[Section] = [
        ("story", "Summary", lambda: summary_html(run_summary(run, metrics))),
        ("metrics", "Metrics", lambda: metrics_html(metrics, result.get("not_available", {}))),
        ("macro", "Economy month by month", lambda: image_html(
            lambda: run_plots.macro_series(run), "macro series", "needs macro-table rows",
            "Dashed lines: months where a shock of the scenario starts." if run.shock_ticks() else "")),
        ("money", "Money, credit and the central bank's rate", lambda: image_html(
            lambda: money_plots.transmission(run), "transmission", "needs the money columns of the macro table",
            "How the rate reaches prices and jobs: a higher rate moves households' money into bills (the bank "
            "holds those they do not), so the money stock and spending fall."
            + (" Dashed lines: shock starts." if run.shock_ticks() else ""))),
        ("phillips", "Phillips curve and Okun's law (one point per year)", lambda: run_plots.phillips_okun_html(run.macro)),
        ("wealth", "Wealth and its distribution", lambda: image_html(
            lambda: run_plots.wealth(run), "wealth", "needs the agents table")),
        ("personas", "How personas changed", lambda: image_html(
            lambda: run_plots.personas(run), "persona traits", "needs the agents table with persona traits",
            "Grey: median and 10-90 % band of all households; coloured: five sample households.")),
        ("experience", "What the households lived through", lambda: image_html(
            lambda: experience_plots.experience(run), "experience",
            "needs months in which a household's holdings moved 10 % or more (cognitive households live them)",
            "Mean change of the households' risk preference in the months after one in which their holdings lost "
            "or gained 10 % or more, against the month before: the experience effect (Malmendier & Nagel 2011).")),
        ("expectations", "Inflation the households expect", lambda: image_html(
            lambda: expectation_plots.expectations(run), "expected inflation",
            "needs households that expect inflation (cognitive households, from their first year)",
            "Once a year each household blends the years of inflation it recalls with the year just published; "
            "cohorts that lived through different years expect differently (Malmendier & Nagel 2016).")),
        ("assets", "Asset prices and returns", lambda: image_html(
            lambda: run_plots.assets(run), "assets", GROUPS["stylized"])),
        ("stylized", "Stylized facts of returns", lambda: _facts_table(result) + image_html(
            lambda: run_plots.stylized(run), "stylized facts", GROUPS["stylized"])),
        ("affect", "How the memories felt", lambda: image_html(
            lambda: cognition_plots.affect_over_time(run), "affect",
            "needs memory.formed events, which only memory-keeping policies (cognitive, llm) write")),
        ("activity", "Memory, persona updates, guardrails and negotiations", lambda: image_html(
            lambda: cognition_plots.activity(run), "activity", GROUPS["cognition"]) + _memory_and_guardrails(run)),
        ("glossary", "Glossary", lambda: glossary_html(shown)),
    ]  # fmt: skip
    if firms.cognitive(run):  # cognitive firms: their decisions and capacity, before the glossary
        sections.insert(-1, ("firms", "Firms' decisions and capacity", lambda: _firms_html(run)))
    return page(f"PsychoAgent run report: {Path(path).name}", run_meta(run), sections, progress)


def _facts_table(result: Mapping[str, Any]) -> str:
    """Per asset, each stylized fact's value and whether it holds (empty without assets)."""
    per = (result.get("details") or {}).get("assets") or {}
    if not per:
        return ""
    header, rows = fact_checks(per)
    return table_html(header, rows) + (
        '<p class="meta">Per-auction returns (20 auctions a month) except the monthly autocorrelation; one run is '
        "noisy (240 months: ±0.13 is two standard errors), so judge the autocorrelation over seeds.</p>"
    )


def _firms_html(run: RunData) -> str:
    rows = firms.decisions_table(run)
    table = (
        table_html(("firm", "month", "action", "detail"), rows)
        if rows
        else '<p class="na">no plants, closures or refusals</p>'
    )
    return (
        image_html(
            lambda: firms.capacity_plot(run), "firm capacity", "needs capacity columns in the macro table"
        )
        + table
    )


def _memory_and_guardrails(run: RunData) -> str:
    parts = []
    mem = cognition_plots.memory_table(run)
    if mem:
        parts.append("<h3>Memory statistics</h3>" + table_html(("statistic", "value"), mem))
    guard = cognition_plots.guardrail_table(run)
    if guard:
        parts.append(
            "<h3>Guardrail rejections and vetoes</h3>" + table_html(("outcome", "rule", "count"), guard)
        )
        examples = cognition_plots.guardrail_examples(run)
        if examples:
            parts.append(table_html(("outcome", "reason given to the agent"), examples))
    return "\n".join(parts)


def write_report(path: str | Path, progress: Callable[[str], None] | None = None) -> Path:
    """Write report.html into a run or experiment directory; returns its path. `progress` hears each section."""
    folder = Path(path)
    text = experiment_report(folder, progress) if is_experiment(folder) else run_report(folder, progress)
    out = folder / "report.html"
    out.write_text(text, encoding="utf-8")
    return out
