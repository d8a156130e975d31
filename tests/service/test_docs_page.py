"""/docs renders Swagger UI from the package's own files: nothing is fetched from outside loopback."""

from __future__ import annotations

import re
import subprocess

import httpx
import pytest

from tests.browser import FLAGS, LOOPBACK_ONLY, browser


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_docs_pages_name_only_local_assets(client: httpx.Client, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    urls = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", page.text)
    assert urls and all(not u.startswith(("http:", "https:", "//")) for u in urls), urls
    for url in urls:
        if not url.endswith(".json"):
            asset = client.get(url)
            assert asset.status_code == 200 and len(asset.content) > 500, url


def test_docs_page_renders_offline_in_chromium(server: str) -> None:
    chromium = browser()
    dom = subprocess.run(
        [chromium, *FLAGS, LOOPBACK_ONLY, "--dump-dom", f"{server}/docs"],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    ).stdout
    assert 'class="swagger-ui' in dom
    assert (
        "PsychoAgent memory" in dom
    )  # the title comes from /openapi.json, fetched and rendered by Swagger UI
    assert dom.count("opblock-summary-path") >= 5  # one per operation
    assert 'data-path="/v1/namespaces/{ns}/recall"' in dom
