"""Time `stats --table pmi` and `bias hypothesis-only` beside plain scikit-learn scripts.

    python bench/bench_artifacts.py [--file PATH] [--pairs 1000000] [--small-pairs 120000]
                                    [--dev 10000] [--test 10000] [--profile] [--append-results]

The corpus is bench/gen_cues.py's: nlibuild jsonl with cue words planted in the hypotheses
(negators for contradiction, "only" under MULTI_CONSTRAINT, some/at least/outdoors for
entailment, tall/first/because for neutral), generated when missing as
/tmp/nlibuild-bench/cues_1m.jsonl (cues_N.jsonl for other --pairs), seed 7.

Setup, not timed: a fresh store (`nlibuild init --preset mnli`), `import FILE --format
jsonl`, `aggregate-labels` (the gold label of every pair with 3 of 5 votes, as the file's
own gold_label), in a temporary folder next to the file, removed afterwards; the store is
read once so that the timed steps find it in the page cache. For the peer, the protocol,
gold label and hypothesis of every line of the file are written to a plain tsv.

Timed, each as a whole process (wall from process start to exit, interpreter start-up and
imports included; peak resident memory of the process tree, as bench_import.py measures
it):

1. `nlibuild stats --table pmi --by protocol --format json` on the full store (aim: under
   20 s and 2 GB at 1,000,000 pairs);
2. the PMI peer: one process that reads the tsv, counts words per hypothesis with
   scikit-learn's `CountVectorizer(binary=True, lowercase=True, token_pattern=WORD)` (WORD
   is nlibuild's word rule: runs of letters, digits and marks, inner apostrophes kept),
   sums the word-by-label table of each group (all pairs, then each protocol) with one
   sparse product, and computes the add-k smoothed PMI (Gururangan et al. 2018) with
   numpy, ranking as nlibuild does (PMI rounded to 12 digits, then count, word and label)
   among words in at least --min-count hypotheses of the group. Pairs whose gold is `-`
   are left out, as nlibuild does. Its top rows must equal nlibuild's: the same words,
   labels and counts, PMI within 1e-9. The same check is made on `stats --table pmi --by
   protocol --per-label` (run once, not timed), whose top contradiction word per protocol
   is the planted-cue sanity check: a negator for SINGLE, MULTI and MULTI_ENCOURAGE,
   "only" for MULTI_CONSTRAINT.

Then a second store of the first --small-pairs lines of the same file (setup as above, then
`nlibuild split --dev N --test N`, and `nlibuild export --format jsonl --split train|dev`
for the peer; not timed):

3. `nlibuild bias hypothesis-only --train train --eval dev --format json` (aim: under 60 s
   with about 100,000 training pairs on 2 cores);
4. the classifier peer: one process that reads the two exported files, drops pairs without
   gold, and fits the pipeline nlibuild documents (TF-IDF over word 1-2-grams and
   char_wb 2-4-grams, sublinear tf, min_df 2, at most 200,000 character features, float32;
   LogisticRegression(C=1, tol=1e-3), lbfgs) on the training hypotheses directly,
   then scores dev; its accuracy and majority baseline are compared with nlibuild's.

With --profile, both nlibuild commands are run once more under cProfile (not timed) and
the top of each profile is reported. Prints a markdown report (machine, table, checks,
targets, peer phases); `--append-results` adds it under a dated heading to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
from bench_import import (
    BENCH_DIR,
    DEFAULT_FILE,
    RESULTS,
    ROOT,
    Measured,
    StepFailed,
    _version,
    _warm_cache,
    machine_facts,
    measure,
)
from gen_cues import ENTAILMENT_CUES, NEGATORS, NEUTRAL_CUES

DEFAULT_CUES = DEFAULT_FILE.with_name("cues_1m.jsonl")
NLI_LABELS = ("entailment", "neutral", "contradiction")
WORD_PATTERN = r"[^\W_]+(?:'[^\W_]+)*"
"""nlibuild's word: a run of letters, digits and marks (word characters but the underscore)
with inner apostrophes (don't, nobody's)."""
SMOOTHING = 100.0
MIN_COUNT = 20
PMI_TOLERANCE = 1e-9
TARGET_PMI_S = 20.0
TARGET_PMI_BYTES = 2 * 10**9
TARGET_BIAS_S = 60.0
ACCURACY_TOLERANCE = 0.005
"""How far the peer's accuracy may be from nlibuild's (the same pipeline on the same pairs;
only the order of the training rows may differ)."""
SEED = 13
PROFILE_TOP = 25
CONSTRAINED = "MULTI_CONSTRAINT"
PLANTED = {
    "entailment": {w for entry in ENTAILMENT_CUES for w in entry.split()},
    "neutral": set(NEUTRAL_CUES),
    "contradiction": set(NEGATORS),
}
"""The cue words gen_cues.py plants per label (outside MULTI_CONSTRAINT's contradictions)."""


# --- the peers: run in child processes ---------------------------------------------------


class _Laps:
    """Seconds per phase of a peer, printed with its result."""

    def __init__(self) -> None:
        self.started = self.last = time.perf_counter()
        self.phases: dict[str, float] = {}

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name] = now - self.last
        self.last = now

    def inner_s(self) -> float:
        return self.last - self.started


