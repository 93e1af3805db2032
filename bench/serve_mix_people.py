"""The simulated people of the serve mix bench (bench/bench_serve_mix.py): each one a
browser without the browser, sending what the workbench's pages and scripts send, in the
order they send it, at a person's pace.

- Signing in: the personal link (`GET /t/<token>`), then the home page with the new cookie
  (the signed-in page's refresh), which carries the CSRF token.
- First, the person's page (the writing or the relabel page) with its styles, scripts
  and icon, which the browser keeps afterwards.
- A writer (nlibuild/web/static/write.js): the feedback on the empty draft that the
  script asks for on load; then each of the nine hypotheses typed in a few steps, one
  feedback call (the draft saved) per step, a typing pause apart (write.js asks 250 ms
  after the last keystroke); then the form submitted (`action=submit`), whose answer is
  the page of the next premise.
- A validator (nlibuild/web/static/label.js): a pause to read the pair, the vote as JSON
  with the seconds spent, then the page the answer names (label.js navigates there);
  sometimes an undo of that vote (and the page again), after which the same item is
  voted on again.

Every request's time goes to the person's `Log` under its kind; anything but the expected
status (or no answer) is an error, and the person stops there.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
from serve_mix_store import Person, slot_names

from nlibuild.models import Role
from nlibuild.web.drive import tls_context

CSRF_META = re.compile(r'<meta name="csrf-token" content="([0-9a-f]+)">')
WRITE_FORM = re.compile(r'action="/write/[^/"]+/([^/"]+)"')
VOTE_ITEM = re.compile(r'action="/label/[^/"]+/vote"[^>]*data-item="(\d+)"')
LABELS = ("entailment", "neutral", "contradiction")
PAGE_ASSETS = ("/static/workbench.css", "/static/workbench.js", "/static/favicon.svg")
WRITE_ASSETS = (*PAGE_ASSETS, "/static/write.css", "/static/write.js")
LABEL_ASSETS = (*PAGE_ASSETS, "/static/label.js")


@dataclass(frozen=True)
class Pace:
    """A person's pauses, each drawn uniformly from its (low, high) seconds."""

    read_premise: tuple[float, float] = (2.0, 5.0)
    typing: tuple[float, float] = (0.4, 1.2)
    feedback_steps: tuple[int, int] = (2, 4)
    read_pair: tuple[float, float] = (1.5, 4.5)
    undo_share: float = 0.1
    notice_mistake: tuple[float, float] = (0.5, 1.5)


class Stop(Exception):
    """The person stops: an error was logged."""


