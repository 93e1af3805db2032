"""The report in a real headless Chromium (Debian's package, driven by playwright): the page
loads with no console error and no request, every section is there and visible, and a
full-page screenshot is kept as a test artifact (out/test-artifacts/report.png).

Skipped, with the reason, where Chromium or playwright is absent (CI may lack them;
`apt-get install chromium` and the dev extra's playwright provide them; playwright's own
browser download is not used)."""

from __future__ import annotations

from pathlib import Path

from browser import artifact, chromium_tab, pytestmark
from conftest import ok
from test_report import SECTION_IDS

__all__ = ["pytestmark"]


def test_the_report_loads_cleanly_in_chromium_with_every_section(
    sample_db: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.html"
    ok("--db", sample_db, "report", "--out", report, "--min-count", "2", "--ci", "0.9",
       "--resamples", "50")  # fmt: skip
    with chromium_tab(report.as_uri(), 1200, 900) as watched:
        tab = watched.tab
        tab.goto(report.as_uri(), wait_until="load")
        for key in SECTION_IDS:
            assert tab.locator(f"section#{key} h2").is_visible(), key
        charts = tab.locator("section figure svg").count()
        screenshot = artifact("report.png")
        tab.screenshot(path=str(screenshot), full_page=True)
    print(f"screenshot: {screenshot}")
    assert watched.problems == []
    assert watched.requests == [report.as_uri()]  # the page itself, nothing else
    assert charts >= 4  # agreement, lengths, PMI, cues
    assert screenshot.stat().st_size > 10_000
