"""The workbench under a team's browser-like load (issue 26): a real `nlibuild serve`, many
simulated people signing in at once and then working at a person's pace.

    python bench/bench_serve_mix.py [--quick] [--profile OUT.md] [--append-results]

Setup, not timed (bench/serve_mix_store.py): a store made as the workbench's tests make
theirs (`ocnli` preset, the bundled Chinese texts of five genres, MULTI_CONSTRAINT), with
`--writers` writers (an open batch of `--per-writer` premises each), `--validators`
validators (a relabel batch each, of the pairs of `--answered` premises answered in setup)
and one invite per person.

Timed: the server (`nlibuild serve`, uvicorn, one process) in a subprocess on loopback; one
thread per person (bench/serve_mix_people.py). All wait at one barrier, then all open
their links at once (the sign-in burst; the aim of issue 26: p95 under 1 s for 150), and
each goes to work for `--seconds` or until their batch is done: writers load the writing
page, ask for feedback as they type (several calls per hypothesis, a typing pause apart),
and submit; validators load the relabel page, read, vote, follow the page's reload, and
undo now and then. Reported per kind of request: count, p50/p95/max; requests a second;
errors (anything but the expected answer; there must be none); and afterwards, with the
server stopped, the store is counted: every vote kept and every submitted premise must be
there. The machine's CPUs and load average (before/after) are recorded: on a shared
machine the figures carry the other work's noise.

Beside it in the same run, the previous vote-only bench (bench/bench_serve_load.py: 50
validators voting through `POST /api/label/<batch>` with a pause of 0.5-1.5 s), shorter,
for a ratio. `--quick` (under a minute) runs both briefly; the full run takes a few minutes.
`--profile OUT.md` runs the mix's server under a stack sampler (bench/serve_sampled.py)
and writes where its threads spent their time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sqlite3
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from bench_import import _git_revision, append_results
from bench_serve_load import build_store, machine, run_load, stored_counts
from serve_mix_people import Log, Pace, work_day
from serve_mix_store import Team, build_team_store

from nlibuild.web.drive import running_server

BENCH = Path(__file__).resolve().parent
SIGNIN_AIM_MS = 1000.0
VOTE_ONLY_VALIDATORS = 50
BURST_KINDS = ("link", "home", "first page", "static")
"""What everyone sends in the first moment: signing in, then their page with its assets."""
WORK_KINDS = ("feedback", "submit", "relabel page", "vote", "undo")
"""What people send at their pace afterwards."""
ALL_KINDS = BURST_KINDS + WORK_KINDS


@dataclass(frozen=True)
class Plan:
    """How big and how long: people, their batches, the mix's seconds, the comparison's."""

    writers: int
    validators: int
    per_writer: int
    answered: int
    seconds: float
    vote_only_items: int
    pace: Pace = field(default_factory=Pace)


FULL = Plan(writers=30, validators=120, per_writer=4, answered=100, seconds=150, vote_only_items=60)
QUICK = Plan(writers=30, validators=120, per_writer=1, answered=40, seconds=25, vote_only_items=5)
SMOKE = Plan(
    writers=2,
    validators=5,
    per_writer=1,
    answered=1,
    seconds=60,
    vote_only_items=0,
    pace=Pace(
        read_premise=(0.0, 0.01),
        typing=(0.0, 0.01),
        read_pair=(0.0, 0.01),
        undo_share=0.3,
        notice_mistake=(0.0, 0.01),
    ),
)
"""The bench's mechanics only (tests/test_serve_mix_bench.py): a few people with no pauses,
every batch done."""


@dataclass(frozen=True)
class MixRun:
    wall: float
    logs: list[Log]
    loads: str
    stored: dict[str, int]


@dataclass(frozen=True)
class VoteOnlyRun:
    wall: float
    votes: list[float]
    loads: str
    lost: int


STARTED = time.monotonic()


def said(step: str) -> None:
    """Progress on stderr, with the seconds since the bench started."""
    print(f"[{time.monotonic() - STARTED:5.1f} s] {step}", file=sys.stderr, flush=True)


def load_average() -> str:
    return ", ".join(f"{load:.2f}" for load in os.getloadavg())


def serving(db: Path, profile: Path | None) -> AbstractContextManager[str]:
    """`nlibuild --db DB serve` on a free loopback port (under the sampler with `profile`)
    until the block ends; its base URL once /healthz answers."""
    launcher = [str(BENCH / "serve_sampled.py"), str(profile)] if profile else ["-m", "nlibuild"]
    return running_server(db, launcher=launcher, stop_seconds=30)


def run_mix(team: Team, plan: Plan, profile: Path | None, seed: int) -> MixRun:
    """Everyone signs in at once, then works; (wall from the release, every log, loads)."""
    before = load_average()
    with serving(team.db, profile) as base:
        said("server up")
        people = team.people
        released: list[float] = []
        barrier = threading.Barrier(len(people), action=lambda: release(released))
        pace = plan.pace
        with ThreadPoolExecutor(max_workers=len(people)) as pool:
            logs = list(
                pool.map(
                    lambda job: work_day(base, job[1], seed + job[0], pace, barrier, plan.seconds),
                    enumerate(people),
                )
            )
        wall = time.perf_counter() - released[0]
    loads = f"{before} / {load_average()}"
    return MixRun(wall=wall, logs=logs, loads=loads, stored=stored_work(team.db))


def release(released: list[float]) -> None:
    released.append(time.perf_counter())
    said("everyone released")


def stored_work(db: Path) -> dict[str, int]:
    """What reached the store from the bench's people: the validators' votes and the
    writers' answered premises."""
    with sqlite3.connect(db) as conn:
        votes = conn.execute(
            "SELECT count(*) FROM votes v JOIN annotators a ON a.pk = v.annotator_pk "
            "WHERE a.id LIKE 'v%'"
        ).fetchone()[0]
        answered = conn.execute(
            "SELECT count(*) FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
            "JOIN annotators a ON a.pk = b.annotator_pk "
            "WHERE b.kind = 'elicit' AND a.id LIKE 'w%' AND s.status != 'open'"
        ).fetchone()[0]
    return {"votes": votes, "answered": answered}


