"""Time the start-up of `nlibuild --help` and `nlibuild --version` against `import typer`.

    python bench/bench_startup.py [--runs N] [--append-results]

Issue 25, item 7: `--help` should cost at most 2.5 times what `python -c "import typer"`
costs, the floor of any typer program. Each of the three commands is run `--runs` times
(default 15), each time as a fresh child process (interpreter start-up and imports
included, output thrown away), the three taken in turn so that a busy spell of the machine
falls on all of them alike. The table gives the median and the fastest wall time of each and
the medians' ratio to `import typer`'s, with the machine's facts and its load average before
and after; `--append-results` also adds it under a dated heading to bench/RESULTS.md.
nlibuild is run as `python -m nlibuild` with the interpreter that runs this script, from
the current folder: the nlibuild there (a checkout's root), else on PYTHONPATH, else the
installed one is measured. To compare two checkouts, run from a neutral folder:

    cd /tmp && PYTHONPATH=CHECKOUT python CHECKOUT/bench/bench_startup.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from importlib import metadata

from bench_import import append_results, machine_facts

TARGET_RATIO = 2.5
"""`nlibuild --help` at most this many times `import typer` (issue 25, item 7)."""

COMMANDS: dict[str, list[str]] = {
    'python -c "import typer"': [sys.executable, "-c", "import typer"],
    "nlibuild --help": [sys.executable, "-m", "nlibuild", "--help"],
    "nlibuild --version": [sys.executable, "-m", "nlibuild", "--version"],
}
"""What is timed, by the name the table gives it; the first is the reference."""


def wall_seconds(command: list[str]) -> float:
    """One run's wall time; a failing command stops the bench with its stderr."""
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"bench_startup: `{' '.join(command)}` failed:\n{done.stderr.decode()}")
    return seconds


def time_all(runs: int) -> dict[str, list[float]]:
    """Every command's wall times, the commands taken in turn, after one untimed warm-up
    run each (the file cache and .pyc files)."""
    for command in COMMANDS.values():
        wall_seconds(command)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, command in COMMANDS.items():
            times[name].append(wall_seconds(command))
    return times


def load_average() -> str:
    return ", ".join(f"{load:.2f}" for load in os.getloadavg())


def report(times: dict[str, list[float]], load_before: str, load_after: str) -> str:
    """The markdown table, the machine's facts and whether --help meets its target."""
    reference = statistics.median(next(iter(times.values())))
    rows = [
        "| command | median ms | fastest ms | median / import typer |",
        "|---|---:|---:|---:|",
    ]
    for name, walls in times.items():
        median = statistics.median(walls)
        rows.append(
            f"| `{name}` | {median * 1000:.0f} | {min(walls) * 1000:.0f} | "
            f"{median / reference:.2f}x |"
        )
    help_ratio = statistics.median(times["nlibuild --help"]) / reference
    verdict = "meets" if help_ratio <= TARGET_RATIO else "misses"
    facts = [
        *machine_facts(),
        ("typer", metadata.version("typer")),
        ("runs of each", str(len(next(iter(times.values()))))),
        ("load average before / after", f"{load_before} / {load_after}"),
    ]
    lines = [
        *rows,
        "",
        *(f"- {name}: {value}" for name, value in facts),
        "",
        f"`nlibuild --help` takes {help_ratio:.2f}x `import typer`: it {verdict} the target of "
        f"{TARGET_RATIO}x.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Time nlibuild --help and --version against python -c 'import typer'."
    )
    parser.add_argument(
        "--runs", type=int, default=15, help="Timed runs of each command (default 15)."
    )
    parser.add_argument(
        "--append-results", action="store_true", help="Also append the table to RESULTS.md."
    )
    args = parser.parse_args(argv)
    load_before = load_average()
    times = time_all(args.runs)
    text = report(times, load_before, load_average())
    print(text)
    if args.append_results:
        append_results(text, "start-up of nlibuild --help and --version")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
