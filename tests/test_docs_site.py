"""The documentation site builds in strict mode (a broken link or a missing reference fails), offline, with an API
reference page generated from the docstrings of `Memory`, the service and the economy."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="the 'docs' extra is not installed")
def test_site_builds_strictly_offline(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "HTTP_PROXY": "http://127.0.0.1:9",
           "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}  # fmt: skip  # any request out fails
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    pages = {
        "reference/memory/index.html": [
            "psychoagent.memory.api.Memory.observe",
            "psychoagent.memory.aio.AsyncMemory",
        ],
        "reference/service/index.html": [
            "psychoagent.service.app.create_app",
            "psychoagent.service.hub.MemoryHub",
        ],
        "reference/economy/index.html": [
            "psychoagent.econ.model.EconomyModel",
            "psychoagent.econ.run.simulate",
        ],
    }
    for page, anchors in pages.items():
        html = (tmp_path / "site" / page).read_text(encoding="utf-8")
        for anchor in anchors:
            assert f'id="{anchor}"' in html, f"{page} lacks {anchor}"
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis.com" not in index  # no web fonts: it reads the same offline