def run_vote_only(work: Path, items: int) -> VoteOnlyRun:
    """The previous bench's load (bench_serve_load.py --think 1), `items` votes each."""
    db = build_store(work, VOTE_ONLY_VALIDATORS, items)
    before = load_average()
    wall, timings = run_load(db, VOTE_ONLY_VALIDATORS, 1.0)
    loads = f"{before} / {load_average()}"
    lost = VOTE_ONLY_VALIDATORS * items - stored_counts(db, VOTE_ONLY_VALIDATORS)["votes"]
    return VoteOnlyRun(wall, [s for what, s in timings if what == "vote"], loads, lost)


def stats_ms(seconds: list[float]) -> tuple[float, float, float]:
    """p50, p95 and max in milliseconds (nan for none)."""
    if not seconds:
        return float("nan"), float("nan"), float("nan")
    ms = np.array(seconds) * 1000.0
    p50, p95 = np.percentile(ms, [50, 95])
    return float(p50), float(p95), float(ms.max())


def of_kind(logs: list[Log], kinds: tuple[str, ...]) -> list[float]:
    return [s for log in logs for what, s in log.timings if what in kinds]


def sign_in_times(logs: list[Log]) -> list[float]:
    """Link and home page together, per person who got both."""
    return [log.timings[0][1] + log.timings[1][1] for log in logs if len(log.timings) >= 2]


def kind_rows(mix: MixRun) -> list[str]:
    rows = []
    named = [(kind, of_kind(mix.logs, (kind,))) for kind in ALL_KINDS]
    named.insert(2, ("sign-in (link + home)", sign_in_times(mix.logs)))
    named.insert(
        len(BURST_KINDS) + 1, ("at work: every request below", of_kind(mix.logs, WORK_KINDS))
    )
    named.append(("all requests", of_kind(mix.logs, ALL_KINDS)))
    for kind, seconds in named:
        p50, p95, top = stats_ms(seconds)
        rows.append(f"| {kind} | {len(seconds):,} | {p50:.1f} | {p95:.1f} | {top:.1f} |")
    return rows


def comparison(mix: MixRun, vote_only: VoteOnlyRun) -> list[str]:
    """The two benches side by side: the vote's p95 and every request's, and their ratio."""
    _, only_p95, _ = stats_ms(vote_only.votes)
    _, vote_p95, _ = stats_ms(of_kind(mix.logs, ("vote",)))
    _, all_p95, _ = stats_ms(of_kind(mix.logs, WORK_KINDS))
    rate = len(vote_only.votes) / vote_only.wall
    mix_rate = len(of_kind(mix.logs, ALL_KINDS)) / mix.wall
    return [
        "| bench | requests/s | p95 ms | p95 / vote-only's |",
        "|---|---:|---:|---:|",
        f"| vote-only (`bench_serve_load.py --think 1`, {VOTE_ONLY_VALIDATORS} validators): "
        f"API votes | {rate:.0f} | {only_p95:.1f} | 1.00 |",
        f"| mix: the relabel page's votes | {mix_rate:.0f} (all kinds) | {vote_p95:.1f} | "
        f"{vote_p95 / only_p95:.2f} |",
        f"| mix: every request at work (after the first page) | {mix_rate:.0f} | {all_p95:.1f} | "
        f"{all_p95 / only_p95:.2f} |",
        "",
        f"Vote-only: {len(vote_only.votes):,} votes in {vote_only.wall:.1f} s, "
        f"{vote_only.lost} lost; load average before / after: {vote_only.loads}.",
    ]


