"""Time `nlibuild aggregate-labels` and `stats --table agreement` against crowd-kit & co.

    python bench/bench_aggregate.py [--file PATH] [--pairs N] [--append-results]

Needs the `bench` extra (`pip install -e ".[bench]"`: crowd-kit, statsmodels).

Setup, not timed: the MNLI-style jsonl file (bench/gen_mnli.py, seed 7, every pair with
five votes; made when missing, as bench_import.py does) is imported into a fresh store
(`nlibuild init --preset mnli`, then `nlibuild import FILE --format mnli`), in a temporary
folder next to the file that is removed afterwards; the store is then read once so that
every step finds it in the page cache.

Timed, each in a fresh child process (wall seconds from process start to exit, interpreter
start-up and imports included; peak resident memory of the process tree, as
bench_import.py measures it):

1. `nlibuild aggregate-labels` (the majority rule, written to the store as gold);
2. `nlibuild stats --table agreement --by genre --format json`: every agreement statistic
   over all pairs and per genre; steps 1 and 2 are the measured job, their walls summed and
   their peaks the larger of the two (they run one after the other);
3. the peer, on the same store, in one process: read the votes (`pair_pk`, `annotator_pk`,
   `label`) and each pair's genre with `pandas.read_sql_query`, run crowd-kit's
   `MajorityVote().fit_predict` on the long (task, worker, label) frame, count votes per
   pair and label with pandas, and per group (all pairs, then each genre) compute
   `krippendorff.alpha(value_counts=..., level_of_measurement="nominal")` and statsmodels'
   `fleiss_kappa`. Its wall counts the imports of pandas, crowd-kit, statsmodels and
   krippendorff and writing the majority labels to a small .npz for the checks below; the
   time of each phase is reported too. It writes nothing to the store, where nlibuild
   writes the gold of every pair (a column of `pair_labels`) and a run record;
4. `nlibuild aggregate-labels --method dawid-skene` (EM; it recomputes the majority too).

Checks, not timed: Fleiss' kappa and Krippendorff's alpha (nominal) from nlibuild's JSON
against the peer's, per group, to 1e-6. Both are over validated pairs (2+ votes, extra
labels left out, see nlibuild/labelling/agreement.py). Krippendorff's alpha is the same statistic
for any vote counts; nlibuild's kappa is Fleiss' generalised to unequal vote counts, so it
is compared only for groups where every validated pair has the same number of votes
(statsmodels' kappa assumes that); otherwise statsmodels' kappa on the pairs with five
votes is shown and not compared. Then crowd-kit's majority against nlibuild's stored gold
(method `majority`): the pairs where they differ, sorted into ties for the top count (crowd
-kit picks one of the tied labels, its first in label order; nlibuild says `-`), a unique
top label with fewer than the 3 votes nlibuild requires, and anything else (unexpected).

Prints a markdown report (machine, table, checks, targets of issue 8: steps 1+2 within 1 s
and 1 GB, taken as 10^9 bytes; the peer at least 10x slower; the coefficients equal to 1e-6;
Dawid-Skene under 10 s); `--append-results` adds it under a dated heading to
bench/RESULTS.md. `--pairs N` (default 1,000,000) uses /tmp/nlibuild-bench/mnli_N.jsonl,
generated when missing, for quicker runs; `--file` names any MNLI-format file.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_import import (
    DEFAULT_FILE,
    RESULTS,
    Measured,
    StepFailed,
    _version,
    _warm_cache,
    corpus_file,
    machine_facts,
    measure,
)

NLI_LABELS = ("entailment", "neutral", "contradiction")
KAPPA = "Fleiss' kappa"
ALPHA = "Krippendorff's alpha (nominal)"
TOLERANCE = 1e-6
TARGET_WALL_S = 1.0
TARGET_PEAK_BYTES = 10**9
TARGET_RATIO = 10.0
TARGET_DS_S = 10.0
PEER_DEPENDENCIES = ("crowd-kit", "statsmodels", "pandas", "krippendorff")


# --- the peer: run in a child process as `bench_aggregate.py --peer DB OUT` ---------------


def peer_main(db: str, out: str) -> int:
    """crowd-kit MajorityVote + krippendorff.alpha + statsmodels fleiss_kappa per genre.

    Prints one JSON object: the seconds of each phase and, per group, the coefficients and
    the pairs they are over; writes the majority (pair pk, label index or -1) to `out`."""
    phases: dict[str, float] = {}
    started = last = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal last
        now = time.perf_counter()
        phases[name] = now - last
        last = now

    import krippendorff
    import numpy as np
    import pandas as pd
    from crowdkit.aggregation import MajorityVote
    from statsmodels.stats.inter_rater import fleiss_kappa

    lap("import pandas, crowd-kit, statsmodels, krippendorff")

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    votes = pd.read_sql_query(
        "SELECT pair_pk AS task, annotator_pk AS worker, label FROM votes", con
    )
    genres = pd.read_sql_query(
        "SELECT p.pk AS task, pr.genre FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk",
        con,
        index_col="task",
    )["genre"]
    con.close()
    lap("read votes and genres (sqlite3 + pandas.read_sql_query)")

    majority = MajorityVote().fit_predict(votes)
    lap("crowd-kit MajorityVote().fit_predict")

    counts = votes[["task", "label"]].value_counts().unstack("label", fill_value=0)
    nli = counts.reindex(columns=list(NLI_LABELS), fill_value=0).to_numpy(dtype=np.int64)
    totals = counts.to_numpy().sum(axis=1)
    n = nli.sum(axis=1)
    # nlibuild's validated pairs (2+ votes), over which kappa and alpha are computed with the
    # extra labels left out (so those pairs also need 2+ NLI votes).
    usable = (totals >= 2) & (n >= 2)
    pair_genre = genres.reindex(counts.index).fillna("-").astype(str).to_numpy()
    groups = [("all", np.ones(len(nli), dtype=bool))]
    groups += [(f"genre={g}", pair_genre == g) for g in sorted(set(pair_genre.tolist()))]
    stats: dict[str, dict[str, Any]] = {}
    for name, mask in groups:
        rated = nli[mask & usable]
        sizes = np.unique(rated.sum(axis=1))
        five = nli[mask & (n == 5)]
        stats[name] = {
            "pairs": int(mask.sum()),
            "usable": len(rated),
            "votes_per_pair": sizes.tolist(),
            "alpha": float(krippendorff.alpha(value_counts=rated, level_of_measurement="nominal"))
            if len(rated)
            else None,
            # statsmodels' kappa needs the same number of votes on every pair.
            "kappa": float(fleiss_kappa(rated, method="fleiss")) if len(sizes) == 1 else None,
            "kappa_5": float(fleiss_kappa(five, method="fleiss")) if len(five) else None,
            "pairs_5": len(five),
        }
    lap("vote counts per pair (pandas) + alpha and kappa per group")

    codes = {label: i for i, label in enumerate(NLI_LABELS)}
    np.savez(
        out,
        pair_pk=majority.index.to_numpy(dtype=np.int64),
        label=np.array([codes.get(v, -1) for v in majority.tolist()], dtype=np.int8),
    )
    lap("write the majority (.npz, for the checks)")
    print(json.dumps({"phases": phases, "inner_s": last - started, "stats": stats}))
    return 0


# --- the benchmark ------------------------------------------------------------------------


def _nlibuild_coefficients(stdout: str) -> dict[str, dict[str, Any]]:
    """{group: {"kappa", "alpha", "kappa_pairs", "alpha_pairs"}} from stats' JSON rows."""
    found: dict[str, dict[str, Any]] = {}
    for row in json.loads(stdout):
        if row["statistic"] == KAPPA:
            found.setdefault(row["group"], {}).update(
                kappa=row["value"], kappa_pairs=row["denominator"]
            )
        elif row["statistic"] == ALPHA:
            found.setdefault(row["group"], {}).update(
                alpha=row["value"], alpha_pairs=row["denominator"]
            )
    return found


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else abs(a - b)