def peer_pmi_main(tsv: str, top: int, smoothing: float, min_count: int) -> int:
    """PMI of (word, gold label) per group with CountVectorizer + numpy; prints JSON with
    the top rows overall and per label of every group ("all", then each protocol)."""
    laps = _Laps()
    import numpy as np
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    laps("import numpy, scipy, scikit-learn")
    groups: list[str] = []
    labels: list[str] = []
    texts: list[str] = []
    with open(tsv, encoding="utf-8") as handle:
        for line in handle:
            group, label, text = line.rstrip("\n").split("\t", 2)
            if label in NLI_LABELS:
                groups.append(group)
                labels.append(label)
                texts.append(text)
    laps("read the tsv (pairs with a gold label)")

    vectorizer = CountVectorizer(
        binary=True, lowercase=True, token_pattern=WORD_PATTERN, dtype=np.int64
    )
    x = vectorizer.fit_transform(texts)
    words = vectorizer.get_feature_names_out()
    laps("CountVectorizer(binary=True).fit_transform")

    names = ["all", *sorted(set(groups))]
    code = {name: i for i, name in enumerate(names)}
    label_code = {label: i for i, label in enumerate(NLI_LABELS)}
    c = len(NLI_LABELS)
    n = len(texts)
    group_rows = np.fromiter(
        (code[g] * c + label_code[y] for g, y in zip(groups, labels, strict=True)),
        dtype=np.int64,
        count=n,
    )
    label_rows = np.fromiter((label_code[y] for y in labels), dtype=np.int64, count=n)
    # Every pair adds its words to its own group's row of its label and to "all"'s.
    select = sp.csr_matrix(
        (
            np.ones(2 * n, dtype=np.int64),
            (np.concatenate([label_rows, group_rows]), np.tile(np.arange(n), 2)),
        ),
        shape=(len(names) * c, n),
    )
    table = (select @ x).toarray().reshape(len(names), c, -1)
    laps("word-by-label table per group (one sparse product)")

    k = float(smoothing)
    overall: list[dict[str, Any]] = []
    per_label: list[dict[str, Any]] = []
    pairs: dict[str, int] = {}
    for g, name in enumerate(names):
        counts = table[g]
        word_counts = counts.sum(axis=0)
        present = word_counts > 0
        vocabulary = int(present.sum())
        total = int(counts.sum())
        label_counts = counts.sum(axis=1)
        pairs[name] = int((group_rows // c == g).sum()) if g else n
        pmi = np.log((counts + k) * (total + c * vocabulary * k)) - np.log(
            (word_counts + c * k)[None, :] * (label_counts + vocabulary * k)[:, None]
        )
        ranked = (counts > 0) & (word_counts >= min_count)[None, :]
        label_of, word_of = np.nonzero(ranked)
        found = [
            {
                "group": name,
                "word": str(words[w]),
                "label": NLI_LABELS[y],
                "pmi": float(pmi[y, w]),
                "count": int(counts[y, w]),
                "word_count": int(word_counts[w]),
            }
            for y, w in zip(label_of.tolist(), word_of.tolist(), strict=True)
        ]
        found.sort(
            key=lambda r: (-round(r["pmi"], 12), -r["count"], r["word"], label_code[r["label"]])
        )
        overall += [dict(r, rank=i + 1) for i, r in enumerate(found[:top])]
        for label in NLI_LABELS:
            mine = [r for r in found if r["label"] == label][:top]
            per_label += [dict(r, rank=i + 1) for i, r in enumerate(mine)]
    laps("PMI, rank and the top rows per group (numpy)")
    print(
        json.dumps(
            {
                "phases": laps.phases,
                "inner_s": laps.inner_s(),
                "pairs": pairs,
                "overall": overall,
                "per_label": per_label,
            }
        )
    )
    return 0


def peer_bias_main(train: str, dev: str, seed: int) -> int:
    """The hypothesis-only pipeline fitted directly on the exported train split; prints
    JSON with dev accuracy, the majority baseline and the phases."""
    laps = _Laps()
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import FeatureUnion, Pipeline

    laps("import numpy, scikit-learn")

    def read(path: str) -> tuple[list[str], list[str]]:
        texts, labels = [], []
        with open(path, "rb") as handle:
            for line in handle:
                record = orjson.loads(line)
                if record["gold_label"] in NLI_LABELS:
                    texts.append(record["hypothesis"])
                    labels.append(record["gold_label"])
        return texts, labels

    train_x, train_y = read(train)
    dev_x, dev_y = read(dev)
    laps("read the exported train and dev jsonl (pairs with a gold label)")
    words = TfidfVectorizer(
        token_pattern=WORD_PATTERN,
        ngram_range=(1, 2),
        lowercase=True,
        min_df=2,
        sublinear_tf=True,
        dtype=np.float32,
    )
    chars = TfidfVectorizer(
        analyzer="char_wb",
        ngram_range=(2, 4),
        lowercase=True,
        min_df=2,
        sublinear_tf=True,
        dtype=np.float32,
        max_features=200_000,
    )
    features = FeatureUnion([("words", words), ("chars", chars)])
    model = Pipeline(
        [
            ("features", features),
            ("model", LogisticRegression(C=1.0, tol=1e-3, max_iter=1000, random_state=seed)),
        ]
    )
    matrix = features.fit_transform(train_x)
    laps("TF-IDF features of the training hypotheses (fit_transform)")
    model.named_steps["model"].fit(matrix, train_y)
    laps("LogisticRegression.fit")
    predicted = model.predict(dev_x)
    laps("predict dev")
    truth = np.asarray(dev_y)
    values, counts = np.unique(np.asarray(train_y), return_counts=True)
    majority = str(values[counts.argmax()])
    print(
        json.dumps(
            {
                "phases": laps.phases,
                "inner_s": laps.inner_s(),
                "train_pairs": len(train_y),
                "dev_pairs": len(dev_y),
                "features": int(matrix.shape[1]),
                "accuracy": float((predicted == truth).mean()),
                "majority_label": majority,
                "majority_accuracy": float((truth == majority).mean()),
            }
        )
    )
    return 0


# --- setup ------------------------------------------------------------------------------


def cues_file(file: Path | None, pairs: int) -> Path:
    """The corpus: `file`, else the cached gen_cues.py file of `pairs` pairs (made when
    missing)."""
    if file is not None:
        return file.resolve()
    path = DEFAULT_CUES if pairs == 1_000_000 else DEFAULT_CUES.with_name(f"cues_{pairs}.jsonl")
    if not path.exists():
        print(f"{path} not found: generating {pairs:,} pairs with gen_cues.py ...", file=sys.stderr)
        path.parent.mkdir(parents=True, exist_ok=True)
        gen = [sys.executable, str(BENCH_DIR / "gen_cues.py"), str(path), "--pairs", str(pairs)]
        print(measure("generate", gen).stderr.strip(), file=sys.stderr)
    return path


def first_lines(path: Path, lines: int, out: Path) -> int:
    """Copy the first `lines` lines of `path` to `out`; return how many there were."""
    copied = 0
    with open(path, "rb") as source, open(out, "wb") as target:
        for line in source:
            if copied == lines:
                break
            target.write(line)
            copied += 1
    return copied


def write_peer_tsv(path: Path, out: Path) -> int:
    """protocol, gold label, hypothesis of every line (the file's gold_label is the 3-of-5
    majority, which aggregate-labels stores; a changed label would show in the counts)."""
    written = 0
    with open(path, "rb") as source, open(out, "w", encoding="utf-8") as target:
        for line in source:
            record = orjson.loads(line)
            hypothesis = record["hypothesis"].replace("\t", " ").replace("\n", " ")
            target.write(f"{record.get('protocol') or '-'}\t{record['gold_label']}\t{hypothesis}\n")
            written += 1
    return written


def make_store(db: Path, corpus: Path) -> float:
    """init, import and aggregate-labels (not timed); return the import's wall seconds."""
    with_db = [sys.executable, "-m", "nlibuild", "--db", str(db)]
    measure("nlibuild init", [*with_db, "init", "--preset", "mnli"])
    imported = measure("nlibuild import", [*with_db, "import", str(corpus), "--format", "jsonl"])
    measure("nlibuild aggregate-labels", [*with_db, "aggregate-labels"])
    return imported.wall_s


def _store_mib(db: Path) -> float:
    return sum(f.stat().st_size for f in db.parent.glob(db.name + "*")) / 2**20


def _warm_store(db: Path) -> None:
    for file in db.parent.glob(db.name + "*"):
        _warm_cache(file)


def profile(nlibuild_args: list[str], out: Path) -> str:
    """Run nlibuild under cProfile (in a child); the top functions by cumulative and by
    own time, leaving out the CLI's wrappers."""
    measure(
        "profile",
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "nlibuild", *nlibuild_args],
    )
    text = io.StringIO()
    stats = pstats.Stats(str(out), stream=text)
    stats.sort_stats(pstats.SortKey.CUMULATIVE)
    stats.print_stats(r"nlibuild|sklearn|polars|sqlite", PROFILE_TOP)
    stats.sort_stats(pstats.SortKey.TIME)
    stats.print_stats(PROFILE_TOP // 2)
    site = next((p for p in sys.path if p.endswith("site-packages")), None)
    kept = []
    for line in text.getvalue().splitlines():
        if not line.strip() or line.lstrip().startswith(("Ordered by", "List reduced", str(out))):
            continue
        if site:
            line = line.replace(site + os.sep, "")
        kept.append(line.replace(str(ROOT) + os.sep, ""))
    return "\n".join(kept)


# --- checks -----------------------------------------------------------------------------


def compare_pmi(
    ours: list[dict[str, Any]], theirs: list[dict[str, Any]], per_label: bool
) -> tuple[list[str], float, bool]:
    """Row by row: same word, label and counts, PMI within the tolerance. Returns table
    rows, the largest PMI difference and whether everything agrees."""

    def key(row: dict[str, Any]) -> tuple[str, str, int]:
        return (row["group"], row["label"] if per_label else "", row["rank"])

    mine = {key(r): r for r in ours}
    peer = {key(r): r for r in theirs}
    order = {label: i for i, label in enumerate(NLI_LABELS)}
    keys = sorted(
        set(mine) | set(peer), key=lambda k: (k[0] != "all", k[0], order.get(k[1], -1), k[2])
    )
    rows = [
        "| group | rank | word | label | count / word count | PMI, nlibuild | peer | diff |",
        "|---|---:|---|---|---:|---:|---:|---:|",
    ]
    worst = 0.0
    ok = bool(keys)
    for k in keys:
        a, b = mine.get(k), peer.get(k)
        if a is None or b is None:
            ok = False
            row = a or b
            assert row is not None
            side = "peer only" if a is None else "nlibuild only"
            rows.append(
                f"| {k[0]} | {k[2]} | {row['word']} | {row['label']} "
                f"| {row['count']}/{row['word_count']} | {side} | | |"
            )
            continue
        same = all(a[f] == b[f] for f in ("word", "label", "count", "word_count"))
        diff = abs(a["pmi"] - b["pmi"])
        worst = max(worst, diff) if same else worst
        ok &= same and diff <= PMI_TOLERANCE
        peer_word = (
            "" if same else f" (peer: {b['word']}, {b['label']}, {b['count']}/{b['word_count']})"
        )
        rows.append(
            f"| {k[0]} | {k[2]} | {a['word']}{peer_word} | {a['label']} "
            f"| {a['count']:,}/{a['word_count']:,} | {a['pmi']:.6f} | {b['pmi']:.6f} "
            f"| {diff:.1e} |"
        )
    return rows, worst, ok


def planted_check(per_label: list[dict[str, Any]]) -> tuple[list[str], bool]:
    """The top word of each label per protocol against the words gen_cues.py plants."""
    top: dict[tuple[str, str], str] = {}
    for row in per_label:
        if row["rank"] == 1:
            top[(row["group"], row["label"])] = row["word"]
    groups = sorted({g for g, _ in top}, key=lambda g: (g != "all", g))
    rows = [
        "| group | top entailment word | top neutral word | top contradiction word | planted? |",
        "|---|---|---|---|---|",
    ]
    ok = True
    for group in groups:
        expected = dict(PLANTED)
        if group == CONSTRAINED:
            expected["contradiction"] = {"only"}
        found = [top.get((group, label), "") for label in NLI_LABELS]
        good = all(w in expected[label] for w, label in zip(found, NLI_LABELS, strict=True))
        if group != "all":  # all pairs mix the protocols: "only" or a negator
            ok &= good
        rows.append(f"| {group} | {' | '.join(found)} | {'yes' if good else '**no**'} |")
    return rows, ok


# --- the benchmark ----------------------------------------------------------------------


def _json_rows(stdout: str) -> list[dict[str, Any]]:
    return json.loads(stdout[stdout.index("[") :])


def run_bench(
    path: Path, small_pairs: int, dev: int, test: int, top: int, with_profile: bool
) -> tuple[str, int]:
    """Measure the steps; return the markdown report and the number of pairs."""
    with open(path, "rb") as handle:
        lines_in_file = sum(1 for _ in handle)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    me = str(Path(__file__).resolve())
    nlibuild = [sys.executable, "-m", "nlibuild"]
    profiles: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="nlibuild-bench-", dir=path.parent) as tmp_name:
        tmp = Path(tmp_name)
        db = tmp / "full.db"
        with_db = [*nlibuild, "--db", str(db)]
        print(
            f"setup: init + import + aggregate-labels of {path.name} (not timed) ...",
            file=sys.stderr,
        )
        import_s = make_store(db, path)
        full_mib = _store_mib(db)
        peer_tsv = tmp / "hypotheses.tsv"
        write_peer_tsv(path, peer_tsv)
        _warm_store(db)
        _warm_cache(peer_tsv)

        pmi_args = [
            "stats",
            "--table",
            "pmi",
            "--by",
            "protocol",
            "--top",
            str(top),
            "--smoothing",
            str(SMOOTHING),
            "--min-count",
            str(MIN_COUNT),
        ]
        print("nlibuild stats --table pmi --by protocol ...", file=sys.stderr)
        pmi = measure("nlibuild stats --table pmi", [*with_db, *pmi_args, "--format", "json"])
        print(f"  {pmi.wall_s:.2f} s, {pmi.tree_peak_mib:,.0f} MiB", file=sys.stderr)
        print("peer: CountVectorizer + numpy PMI ...", file=sys.stderr)
        peer_pmi = measure(
            "peer PMI",
            [
                sys.executable,
                me,
                "--peer-pmi",
                str(peer_tsv),
                str(top),
                str(SMOOTHING),
                str(MIN_COUNT),
            ],
        )
        print(f"  {peer_pmi.wall_s:.2f} s, {peer_pmi.tree_peak_mib:,.0f} MiB", file=sys.stderr)
        per_label = measure(
            "nlibuild stats --table pmi --per-label",
            [*with_db, *pmi_args, "--per-label", "--format", "json"],
        )
        if with_profile:
            print("profile: stats --table pmi ...", file=sys.stderr)
            profiles.append(
                (
                    f"`stats --table pmi --by protocol --format json`, {lines_in_file:,} pairs",
                    profile(["--db", str(db), *pmi_args, "--format", "json"], tmp / "pmi.prof"),
                )
            )

        small = tmp / "small.jsonl"
        small_lines = first_lines(path, small_pairs, small)
        sdb = tmp / "small.db"
        with_sdb = [*nlibuild, "--db", str(sdb)]
        print(
            f"setup: store of the first {small_lines:,} pairs, split, export (not timed) ...",
            file=sys.stderr,
        )
        make_store(sdb, small)
        split = measure(
            "nlibuild split",
            [*with_sdb, "split", "--dev", str(dev), "--test", str(test), "--seed", str(SEED)],
        )
        exported = {}
        for name in ("train", "dev"):
            exported[name] = tmp / f"{name}.jsonl"
            measure(
                f"nlibuild export --split {name}",
                [
                    *with_sdb,
                    "export",
                    "--out",
                    str(exported[name]),
                    "--format",
                    "jsonl",
                    "--split",
                    name,
                ],
            )
            _warm_cache(exported[name])
        _warm_store(sdb)
        bias_args = [
            "bias",
            "hypothesis-only",
            "--train",
            "train",
            "--eval",
            "dev",
            "--seed",
            str(SEED),
        ]
        print("nlibuild bias hypothesis-only ...", file=sys.stderr)
        bias = measure("nlibuild bias hypothesis-only", [*with_sdb, *bias_args, "--format", "json"])
        print(f"  {bias.wall_s:.2f} s, {bias.tree_peak_mib:,.0f} MiB", file=sys.stderr)
        print("peer: TfidfVectorizer + LogisticRegression ...", file=sys.stderr)
        peer_bias = measure(
            "peer hypothesis-only",
            [
                sys.executable,
                me,
                "--peer-bias",
                str(exported["train"]),
                str(exported["dev"]),
                str(SEED),
            ],
        )
        print(f"  {peer_bias.wall_s:.2f} s, {peer_bias.tree_peak_mib:,.0f} MiB", file=sys.stderr)
        if with_profile:
            print("profile: bias hypothesis-only ...", file=sys.stderr)
            profiles.append(
                (
                    f"`bias hypothesis-only --train train --eval dev --format json`, "
                    f"{small_lines:,} pairs",
                    profile(["--db", str(sdb), *bias_args, "--format", "json"], tmp / "bias.prof"),
                )
            )

    report = _report(
        path=path,
        lines_in_file=lines_in_file,
        small_lines=small_lines,
        load=load,
        setup=(import_s, full_mib, split.stdout.strip()),
        pmi=pmi,
        peer_pmi=peer_pmi,
        per_label=per_label,
        bias=bias,
        peer_bias=peer_bias,
        profiles=profiles,
    )
    return report, lines_in_file


def _report(
    *,
    path: Path,
    lines_in_file: int,
    small_lines: int,
    load: str,
    setup: tuple[float, float, str],
    pmi: Measured,
    peer_pmi: Measured,
    per_label: Measured,
    bias: Measured,
    peer_bias: Measured,
    profiles: list[tuple[str, str]],
) -> str:
    import_s, full_mib, split_said = setup
    ours_rows = _json_rows(pmi.stdout)
    ours_per_label = _json_rows(per_label.stdout)
    peer_out = json.loads(peer_pmi.stdout)
    overall_rows, worst, overall_ok = compare_pmi(ours_rows, peer_out["overall"], False)
    label_rows, worst_label, label_ok = compare_pmi(ours_per_label, peer_out["per_label"], True)
    planted_rows, planted_ok = planted_check(ours_per_label)
    ours_pairs = {r["group"]: r["pairs"] for r in ours_rows}
    pairs_ok = ours_pairs == peer_out["pairs"]

    bias_rows = _json_rows(bias.stdout)
    ours_acc = next(r for r in bias_rows if r["eval"] == "dev" and r["group_by"] == "all")
    peer_acc = json.loads(peer_bias.stdout)
    acc_diff = abs(ours_acc["accuracy"] - peer_acc["accuracy"])

    def met(ok: bool) -> str:
        return "met" if ok else "**not met**"

    def mib(m: Measured) -> str:
        return f"{m.tree_peak_mib:,.0f}"

    table = [
        "| step | wall s | peak MiB, all processes | peak MiB, largest process "
        "| peer wall / nlibuild wall |",
        "|---|---:|---:|---:|---:|",
        f"| `nlibuild stats --table pmi --by protocol --format json` ({lines_in_file:,} pairs) "
        f"| {pmi.wall_s:.2f} | {mib(pmi)} | {pmi.peak_mib:,.0f} "
        f"| {peer_pmi.wall_s / pmi.wall_s:.2f}x |",
        f"| peer: `CountVectorizer(binary=True)` + numpy PMI, same pairs from a tsv "
        f"| {peer_pmi.wall_s:.2f} | {mib(peer_pmi)} | {peer_pmi.peak_mib:,.0f} | 1.00x |",
        f"| `nlibuild bias hypothesis-only --train train --eval dev --format json` "
        f"({ours_acc['pairs']:,} dev pairs) | {bias.wall_s:.2f} | {mib(bias)} "
        f"| {bias.peak_mib:,.0f} | {peer_bias.wall_s / bias.wall_s:.2f}x |",
        f"| peer: the same TF-IDF + LogisticRegression on the exported train/dev jsonl "
        f"({peer_acc['train_pairs']:,} training pairs) | {peer_bias.wall_s:.2f} "
        f"| {mib(peer_bias)} | {peer_bias.peak_mib:,.0f} | 1.00x |",
    ]
    accuracy = [
        "| | dev accuracy | interval | majority label | majority accuracy | features |",
        "|---|---:|---:|---|---:|---:|",
        f"| nlibuild | {ours_acc['accuracy']:.4f} | {ours_acc['low']:.4f}-{ours_acc['high']:.4f} "
        f"| {ours_acc['majority_label']} | {ours_acc['majority_accuracy']:.4f} | |",
        f"| peer | {peer_acc['accuracy']:.4f} | | {peer_acc['majority_label']} "
        f"| {peer_acc['majority_accuracy']:.4f} | {peer_acc['features']:,} |",
    ]
    limit_mib = TARGET_PMI_BYTES / 2**20
    targets = [
        f"- `stats --table pmi` within {TARGET_PMI_S:.0f} s: {pmi.wall_s:.2f} s, "
        f"{met(pmi.wall_s <= TARGET_PMI_S)}",
        f"- `stats --table pmi` within 2 GB ({limit_mib:,.0f} MiB): {mib(pmi)} MiB, "
        f"{met(pmi.tree_peak_mib <= limit_mib)}",
        f"- top rows equal to the peer's (words, labels, counts; PMI within "
        f"{PMI_TOLERANCE:g}): overall largest difference {worst:.1e}, {met(overall_ok)}; "
        f"per label {worst_label:.1e}, {met(label_ok)}; pairs per group "
        f"{met(pairs_ok)}",
        f"- planted cues on top (negator for contradiction, 'only' under {CONSTRAINED}): "
        f"{met(planted_ok)}",
        f"- `bias hypothesis-only` within {TARGET_BIAS_S:.0f} s: {bias.wall_s:.2f} s, "
        f"{met(bias.wall_s <= TARGET_BIAS_S)}",
        f"- dev accuracy equal to the peer's within {ACCURACY_TOLERANCE:g}: "
        f"{ours_acc['accuracy']:.4f} against {peer_acc['accuracy']:.4f} "
        f"(difference {acc_diff:.4f}), {met(acc_diff <= ACCURACY_TOLERANCE)}; "
        f"far from trivial and above the majority: "
        f"{met(ours_acc['majority_accuracy'] + 0.1 < ours_acc['accuracy'] < 0.9)}",
    ]

    def phases(out: dict[str, Any]) -> str:
        return "; ".join(f"{name} {s:.2f} s" for name, s in out["phases"].items())

    now = dt.datetime.now().astimezone()
    facts = [
        ("Date", now.strftime("%Y-%m-%d %H:%M %Z")),
        (
            "File",
            f"{path} ({lines_in_file:,} pairs); the classifier's store holds its first "
            f"{small_lines:,}",
        ),
        (
            "Setup, not timed",
            f"import {import_s:.1f} s, store {full_mib:,.0f} MiB after "
            f"aggregate-labels; {split_said.split(' (run ')[0]}",
        ),
        *machine_facts(),
        ("Load average at the start (1, 5, 15 min)", load),
        (
            "Peer",
            f"scikit-learn {_version('scikit-learn')}, numpy {_version('numpy')}, "
            f"scipy {_version('scipy')}",
        ),
    ]
    notes = [
        "Wall times are whole processes, interpreter start-up and imports included, for "
        "nlibuild and the peers alike. nlibuild reads the store and records a run; the "
        "peers read plain files written in the setup.",
        f"PMI peer phases ({peer_out['inner_s']:.2f} s in-process): {phases(peer_out)}.",
        f"Classifier peer phases ({peer_acc['inner_s']:.2f} s in-process): {phases(peer_acc)}.",
        "Peak MiB, all processes: the largest sum of resident memory over the step's process "
        "tree, sampled every 20 ms; largest process: the exact peak of the biggest single "
        "process (rusage).",
    ]
    sections = [
        *(f"- {k}: {v}" for k, v in facts),
        "",
        *table,
        "",
        "Targets:",
        "",
        *targets,
        "",
        "Top (word, label) pairs by PMI, nlibuild's JSON beside the peer's:",
        "",
        *overall_rows,
        "",
        "Top contradiction, entailment and neutral words (`--per-label`, rank 1) against the "
        "planted cues:",
        "",
        *planted_rows,
        "",
        "Hypothesis-only accuracy on dev:",
        "",
        *accuracy,
        "",
        *notes,
    ]
    if not label_ok:
        sections += ["", "Per-label rows (`--per-label`), where they differ:", "", *label_rows]
    for title, text in profiles:
        sections += ["", f"Profile of {title} (cProfile, not timed):", "", "```", text, "```"]
    return "\n".join(sections)


def append_results(report: str, pairs: int) -> None:
    heading = (
        f"## {dt.date.today().isoformat()}: annotation artifacts (PMI, hypothesis-only), "
        f"{pairs:,} pairs with planted cues"
    )
    with open(RESULTS, "a", encoding="utf-8") as handle:
        handle.write(f"\n{heading}\n\n{report}\n")
    print(f"appended to {RESULTS}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Time nlibuild stats --table pmi and bias hypothesis-only against "
        "plain scikit-learn scripts on the same pairs."
    )
    parser.add_argument(
        "--file", type=Path, help=f"nlibuild jsonl with planted cues (default {DEFAULT_CUES})."
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=1_000_000,
        help="Pairs to generate when the file is missing (default 1000000).",
    )
    parser.add_argument(
        "--small-pairs",
        type=int,
        default=120_000,
        help="First pairs of the file in the classifier's store (default 120000).",
    )
    parser.add_argument("--dev", type=int, default=10_000, help="Dev pairs (default 10000).")
    parser.add_argument("--test", type=int, default=10_000, help="Test pairs (default 10000).")
    parser.add_argument("--top", type=int, default=3, help="PMI rows per group (default 3).")
    parser.add_argument("--profile", action="store_true", help="Also profile both commands.")
    parser.add_argument(
        "--append-results", action="store_true", help=f"Also append the report to {RESULTS}."
    )
    parser.add_argument("--peer-pmi", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--peer-bias", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.peer_pmi:
        tsv, top, smoothing, min_count = args.peer_pmi
        return peer_pmi_main(tsv, int(top), float(smoothing), int(min_count))
    if args.peer_bias:
        train, dev, seed = args.peer_bias
        return peer_bias_main(train, dev, int(seed))
    try:
        path = cues_file(args.file, args.pairs)
        report, pairs = run_bench(
            path, args.small_pairs, args.dev, args.test, args.top, args.profile
        )
    except StepFailed as exc:
        print(f"bench_artifacts: {exc}", file=sys.stderr)
        return 1
    print(report)
    if args.append_results:
        append_results(report, pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
