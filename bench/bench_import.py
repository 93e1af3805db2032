"""Time `nlibuild import` and `nlibuild info` against the cost of just reading the file.

    python bench/bench_import.py [--file PATH] [--pairs N] [--append-results]

One run measures three steps on the same MNLI-style jsonl file, each in a fresh child
process started from here:

* `polars.read_ndjson(FILE)`: a multi-threaded native parser loading the whole file, the
  floor for "read it"; the time inside the call is shown too, apart from start-up;
* `nlibuild --db TMP.db import FILE --format mnli`, into a store just made with
  `nlibuild --db TMP.db init --lang en` (the init is not timed);
* `nlibuild --db TMP.db info` on the filled store.

For each: wall seconds (process start to exit, interpreter start-up and imports
included), CPU seconds (user + system, the worker's included), peak resident memory of
the whole process tree (the import runs a reader worker beside the store writer, so the
two are summed: sampled from /proc every 20 ms),
the largest single process's peak (exact, from the rusage `os.wait4` returns), and the
wall time as a multiple of the polars step's. Results are
printed as a markdown table with the machine's facts; `--append-results` also adds them
under a dated heading to bench/RESULTS.md.

When the file does not exist it is first written by bench/gen_mnli.py with `--pairs`
pairs (seed 7). nlibuild runs as `sys.executable -m nlibuild`, so the venv running this
script is the one measured.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
RESULTS = BENCH_DIR / "RESULTS.md"
DEFAULT_FILE = Path("/tmp/nlibuild-bench/mnli_1m.jsonl")

# Run in the child: read the file with polars, print the seconds the call itself took.
POLARS_READ = """\
import sys, time
import polars as pl
started = time.perf_counter()
frame = pl.read_ndjson(sys.argv[1])
print(f"{time.perf_counter() - started:.6f} {frame.height}")
"""


class StepFailed(Exception):
    """A measured or preparatory command exited non-zero."""


@dataclass(frozen=True)
class Measured:
    """One child process: its wall time, its own peak RSS, and what it printed."""

    wall_s: float
    cpu_s: float
    peak_mib: float
    tree_peak_mib: float
    stdout: str
    stderr: str


def _peak_mib(usage: resource.struct_rusage) -> float:
    # ru_maxrss is in KiB on Linux and in bytes on macOS.
    scale = 1 if sys.platform == "darwin" else 1024
    return usage.ru_maxrss * scale / 2**20


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _descendants(root: int) -> list[int]:
    """`root` and every process below it, from the parent links in /proc/*/stat."""
    parent_of: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name (field 2) may hold spaces; the fields after its ')' are fixed.
        fields = stat.rsplit(")", 1)[1].split()
        parent_of[int(entry.name)] = int(fields[1])
    tree = [root]
    for pid in tree:
        tree.extend(child for child, parent in parent_of.items() if parent == pid)
    return tree


class TreeMemorySampler(threading.Thread):
    """Samples the summed RSS of a process and its descendants until stopped.

    rusage gives each process's own peak, but the import's two processes (reader worker and
    store writer) hold memory at the same time, so their sum is what the machine must have.
    """

    def __init__(self, pid: int, interval_s: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval_s = interval_s
        self.peak_kib = 0
        self._done = threading.Event()

    def run(self) -> None:
        if not Path("/proc").is_dir():
            return
        while not self._done.is_set():
            total = sum(_rss_kib(pid) for pid in _descendants(self.pid))
            self.peak_kib = max(self.peak_kib, total)
            self._done.wait(self.interval_s)

    def stop(self) -> None:
        self._done.set()
        self.join()


def measure(name: str, argv: list[str], shown: str | None = None) -> Measured:
    """Run `argv` from the project root; raise StepFailed with its stderr if it fails.

    `shown` is how the command reads in an error message (default: `argv` quoted).

    The child is reaped with `os.wait4`, whose rusage covers that child only (and any
    children it waited for), so each step's peak memory is its own, not the largest of
    everything this script has started so far.
    """
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        sampler = TreeMemorySampler(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        sampler.stop()
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    if code != 0:
        raise StepFailed(
            f"step '{name}' failed with exit status {code}\n"
            f"  command: {shown or shlex.join(argv)}\n"
            f"  stderr:\n{_indent(stderr.strip() or '(empty)')}"
            + (f"\n  stdout:\n{_indent(stdout.strip()[-4000:])}" if stdout.strip() else "")
        )
    own_peak = _peak_mib(usage)
    # The sampler can miss a short spike that rusage saw; the tree holds at least that.
    cpu = usage.ru_utime + usage.ru_stime
    return Measured(wall, cpu, own_peak, max(own_peak, sampler.peak_kib / 1024), stdout, stderr)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def corpus_file(file: Path | None, pairs: int) -> Path:
    """The synthetic corpus a benchmark reads: `file`, else the cached file of `pairs`
    pairs; generated when missing."""
    if file is not None:
        path = file.resolve()
    elif pairs == 1_000_000:
        path = DEFAULT_FILE
    else:
        path = DEFAULT_FILE.with_name(f"mnli_{pairs}.jsonl")
    _ensure_file(path, pairs)
    return path


def _ensure_file(path: Path, pairs: int) -> None:
    if path.exists():
        return
    print(f"{path} not found: generating {pairs:,} pairs with gen_mnli.py ...", file=sys.stderr)
    path.parent.mkdir(parents=True, exist_ok=True)
    gen = [sys.executable, str(BENCH_DIR / "gen_mnli.py"), str(path), "--pairs", str(pairs)]
    done = measure("generate", gen)
    print(done.stderr.strip(), file=sys.stderr)


def _warm_cache(path: Path) -> None:
    """Read the file once so that every step finds it in the page cache alike."""
    with open(path, "rb") as handle:
        while handle.read(1 << 23):
            pass


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _total_ram_gib() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        return f"{pages / 2**30:.1f} GiB"
    except (ValueError, OSError, AttributeError):
        return "unknown"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _git_revision() -> str:
    git = shutil.which("git")
    if git is None:
        return "unknown"
    try:
        rev = subprocess.run(
            [git, "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(
            [git, "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    except OSError:
        return "unknown"
    if rev.returncode != 0:
        return "unknown"
    return rev.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def machine_facts() -> list[tuple[str, str]]:
    """What the numbers depend on, as (name, value) rows."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    return [
        ("CPUs (usable / online)", f"{usable} / {os.cpu_count()}"),
        ("CPU model", _cpu_model()),
        ("RAM", _total_ram_gib()),
        ("OS", f"{platform.system()} {platform.release()}"),
        ("Python", platform.python_version()),
        ("polars", _version("polars")),
        ("nlibuild", f"{_version('nlibuild')}, commit {_git_revision()}"),
    ]


def _size(path: Path) -> str:
    size = path.stat().st_size
    return f"{size / 2**20:,.1f} MiB"


def _load_average() -> str:
    try:
        return ", ".join(f"{load:.2f}" for load in os.getloadavg())
    except OSError:
        return "unknown"


def run_bench(path: Path) -> tuple[str, int]:
    """Measure the three steps on `path`; return the markdown report and the line count."""
    load_before = _load_average()
    _warm_cache(path)
    lines_in_file = 0
    with open(path, "rb") as handle:
        for _ in handle:
            lines_in_file += 1

    rows: list[tuple[str, Measured]] = []
    print("polars.read_ndjson ...", file=sys.stderr)
    polars = measure(
        "polars.read_ndjson",
        [sys.executable, "-c", POLARS_READ, str(path)],
        shown=f"{sys.executable} -c 'polars.read_ndjson(...)' {shlex.quote(str(path))}",
    )
    inner_s, height = polars.stdout.split()
    rows.append(("`polars.read_ndjson(FILE)`", polars))

    nlibuild = [sys.executable, "-m", "nlibuild"]
    with tempfile.TemporaryDirectory(prefix="nlibuild-bench-", dir=path.parent) as tmp:
        db = Path(tmp) / "bench.db"
        with_db = [*nlibuild, "--db", str(db)]
        measure("nlibuild init", [*with_db, "init", "--lang", "en"])
        print("nlibuild import ...", file=sys.stderr)
        imported = measure("nlibuild import", [*with_db, "import", str(path), "--format", "mnli"])
        rows.append(("`nlibuild import FILE --format mnli`", imported))
        print("nlibuild info ...", file=sys.stderr)
        info = measure("nlibuild info", [*with_db, "info"])
        rows.append(("`nlibuild info`", info))
        store_size = sum(f.stat().st_size for f in Path(tmp).iterdir() if f.is_file())
    load_after = _load_average()

    base = polars.wall_s
    table = [
        "| step | wall s | CPU s, all processes | peak MiB, all processes "
        "| peak MiB, largest process | ratio to polars.read_ndjson wall |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, m in rows:
        table.append(
            f"| {name} | {m.wall_s:.2f} | {m.cpu_s:.2f} | {m.tree_peak_mib:,.0f} "
            f"| {m.peak_mib:,.0f} | {m.wall_s / base:.1f}x |"
        )

    now = dt.datetime.now().astimezone()
    facts = [
        ("Date", now.strftime("%Y-%m-%d %H:%M %Z")),
        ("File", f"{path} ({lines_in_file:,} lines, {_size(path)}; polars read {height} rows)"),
        *machine_facts(),
        ("Load average (1, 5, 15 min) at the start / at the end", f"{load_before} / {load_after}"),
    ]
    notes = [
        f"Wall times include interpreter start-up and imports; the `read_ndjson` call "
        f"alone took {float(inner_s):.2f} s.",
        f"Store after import: {store_size / 2**20:,.1f} MiB (database and any WAL files).",
        "Peak MiB, all processes: the largest sum of resident memory over the step's process "
        "tree, sampled every 20 ms; largest process: the exact peak of the biggest single "
        "process (rusage).",
        "CPU s: user + system time of the step's process and the processes it waited for "
        "(the import's reader worker), from rusage: on a busy machine, where the wall "
        "times stretch, the steadier measure of the work done.",
    ]
    report = "\n".join([*(f"- {k}: {v}" for k, v in facts), "", *table, "", *notes])
    return report, lines_in_file


def append_results(report: str, topic: str) -> None:
    """Add the report under a dated heading naming its `topic` at the end of
    bench/RESULTS.md (every bench script appends through here)."""
    heading = f"## {dt.date.today().isoformat()}: {topic}"
    new_file = not RESULTS.exists()
    with open(RESULTS, "a", encoding="utf-8") as handle:
        if new_file:
            handle.write(
                "# Benchmark results\n\nAppended by `make bench` "
                "(`bench/bench_import.py --append-results`); newest last.\n"
            )
        handle.write(f"\n{heading}\n\n{report}\n")
    print(f"appended to {RESULTS}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Time nlibuild import/info against polars.read_ndjson on the same file."
    )
    parser.add_argument(
        "--file", type=Path, default=DEFAULT_FILE, help=f"The jsonl file (default {DEFAULT_FILE})."
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=1_000_000,
        help="Pairs to generate when --file does not exist (default 1000000).",
    )
    parser.add_argument(
        "--append-results", action="store_true", help=f"Also append the table to {RESULTS}."
    )
    args = parser.parse_args(argv)
    path: Path = args.file.resolve()
    try:
        _ensure_file(path, args.pairs)
        report, lines_in_file = run_bench(path)
    except StepFailed as exc:
        print(f"bench_import: {exc}", file=sys.stderr)
        return 1
    print(report)
    if args.append_results:
        append_results(report, f"import of {lines_in_file:,} MNLI-style pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