def compare_coefficients(
    ours: dict[str, dict[str, Any]], peer: dict[str, dict[str, Any]]
) -> tuple[list[str], float, bool, int]:
    """Table rows, the largest difference compared, whether all agree, groups compared."""
    rows = [
        "| group | validated pairs (nlibuild / peer) | Fleiss' kappa, nlibuild "
        "| statsmodels | diff | Krippendorff's alpha, nlibuild | krippendorff | diff |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    worst = 0.0
    ok = True
    compared = 0
    for group in sorted(set(ours) | set(peer), key=lambda g: (g != "all", g)):
        mine, theirs = ours.get(group, {}), peer.get(group, {})
        same_pairs = mine.get("alpha_pairs") == theirs.get("usable")
        kappa_peer = theirs.get("kappa")
        kappa_note = ""
        if kappa_peer is None and theirs.get("kappa_5") is not None:
            kappa_peer = theirs["kappa_5"]
            kappa_note = f" (5-vote pairs only, {theirs['pairs_5']:,}; not compared)"
        d_kappa = _diff(mine.get("kappa"), theirs.get("kappa"))
        d_alpha = _diff(mine.get("alpha"), theirs.get("alpha"))
        for d in (d_kappa, d_alpha):
            if d is not None:
                worst = max(worst, d)
                ok &= d <= TOLERANCE
        if d_alpha is None or not same_pairs:
            ok = False
        else:
            compared += 1

        def num(value: float | None) -> str:
            return "n.a." if value is None else f"{value:.9f}"

        def gap(d: float | None) -> str:
            return "not compared" if d is None else f"{d:.1e}"

        rows.append(
            f"| {group} | {mine.get('alpha_pairs', 0):,} / {theirs.get('usable', 0):,} "
            f"| {num(mine.get('kappa'))} | {num(kappa_peer)}{kappa_note} | {gap(d_kappa)} "
            f"| {num(mine.get('alpha'))} | {num(theirs.get('alpha'))} | {gap(d_alpha)} |"
        )
    return rows, worst, ok, compared


def compare_majority(db: Path, peer_npz: Path) -> dict[str, int]:
    """crowd-kit's majority against nlibuild's stored gold, differences sorted by cause."""
    import numpy as np

    with np.load(peer_npz) as data:
        peer_pk, peer_label = data["pair_pk"], data["label"].astype(np.int64)
    codes = {label: i for i, label in enumerate(NLI_LABELS)}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    gold = con.execute(
        "SELECT pair_pk, label FROM gold WHERE method = 'majority' ORDER BY pair_pk"
    ).fetchall()
    tally = con.execute(
        "SELECT pair_pk, sum(label = 'entailment'), sum(label = 'neutral'), "
        "sum(label = 'contradiction') FROM votes GROUP BY pair_pk ORDER BY pair_pk"
    ).fetchall()
    con.close()
    gold_pk = np.array([g[0] for g in gold], dtype=np.int64)
    gold_label = np.array([codes.get(g[1], -1) for g in gold], dtype=np.int64)
    tally_pk = np.array([t[0] for t in tally], dtype=np.int64)
    counts = np.array([t[1:] for t in tally], dtype=np.int64).reshape(-1, 3)
    order = np.argsort(peer_pk)
    peer_pk, peer_label = peer_pk[order], peer_label[order]
    common, in_gold, in_peer = np.intersect1d(gold_pk, peer_pk, return_indices=True)
    ours, theirs = gold_label[in_gold], peer_label[in_peer]
    counts = counts[np.searchsorted(tally_pk, common)]
    top = counts.max(axis=1)
    tied = (counts == top[:, None]).sum(axis=1) > 1
    differ = ours != theirs
    return {
        "pairs, nlibuild gold": len(gold_pk),
        "pairs, crowd-kit majority": len(peer_pk),
        "pairs in both": len(common),
        "same label": int((~differ).sum()),
        "differ": int(differ.sum()),
        "differ on a tie (nlibuild '-', crowd-kit a tied label)": int(
            (differ & tied & (ours == -1)).sum()
        ),
        "differ: unique top label with under 3 votes (nlibuild '-')": int(
            (differ & ~tied & (ours == -1) & (top < 3)).sum()
        ),
        "differ otherwise (unexpected)": int((differ & ~((ours == -1) & (tied | (top < 3)))).sum()),
        "no gold in nlibuild ('-'), all causes": int((ours == -1).sum()),
    }


def _mib(m: Measured) -> float:
    return m.tree_peak_mib


def run_bench(path: Path) -> tuple[str, int]:
    """Measure the steps on `path`; return the markdown report and the number of pairs."""
    lines_in_file = 0
    with open(path, "rb") as handle:
        for _ in handle:
            lines_in_file += 1
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    nlibuild = [sys.executable, "-m", "nlibuild"]
    with tempfile.TemporaryDirectory(prefix="nlibuild-bench-", dir=path.parent) as tmp:
        db = Path(tmp) / "bench.db"
        with_db = [*nlibuild, "--db", str(db)]
        print(f"setup: nlibuild init + import {path.name} (not timed) ...", file=sys.stderr)
        measure("nlibuild init", [*with_db, "init", "--preset", "mnli"])
        imported = measure("nlibuild import", [*with_db, "import", str(path), "--format", "mnli"])
        for file in sorted(Path(tmp).iterdir()):
            _warm_cache(file)
        store_mib = sum(f.stat().st_size for f in Path(tmp).iterdir()) / 2**20

        print("nlibuild aggregate-labels ...", file=sys.stderr)
        aggregate = measure("nlibuild aggregate-labels", [*with_db, "aggregate-labels"])
        print("nlibuild stats --table agreement --by genre ...", file=sys.stderr)
        agreement = measure(
            "nlibuild stats",
            [*with_db, "stats", "--table", "agreement", "--by", "genre", "--format", "json"],
        )
        print("peer: crowd-kit MajorityVote + krippendorff + statsmodels ...", file=sys.stderr)
        peer_npz = Path(tmp) / "peer_majority.npz"
        peer = measure(
            "peer",
            [sys.executable, str(Path(__file__).resolve()), "--peer", str(db), str(peer_npz)],
        )
        print("checks ...", file=sys.stderr)
        peer_out = json.loads(peer.stdout)
        coefficient_rows, worst, coefficients_ok, compared = compare_coefficients(
            _nlibuild_coefficients(agreement.stdout), peer_out["stats"]
        )
        majority = compare_majority(db, peer_npz)
        print("nlibuild aggregate-labels --method dawid-skene ...", file=sys.stderr)
        dawid_skene = measure(
            "nlibuild aggregate-labels --method dawid-skene",
            [*with_db, "aggregate-labels", "--method", "dawid-skene"],
        )

    job_wall = aggregate.wall_s + agreement.wall_s
    job_peak = max(_mib(aggregate), _mib(agreement))
    ratio = peer.wall_s / job_wall
    inner = peer_out["inner_s"]
    imports_s = next(s for name, s in peer_out["phases"].items() if name.startswith("import"))
    table = [
        "| step | wall s | peak MiB, all processes | peak MiB, largest process "
        "| peer wall / this |",
        "|---|---:|---:|---:|---:|",
        f"| `nlibuild aggregate-labels` | {aggregate.wall_s:.2f} | {_mib(aggregate):,.0f} "
        f"| {aggregate.peak_mib:,.0f} | |",
        f"| `nlibuild stats --table agreement --by genre --format json` | {agreement.wall_s:.2f} "
        f"| {_mib(agreement):,.0f} | {agreement.peak_mib:,.0f} | |",
        f"| **nlibuild, the two above** | **{job_wall:.2f}** | **{job_peak:,.0f}** "
        f"| {max(aggregate.peak_mib, agreement.peak_mib):,.0f} | **{ratio:.1f}x** |",
        f"| peer: crowd-kit `MajorityVote` + `krippendorff.alpha` + statsmodels `fleiss_kappa` "
        f"| {peer.wall_s:.2f} | {_mib(peer):,.0f} | {peer.peak_mib:,.0f} | 1.0x |",
        f"| `nlibuild aggregate-labels --method dawid-skene` | {dawid_skene.wall_s:.2f} "
        f"| {_mib(dawid_skene):,.0f} | {dawid_skene.peak_mib:,.0f} | |",
    ]
    phases = "; ".join(f"{name} {s:.2f} s" for name, s in peer_out["phases"].items())
    peak_limit_mib = TARGET_PEAK_BYTES / 2**20

    def met(ok: bool) -> str:
        return "met" if ok else "**not met**"

    targets = [
        f"- aggregate-labels + stats within {TARGET_WALL_S:g} s: {job_wall:.2f} s, "
        f"{met(job_wall <= TARGET_WALL_S)}",
        f"- peak memory within 1 GB ({peak_limit_mib:,.0f} MiB): {job_peak:,.0f} MiB, "
        f"{met(job_peak <= peak_limit_mib)}",
        f"- at least {TARGET_RATIO:.0f}x faster than the peer: {ratio:.1f}x, "
        f"{met(ratio >= TARGET_RATIO)}",
        f"- kappa and alpha equal to the peer's within {TOLERANCE:g}: largest difference "
        f"{worst:.1e} over {compared} groups, {met(coefficients_ok)}",
        f"- Dawid-Skene under {TARGET_DS_S:.0f} s: {dawid_skene.wall_s:.2f} s, "
        f"{met(dawid_skene.wall_s < TARGET_DS_S)}",
    ]
    ds_said = dawid_skene.stdout.strip()
    ds_said = ds_said[ds_said.find("Dawid-Skene") :].split(" (run ")[0] or ds_said[:200]
    majority_rows = [f"- {name}: {value:,}" for name, value in majority.items()]
    now = dt.datetime.now().astimezone()
    facts = [
        ("Date", now.strftime("%Y-%m-%d %H:%M %Z")),
        ("File", f"{path} ({lines_in_file:,} pairs)"),
        ("Store", f"{store_mib:,.1f} MiB after import (setup, {imported.wall_s:.1f} s, "
                  "not timed)"),
        *machine_facts(),
        ("Load average at the start (1, 5, 15 min)", load),
        ("Peer", ", ".join(f"{d} {_version(d)}" for d in PEER_DEPENDENCIES)),
    ]  # fmt: skip
    notes = [
        "Wall times are whole processes: interpreter start-up and imports included, for "
        "nlibuild (two processes) and for the peer (one) alike. nlibuild's aggregate-labels "
        "also writes the gold of every pair (one column of `pair_labels`) and a run record to "
        "the store; the peer writes "
        "nothing there.",
        f"Peer phases (in-process, {inner:.2f} s of its {peer.wall_s:.2f} s wall): {phases}. "
        f"Leaving out its imports, the peer takes {peer.wall_s - imports_s:.2f} s, "
        f"{(peer.wall_s - imports_s) / job_wall:.1f}x nlibuild's wall (whose own start-up "
        "and imports stay in).",
        "Peak MiB, all processes: the largest sum of resident memory over the step's process "
        "tree, sampled every 20 ms; largest process: the exact peak of the biggest single "
        "process (rusage). For the two nlibuild steps together, the larger of the two (they "
        "run one after the other).",
        f"Dawid-Skene: {ds_said}.",
    ]
    report = "\n".join(
        [
            *(f"- {k}: {v}" for k, v in facts),
            "",
            *table,
            "",
            "Targets:",
            "",
            *targets,
            "",
            "Agreement coefficients over validated pairs, nlibuild's JSON against the peer "
            "(kappa is compared where every validated pair of the group has the same number "
            "of votes, which statsmodels assumes):",
            "",
            *coefficient_rows,
            "",
            "Majority labels, crowd-kit `MajorityVote` against nlibuild's stored gold "
            "(crowd-kit breaks a tie by its first label in sorted order; nlibuild gives `-`):",
            "",
            *majority_rows,
            "",
            *notes,
        ]
    )
    return report, lines_in_file


def append_results(report: str, pairs: int) -> None:
    heading = (
        f"## {dt.date.today().isoformat()}: aggregate-labels and agreement statistics, "
        f"{pairs:,} MNLI-style pairs"
    )
    with open(RESULTS, "a", encoding="utf-8") as handle:
        handle.write(f"\n{heading}\n\n{report}\n")
    print(f"appended to {RESULTS}", file=sys.stderr)


def _missing_peer() -> list[str]:
    missing = []
    for module, dist in (("crowdkit", "crowd-kit"), ("statsmodels", "statsmodels"),
                         ("pandas", "pandas"), ("krippendorff", "krippendorff")):  # fmt: skip
        try:
            __import__(module)
        except ImportError:
            missing.append(dist)
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Time nlibuild aggregate-labels + stats --table agreement against "
        "crowd-kit MajorityVote + krippendorff + statsmodels on the same store."
    )
    parser.add_argument(
        "--file",
        type=Path,
        help=f"The MNLI-format jsonl file (default {DEFAULT_FILE} for 1,000,000 pairs, else "
        "mnli_N.jsonl beside it).",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=1_000_000,
        help="Pairs to generate when the file does not exist (default 1000000).",
    )
    parser.add_argument(
        "--append-results", action="store_true", help=f"Also append the report to {RESULTS}."
    )
    parser.add_argument("--peer", nargs=2, metavar=("DB", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.peer:
        return peer_main(*args.peer)
    missing = _missing_peer()
    if missing:
        print(
            f"bench_aggregate: the peer needs {', '.join(missing)}: "
            f"{sys.executable} -m pip install -e '.[bench]'",
            file=sys.stderr,
        )
        return 1
    try:
        path = corpus_file(args.file, args.pairs)
        report, pairs = run_bench(path)
    except StepFailed as exc:
        print(f"bench_aggregate: {exc}", file=sys.stderr)
        return 1
    print(report)
    if args.append_results:
        append_results(report, pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