def verdicts(mix: MixRun) -> tuple[list[str], bool]:
    """The lines on the aim, the errors and the store; whether everything held."""
    _, link_p95, _ = stats_ms(of_kind(mix.logs, ("link",)))
    errors = [error for log in mix.logs for error in log.errors]
    votes = sum(log.votes_kept for log in mix.logs)
    submitted = sum(log.submitted for log in mix.logs)
    kept = mix.stored["votes"] == votes and mix.stored["answered"] == submitted
    aim = "met" if link_p95 < SIGNIN_AIM_MS else "NOT met"
    lines = [
        f"- Sign-in burst, {len(mix.logs)} at once: the link's p95 {link_p95:.0f} ms (issue "
        f"26's aim: under {SIGNIN_AIM_MS:.0f} ms for 150 at once): {aim}",
        f"- Errors (any answer but the expected 200, or none): {len(errors)}",
        *[f"  - {error}" for error in errors[:5]],
        f"- Stored afterwards: {mix.stored['votes']:,} votes of the {votes:,} kept (sent, less "
        f"undone) and {mix.stored['answered']:,} answered premises of the {submitted:,} "
        f"submitted: {'nothing lost' if kept else 'LOST WORK'}",
    ]
    return lines, not errors and kept and link_p95 < SIGNIN_AIM_MS


def report(plan: Plan, mix: MixRun, vote_only: VoteOnlyRun | None, mode: str) -> tuple[str, bool]:
    pace = plan.pace
    people = len(mix.logs)
    requests = len(of_kind(mix.logs, ALL_KINDS))
    lines, held = verdicts(mix)
    text = [
        f"- Date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; commit {_git_revision()}; "
        f"`bench/bench_serve_mix.py{mode}`",
        f"- Machine: {machine()}; CPUs usable / online: {len(os.sched_getaffinity(0))} / "
        f"{os.cpu_count()}; load average (1, 5, 15 min) before / after the mix: {mix.loads}",
        f"- Store: `ocnli` preset, the bundled Chinese texts, MULTI_CONSTRAINT; {plan.writers} "
        f"writers (a batch of {plan.per_writer} premise{'s' * (plan.per_writer != 1)} each, "
        "9 hypotheses a premise) and "
        f"{plan.validators} validators (a relabel batch each: the pairs of {plan.answered} "
        "premises answered in setup, 5 validators a pair); one invite each",
        f"- Load: {people} people released by one barrier sign in at once (link, then home "
        f"page), then work for {plan.seconds:g} s or until their batch is done. Writers: "
        f"page (and its assets, once), feedback on load, each hypothesis typed in "
        f"{pace.feedback_steps[0]}-{pace.feedback_steps[1]} steps with a feedback call (draft "
        f"saved) after each, {pace.typing[0]:g}-{pace.typing[1]:g} s apart, after reading "
        f"the premise {pace.read_premise[0]:g}-{pace.read_premise[1]:g} s; then the form "
        f"submitted. Validators: page, {pace.read_pair[0]:g}-{pace.read_pair[1]:g} s reading, "
        f"the vote (JSON, as label.js), the page again; {pace.undo_share:.0%} of votes undone "
        "(and the page again) and voted again. Server: `nlibuild serve` (uvicorn, one "
        "process) in a subprocess on loopback; clients: threads of the bench's process, httpx",
        f"- Wall from the release: {mix.wall:.1f} s; {requests:,} requests, "
        f"{requests / mix.wall:.1f} requests/s",
        *lines,
        "",
        "| request | count | p50 ms | p95 ms | max ms |",
        "|---|---:|---:|---:|---:|",
        *kind_rows(mix),
    ]
    if vote_only is not None:
        text += ["", "Beside the previous vote-only bench, in the same run:", ""]
        text += comparison(mix, vote_only)
    return "\n".join(text), held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A team's browser-like load on nlibuild serve.")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="A short run (under a minute).")
    size.add_argument("--smoke", action="store_true", help="A few people, no pauses (tests).")
    parser.add_argument("--seconds", type=float, help="Seconds each person works (after sign-in).")
    parser.add_argument("--no-vote-only", action="store_true", help="Skip the comparison.")
    parser.add_argument("--profile", type=Path, metavar="OUT", help="Sample the server's stacks.")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--append-results", action="store_true")
    args = parser.parse_args(argv)
    plan = SMOKE if args.smoke else QUICK if args.quick else FULL
    mode = " --smoke" if args.smoke else " --quick" if args.quick else ""
    if args.seconds is not None:
        plan = replace(plan, seconds=args.seconds)
    with tempfile.TemporaryDirectory(prefix="nlibuild-mix-") as folder:
        work = Path(folder)
        vote_only = None
        if plan.vote_only_items and not args.no_vote_only:
            (work / "vote-only").mkdir()
            vote_only = run_vote_only(work / "vote-only", plan.vote_only_items)
            said(f"vote-only bench done: {vote_only.wall:.1f} s of votes")
        team = build_team_store(
            work / "team.db", plan.writers, plan.validators, plan.answered, plan.per_writer
        )
        said(f"store of {len(team.people)} people made")
        mix = run_mix(team, plan, args.profile, args.seed)
        said(f"mix done: {mix.wall:.1f} s from the release")
    text, held = report(plan, mix, vote_only, mode)
    print(text)
    if args.profile is not None:
        print(f"\nThe server's profile: {args.profile}")
    if args.append_results:
        append_results(text, f"`nlibuild serve`: a team's browser-like mix{mode or ' (full)'}")
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
