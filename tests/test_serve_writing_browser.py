"""The writing page in a real headless Chromium (issue 19; Debian's package, driven by
playwright through its executable path): a Chinese writer opens their personal link and
finds the page in Chinese (issue 26: buttons, feedback, CJK fonts, no fake italics), types a
hypothesis that copies most of the premise and sees the overlap over the limit before
submitting, types a negator into a MULTI_CONSTRAINT contradiction and sees it marked,
finds submitting off while a field copies the premise (the preset blocks `copy`), submits
with the keyboard, and the pairs are in the store with their violations; a draft comes
back on reload; no console error. A screenshot of the page with its feedback is kept as a
test artifact: out/test-artifacts/write.png.

The server runs for real: uvicorn on a free loopback port, in a thread, over a store built
here from the bundled Chinese sources with the OCNLI preset. Skipped, with the reason,
where Chromium or playwright is absent."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from browser import artifact, chromium_tab, pytestmark, sync_api, workbench_in_thread
from conftest import DATA, ok, query
from serve_stores import batches_of

from nlibuild.models import Role
from nlibuild.store import Store
from nlibuild.workbench.access import create_invite

__all__ = ["pytestmark"]

LENIENT_OCNLI = (
    resources.files("nlibuild").joinpath("resources/presets/ocnli.toml").read_text("utf-8")
    + "\n[workbench]\n# Only a copy of the premise blocks: overlap and negator findings are\n"
    '# recorded as violations, as `elicit import` with on_violation = "flag" keeps them.\n'
    'blocking_rules = ["copy"]\n'
)
# A careful writer's other answers (no overlap to speak of, no negator).
CAREFUL = {
    "entailment_2": "有人发表了一些看法。",
    "entailment_3": "这件事确实发生过。",
    "neutral_1": "大家对此都很满意。",
    "neutral_2": "这件事花了很多钱。",
    "neutral_3": "评论家们并不喜欢。",
    "contradiction_3": "一切都跟以前一样。",
}


def computed(tab: Any, selector: str, style: str) -> str:
    """The computed style `style` (camelCase) of the first element matching `selector`."""
    found: str = tab.evaluate(f"getComputedStyle(document.querySelector({selector!r}))[{style!r}]")
    return found


@pytest.fixture
def store_db(tmp_path: Path) -> Path:
    db = tmp_path / "corpus.db"
    preset = tmp_path / "ocnli-lenient.toml"
    preset.write_text(LENIENT_OCNLI, encoding="utf-8")
    ok("--db", db, "init", "--preset", preset)
    ok("--db", db, "ingest", DATA / "sources" / "zh" / "news.txt", "--genre", "news")
    ok("--db", db, "sample", "--per-genre", 6, "--seed", 13)
    ok("--db", db, "elicit", "create", "--protocol", "MULTI_CONSTRAINT", "--annotators", "w01",
       "--batch-size", 3)  # fmt: skip
    return db


@pytest.fixture
def server(store_db: Path) -> Iterator[str]:
    """The workbench on a free loopback port; its base URL."""
    with workbench_in_thread(store_db) as base:
        yield base


def test_a_writer_sees_overlap_and_negators_as_they_type_and_submits(
    store_db: Path, server: str
) -> None:
    with Store.open(store_db) as store:
        token = create_invite(store, "w01", Role.WRITER, timedelta(days=1)).token
    batch = batches_of(store_db, "w01", "elicit")[0]
    with chromium_tab(server, 1100, 1400) as watched:
        tab = watched.tab
        tab.goto(f"{server}/t/{token}")
        tab.wait_for_url(f"{server}/")  # the signed-in page moves on by itself
        tab.get_by_role("link", name=batch).click()
        premise = tab.locator("#premise-text").inner_text()
        # The batch is Chinese, and so is the page: its language, buttons and fonts.
        assert tab.evaluate("document.documentElement.lang") == "zh"
        sync_api.expect(tab.locator("#submit-answer")).to_have_text("提交并继续")
        sync_api.expect(tab.locator("#check-answer")).to_have_text("检查并保存草稿")
        assert "Noto Sans CJK SC" in computed(tab, "#premise-text", "fontFamily")
        assert "Noto Sans CJK SC" in computed(tab, "#submit-answer", "fontFamily")
        tab.locator("details.instructions summary").click()  # the examples are <em>
        assert computed(tab, "details.instructions em", "fontStyle") == "normal"
        premise_id = tab.locator("#premise-heading").inner_text().split()[1]
        expect = sync_api.expect

        # A hypothesis copying most of the premise: over the limit, shown before submit.
        tab.locator("#f-entailment_1").press_sequentially(premise[:-2])
        overlap = tab.locator("#fb-entailment_1 .overlap")
        expect(overlap).to_contain_text("（占假设句），上限 70%：超出上限")
        expect(tab.locator("#fb-entailment_1 .notes")).to_contain_text("错误：与前提句重合过多")
        # Negators in two contradictions: each marked; the second breaks MULTI_CONSTRAINT.
        tab.locator("#f-contradiction_1").press_sequentially("他们没有去过那里。")
        expect(tab.locator("#fb-contradiction_1 .marked mark")).to_have_text("没有")
        tab.locator("#f-contradiction_2").press_sequentially("他从未说过这种话。")
        expect(tab.locator("#fb-contradiction_2 .marked mark")).to_have_text("从未")
        expect(tab.locator("#fb-contradiction_2 .notes")).to_contain_text("错误：否定词")
        # A field that is the premise blocks submitting, with the reason, until changed.
        submit = tab.locator("#submit-answer")
        tab.locator("#f-neutral_1").fill(premise)
        expect(submit).to_be_disabled()
        expect(tab.locator("#blocked-reason")).to_contain_text("中立 1（简单）：照抄前提句")
        for slot, text in CAREFUL.items():
            tab.locator(f"#f-{slot}").fill(text)
        expect(submit).to_be_enabled()
        expect(tab.locator("#blocked-reason")).to_have_text("")
        expect(tab.locator("#draft-status")).to_contain_text("草稿已于")
        screenshot = artifact("write.png")
        tab.screenshot(path=str(screenshot), full_page=True)

        tab.locator("#f-contradiction_3").press("Control+Enter")  # keyboard, no mouse
        expect(tab.locator(".submitted")).to_contain_text(f"前提句 {premise_id} 已提交")
        expect(tab.locator("#progress")).to_contain_text("第 2 个前提句，共 3 个")

        # A draft of the next premise comes back on reload.
        tab.locator("#f-neutral_2").press_sequentially("这是一份草稿。")
        expect(tab.locator("#draft-status")).to_contain_text("草稿已于")
        tab.reload()
        expect(tab.locator("#f-neutral_2")).to_have_value("这是一份草稿。")
    print(f"screenshot: {screenshot}")
    assert watched.problems == [] and watched.foreign == []
    rules = query(store_db, "SELECT pair_id, rule FROM violations ORDER BY pair_id, rule")
    assert rules == [(f"{premise_id}-c2", "negator"), (f"{premise_id}-e1", "overlap")]
    pairs = query(store_db, "SELECT count(*) FROM pairs p JOIN premises r ON r.pk = p.premise_pk "
                  "WHERE r.id = ?", premise_id)  # fmt: skip
    assert pairs == [(9,)]
    assert screenshot.stat().st_size > 10_000
