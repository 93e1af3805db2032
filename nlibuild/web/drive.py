"""Driving the workbench without a browser: a real server in a subprocess, and a client
that opens a personal link and sends what the pages send (with the CSRF token). The load
bench (bench/bench_serve_load.py), `make demo` (nlibuild/web/demo_drive.py) and the load
test use it; httpx, the client, is in the dev extra.
"""

from __future__ import annotations

import os
import random
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

CSRF_META = re.compile(r'<meta name="csrf-token" content="([0-9a-f]+)">')
STARTUP_S = 30.0


class DriveError(Exception):
    """The server or a page did not answer as the workbench should."""


def free_port() -> int:
    """A loopback port nothing listens on now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running_server(
    db: Path,
    port: int | None = None,
    launcher: Sequence[str] = ("-m", "nlibuild"),
    stop_seconds: float = 10,
    extra_args: Sequence[str] = (),
) -> Iterator[str]:
    """`nlibuild --db DB serve` on a loopback port in a subprocess, until the block ends
    (however it ends); yields its base URL once /healthz answers. `launcher` is what the
    Python interpreter is given before nlibuild's arguments (a profiler's script, say);
    `extra_args` go after `serve`'s own (`--model DIR`, say)."""
    port = port or free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, *launcher, "--db", str(db), "serve", "--port", str(port)]
    command += extra_args
    server = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ.copy()
    )
    try:
        wait_until_up(server, base)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=stop_seconds)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if server.stderr is not None:
            server.stderr.close()


def wait_until_up(server: subprocess.Popen[bytes], base: str) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            said = server.stderr.read().decode(errors="replace") if server.stderr else ""
            raise DriveError(f"the server stopped at start (exit {server.returncode}): {said}")
        try:
            if httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise DriveError(f"the server did not answer on {base} within {STARTUP_S:.0f} s")


_TLS: list[ssl.SSLContext] = []
_TLS_LOCK = threading.Lock()


def tls_context() -> ssl.SSLContext:
    """One verifying TLS context for every client of the process: httpx builds one per
    client otherwise, about 70 ms of CPU each, which delayed a bench of 150 people by
    seconds before its first request. Made under a lock: people start at once."""
    with _TLS_LOCK:
        if not _TLS:
            _TLS.append(ssl.create_default_context())
        return _TLS[0]


class WorkbenchClient:
    """One person's browser, without the browser: a cookie jar, their CSRF token, and the
    JSON routes the pages call (nlibuild/web/api_pages.py)."""

    def __init__(self, link: str, timeout_s: float = 30.0) -> None:
        parts = urlsplit(link.strip())
        self.link_path = parts.path
        self.http = httpx.Client(
            base_url=f"{parts.scheme}://{parts.netloc}", timeout=timeout_s, verify=tls_context()
        )
        self.csrf_token = ""

    def __enter__(self) -> WorkbenchClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()

    def sign_in(self, timings: list[tuple[str, float]] | None = None) -> None:
        """Open the personal link (a session cookie), then the home page for the token;
        the two requests' times go to `timings` when given."""
        noted = [] if timings is None else timings
        opened = timed(noted, "link", lambda: self.http.get(self.link_path))
        if opened.status_code != 200:
            raise DriveError(f"the personal link gave {opened.status_code}")
        home = timed(noted, "home", lambda: self.http.get("/"))
        found = CSRF_META.search(home.text)
        if home.status_code != 200 or found is None:
            raise DriveError(f"the home page gave {home.status_code} without a CSRF token")
        self.csrf_token = found[1]

    def post_json(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf_token})

    def vote(
        self, batch: str, position: int, label: str, seconds: float | None = None
    ) -> httpx.Response:
        body = {"position": position, "label": label, "seconds": seconds}
        return self.post_json(f"/api/label/{batch}", body)

    def submit(
        self, batch: str, premise: str, hypotheses: dict[str, list[str]], unusable: bool = False
    ) -> httpx.Response:
        body = {"premise": premise, "unusable": unusable, "hypotheses": hypotheses}
        return self.post_json(f"/api/write/{batch}", body)

    def home(self) -> str:
        return self.http.get("/").text


def timed(timings: list[tuple[str, float]], what: str, request: Any) -> httpx.Response:
    """Send `request()` and note how long its answer took under `what`."""
    start = time.perf_counter()
    response: httpx.Response = request()
    timings.append((what, time.perf_counter() - start))
    return response


def label_batch(
    link: str,
    batch: str,
    labels: list[str],
    seconds: float | None = None,
    think_s: float = 0.0,
    seed: int = 0,
) -> list[tuple[str, float]]:
    """A validator's whole session: open their link, then vote `labels[k - 1]` on item k of
    `batch`, one request after the other as a person would, pausing before each vote for
    between half and one and a half times `think_s` (seeded; 0: no pause). Returns every
    request's (route, seconds); a `DriveError` as soon as one is not a 200."""
    timings: list[tuple[str, float]] = []
    pauses = random.Random(seed)
    with WorkbenchClient(link) as client:
        client.sign_in(timings)
        for position, label in enumerate(labels, 1):
            if think_s > 0:
                time.sleep(think_s * pauses.uniform(0.5, 1.5))
            voted = timed(
                timings,
                "vote",
                lambda at=position, chosen=label: client.vote(batch, at, chosen, seconds),
            )
            if voted.status_code != 200:
                raise DriveError(f"{batch} item {position}: {voted.status_code} {voted.text}")
    return timings
