"""report.html: one self-contained page (inline CSS, PNGs as base64 data URIs) that opens offline.

A run directory gets macro series, Phillips/Okun, wealth, persona trajectories, assets and the stylized-facts
panel, affect of formed memories, memory and guardrail statistics and the metrics table; an experiment directory
gets the comparison table with 95 % intervals, paired differences and per-condition plots. Sections whose data
the run does not have say so instead of disappearing.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from psychoagent.eval.experiment import is_experiment, load_experiment, summarise
from psychoagent.eval.metrics import GROUPS, write_metrics
from psychoagent.eval.rundata import RunData
from psychoagent.eval.tables import comparison_markdown, fmt
from psychoagent.report import cognition_plots, experiment_plots, run_plots

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px auto;max-width:1200px;
color:#222;padding:0 16px}h1{font-size:1.6em}h2{font-size:1.2em;border-bottom:1px solid #ddd;padding-bottom:4px;
margin-top:32px}table{border-collapse:collapse;font-size:0.85em;margin:8px 0}th,td{border:1px solid #ddd;
padding:3px 8px;text-align:left}th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
img{max-width:100%;display:block;margin:8px 0}.na{color:#888;font-style:italic}.meta{color:#555;font-size:.9em}
code{background:#f4f4f4;padding:1px 4px}
"""


def _img(plot: Callable[[], str | None], alt: str, missing: str) -> str:
    """An embedded PNG from `plot`, or a note saying why there is none (missing data, or the plotting error:
    one malformed file must not cost the whole report)."""
    try:
        data = plot()
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        return f'<p class="na">could not plot {html.escape(alt)}: {html.escape(repr(exc))}</p>'
    if data is None:
        return f'<p class="na">n/a: {html.escape(missing)}</p>'
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for v in row:
            text = str(v)
            bold = text.startswith("**") and text.endswith("**")
            text = html.escape(text.strip("*"))
            cls = ' class="num"' if text[:1].isdigit() or text[:1] in "-+" else ""
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
            out.append(f"<p>{html.escape(line).replace('**bold**', '<b>bold</b>')}</p>")
    return "\n".join(out)


def _page(title: str, sections: Sequence[tuple[str, str]], meta: str) -> str:
    body = "\n".join(f"<h2>{html.escape(h)}</h2>\n{content}" for h, content in sections)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1><p class=\"meta\">{meta} "
            f"&middot; written {stamp}</p>\n{body}\n</body></html>\n")  # fmt: skip


def run_report(path: str | Path) -> str:
    """The HTML of a run directory's report."""
    run = RunData.open(path)
    result = write_metrics(path)  # fresh: a rerun into the same folder must not show old numbers
    metrics: dict[str, Any] = result.get("metrics", {})
    cfg = run.config
    scen = cfg.get("scenario") or {}
    shocks = ", ".join(f"{s.get('kind')} at month {s.get('start')}" for s in scen.get("shocks", [])) or "none"
    meta = html.escape(
        f"policy {cfg.get('policy')} · scenario {scen.get('name', '?')} (shocks: {shocks}) · "
        f"{cfg.get('agents')} households · {run.ticks} months · seed {cfg.get('seed')}"
    )
    rows = [(k, fmt(v) if v is not None else "n/a") for k, v in metrics.items()]
    na = result.get("not_available", {})
    na_html = "".join(f"<li>{html.escape(g)}: {html.escape(w)}</li>" for g, w in na.items())
    sections = [
        ("Metrics", _table(("metric", "value"), rows) + (f"<p>Not available:</p><ul>{na_html}</ul>" if na else "")
         + '<p class="meta">One run: no confidence intervals (an experiment directory shows mean and 95 % CI over '
         "seeds).</p>"),
        ("Macro series", _img(lambda: run_plots.macro_series(run), "macro series", "macro.csv is empty")),
        ("Phillips curve and Okun's law", _img(lambda: run_plots.phillips_okun(run.macro), "Phillips and Okun",
                                              "needs at least two full years")),
        ("Wealth", _img(lambda: run_plots.wealth(run), "wealth", "needs agents.csv")),
        ("Persona trajectories", _img(lambda: run_plots.personas(run), "persona traits",
                                      "needs agents.csv with persona traits")),
        ("Asset prices and returns", _img(lambda: run_plots.assets(run), "assets", GROUPS["stylized"])),
        ("Stylized facts of returns", _img(lambda: run_plots.stylized(run), "stylized facts",
                                           GROUPS["stylized"])),
        ("Affect of formed memories", _img(lambda: cognition_plots.affect_over_time(run), "affect",
                                           "needs memory.formed events (cognitive policies)")),
        ("Memory, persona updates, guardrails and negotiations",
         _img(lambda: cognition_plots.activity(run), "activity", GROUPS["cognition"])
         + _memory_and_guardrails(run)),
    ]  # fmt: skip
    return _page(f"PsychoAgent run report: {Path(path).name}", sections, meta)


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


def experiment_report(path: str | Path) -> str:
    """The HTML of an experiment directory's report."""
    folder = Path(path)
    meta, runs = load_experiment(folder)
    labels = [c["label"] for c in meta["conditions"]]
    summary = summarise(runs, labels)
    md = (
        (folder / "comparison.md").read_text(encoding="utf-8") if (folder / "comparison.md").is_file() else ""
    )
    if not md:
        from psychoagent.eval.experiment import paired

        md = comparison_markdown(summary, paired(runs, labels, labels[0]), labels)
    info = html.escape(
        f"scenario {meta.get('scenario')} · {meta.get('agents')} households · "
        f"{meta.get('ticks') or 'scenario'} months · seeds {meta.get('seeds')} · conditions {', '.join(labels)}"
    )
    command = (
        f"<p>Command: <code>{html.escape(meta.get('command') or '')}</code></p>"
        if meta.get("command")
        else ""
    )
    conds = meta["conditions"]
    fails = meta.get("failures") or []
    failed = (
        "<p>Failed runs (left out of the tables):</p>"
        + _table(
            ("condition", "seed", "error"), [(f["condition"], f["seed"], f["error"][:300]) for f in fails]
        )
        if fails
        else ""
    )
    sections = [
        ("Comparison", command + markdown_tables(md) + failed),
        ("Metrics with 95 % intervals", _img(lambda: experiment_plots.metric_intervals(summary, labels),
                                             "metric intervals", "no metric has values")),
        ("Macro series per condition", _img(lambda: experiment_plots.macro_by_condition(folder, conds),
                                            "macro per condition", "no run folders found")),
        ("Persona traits per condition", _img(lambda: experiment_plots.personas_by_condition(folder, conds),
                                              "personas per condition", "no agents.csv in the run folders")),
        ("Phillips curve and Okun's law per condition",
         _img(lambda: experiment_plots.phillips_okun_by_condition(folder, conds), "Phillips and Okun",
              "no run folders found")),
        ("Conditions", _table(("condition", "variant", "what runs", "runs folder"),
                              [(c["label"], c["variant"], _describe(c["variant"]), f"runs/{c['folder']}/")
                               for c in conds])),
    ]  # fmt: skip
    return _page(f"PsychoAgent experiment report: {folder.name}", sections, info)


def _describe(variant: str) -> str:
    from psychoagent.eval.variants import VARIANTS

    v = VARIANTS.get(variant)
    return v.description if v is not None else ""


def write_report(path: str | Path) -> Path:
    """Write report.html into a run or experiment directory; returns its path."""
    folder = Path(path)
    text = experiment_report(folder) if is_experiment(folder) else run_report(folder)
    out = folder / "report.html"
    out.write_text(text, encoding="utf-8")
    return out
