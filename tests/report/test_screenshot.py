"""report.html renders in headless Chromium (skipped where Chromium is not installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from psychoagent.report.html import write_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_report_screenshot(tiny_run: Path, tmp_path: Path) -> None:
    import matplotlib.image as mpimg

    page = write_report(tiny_run)
    shot = tmp_path / "shot.png"
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,3000",
           f"--screenshot={shot}", page.resolve().as_uri()]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    img = mpimg.imread(shot)
    assert img.shape[0] == 3000 and img.shape[1] == 1200
    # the plots put non-white pixels on the page: more than a text-only page would have
    assert (img[..., :3] < 0.9).any(axis=-1).mean() > 0.02
