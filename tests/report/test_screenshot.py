"""report.html in a real browser (headless Chromium): every image decodes, the summary and the glossary are there,
no text says 'nan', and a screenshot is kept. Skipped without Chromium, except where PSYCHOAGENT_REQUIRE_BROWSER
is set (CI), where a missing browser fails the test instead."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from psychoagent.report.html import write_report
from tests.browser import FLAGS, browser

ARTEFACTS = os.environ.get("PSYCHOAGENT_TEST_ARTEFACTS")
"""Folder the screenshot is copied to (CI keeps it); unset: only the test's temporary folder."""
PROBE = """<script>window.addEventListener("load", () => {
  const imgs = [...document.images];
  const ok = imgs.filter((i) => i.complete && i.naturalWidth > 0).length;
  document.body.setAttribute("data-decoded", ok + "/" + imgs.length);
});</script>"""
"""Added to a copy of the page only: the report itself carries no script."""
TAG = re.compile(r"<[^>]+>")


def test_report_in_a_browser(cognitive_run: Path, tmp_path: Path) -> None:
    chromium = browser()
    page = write_report(cognitive_run)
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html  # self-contained and inert
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = subprocess.run([chromium, *FLAGS, "--dump-dom", probe.as_uri()], capture_output=True, text=True,
                         timeout=180, check=True).stdout  # fmt: skip
    decoded = re.search(r'data-decoded="(\d+)/(\d+)"', dom)
    assert decoded is not None, "the page did not finish loading"
    ok, total = int(decoded.group(1)), int(decoded.group(2))
    assert total >= 6 and ok == total, f"{ok} of {total} images decoded"
    assert 'id="summary"' in dom and 'id="glossary"' in dom
    text = TAG.sub(" ", dom)
    assert "Personas changed" in text and "memories" in text
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)

    shot = tmp_path / "report.png"
    subprocess.run([chromium, *FLAGS, "--window-size=1400,2400", f"--screenshot={shot}", page.resolve().as_uri()],
                   capture_output=True, timeout=180, check=True)  # fmt: skip
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)
    assert img.shape[:2] == (2400, 1400)
    assert (img[..., :3] < 0.9).any(axis=-1).mean() > 0.02  # text and plots, not a blank page
    if ARTEFACTS:
        Path(ARTEFACTS).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(ARTEFACTS) / "report-screenshot.png")
