"""`nlibuild score report`: checkpoint selection and Keung et al. 2020's statistics,
checked against series computed by hand.

The hand series: three seeds x six checkpoints x two languages (en, the training
language, and de), every split 1000 rows, so a count of 655 is accuracy 0.655.

The statistics are read from `score_report`'s model in-process; `score report` is a reading
command, not a stage, with no method of the Python API, so its tables and Error lines are
checked through the CLI.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import compact_table, fails, json_rows, ok, ok_result, query
from score_tables import add_checkpoint, add_job, add_run

import nlibuild
from nlibuild.models import ScoreReport, ScoreReportConfig, SelectRule
from nlibuild.queries.score_results import score_jobs, whole_accuracy
from nlibuild.scores.score_report import job_series, score_report, selected_position
from nlibuild.scoring import job_files
from nlibuild.store import Store

SERIES = {
    1: {("en", "dev"): [700, 750, 780, 780, 770, 760],  # best: 2 (tied with 3: earliest)
        ("de", "dev"): [600, 640, 650, 670, 670, 660],  # best: 3 (tied with 4)
        ("en", "test"): [690, 745, 775, 779, 771, 765],
        ("de", "test"): [590, 630, 655, 665, 680, 662]},  # best: 4
    2: {("en", "dev"): [710, 760, 770, 790, 785, 790],  # best: 3 (tied with 5)
        ("de", "dev"): [610, 650, 660, 655, 675, 672],  # best: 4
        ("en", "test"): [700, 755, 768, 785, 783, 788],
        ("de", "test"): [600, 640, 662, 650, 671, 673]},  # best: 5
    3: {("en", "dev"): [690, 740, 785, 770, 775, 780],  # best: 2
        ("de", "dev"): [605, 645, 648, 668, 662, 664],  # best: 3
        ("en", "test"): [685, 742, 781, 771, 773, 776],
        ("de", "test"): [595, 635, 640, 669, 663, 661]},  # best: 3
}  # fmt: skip

SELECTED_BY_HAND = {  # seed -> rule -> checkpoint picked for target de
    1: {"en-dev": 2, "target-dev": 3, "oracle": 4, "last": 5},
    2: {"en-dev": 3, "target-dev": 4, "oracle": 5, "last": 5},
    3: {"en-dev": 2, "target-dev": 3, "oracle": 3, "last": 5},
}


def add_series(db: Path, run_id: int, seed: int, series: dict[tuple[str, str], list[int]],
               total: int = 1000, model: str = "models/tiny") -> int:  # fmt: skip
    job = add_job(db, run_id, f"tiny-zero-shot-s{seed}", seed=seed, model=model)
    for idx in range(len(next(iter(series.values())))):
        add_checkpoint(db, job, idx, {key: (counts[idx], total) for key, counts in series.items()})
    return job


@pytest.fixture
def hand_db(db: Path) -> Path:
    run_id = add_run(db)
    for seed, series in SERIES.items():
        add_series(db, run_id, seed, series)
    return db


def report_of(db: Path, **settings: object) -> ScoreReport:
    with Store.open(db) as store:
        return score_report(store, ScoreReportConfig.model_validate(settings))


def test_each_rule_picks_the_checkpoint_worked_out_by_hand(hand_db: Path) -> None:
    with Store.open(hand_db) as store:
        run_id = int(query(hand_db, "SELECT max(id) FROM runs")[0][0])
        jobs = {job.seed: job_series(job, whole_accuracy(store, job.pk))
                for job in score_jobs(store, run_id)}  # fmt: skip
    for seed, rules in SELECTED_BY_HAND.items():
        picked = {rule.value: selected_position(jobs[seed], rule, "de") for rule in SelectRule}
        assert picked == rules, seed


def test_test_accuracy_under_each_rule_is_the_mean_over_seeds(hand_db: Path) -> None:
    report = report_of(hand_db)

    accuracy = {(r.lang, r.select): r.accuracy for r in report.accuracy}
    assert accuracy == pytest.approx({
        ("de", "en-dev"): (655 + 650 + 640) / 3000,
        ("de", "target-dev"): (665 + 671 + 669) / 3000,
        ("de", "oracle"): (680 + 673 + 669) / 3000,
        ("de", "last"): (662 + 673 + 661) / 3000,
        # in the training language, target dev is En dev
        ("en", "en-dev"): (775 + 785 + 781) / 3000,
        ("en", "target-dev"): (775 + 785 + 781) / 3000,
        ("en", "oracle"): (779 + 788 + 781) / 3000,
        ("en", "last"): (765 + 788 + 776) / 3000,
    })  # fmt: skip
    assert {r.seeds for r in report.accuracy} == {3}
    assert [r.lang for r in report.accuracy][:4] == ["en"] * 4  # the training language first


def test_table_5_gap_table_2_spread_and_the_transfer_gap(hand_db: Path) -> None:
    report = report_of(hand_db)

    gap = {r.lang: r for r in report.gaps}["de"]
    assert gap.target_dev_gain == pytest.approx(60 / 3000)
    assert gap.oracle_gain == pytest.approx(77 / 3000)
    spread = {r.lang: (r.min, r.max, r.spread) for r in report.spread}
    assert spread == {
        "de": pytest.approx((0.640, 0.655, 0.015)),
        "en": pytest.approx((0.775, 0.785, 0.010)),
    }
    (transfer,) = report.transfer
    assert (transfer.train_lang, transfer.select) == ("en", "en-dev")
    assert transfer.gap == pytest.approx((2341 - 1945) / 3000)
    (last,) = report_of(hand_db, select="last").transfer
    assert last.gap == pytest.approx((2329 - 1996) / 3000)


def test_directional_agreement_counts_pairs_that_change_half_a_point(db: Path) -> None:
    # target test changes: (0,1) +10, (0,2) +3 (left out), (0,3) +5 (exactly 0.5 points:
    # in), (1,2) -7, (1,3) -5, (2,3) +2 (left out): 4 pairs
    add_series(db, add_run(db), 1, {
        ("de", "test"): [600, 610, 603, 605],
        ("en", "dev"): [700, 690, 695, 705],  # same way only on (0,3): 1 of 4
        ("de", "dev"): [600, 620, 610, 625],  # same way on all but (1,3): 3 of 4
        ("en", "test"): [700, 700, 700, 700],
    })  # fmt: skip
    row = {r.lang: r for r in report_of(db).agreement}["de"]
    assert (row.pairs, row.sampled) == (4, 4)
    assert (row.en_dev, row.target_dev) == (0.25, 0.75)

    sampled = {r.lang: r for r in report_of(db, max_pairs=2).agreement}["de"]
    assert (sampled.pairs, sampled.sampled) == (4, 2)
    again = {r.lang: r for r in report_of(db, max_pairs=2).agreement}["de"]
    assert again == sampled


def test_a_missing_job_folder_leaves_the_interval_out_and_says_so(hand_db: Path) -> None:
    report = report_of(hand_db)

    assert all(r.low is None and r.high is None for r in report.accuracy)
    assert any("interval left out" in note and "tiny-zero-shot-s1" in note
               for note in report.notes)  # fmt: skip


# --- the bootstrap over test rows ---------------------------------------------------------


def write_scored_jobs(db: Path, shuffle: bool) -> None:
    """Two seeds, two checkpoints, 60 test rows per language: pairs.jsonl and predictions
    in the job folders, the stored counts made from them. `shuffle` writes the same rows
    in another order."""
    run_id = add_run(db)
    rng = np.random.default_rng(7)
    rows = [(f"{lang}-{n:03d}", lang, split) for lang in ("en", "de")
            for split in ("dev", "test") for n in range(60)]  # fmt: skip
    labels = rng.integers(0, 3, len(rows))
    right = {seed: rng.random((2, len(rows))) < (0.8 if seed == 1 else 0.7) for seed in (1, 2)}
    order = rng.permutation(len(rows)) if shuffle else np.arange(len(rows))
    for seed in (1, 2):
        name = f"tiny-zero-shot-s{seed}"
        folder = db.parent / "score-jobs" / name
        pairs = [job_files.PairRecord(id=rows[i][0], lang=rows[i][1], split=rows[i][2],
                                      premise="p", hypothesis="h", label=int(labels[i]))
                 for i in order]  # fmt: skip
        spec = job_files.JobSpec(name=name, model="models/tiny", mode="zero-shot", seed=seed,
                                 train_langs=("en",), eval_langs=("en", "de"))  # fmt: skip
        job_files.write_job(folder, spec, pairs)
        job = add_job(db, run_id, name, seed=seed)
        for idx in (0, 1):
            predicted = np.where(right[seed][idx], labels, (labels + 1) % 3)
            path = job_files.predictions_path(folder, idx)
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, predicted[order].astype(np.int8))
            counts = {}
            for lang in ("en", "de"):
                for split in ("dev", "test"):
                    mine = [i for i, r in enumerate(rows) if r[1:] == (lang, split)]
                    counts[(lang, split)] = (int(right[seed][idx][mine].sum()), len(mine))
            add_checkpoint(db, job, idx, counts)


def test_the_interval_holds_the_estimate_and_ignores_row_order(tmp_path: Path) -> None:
    intervals = []
    for shuffle in (False, True):
        db = tmp_path / ("shuffled" if shuffle else "ordered") / "corpus.db"
        db.parent.mkdir()
        nlibuild.create(db)
        write_scored_jobs(db, shuffle)
        report = report_of(db)
        assert report.notes == []
        for row in report.accuracy:
            assert row.low is not None and row.high is not None
            assert row.low <= row.accuracy <= row.high
            assert row.low < row.high
        intervals.append([(r.lang, r.select, r.accuracy, r.low, r.high) for r in report.accuracy])
    assert intervals[0] == intervals[1]
    other_seed = report_of(db, seed=14).accuracy
    assert [(r.low, r.high) for r in other_seed] != [i[3:] for i in intervals[1]]


# --- the command ---------------------------------------------------------------------------


@pytest.fixture
def small_db(db: Path) -> Path:
    """One job, two checkpoints, ten rows a split; slices at checkpoint 0; a majority
    baseline in a `score baselines` run."""
    job = add_job(db, add_run(db), "tiny-zero-shot-s1")
    add_checkpoint(db, job, 0, {("en", "dev"): (8, 10), ("de", "dev"): (5, 10),
                                ("en", "test"): (7, 10), ("de", "test"): (6, 10)},
                   {("de", "test", "genre", "fiction"): (3, 5),
                    ("de", "test", "genre", "slate"): (3, 5)})  # fmt: skip
    add_checkpoint(db, job, 1, {("en", "dev"): (7, 10), ("de", "dev"): (6, 10),
                                ("en", "test"): (8, 10), ("de", "test"): (5, 10)})  # fmt: skip
    baseline = add_job(db, add_run(db, "score-baselines"), "majority", mode="majority", model="")
    add_checkpoint(db, baseline, 0, {("de", "test"): (4, 10), ("en", "test"): (3, 10)})
    return db


def test_report_prints_each_section_as_a_table(small_db: Path) -> None:
    lines = compact_table(ok("--db", small_db, "score", "report", "--format", "md")).splitlines()

    assert (
        "| group | lang | en-dev | target-dev | oracle | target-dev - en-dev | oracle - en-dev |"
        in lines
    )
    assert "| tiny/zero-shot | en | 0.7000 | 0.7000 | 0.8000 | 0.0000 | 0.1000 |" in lines
    assert "| tiny/zero-shot | de | 0.6000 | 0.5000 | 0.6000 | -0.1000 | 0.0000 |" in lines
    assert "| tiny/zero-shot | en-dev | en | 0.7000 | 0.6000 | 0.1000 |" in lines
    assert "| tiny/zero-shot | de | genre | fiction | 0.6000 | 5 |" in lines
    # de test fell 0.1; En dev fell too (agrees), de dev rose (does not)
    assert "| tiny/zero-shot | de | 1 | 1 | 1.0000 | 0.0000 |" in lines
    assert "| majority | de | 0.4000 | 10 |" in lines
    assert "| tiny/zero-shot | de | en-dev | 0.6000 |  |  | 1 |" in lines  # no folder: no CI


def test_select_changes_the_slice_and_transfer_tables(small_db: Path) -> None:
    lines = compact_table(ok("--db", small_db, "score", "report", "--select", "target-dev",
                             "--format", "md")).splitlines()  # fmt: skip

    assert "| tiny/zero-shot | target-dev | en | 0.7000 | 0.5000 | 0.2000 |" in lines
    assert not any("| genre |" in line for line in lines)  # no slices stored at checkpoint 1


def test_csv_on_stdout_is_the_accuracy_table_and_stderr_names_the_others(
    small_db: Path,
) -> None:
    result = ok_result("--db", small_db, "score", "report", "--format", "csv")
    table = list(csv.reader(io.StringIO(result.stdout)))
    assert table[0] == ["group", "lang", "select", "accuracy", "low", "high", "seeds"]
    assert ["tiny/zero-shot", "de", "target-dev", "0.5000", "", "", "1"] in table
    assert all(len(row) == len(table[0]) for row in table)  # one rectangular table, no prose
    assert "Left out of this csv: score-gaps (2 rows)" in result.stderr
    assert "score-baselines (2 rows); give --out DIR" in result.stderr


def test_json_is_the_accuracy_table_as_records(small_db: Path) -> None:
    records = json_rows("--db", small_db, "score", "report")
    assert {"group": "tiny/zero-shot", "lang": "de", "select": "target-dev", "accuracy": 0.5,
            "low": None, "high": None, "seeds": 1} in records  # fmt: skip


def test_out_writes_each_section_as_its_own_json_file(small_db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "report"
    ok("--db", small_db, "score", "report", "--format", "json", "--out", folder)
    assert sorted(p.name for p in folder.iterdir()) == [
        "score-accuracy.json", "score-agreement.json", "score-baselines.json", "score-gaps.json",
        "score-slices.json", "score-spread.json", "score-transfer.json",
    ]  # fmt: skip
    baselines = json.loads((folder / "score-baselines.json").read_text(encoding="utf-8"))
    assert baselines == [
        {"baseline": "majority", "lang": "de", "accuracy": 0.4, "rows": 10},
        {"baseline": "majority", "lang": "en", "accuracy": 0.3, "rows": 10},
    ]
    transfer = json.loads((folder / "score-transfer.json").read_text(encoding="utf-8"))
    assert [r["select"] for r in transfer] == ["en-dev"]


def test_a_store_without_scores_is_one_error_line(db: Path) -> None:
    fails(db, "score", "report", says=("no score run", "nlibuild score train"))
    fails(db, "score", "report", says=("no score run",))
    fails(db, "score", "report", "--run", 1, says=("--run 1 is not a score run", "runs"))


def test_bad_options_are_one_error_line(small_db: Path) -> None:
    fails(small_db, "score", "report", "--select", "best", says=("--select 'best'", "en-dev"))
    fails(small_db, "score", "report", "--ci", 1.5, says=("ci",))
