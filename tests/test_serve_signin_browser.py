"""Login CSRF in a real browser (issue 26): a page of another site that sends a signed-in
writer to someone else's personal link does not replace their session (headless Chromium,
which withholds the SameSite=Strict session cookie from that navigation and sends the Lax
one scoped to /t/); the writer is asked, and going on as the link's person works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser import chromium_tab, pytestmark, workbench_in_thread
from serve_stores import invite, workbench_db, workbench_template

from nlibuild.models import Role

__all__ = ["pytestmark", "workbench_db", "workbench_template"]  # fixtures, used by name

ELSEWHERE = "http://another-site.example/"


def signed_in_as(tab: Any, base: str) -> str:
    tab.goto(f"{base}/")
    text: str = tab.locator("span.who").inner_text()
    return text.split(" ", 1)[0]


def test_another_sites_link_asks_before_it_replaces_the_session(workbench_db: Path) -> None:
    mine = invite(workbench_db, "w01", Role.WRITER)
    theirs = invite(workbench_db, "w02", Role.WRITER)
    with workbench_in_thread(workbench_db) as base, chromium_tab(base, 1000, 800) as watched:
        tab = watched.tab
        tab.goto(f"{base}/t/{mine}")
        tab.wait_for_url(f"{base}/")
        assert signed_in_as(tab, base) == "w01"
        # Another site's page whose link is the attacker's (served by the test, not the net).
        page = f'<a id="go" href="{base}/t/{theirs}">a prize</a>'
        tab.route(ELSEWHERE, lambda route: route.fulfill(content_type="text/html", body=page))
        tab.goto(ELSEWHERE)
        tab.click("#go")
        tab.wait_for_url(f"{base}/t/{theirs}")
        assert "You are signed in as w01" in tab.locator("main").inner_text()
        tab.click("text=Stay signed in as w01")
        tab.wait_for_url(f"{base}/")
        assert signed_in_as(tab, base) == "w01"
        # The person who meant to switch goes on as the link's person.
        tab.goto(f"{base}/t/{theirs}")
        tab.click("button:has-text('continue as w02')")
        tab.wait_for_url(f"{base}/")
        assert signed_in_as(tab, base) == "w02"
        assert watched.problems == [] and watched.foreign == [ELSEWHERE]
