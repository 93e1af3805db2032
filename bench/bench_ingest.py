"""Benchmark `nlibuild ingest` against `wc -l` (the I/O floor), and `nlibuild sample`.

    python bench/bench_ingest.py [--dir /tmp/nlibuild-bench/sources_1gb] [--megabytes 1000]
                                 [--append-results]

Generates (once) a plain-text corpus of 10 genres with gen_sources.py, reads it once to
warm the page cache, then times, each in its own process: `wc -l` over all files; one
`nlibuild ingest FILE --genre G` per genre file into a fresh store (the times summed, the
memory the largest); `nlibuild sample --per-genre 250` from the resulting pool; and
`nlibuild stats --table premises`. Reports MB/s (10^6 bytes a second) and the ratio to
`wc -l`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import tempfile
from pathlib import Path

from bench_import import (
    BENCH_DIR,
    RESULTS,
    Measured,
    StepFailed,
    machine_facts,
    measure,
)

DEFAULT_DIR = Path("/tmp/nlibuild-bench/sources_1gb")


def _ensure_corpus(folder: Path, megabytes: int) -> list[Path]:
    files = sorted(folder.glob("*.txt")) if folder.is_dir() else []
    if not files:
        print(f"generating {megabytes} MB of text in {folder} ...", file=sys.stderr)
        gen = [sys.executable, str(BENCH_DIR / "gen_sources.py"), str(folder)]
        done = measure("generate", [*gen, "--megabytes", str(megabytes)])
        print(done.stderr.strip(), file=sys.stderr)
        files = sorted(folder.glob("*.txt"))
    return files


def _warm(files: list[Path]) -> None:
    for path in files:
        with open(path, "rb") as handle:
            while handle.read(1 << 23):
                pass


def run_bench(folder: Path, megabytes: int) -> str:
    files = _ensure_corpus(folder, megabytes)
    _warm(files)
    load_before = _load_average()
    size = sum(p.stat().st_size for p in files)
    wc = measure("wc -l", ["wc", "-l", *map(str, files)])
    nlibuild = [sys.executable, "-m", "nlibuild"]
    with tempfile.TemporaryDirectory(prefix="nlibuild-bench-", dir=folder.parent) as tmp:
        with_db = [*nlibuild, "--db", str(Path(tmp) / "pool.db")]
        measure("nlibuild init", [*with_db, "init", "--lang", "en"])
        ingests: list[Measured] = []
        for path in files:
            print(f"nlibuild ingest {path.name} ...", file=sys.stderr)
            ingests.append(measure("nlibuild ingest", [*with_db, "ingest", str(path),
                                                       "--genre", path.stem]))  # fmt: skip
        sentences = sum(
            int(m.stdout.split("; ")[-1].split(" added")[0].split()[-1]) for m in ingests
        )
        print("nlibuild sample ...", file=sys.stderr)
        sampled = measure("nlibuild sample", [*with_db, "sample", "--per-genre", "250"])
        print("nlibuild stats ...", file=sys.stderr)
        stats = measure("nlibuild stats", [*with_db, "stats", "--table", "premises",
                                           "--format", "csv"])  # fmt: skip
    load_after = _load_average()
    ingest_wall = sum(m.wall_s for m in ingests)
    ingest_peak = max(m.tree_peak_mib for m in ingests)
    mb = size / 1e6
    rows = [
        ("`wc -l` (all files)", wc.wall_s, wc.tree_peak_mib, f"{mb / wc.wall_s:,.0f}"),
        (f"`nlibuild ingest` ({len(files)} runs, one a genre)", ingest_wall, ingest_peak,
         f"{mb / ingest_wall:,.1f}"),
        ("`nlibuild sample --per-genre 250`", sampled.wall_s, sampled.tree_peak_mib, ""),
        ("`nlibuild stats --table premises`", stats.wall_s, stats.tree_peak_mib, ""),
    ]  # fmt: skip
    table = [
        "| step | wall s | peak MiB | MB/s | ratio to `wc -l` wall |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, wall, peak, rate in rows:
        table.append(f"| {name} | {wall:.2f} | {peak:,.0f} | {rate} | {wall / wc.wall_s:.1f}x |")
    now = dt.datetime.now().astimezone()
    facts = [
        ("Date", now.strftime("%Y-%m-%d %H:%M %Z")),
        ("Corpus", f"{folder}: {len(files)} files, {mb:,.0f} MB, {sentences:,} sentences pooled"),
        *machine_facts(),
        # The machine may be shared: other work running beside the bench slows it.
        ("Load average at the start and at the end (1, 5, 15 min)", f"{load_before}; {load_after}"),
    ]
    notes = [
        "Wall times include interpreter start-up; peak MiB is the largest resident memory of "
        "the step's process tree (for ingest, the largest over its runs).",
        f"Sample: {sampled.stdout.strip()[:300]}",
    ]
    return "\n".join([*(f"- {k}: {v}" for k, v in facts), "", *table, "", *notes])


def _load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time nlibuild ingest/sample against wc -l.")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--megabytes", type=int, default=1000)
    parser.add_argument("--append-results", action="store_true")
    args = parser.parse_args(argv)
    try:
        report = run_bench(args.dir.resolve(), args.megabytes)
    except StepFailed as exc:
        print(f"bench_ingest: {exc}", file=sys.stderr)
        return 1
    print(report)
    if args.append_results:
        heading = f"## {dt.date.today().isoformat()}: ingest and sample of source texts"
        with open(RESULTS, "a", encoding="utf-8") as handle:
            handle.write(f"\n{heading}\n\n{report}\n")
        print(f"appended to {RESULTS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
