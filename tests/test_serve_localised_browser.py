"""A Korean validator's relabel page in a real headless Chromium (issue 26: pages in the
annotators' language, fonts and italics right for CJK): the page opened from the personal
link speaks Korean (progress, headings, the label buttons by their Korean names, undo), its
Korean text is set in a Korean font upright (no fake italics on the hypothesis), and the
language switch turns it English and back, without script errors. The computed styles are
checked, not pixels; a screenshot is kept: out/test-artifacts/label-ko.png.

Skipped, with the reason, where Chromium or playwright is absent (tests/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import artifact, chromium_tab, pytestmark, sync_api, workbench_in_thread
from conftest import query
from serve_stores import invite, korean_relabel_store

from nlibuild.models import Role

__all__ = ["pytestmark"]


def computed(tab: Any, selector: str, style: str) -> str:
    """The computed style `style` (camelCase) of the first element matching `selector`."""
    found: str = tab.evaluate(f"getComputedStyle(document.querySelector({selector!r}))[{style!r}]")
    return found


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    db = korean_relabel_store(tmp_path)
    with workbench_in_thread(db) as base:
        yield base, db


def test_a_korean_validator_reads_the_page_in_korean_set_upright(
    server: tuple[str, Path],
) -> None:
    base, db = server
    expect = sync_api.expect
    with chromium_tab(base, 1000, 700) as watched:
        tab = watched.tab
        tab.goto(f"{base}/t/{invite(db, 'v01', Role.VALIDATOR)}")
        tab.wait_for_url(f"{base}/")
        expect(tab.locator("h2").first).to_have_text("진행 중인 배치")
        tab.get_by_role("link", name="r0001").click()
        assert tab.evaluate("document.documentElement.lang") == "ko"
        expect(tab.locator("#progress-text")).to_have_text("6개 중 1번째 항목")
        expect(tab.locator(".pair h2").first).to_have_text("전제")
        buttons = tab.locator("form.choices button")
        expect(buttons).to_have_text(["1 함의", "2 중립", "3 모순"])
        assert computed(tab, ".hypothesis", "fontStyle") == "normal"
        assert "Noto Sans CJK KR" in computed(tab, ".hypothesis", "fontFamily")
        assert "Noto Sans CJK KR" in computed(tab, "form.choices button", "fontFamily")
        tab.screenshot(path=str(artifact("label-ko.png")), full_page=True)

        tab.keyboard.press("2")  # a vote by its key, as the page's help says
        expect(tab.locator("#progress-text")).to_have_text("6개 중 2번째 항목")
        expect(tab.locator("form.undo button")).to_contain_text("1번 항목의 레이블 취소")

        tab.get_by_role("button", name="English").click()
        expect(tab.locator("#progress-text")).to_have_text("Item 2 of 6")
        assert tab.evaluate("document.documentElement.lang") == "en"
        # Korean text keeps its font and stays upright on the English page.
        assert "Noto Sans CJK KR" in computed(tab, ".hypothesis", "fontFamily")
        assert computed(tab, ".hypothesis", "fontStyle") == "normal"
        tab.get_by_role("button", name="한국어").click()
        expect(tab.locator("#progress-text")).to_have_text("6개 중 2번째 항목")
    assert watched.problems == [] and watched.foreign == []
    votes = query(db, "SELECT v.label FROM votes v JOIN annotators a ON a.pk = v.annotator_pk "
                  "WHERE a.id = 'v01' AND v.position >= 1")  # fmt: skip
    assert votes == [("neutral",)]
