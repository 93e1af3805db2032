"""The report in a real headless Chromium (Debian's package, driven by playwright): the page
loads with no console error and no request, every section is there and visible, and a
full-page screenshot is kept as a test artifact (out/test-artifacts/report.png).

Skipped, with the reason, where Chromium or playwright is absent (CI may lack them;
`apt-get install chromium` and the dev extra's playwright provide them; playwright's own
browser download is not used)."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import artifact, chromium_tab, pytestmark
from conftest import DATA, ok
from test_report import SECTION_IDS

import nlibuild

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


def chinese_store(tmp_path: Path) -> Path:
    """The OCNLI sample (a Chinese corpus with protocols and levels), gold aggregated."""
    corpus = nlibuild.create(tmp_path / "ocnli.db", preset="ocnli")
    corpus.import_corpus(path=DATA / "sample_ocnli.json")
    corpus.aggregate_labels()
    return corpus.path


@pytest.mark.parametrize(
    ("store", "length_unit", "overlap_unit"),
    [("english", "tokens (intl)", "words"), ("chinese", "chars", "characters")],
)
def test_the_page_reads_in_its_units_and_fits_the_window(
    sample_db: Path, tmp_path: Path, store: str, length_unit: str, overlap_unit: str
) -> None:
    """What a reader sees in Chromium: the lengths table and its histograms in one unit,
    the overlap chart naming its unit, the agreement table with integer counts, no table
    wider than the window (wrapped, not cut in a scrolling box), every date on one line."""
    db = sample_db if store == "english" else chinese_store(tmp_path)
    report = tmp_path / f"{store}.html"
    ok("--db", db, "report", "--out", report, "--min-count", "2")
    with chromium_tab(report.as_uri(), 1000, 900) as watched:
        tab = watched.tab
        tab.goto(report.as_uri(), wait_until="load")
        lengths = tab.locator("section#lengths")
        assert length_unit in lengths.locator("table").inner_text()
        assert length_unit in (lengths.locator("figure svg").text_content() or "")
        cues_chart = tab.locator("section#cues figure svg").last.text_content() or ""
        assert f"over the overlap limit (counted in {overlap_unit})" in cues_chart
        agreement = tab.locator("section#agreement table").inner_text()
        assert "validated" in agreement and ".000" not in agreement.split("\n")[1]
        widest = tab.evaluate("Math.max(...[...document.querySelectorAll('table')]"
                              ".map(t => t.getBoundingClientRect().right))")  # fmt: skip
        assert widest <= 1000
        # The lines each date's text takes (its cell is as tall as its row).
        lines = tab.evaluate(
            "[...document.querySelectorAll('td.date')].map(d => {"
            " const r = document.createRange(); r.selectNodeContents(d);"
            " return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; })"
        )
        assert lines and set(lines) == {1}
        tab.screenshot(path=str(artifact(f"report-{store}.png")), full_page=True)
    assert watched.problems == []


def test_the_scores_section_charts_accuracy_by_checkpoint(db: Path, tmp_path: Path) -> None:
    """A score run of three seeds: the chart is drawn, names its unit, both marked rules and
    a panel a language, and fits the window."""
    from score_tables import add_run
    from test_score_report import SERIES, add_series

    run_id = add_run(db)
    for seed, series in SERIES.items():
        add_series(db, run_id, seed, series)
    report = tmp_path / "scores.html"
    ok("--db", db, "report", "--out", report)
    with chromium_tab(report.as_uri(), 1000, 900) as watched:
        tab = watched.tab
        tab.goto(report.as_uri(), wait_until="load")
        heading = tab.locator("section#scores h3", has_text="accuracy at every checkpoint")
        assert heading.inner_text() == "Scores: accuracy at every checkpoint, tiny/zero-shot"
        chart = tab.locator("section#scores figure svg").first
        assert chart.is_visible()
        drawn = chart.text_content() or ""
        box = chart.bounding_box()
        chart.screenshot(path=str(artifact("report-scores-chart.png")))
    for text in ("training progress (epochs)", "en-dev pick", "target-dev pick", "en", "de"):
        assert text in drawn, text
    assert box is not None and box["x"] + box["width"] <= 1000
    assert watched.problems == []
