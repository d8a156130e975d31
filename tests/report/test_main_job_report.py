"""The README's main job, run as a newcomer runs it, writes a report whose text reads right: months not ticks, no
NaN or scientific notation, no caption for shocks that did not happen, no missing-file notes for files that exist,
quotes cut only at word boundaries, and the summary's headline numbers equal the metrics."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.eval.rundata import RunData

MAIN_JOB = ["simulate", "--agents", "100", "--ticks", "240", "--seed", "42", "--report"]


@pytest.fixture(scope="module")
def main_job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(app, [*MAIN_JOB, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def visible(page: str) -> str:
    """The report's text as a reader sees it: no tags, no embedded images, entities decoded, spaces joined."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_main_job_report_reads_in_plain_words(main_job: Path) -> None:
    text = visible((main_job / "report.html").read_text(encoding="utf-8"))
    assert re.search(r"\bticks?\b", text, re.IGNORECASE) is None, "the report speaks of months"
    assert re.search(r"\bnan\b", text, re.IGNORECASE) is None
    assert re.search(r"\d\.?\d*e[+-]\d", text) is None, "counts and amounts are written out"
    assert "Dashed lines" not in text, "the baseline has no shocks to mark"
    assert "needs agents.csv" not in text and "needs macro.csv" not in text
    assert re.search(r"\ba (above|below|average|unemployment|inflation|increase|outcome)\b", text) is None


def test_main_job_report_quotes_memories_cut_at_words(main_job: Path) -> None:
    text = visible((main_job / "report.html").read_text(encoding="utf-8"))
    quotes = re.findall(r"“([^”]{12,})”", text)
    assert quotes, "the summary quotes the agents' memories"
    journal = "\n".join(json.dumps(e) for e in RunData.open(main_job).events())
    for quote in quotes:
        if not quote.endswith("…"):
            continue
        head = quote[:-1]
        at = journal.find(json.dumps(head)[1:-1])
        assert at >= 0, f"the quote comes from a memory: {quote!r}"
        follows = journal[at + len(json.dumps(head)[1:-1])]
        assert not follows.isalnum(), f"cut inside a word: {quote!r}"


def test_main_job_summary_numbers_are_the_metrics(main_job: Path) -> None:
    text = visible((main_job / "report.html").read_text(encoding="utf-8"))
    metrics = json.loads((main_job / "metrics.json").read_text())["metrics"]
    assert f"Unemployment averaged {metrics['macro.mean_unemployment'] * 100:.1f} %" in text
    inflation = metrics["macro.annual_inflation"]
    assert f"Prices {'rose' if inflation >= 0 else 'fell'} {abs(inflation) * 100:.1f} % a year" in text
