"""The building blocks of a report page: its style sheet, escaped text, embedded figures, tables, the summary box,
the glossary and the page around the sections. The run report and the experiment report are both made of them."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from psychoagent.eval.glossary import term

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


def image_html(plot: Callable[[], str | None], alt: str, missing: str, caption: str = "") -> str:
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


def table_html(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table; a cell in **bold** is set bold, a cell that starts like a number is right-aligned."""
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
            out.append(table_html(block[0], block[1:]))
            block = []
        if line.strip():
            out.append(f"<p>{esc(line).replace('**bold**', '<b>bold</b>')}</p>")
    return "\n".join(out)


def summary_html(story: Mapping[str, Sequence[str]]) -> str:
    """The summary box: one short list of sentences per topic."""
    parts = [f"<h3>{esc(topic)}</h3><ul>{''.join(f'<li>{esc(s)}</li>' for s in lines)}</ul>"
             for topic, lines in story.items()]  # fmt: skip
    return f'<div class="summary" id="summary">{"".join(parts)}</div>'


def glossary_html(keys: Iterable[str]) -> str:
    """Definition, unit and better direction of every metric key given, in a table."""
    rows = []
    for key in sorted(set(keys)):
        t = term(key)
        rows.append((t.name, t.definition, t.unit, t.better(key) or "no judgement", key))
    return f'<div id="glossary">{table_html(("measure", "definition", "unit", "better", "key in metrics.json"), rows)}</div>'


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


def model_note(spec: object) -> str:
    """' · model: ...' naming the language model a run called (the offline stand-in marked as such)."""
    return (
        " · model: offline stand-in (no language model)" if spec in (None, "offline") else f" · model: {spec}"
    )
