"""What the browser tests share: Debian's Chromium found by its path, driven by playwright
(never playwright's own browser download), the folder screenshots are kept in, the
workbench served for real in a thread, and a tab that records every console error, page
error, failed response and request off the server.

A test module imports `pytestmark` from here: where Chromium or playwright is absent its
tests are skipped, with the reason (`.ci/run` installs chromium where it can)."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import PROJECT

if TYPE_CHECKING:
    from nlibuild.workbench.model_loop import Predictor

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = PROJECT / "out" / "test-artifacts"

sync_api: Any = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)"
)


def artifact(name: str) -> Path:
    """Where a screenshot called `name` is kept (the folder made on the way)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name


@contextmanager
def workbench_in_thread(db: Path, predictor: Predictor | None = None) -> Iterator[str]:
    """`nlibuild serve`'s application over `db` (with `predictor` as the served model) on a
    free loopback port, run by uvicorn in a thread of the test (so a test reads the store as
    the server writes it); its base URL. Stopped however the block ends."""
    import uvicorn

    from nlibuild.models import ServeConfig
    from nlibuild.web.app import create_app
    from nlibuild.web.drive import free_port

    port = free_port()
    config = uvicorn.Config(
        create_app(db, ServeConfig(port=port), predictor),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not running.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        running.should_exit = True
        thread.join(timeout=10)


@dataclass
class WatchedTab:
    """A browser tab and what went wrong in it: console errors and warnings, uncaught page
    errors, responses of 400 and over, and requests to anywhere but `home`."""

    tab: Any
    home: str
    problems: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @property
    def foreign(self) -> list[str]:
        return [url for url in self.requests if not url.startswith(self.home)]


@contextmanager
def chromium_tab(home: str, width: int, height: int) -> Iterator[WatchedTab]:
    """A new tab of a headless Chromium, watched (`WatchedTab`); the browser is closed
    however the block ends."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            watched = WatchedTab(
                browser.new_page(viewport={"width": width, "height": height}), home
            )
            tab, problems = watched.tab, watched.problems
            tab.on("console", lambda message: problems.append(f"{message.text} {message.location}")
                   if message.type in ("error", "warning") else None)  # fmt: skip
            tab.on("pageerror", lambda error: problems.append(str(error)))
            tab.on("response", lambda response: problems.append(f"{response.status} {response.url}")
                   if response.status >= 400 else None)  # fmt: skip
            tab.on("request", lambda request: watched.requests.append(request.url))
            yield watched
        finally:
            browser.close()
