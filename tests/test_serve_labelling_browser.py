"""The relabel page in a real headless Chromium (Debian's package, driven by playwright) on a
real server (uvicorn on a free loopback port, in a thread): a validator opens their personal
link and labels a whole small batch with the keyboard alone (keys 1-3, one undo and a new
label); the votes are in the store with the seconds spent, and the page logs no console
error. A screenshot is kept as a test artifact (out/test-artifacts/label.png).

Skipped, with the reason, where Chromium or playwright is absent (`apt-get install
chromium` and the dev extra's playwright provide them; playwright's own browser download is
not used)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import artifact, chromium_tab, pytestmark, workbench_in_thread
from conftest import query
from elicitation_data import SINGLE
from serve_stores import batches_of, invite, relabel_store, workbench_db, workbench_template

from nlibuild.models import Role

__all__ = ["pytestmark", "workbench_db", "workbench_template"]  # fixtures, used by name

PREMISES = ["The council approved the new budget on Monday.", "A storm closed the harbour."]
KEYS = {"1": "entailment", "2": "neutral", "3": "contradiction"}


def english_relabel_store(tmp_path: Path) -> Path:
    """Two English premises, their three SINGLE pairs each by w01, all six to v01."""
    return relabel_store(tmp_path, PREMISES, SINGLE, "en")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The workbench on a free loopback port over a new store: (base URL, store)."""
    db = english_relabel_store(tmp_path)
    with workbench_in_thread(db) as base:
        yield base, db


def tab_to(tab: Any, selector: str, presses: int = 12) -> None:
    """Press Tab until the element matching `selector` has the focus."""
    for _ in range(presses):
        tab.keyboard.press("Tab")
        if tab.evaluate(f"document.activeElement.matches({selector!r})"):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_a_validator_labels_a_whole_batch_with_the_keyboard_alone(
    server: tuple[str, Path],
) -> None:
    base, db = server
    batch = batches_of(db, "v01", "relabel")[0]
    items = query(db, "SELECT count(*) FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
                  "WHERE b.id = ?", batch)[0][0]  # fmt: skip
    assert items == 6
    keys = [str(number % 3 + 1) for number in range(items)]  # 1, 2, 3, 1, ...
    # The last two items by the focused buttons: from the item, which has the focus when it
    # is shown, Tab twice to the second and Space, then Tab to the first and Enter.
    presses = {number: [key] for number, key in enumerate(keys, 1)}
    presses[items - 1], keys[items - 2] = ["Tab", "Tab", " "], "2"
    presses[items], keys[items - 1] = ["Tab", "Enter"], "1"
    with chromium_tab(base, 1000, 700) as watched:
        tab = watched.tab
        tab.goto(f"{base}/t/{invite(db, 'v01', Role.VALIDATOR)}")
        tab.wait_for_url(f"{base}/")
        tab_to(tab, f'a[href="/label/{batch}"]')
        tab.keyboard.press("Enter")
        tab.wait_for_url(f"{base}/label/{batch}")
        for number in range(1, items + 1):
            label_item(tab, number, items, presses[number])
            if number == 3:  # take it back with u, see the pair again, label it anew
                tab.keyboard.press("u")
                tab.get_by_text(f"Item 3 of {items}").wait_for()
                keys[2] = "2"
                label_item(tab, 3, items, [keys[2]])
            if number == 2:
                screenshot = artifact("label.png")
                tab.screenshot(path=str(screenshot), full_page=True)
        tab.get_by_text("every item of this batch is labelled").wait_for()
    print(f"screenshot: {screenshot}")
    assert watched.problems == [] and watched.foreign == []
    votes = query(db, "SELECT v.label FROM votes v JOIN annotators a ON a.pk = v.annotator_pk "
                  "JOIN assignments s ON s.item_id = (SELECT id FROM pairs WHERE pk = v.pair_pk) "
                  "WHERE a.id = 'v01' ORDER BY s.position")  # fmt: skip
    assert [label for (label,) in votes] == [KEYS[key] for key in keys]
    times = [seconds for (seconds,) in query(db, "SELECT seconds FROM vote_times")]
    assert len(times) == items and all(0 < seconds < 60 for seconds in times)
    undone = query(db, "SELECT count(*) FROM runs WHERE stage = 'relabel-undo'")
    assert undone == [(1,)]
    assert screenshot.stat().st_size > 5_000


