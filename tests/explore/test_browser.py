"""The explorer in a real browser (headless Chromium from the system, driven by Playwright): the overview, the
agents table filtered, an agent's month with its briefing and a conflict's two sides, the memory browser; no
request may leave loopback. With PSYCHOAGENT_SCREENSHOTS=DIR the pages are saved there as PNGs (the docs' images).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import LOOPBACK_ONLY, REQUIRED, browser

SHOTS = os.environ.get("PSYCHOAGENT_SCREENSHOTS")


@pytest.fixture
def page(explorer: str) -> Iterator[Any]:
    """A Chromium page that records every URL it requests."""
    executable = browser()
    if REQUIRED:
        import playwright.sync_api as sync_api  # in CI a missing driver fails the test, never skips it
    else:
        sync_api = pytest.importorskip(
            "playwright.sync_api", reason="playwright is not installed (dev extra)"
        )
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=executable, args=["--no-sandbox", LOOPBACK_ONLY])
        try:
            tab = chromium.new_page(viewport={"width": 1360, "height": 900})
            tab.requested = []
            tab.on("request", lambda request: tab.requested.append(request.url))
            tab.set_default_timeout(20_000)
            yield tab
        finally:
            chromium.close()
    outside = [
        u for u in tab.requested if not u.startswith(explorer) and not u.startswith(("data:", "blob:"))
    ]
    assert not outside, f"requests left loopback: {outside}"


def _shot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"explore-{name}.png"), full_page=False)


def test_overview_agents_filter_agent_month_briefing_and_conflict_sides(page: Any, explorer: str) -> None:
    page.goto(explorer + "/")
    page.wait_for_selector("[data-testid=overview-title]")
    page.wait_for_selector("#markets .js-plotly-plot")
    assert page.locator("#macro .js-plotly-plot").count() >= 4
    assert "demand_shock month 13" in page.inner_text("main")
    _shot(page, "overview")

    page.click("text=Agents")
    page.wait_for_selector("#agents tbody tr")
    everyone = page.locator("#agents tbody tr").count()
    assert everyone == 12
    page.fill("[data-f=conflicts_min]", "1")
    with_conflicts = page.locator("#agents tbody tr").count()
    assert 0 < with_conflicts < everyone
    _shot(page, "agents")
    persona = page.locator("#agents tbody tr").first.locator("td").nth(1).inner_text()
    page.select_option("[data-testid=filter-persona]", persona)
    rows = page.locator("#agents tbody tr")
    assert all(rows.nth(i).locator("td").nth(1).inner_text() == persona for i in range(rows.count()))
    page.click("#agents th[data-k=wealth]")

    who = rows.first.locator("td").first.inner_text()
    rows.first.click()
    page.wait_for_selector("[data-testid=agent-title]")
    assert f"Household {who}" in page.inner_text("[data-testid=agent-title]")
    months = page.locator("[data-testid=month] option").all_inner_texts()
    page.select_option("[data-testid=month]", months[len(months) // 2])
    page.wait_for_function(
        "document.querySelector('[data-testid=briefing]')?.textContent.startsWith('Persona:')"
    )
    assert page.inner_text("[data-testid=decision-intent]").strip()
    assert page.locator("[data-testid=side-a]").first.inner_text().strip()
    assert "current" in page.locator("[data-testid=side-b]").first.inner_text()
    _shot(page, "agent")
    page.click("[data-testid=fed-by]")
    assert page.locator("#memories tr.fed").count() > 0


def test_memory_browser_search_parts_conflicts_and_graph(page: Any, explorer: str) -> None:
    page.goto(explorer + "/#/memory")
    page.wait_for_selector("[data-testid=memory-conflicts]")
    assert "I love my job" in page.inner_text("[data-testid=memory-conflicts]")
    page.fill("[data-testid=memory-query]", "Paris")
    page.press("[data-testid=memory-query]", "Enter")
    page.wait_for_selector("[data-testid=hits] tbody tr")
    assert page.locator("[data-testid=hits] th").count() > 3  # unit, affect, score and its parts
    page.locator("[data-testid=hits] tbody tr", has_text="Paris").first.click()
    page.wait_for_selector("[data-testid=graph] circle")
    assert "supersedes" in page.inner_text("#graph")
    _shot(page, "memory")