@dataclass
class Log:
    """What one person sent: (kind, seconds) per answered request, the errors, and what
    should now be in the store (votes kept after undos, premises submitted)."""

    timings: list[tuple[str, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    votes_kept: int = 0
    submitted: int = 0


class Browser:
    """One person's cookie jar and CSRF token, timing every request into `log`."""

    def __init__(self, base: str, log: Log) -> None:
        self.base = base
        self.http = httpx.Client(base_url=base, timeout=120.0, verify=tls_context())
        self.log = log
        self.csrf = ""

    def close(self) -> None:
        self.http.close()

    def send(self, kind: str, request: Callable[[], httpx.Response]) -> httpx.Response:
        start = time.perf_counter()
        try:
            response = request()
        except httpx.HTTPError as exc:
            self.log.errors.append(f"{kind}: no answer ({exc!r})")
            raise Stop from exc
        self.log.timings.append((kind, time.perf_counter() - start))
        if response.status_code != 200:
            self.log.errors.append(f"{kind}: HTTP {response.status_code} {response.text[:200]}")
            raise Stop
        return response

    def get(self, kind: str, path: str) -> httpx.Response:
        return self.send(kind, lambda: self.http.get(path))

    def post_json(self, kind: str, path: str, body: object) -> httpx.Response:
        # What window.nlibuild.post sends; a browser adds its Origin to every POST.
        headers = {"X-CSRF-Token": self.csrf, "Origin": self.base}
        return self.send(kind, lambda: self.http.post(path, json=body, headers=headers))

    def post_form(self, kind: str, path: str, fields: dict[str, str]) -> httpx.Response:
        data = {"csrf_token": self.csrf, **fields}
        headers = {"Origin": self.base}
        return self.send(kind, lambda: self.http.post(path, data=data, headers=headers))

    def first_page(self, path: str, assets: tuple[str, ...]) -> str:
        """The person's first page, with its styles, scripts and icon (cached afterwards)."""
        text = self.get("first page", path).text
        for asset in assets:
            self.get("static", asset)
        return text

    def sign_in(self, link_path: str) -> None:
        self.get("link", link_path)
        found = CSRF_META.search(self.get("home", "/").text)
        if found is None:
            self.log.errors.append("home: no CSRF token in the page")
            raise Stop
        self.csrf = found[1]


@dataclass
class Session:
    """One person at work until `deadline` (time.monotonic()): their browser, pace and
    random draws (seeded)."""

    person: Person
    browser: Browser
    pace: Pace
    draws: random.Random
    deadline: float

    def pause(self, span: tuple[float, float]) -> bool:
        """Sleep a drawn while, or until the deadline; whether time is left to act."""
        drawn = self.draws.uniform(*span)
        left = self.deadline - time.monotonic()
        time.sleep(max(0.0, min(drawn, left)))
        return drawn < left

    def write(self) -> None:
        """Write and submit the batch's premises, the page's choice of premise first."""
        batch = self.person.batch
        page = self.browser.first_page(f"/write/{batch}", WRITE_ASSETS)
        while (shown := WRITE_FORM.search(page)) is not None:
            premise = shown[1]
            feedback = f"/write/{batch}/{premise}/feedback"
            typed = dict.fromkeys(slot_names(), "")
            self.browser.post_json("feedback", feedback, {"fields": typed, "save": False})
            if not self.pause(self.pace.read_premise):
                return
            for slot, text in self.person.answers[premise].items():
                for typed[slot] in steps(text, self.draws.randint(*self.pace.feedback_steps)):
                    if not self.pause(self.pace.typing):
                        return
                    self.browser.post_json("feedback", feedback, {"fields": typed, "save": True})
            form = typed | {"action": "submit"}
            page = self.browser.post_form("submit", f"/write/{batch}/{premise}", form).text
            self.browser.log.submitted += 1

    def validate(self) -> None:
        """Vote on the batch's items in the page's order, undoing a vote now and then."""
        batch = self.person.batch
        page = self.browser.first_page(f"/label/{batch}", LABEL_ASSETS)
        while (shown := VOTE_ITEM.search(page)) is not None:
            item = int(shown[1])
            shown_at = time.monotonic()
            if not self.pause(self.pace.read_pair):
                return
            body = {
                "item": item,
                "label": self.draws.choice(LABELS),
                "seconds": time.monotonic() - shown_at,
            }
            voted = self.browser.post_json("vote", f"/label/{batch}/vote", body).json()
            self.browser.log.votes_kept += 1
            page = self.browser.get("relabel page", voted["next"]).text
            if self.draws.random() < self.pace.undo_share and self.pause(self.pace.notice_mistake):
                undone = self.browser.post_json("undo", f"/label/{batch}/undo", {"item": item})
                self.browser.log.votes_kept -= 1
                page = self.browser.get("relabel page", undone.json()["next"]).text


def steps(text: str, count: int) -> list[str]:
    """`text` as it stands after each of `count` typing steps (the last is all of it)."""
    return [text[: round(len(text) * k / count)] for k in range(1, count + 1)]


def work_day(
    base: str,
    person: Person,
    seed: int,
    pace: Pace,
    barrier: threading.Barrier,
    seconds: float,
) -> Log:
    """Sign in when everyone does (the barrier), then work for `seconds` or until the batch
    is done; the log of it all."""
    log = Log()
    browser = Browser(base, log)
    try:
        barrier.wait()
        browser.sign_in(person.link_path)
        session = Session(person, browser, pace, random.Random(seed), time.monotonic() + seconds)
        if person.role is Role.WRITER:
            session.write()
        else:
            session.validate()
    except Stop:
        pass
    finally:
        browser.close()
    return log
