"""Headless Chromium for the tests that render a page: skipped without it, except where
PSYCHOAGENT_REQUIRE_BROWSER is set (CI), where a missing browser fails the test instead."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
REQUIRED = bool(os.environ.get("PSYCHOAGENT_REQUIRE_BROWSER"))
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=20000")
LOOPBACK_ONLY = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"
"""Every host name but loopback fails to resolve: a page that needs the internet shows it."""


def browser() -> str:
    """The Chromium executable, or skip (fail under PSYCHOAGENT_REQUIRE_BROWSER) when there is none."""
    if CHROMIUM is None:
        if REQUIRED:
            pytest.fail(
                "PSYCHOAGENT_REQUIRE_BROWSER is set but no Chromium is installed (apt-get install chromium)"
            )
        pytest.skip("headless Chromium is not installed")
    return CHROMIUM
