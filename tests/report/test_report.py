"""report.html of a tiny run: written, self-contained, every embedded image decodes, small."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from psychoagent.report.html import write_report
from psychoagent.report.page import markdown_tables

IMG = re.compile(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"')


def decoded_images(html: str) -> list:
    """Every embedded PNG decoded to a pixel array (matplotlib reads PNG without PIL)."""
    import matplotlib.image as mpimg

    return [mpimg.imread(io.BytesIO(base64.b64decode(b)), format="png") for b in IMG.findall(html)]


def test_run_report_images_decode(tiny_run: Path) -> None:
    path = write_report(tiny_run)
    html = path.read_text(encoding="utf-8")
    images = decoded_images(html)
    assert len(images) >= 3  # macro, wealth, personas (36 months are too few years for Phillips/Okun)
    assert all(img.ndim == 3 and img.shape[0] > 50 and img.shape[1] > 50 for img in images)
    assert path.stat().st_size < 3_000_000
    assert "http://" not in html and "https://" not in html  # opens offline: nothing fetched
    if (tiny_run / "assets.parquet").is_file():
        assert 'alt="stylized facts"' in html
    else:
        assert "n/a, because it needs assets.parquet" in html
    assert "affect: n/a, because it needs memory.formed" in html  # the rule policy forms no memories: said
    assert 'id="summary"' in html and 'id="glossary"' in html
    assert 'id="money"' in html and 'alt="transmission"' in html  # rate, money, bills, inflation, jobs
    assert (tiny_run / "metrics.json").is_file()


def test_report_command_prints_path(tiny_run: Path) -> None:
    res = CliRunner().invoke(app, ["report", str(tiny_run)])
    assert res.exit_code == 0, res.output
    assert res.output.strip().endswith("report.html")


def test_report_of_missing_directory(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["report", str(tmp_path / "nope")], env={"COLUMNS": "300"})
    assert res.exit_code != 0
    assert "not a run directory" in res.output


def test_markdown_tables_to_html() -> None:
    html = markdown_tables("intro\n\n| a | b |\n|---|---|\n| x | **1.5** |\n")
    assert "<p>intro</p>" in html and "<th>a</th>" in html and "<b>1.5</b>" in html


@pytest.mark.slow
def test_simulate_report_flag(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app, ["simulate", "--agents", "10", "--ticks", "12", "--out", str(tmp_path), "--report"]
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "report.html").is_file()
    assert f"report: {(tmp_path / 'report.html').resolve()}" in res.output


def test_metrics_command(tiny_run: Path) -> None:
    res = CliRunner().invoke(app, ["metrics", str(tiny_run)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "welfare.gini" in res.output and (tiny_run / "metrics.json").is_file()