def label_item(tab: Any, number: int, items: int, keys: list[str]) -> None:
    """On item `number`, with the item focused, press `keys` after a moment's reading; wait
    until the next item (or the end) is shown."""
    tab.get_by_text(f"Item {number} of {items}").wait_for()
    assert tab.evaluate("document.activeElement.matches('section.pair')")
    tab.wait_for_timeout(120)
    for key in keys:
        tab.keyboard.press(key)
    if number < items:
        tab.get_by_text(f"Item {number + 1} of {items}").wait_for()


def test_votes_and_an_undo_go_without_a_reload_and_the_page_says_what_was_recorded(
    workbench_db: Path, workbench_zh_server: str
) -> None:
    """A Chinese batch (the ocnli preset's names): two votes and an undo in the one page
    (a marker set on its window survives them), "已记录：中立" and "已撤回：中立" (recorded,
    taken back: the page speaks the batch's language) in the status line, the focus on the
    item each time (a stray Enter votes nothing), and the seconds of each item counted from
    when it was swapped in, not from the page's load."""
    base, db = workbench_zh_server, workbench_db
    batch = batches_of(db, "v01", "relabel")[0]
    with chromium_tab(base, 1000, 700) as watched:
        tab = watched.tab
        tab.goto(f"{base}/t/{invite(db, 'v01', Role.VALIDATOR)}")
        tab.wait_for_url(f"{base}/")
        tab.goto(f"{base}/label/{batch}")
        tab.evaluate("window.sameDocument = true")
        status = tab.locator(".label-status")
        hypotheses = [tab.locator(".hypothesis").inner_text()]
        tab.keyboard.press("Enter")  # on the item, not on a button: nothing is sent
        tab.wait_for_timeout(1500)
        assert own_votes(db, "v01") == []
        on_item(tab, 1, "1")
        tab.get_by_text("已记录：蕴含").wait_for()
        hypotheses.append(tab.locator(".hypothesis").inner_text())
        on_item(tab, 2, "2")
        tab.get_by_text("已记录：中立").wait_for()
        assert tab.locator(".label-status span").get_attribute("lang") == "zh"
        on_item(tab, 3, "u")
        tab.get_by_text("已撤回：中立").wait_for()
        assert tab.locator(".hypothesis").inner_text() == hypotheses[1]
        on_item(tab, 2, "3")
        tab.get_by_text("已记录：矛盾").wait_for()
        assert tab.evaluate("window.sameDocument") is True
        assert status.get_attribute("aria-live") == "polite"
    assert watched.problems == [] and watched.foreign == []
    assert [label for _, label in own_votes(db, "v01")] == ["entailment", "contradiction"]
    times = query(db, "SELECT t.seconds FROM vote_times t JOIN annotators a ON "
                  "a.pk = t.annotator_pk WHERE a.id = 'v01' ORDER BY t.seconds DESC")  # fmt: skip
    assert len(times) == 2 and times[0][0] >= 1.5 and times[1][0] < 1.0
    assert query(db, "SELECT count(*) FROM runs WHERE stage = 'relabel-undo'") == [(1,)]


def on_item(tab: Any, number: int, key: str) -> None:
    """On item `number` (its heading and the focus on it), press `key` after a moment."""
    tab.get_by_text(f"第 {number} 项，共").wait_for()
    assert tab.evaluate("document.activeElement.matches('section.pair')")
    tab.wait_for_timeout(100)
    tab.keyboard.press(key)


@pytest.fixture
def workbench_zh_server(workbench_db: Path) -> Iterator[str]:
    """The workbench over the Chinese store of tests/serve_stores.py."""
    with workbench_in_thread(workbench_db) as base:
        yield base


def own_votes(db: Path, validator: str) -> list[tuple[str, str]]:
    """The validator's votes (pair ID, label), in their batch's order."""
    return query(
        db,
        "SELECT p.id, v.label FROM votes v JOIN pairs p ON p.pk = v.pair_pk JOIN annotators a "
        "ON a.pk = v.annotator_pk JOIN assignments s ON s.item_id = p.id "
        "JOIN batches b ON b.pk = s.batch_pk AND b.annotator_pk = a.pk "
        "WHERE a.id = ? AND v.position >= 1 ORDER BY s.position",
        validator,
    )
