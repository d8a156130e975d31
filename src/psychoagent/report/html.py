"""report.html: one self-contained page (inline CSS, PNGs as base64 data URIs) that opens offline.

It tells the story first: a plain-language summary generated from the run files, then the metrics with readable
names, units and the better direction, then labelled plots, and a glossary of every metric shown at the end.
An experiment directory gets a written conclusion (which condition wins on what, with intervals, and what the
seeds do not resolve), the comparison tables and per-condition plots. Sections without data say why.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from psychoagent.eval.experiment import is_experiment
from psychoagent.eval.metrics import GROUPS, write_metrics
from psychoagent.eval.rundata import RunData
from psychoagent.eval.tables import fmt
from psychoagent.report import cognition_plots, firms, run_plots
from psychoagent.report.glossary import term
from psychoagent.report.summary import run_summary

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px auto;max-width:1400px;
color:#1d1d1d;padding:0 20px;font-size:17px;line-height:1.5}h1{font-size:1.8em;margin-bottom:4px}
h2{font-size:1.35em;border-bottom:2px solid #ddd;padding-bottom:4px;margin-top:40px}h3{font-size:1.1em;margin:18px 0 6px}
table{border-collapse:collapse;font-size:.95em;margin:8px 0}th,td{border:1px solid #ddd;padding:4px 10px;
text-align:left;vertical-align:top}th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:12px 0 24px}img{width:100%;height:auto;display:block}figcaption{color:#444;font-size:.95em}
.na{color:#666;font-style:italic;border-left:4px solid #ccc;padding:6px 12px;background:#fafafa}
.meta{color:#444}.summary{background:#f5f9ff;border:1px solid #cfe0f5;padding:8px 20px 14px;border-radius:6px}
.summary li{margin:4px 0}.groups{display:grid;grid-template-columns:repeat(auto-fill,minmax(430px,1fr));
column-gap:28px}.groups table{width:100%}code{background:#f2f2f2;padding:1px 4px}.key{color:#666;font-size:.85em}
"""

Section = tuple[str, str, Callable[[], str]]
"""(anchor id, heading, builder of the section's HTML)."""


def esc(text: object) -> str:
    """HTML-escaped text (memories, news and model output are data: never markup)."""
    return html.escape(str(text))


def _img(plot: Callable[[], str | None], alt: str, missing: str, caption: str = "") -> str:
    """An embedded PNG from `plot`, or an 'n/a, because ...' note (missing data, or the plotting error: one
    malformed file must not cost the whole report)."""
    try:
        data = plot()
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        return f'<p class="na">could not plot {esc(alt)}, because of {esc(repr(exc))}</p>'
    if data is None:
        return f'<p class="na">{esc(alt)}: n/a, because it {esc(missing)}</p>'
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f'<figure><img alt="{esc(alt)}" src="data:image/png;base64,{data}">{cap}</figure>'


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for v in row:
            text = str(v)
            bold = text.startswith("**") and text.endswith("**")
            text = esc(text.strip("*"))
            cls = ' class="num"' if text[:1].isdigit() or text[:1] in "-+−" else ""
            cells.append(f"<td{cls}>{'<b>' + text + '</b>' if bold else text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def markdown_tables(md: str) -> str:
    """The pipe tables and paragraphs of a comparison.md as HTML."""
    out: list[str] = []
    block: list[list[str]] = []
    for line in [*md.splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= {"-"} for c in cells):
                block.append(cells)
            continue
        if block:
            out.append(_table(block[0], block[1:]))
            block = []
        if line.strip():
            out.append(f"<p>{esc(line).replace('**bold**', '<b>bold</b>')}</p>")
    return "\n".join(out)


def summary_html(story: Mapping[str, Sequence[str]]) -> str:
    """The summary box: one short list of sentences per topic."""
    parts = [f"<h3>{esc(topic)}</h3><ul>{''.join(f'<li>{esc(s)}</li>' for s in lines)}</ul>"
             for topic, lines in story.items()]  # fmt: skip
    return f'<div class="summary" id="summary">{"".join(parts)}</div>'


def metrics_html(metrics: Mapping[str, Any], not_available: Mapping[str, str]) -> str:
    """Metrics by group with readable names, units and the better direction (keys in small print)."""
    groups: dict[str, list[tuple[str, str, str, str]]] = {}
    for key, value in metrics.items():
        if key.endswith(("_p", "_n")) or value is None:
            continue
        t = term(key)
        groups.setdefault(key.split(".")[0], []).append((t.name, fmt(value), t.unit, t.better(key)))
    parts = ['<div class="groups">' + "".join(
        f"<div><h3>{esc(g.replace('_', ' '))}</h3>{_table(('measure', 'value', 'unit', 'better'), rows)}</div>"
        for g, rows in groups.items()) + "</div>"]  # fmt: skip
    if not_available:
        items = "".join(
            f"<li>{esc(g.replace('_', ' '))}: n/a, because it {esc(w)}</li>" for g, w in not_available.items()
        )
        parts.append(f"<p>Not measured in this run:</p><ul>{items}</ul>")
    parts.append('<p class="meta">One run: no confidence intervals (an experiment shows mean and 95 % interval over '
                 'seeds). Definitions are in the <a href="#glossary">glossary</a>.</p>')  # fmt: skip
    return "\n".join(parts)


def glossary_html(keys: Iterable[str]) -> str:
    """Definition, unit and better direction of every metric key given, in a table."""
    rows = []
    for key in sorted(set(keys)):
        t = term(key)
        rows.append((t.name, t.definition, t.unit, t.better(key) or "no judgement", key))
    return f'<div id="glossary">{_table(("measure", "definition", "unit", "better", "key in metrics.json"), rows)}</div>'


def page(
    title: str, meta: str, sections: Sequence[Section], progress: Callable[[str], None] | None = None
) -> str:
    """The whole document; each section is built in turn (`progress` hears its heading first)."""
    body = []
    for anchor, heading, build in sections:
        if progress is not None:
            progress(heading)
        body.append(f'<section id="{anchor}"><h2>{esc(heading)}</h2>\n{build()}</section>')
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    toc = " · ".join(f'<a href="#{a}">{esc(h)}</a>' for a, h, _ in sections)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>{CSS}</style></head>"
            f"<body><h1>{esc(title)}</h1><p class=\"meta\">{meta} &middot; written {stamp}</p><p>{toc}</p>\n"
            f"{''.join(body)}\n</body></html>\n")  # fmt: skip


