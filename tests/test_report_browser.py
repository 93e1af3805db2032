"""The report in a real headless Chromium (Debian's package, driven by playwright): the page
loads with no console error and no request, every section is there and visible, and a
full-page screenshot is kept as a test artifact (out/test-artifacts/report.png).

Skipped, with the reason, where Chromium or playwright is absent (CI may lack them;
`apt-get install chromium` and the dev extra's playwright provide them; playwright's own
browser download is not used)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import PROJECT, ok
from test_report import SECTION_IDS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = PROJECT / "out" / "test-artifacts"

sync_api: Any = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)"
)


def test_the_report_loads_cleanly_in_chromium_with_every_section(
    sample_db: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.html"
    ok("--db", sample_db, "report", "--out", report, "--min-count", "2", "--ci", "0.9",
       "--resamples", "50")  # fmt: skip
    problems: list[str] = []
    requests: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            tab = browser.new_page(viewport={"width": 1200, "height": 900})
            tab.on("console", lambda message: problems.append(message.text)
                   if message.type in ("error", "warning") else None)  # fmt: skip
            tab.on("pageerror", lambda error: problems.append(str(error)))
            tab.on("request", lambda request: requests.append(request.url))
            tab.goto(report.as_uri(), wait_until="load")
            for key in SECTION_IDS:
                assert tab.locator(f"section#{key} h2").is_visible(), key
            charts = tab.locator("section figure svg").count()
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            screenshot = ARTIFACTS / "report.png"
            tab.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    print(f"screenshot: {screenshot}")
    assert problems == []
    assert requests == [report.as_uri()]  # the page itself, nothing else
    assert charts >= 4  # agreement, lengths, PMI, cues
    assert screenshot.stat().st_size > 10_000
