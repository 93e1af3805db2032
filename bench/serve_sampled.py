"""`nlibuild` with a stack sampler beside it: where the server's threads spend their time
under the serve mix bench (`bench_serve_mix.py --profile OUT`). py-spy is not installed, and
cProfile sees one thread while the workbench's pages run in worker threads; so every few
milliseconds this reads every thread's stack (`sys._current_frames`) and counts, over the
samples of threads that are not idle (waiting for work in the pool's queue or for the
network in the event loop's select), each function once per sample it is on the stack of
(inclusive) and the function on top (self). It is wall time, not CPU: a thread waiting for
a lock (the store's write lock, `WebContext.writing`) counts where it waits. Beside it, the
timing log of the store's write lock (`WebContext.writing`, wrapped here): per write, the
wait for the lock, the time it was held, and the holder's CPU time meanwhile (a hold far
longer than its CPU time is a holder waiting for the GIL or a core, not for the disk). Both
are written to OUT when the command ends (SIGTERM, after uvicorn's clean stop).

    python bench/serve_sampled.py OUT.txt --db STORE serve --port PORT
"""

from __future__ import annotations

import runpy
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TypeVar

import numpy as np

from nlibuild.store import Store

T = TypeVar("T")

EVERY_S = 0.005
IDLE = {
    ("threading.py", "wait"),  # a worker thread waiting for work, or a timer
    ("selectors.py", "select"),  # the event loop waiting for the network
    ("queue.py", "get"),
}
TOP = 40


def where(frame: FrameType) -> str:
    code = frame.f_code
    path = Path(code.co_filename)
    short = "/".join(path.parts[-2:])
    return f"{short}:{code.co_name}"


def idle(frame: FrameType) -> bool:
    return (Path(frame.f_code.co_filename).name, frame.f_code.co_name) in IDLE


class Sampler:
    def __init__(self) -> None:
        self.inclusive: Counter[str] = Counter()
        self.on_top: Counter[str] = Counter()
        self.busy = 0
        self.rounds = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        me = threading.get_ident()
        while not self.stopped.wait(EVERY_S):
            self.rounds += 1
            for thread, frame in sys._current_frames().items():
                if thread != me and not idle(frame):
                    self.count(frame)

    def count(self, frame: FrameType) -> None:
        self.busy += 1
        self.on_top[where(frame)] += 1
        seen: set[str] = set()
        at: FrameType | None = frame
        while at is not None:
            seen.add(where(at))
            at = at.f_back
        self.inclusive.update(seen)

    def table(self) -> str:
        lines = [
            f"{self.rounds} rounds every {EVERY_S * 1000:.0f} ms; {self.busy} busy thread "
            "samples (share of them below)",
            "",
            "| inclusive % | self % | function |",
            "|---:|---:|---|",
        ]
        for name, count in self.inclusive.most_common(TOP):
            share = 100.0 * count / max(self.busy, 1)
            own = 100.0 * self.on_top[name] / max(self.busy, 1)
            lines.append(f"| {share:.1f} | {own:.1f} | `{name}` |")
        return "\n".join(lines) + "\n"


class WriteLockLog:
    """(wait, hold, CPU while held) seconds of every write under `WebContext.writing`."""

    def __init__(self) -> None:
        self.writes: list[tuple[float, float, float]] = []

    def wrap(self) -> None:
        from nlibuild.web.context import WebContext

        original = WebContext.writing
        log = self.writes

        def writing(context: WebContext, work: Callable[[Store], T]) -> T:
            asked = time.perf_counter()

            def timed(store: Store) -> T:
                got, cpu = time.perf_counter(), time.thread_time()
                try:
                    return work(store)
                finally:
                    held = time.perf_counter() - got
                    log.append((got - asked, held, time.thread_time() - cpu))

            return original(context, timed)

        setattr(WebContext, "writing", writing)  # noqa: B010 (a method replaced on the class)

    def table(self) -> str:
        if not self.writes:
            return "No write took the write lock.\n"
        ms = np.array(self.writes) * 1000.0
        rows = [
            f"| {name} | {p50:.2f} | {p95:.2f} | {top:.2f} |"
            for name, (p50, p95, top) in zip(
                ("wait for the lock", "held", "holder's CPU while held"),
                zip(*np.percentile(ms, [50, 95], axis=0), ms.max(axis=0), strict=True),
                strict=True,
            )
        ]
        return (
            "\n".join(
                [
                    f"The write lock: {len(self.writes):,} writes",
                    "",
                    "| ms | p50 | p95 | max |",
                    "|---|---:|---:|---:|",
                    *rows,
                ]
            )
            + "\n"
        )


def main() -> None:
    out = Path(sys.argv[1])
    sys.argv = ["nlibuild", *sys.argv[2:]]
    sampler = Sampler()
    writes = WriteLockLog()
    writes.wrap()
    watcher = threading.Thread(target=sampler.run, daemon=True)
    watcher.start()
    # uvicorn handles SIGTERM itself, then restores this handler and raises the signal
    # again: ending by SystemExit lets the table below be written.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        runpy.run_module("nlibuild", run_name="__main__", alter_sys=True)
    finally:
        sampler.stopped.set()
        watcher.join()
        out.write_text(writes.table() + "\n" + sampler.table(), encoding="utf-8")


if __name__ == "__main__":
    main()