def run_meta(run: RunData) -> str:
    """One line naming policy, model, scenario, size and seed."""
    cfg = run.config
    scen = cfg.get("scenario") or {}
    llm = cfg.get("llm")
    model = ""
    if (run.path / "llm_usage.json").is_file():
        model = (
            " · model: offline stand-in (no language model)"
            if llm in (None, "offline")
            else f" · model: {llm}"
        )
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
        ("macro", "Economy month by month", lambda: _img(
            lambda: run_plots.macro_series(run), "macro series", "needs macro.csv rows",
            "Dashed lines: months where a shock of the scenario starts.")),
        ("phillips", "Phillips curve and Okun's law (one point per year)", lambda: run_plots.phillips_okun_html(run.macro)),
        ("wealth", "Wealth and its distribution", lambda: _img(
            lambda: run_plots.wealth(run), "wealth", "needs agents.csv")),
        ("personas", "How personas changed", lambda: _img(
            lambda: run_plots.personas(run), "persona traits", "needs agents.csv with persona traits",
            "Grey: median and 10-90 % band of all households; coloured: five sample households.")),
        ("assets", "Asset prices and returns", lambda: _img(
            lambda: run_plots.assets(run), "assets", GROUPS["stylized"])),
        ("stylized", "Stylized facts of returns", lambda: _img(
            lambda: run_plots.stylized(run), "stylized facts", GROUPS["stylized"])),
        ("affect", "How the memories felt", lambda: _img(
            lambda: cognition_plots.affect_over_time(run), "affect",
            "needs memory.formed events, which only memory-keeping policies (cognitive, llm) write")),
        ("activity", "Memory, persona updates, guardrails and negotiations", lambda: _img(
            lambda: cognition_plots.activity(run), "activity", GROUPS["cognition"]) + _memory_and_guardrails(run)),
        ("glossary", "Glossary", lambda: glossary_html(shown)),
    ]  # fmt: skip
    if firms.cognitive(run):  # cognitive firms: their decisions and capacity, before the glossary
        sections.insert(-1, ("firms", "Firms' decisions and capacity", lambda: _firms_html(run)))
    return page(f"PsychoAgent run report: {Path(path).name}", run_meta(run), sections, progress)


def _firms_html(run: RunData) -> str:
    rows = firms.decisions_table(run)
    table = (
        _table(("firm", "month", "action", "detail"), rows)
        if rows
        else '<p class="na">no plants, closures or refusals</p>'
    )
    return (
        _img(lambda: firms.capacity_plot(run), "firm capacity", "needs capacity columns in macro.csv") + table
    )


def _memory_and_guardrails(run: RunData) -> str:
    parts = []
    mem = cognition_plots.memory_table(run)
    if mem:
        parts.append("<h3>Memory statistics</h3>" + _table(("statistic", "value"), mem))
    guard = cognition_plots.guardrail_table(run)
    if guard:
        parts.append("<h3>Guardrail rejections and vetoes</h3>" + _table(("outcome", "rule", "count"), guard))
        examples = cognition_plots.guardrail_examples(run)
        if examples:
            parts.append(_table(("outcome", "reason given to the agent"), examples))
    return "\n".join(parts)


def write_report(path: str | Path, progress: Callable[[str], None] | None = None) -> Path:
    """Write report.html into a run or experiment directory; returns its path. `progress` hears each section."""
    folder = Path(path)
    if is_experiment(folder):
        from psychoagent.report.experiment_html import experiment_report

        text = experiment_report(folder, progress)
    else:
        text = run_report(folder, progress)
    out = folder / "report.html"
    out.write_text(text, encoding="utf-8")
    return out
