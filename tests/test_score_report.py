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
from typing import Any

import numpy as np
import pytest
from conftest import compact_table, fails, json_object, ok, ok_result, query
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
    1: {"en-dev": 2, "target-dev": 3, "test-ceiling": 4, "last": 5},
    2: {"en-dev": 3, "target-dev": 4, "test-ceiling": 5, "last": 5},
    3: {"en-dev": 2, "target-dev": 3, "test-ceiling": 3, "last": 5},
}
"""So de test at each seed's checkpoint is, by rule: en-dev 655, 650, 640; target-dev 665,
671, 669; test-ceiling 680, 673, 669; last 662, 673, 661. En dev at each seed's En-dev
checkpoint (picked for en, whose test is at every checkpoint): 780, 790, 785."""


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
        ("de", "test-ceiling"): (680 + 673 + 669) / 3000,
        ("de", "last"): (662 + 673 + 661) / 3000,
        # in the training language, target dev is En dev
        ("en", "en-dev"): (775 + 785 + 781) / 3000,
        ("en", "target-dev"): (775 + 785 + 781) / 3000,
        ("en", "test-ceiling"): (779 + 788 + 781) / 3000,
        ("en", "last"): (765 + 788 + 776) / 3000,
    })  # fmt: skip
    assert {r.seeds for r in report.accuracy} == {3}
    assert [r.lang for r in report.accuracy][:4] == ["en"] * 4  # the training language first


def test_table_2_is_min_max_spread_at_the_en_dev_checkpoint_with_the_en_dev_row(
    hand_db: Path,
) -> None:
    # Keung et al. Table 2: "For each run, we computed the zero-shot accuracies using the
    # checkpoint with the best En dev performance. We show the minimum and maximum accuracy
    # ... En dev scores are within 0.9% of each other, but non-En test scores vary": the
    # training language's row is its dev accuracy, the targets' their test accuracy.
    spread = {r.lang: r for r in report_of(hand_db).spread}

    assert [(r.lang, r.split, r.seeds) for r in spread.values()] == [
        ("en", "dev", 3), ("de", "test", 3),
    ]  # fmt: skip
    assert (spread["en"].min, spread["en"].max, spread["en"].spread) == pytest.approx(
        (0.780, 0.790, 0.010)
    )
    assert (spread["de"].min, spread["de"].max, spread["de"].spread) == pytest.approx(
        (0.640, 0.655, 0.015)
    )


def test_table_5_is_the_best_run_under_each_rule_and_the_means_an_extra_view(
    hand_db: Path,
) -> None:
    report = report_of(hand_db)

    # "Oracle zero-shot accuracies with mBERT across 10 independent runs, using target dev
    # to select the best checkpoint for each language ... Best En dev results are from
    # Table 2": the best of the seeds under each rule; target languages only.
    (best,) = report.gaps
    assert (best.group, best.lang, best.seeds) == ("tiny/zero-shot", "de", 3)
    assert (best.en_dev, best.target_dev, best.target_dev_gain) == pytest.approx(
        (0.655, 0.671, 0.016)
    )
    assert (best.test_ceiling, best.test_ceiling_gain) == pytest.approx((0.680, 0.025))
    table_2_max = {r.lang: r.max for r in report.spread}
    assert best.en_dev == table_2_max["de"]  # the paper's "Best En dev" is Table 2's Max

    (mean,) = report.gaps_mean
    assert (mean.en_dev, mean.target_dev, mean.test_ceiling) == pytest.approx(
        (1945 / 3000, 2005 / 3000, 2022 / 3000)
    )
    assert (mean.target_dev_gain, mean.test_ceiling_gain) == pytest.approx((60 / 3000, 77 / 3000))


def test_the_transfer_gap_is_the_training_language_minus_the_others_mean(hand_db: Path) -> None:
    (transfer,) = report_of(hand_db).transfer
    assert (transfer.train_lang, transfer.select) == ("en", "en-dev")
    assert transfer.gap == pytest.approx((2341 - 1945) / 3000)
    (last,) = report_of(hand_db, select="last").transfer
    assert last.gap == pytest.approx((2329 - 1996) / 3000)


def test_per_seed_rows_give_each_seeds_checkpoint_and_accuracies(hand_db: Path) -> None:
    assert report_of(hand_db).per_seed == []  # only when asked

    rows = report_of(hand_db, per_seed=True).per_seed
    picked = {(r.seed, r.select): r.checkpoint for r in rows if r.lang == "de"}
    assert picked == {(seed, rule): idx for seed, rules in SELECTED_BY_HAND.items()
                      for rule, idx in rules.items()}  # fmt: skip
    seed_2 = {r.select: r for r in rows if (r.seed, r.lang) == (2, "de")}
    en_dev = seed_2["en-dev"]
    assert en_dev.job == "tiny-zero-shot-s2"
    assert (en_dev.en_dev_accuracy, en_dev.target_dev_accuracy, en_dev.test_accuracy) == (
        pytest.approx((0.790, 0.655, 0.650)))  # fmt: skip
    assert seed_2["target-dev"].test_accuracy == pytest.approx(0.671)
    # every figure of Table 5 is one of these rows
    (best,) = report_of(hand_db).gaps
    assert best.target_dev == max(r.test_accuracy for r in rows
                                  if (r.lang, r.select) == ("de", "target-dev"))  # fmt: skip


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
    text = compact_table(ok("--db", small_db, "score", "report", "--format", "md"))
    lines = text.splitlines()

    assert (
        "| group | lang | seeds | en-dev | target-dev (Keung's oracle) | target-dev - en-dev "
        "| test-ceiling | test-ceiling - en-dev |" in lines
    )
    # Table 5 (best of the one seed): target languages only
    assert "| tiny/zero-shot | de | 1 | 0.6000 | 0.5000 | -0.1000 | 0.6000 | 0.0000 |" in lines
    assert not any(line.startswith("| tiny/zero-shot | en | 1 | 0.") for line in lines)
    # Table 2: En dev at the En-dev checkpoint (0.8), de test there (0.6)
    assert "| tiny/zero-shot | en | dev | 1 | 0.8000 | 0.8000 | 0.0000 |" in lines
    assert "| tiny/zero-shot | de | test | 1 | 0.6000 | 0.6000 | 0.0000 |" in lines
    assert "| tiny/zero-shot | en-dev | en | 0.7000 | 0.6000 | 0.1000 |" in lines
    assert "| tiny/zero-shot | de | genre | fiction | 0.6000 | 5 |" in lines
    # de test fell 0.1; En dev fell too (agrees), de dev rose (does not)
    assert "| tiny/zero-shot | de | 1 | 1 | 1.0000 | 0.0000 |" in lines
    assert "| majority | de | 0.4000 | 10 |" in lines
    assert "| tiny/zero-shot | de | en-dev | 0.6000 |  |  | 1 |" in lines  # no folder: no CI
    assert "bootstrap interval over the test rows only" in text  # the interval's scope
    assert "oracle |" not in text.replace("Keung's oracle) |", "")  # the ceiling's old name


def test_select_changes_the_slice_and_transfer_tables(small_db: Path) -> None:
    lines = compact_table(ok("--db", small_db, "score", "report", "--select", "target-dev",
                             "--format", "md")).splitlines()  # fmt: skip

    assert "| tiny/zero-shot | target-dev | en | 0.7000 | 0.5000 | 0.2000 |" in lines
    assert not any("| genre |" in line for line in lines)  # no slices stored at checkpoint 1

    ceiling = compact_table(ok("--db", small_db, "score", "report", "--select", "test-ceiling",
                               "--format", "md")).splitlines()  # fmt: skip
    assert "| tiny/zero-shot | test-ceiling | en | 0.8000 | 0.6000 | 0.2000 |" in ceiling


def test_per_seed_adds_each_seeds_checkpoints(small_db: Path) -> None:
    plain = ok("--db", small_db, "score", "report", "--format", "md")
    assert "checkpoint every rule picks" not in plain

    lines = compact_table(ok("--db", small_db, "score", "report", "--per-seed", "--format",
                             "md")).splitlines()  # fmt: skip
    assert ("| group | seed | job | lang | select | checkpoint | en dev accuracy "
            "| target dev accuracy | test accuracy |") in lines  # fmt: skip
    assert ("| tiny/zero-shot | 1 | tiny-zero-shot-s1 | de | target-dev | 1 | 0.7000 | 0.6000 "
            "| 0.5000 |") in lines  # fmt: skip


def test_csv_on_stdout_is_the_accuracy_table_and_stderr_names_the_others(
    small_db: Path,
) -> None:
    result = ok_result("--db", small_db, "score", "report", "--format", "csv")
    table = list(csv.reader(io.StringIO(result.stdout)))
    assert table[0] == ["group", "lang", "select", "accuracy", "low", "high", "seeds"]
    assert ["tiny/zero-shot", "de", "target-dev", "0.5000", "", "", "1"] in table
    assert all(len(row) == len(table[0]) for row in table)  # one rectangular table, no prose
    assert "Left out of this csv: score-gaps (1 row), score-gaps-mean (1 row)" in result.stderr
    assert "score-baselines (2 rows); give --out DIR" in result.stderr


def test_json_is_one_object_with_every_section(small_db: Path) -> None:
    report = json_object("--db", small_db, "score", "report")

    assert list(report) == ["run_id", "jobs", "select", "interval", "accuracy", "gaps",
                            "gaps_mean", "spread", "agreement", "transfer", "slices",
                            "baselines", "notes"]  # fmt: skip
    assert report["interval"]["level"] == 0.95
    assert report["interval"]["covers"].startswith("test rows only")
    assert {"group": "tiny/zero-shot", "lang": "de", "select": "target-dev", "accuracy": 0.5,
            "low": None, "high": None, "seeds": 1} in report["accuracy"]  # fmt: skip
    (gap,) = report["gaps"]
    assert gap == {"group": "tiny/zero-shot", "lang": "de", "seeds": 1, "en_dev": 0.6,
                   "target_dev": 0.5, "target_dev_gain": pytest.approx(-0.1),
                   "test_ceiling": 0.6, "test_ceiling_gain": 0.0}  # fmt: skip
    assert {"group": "tiny/zero-shot", "lang": "en", "split": "dev", "seeds": 1, "min": 0.8,
            "max": 0.8, "spread": 0.0} in report["spread"]  # fmt: skip
    assert report["baselines"][0] == {"baseline": "majority", "lang": "de", "accuracy": 0.4,
                                      "rows": 10}  # fmt: skip
    assert any("interval left out" in note for note in report["notes"])
    with_seeds = json_object("--db", small_db, "score", "report", "--per-seed")
    assert len(with_seeds["per_seed"]) == 8  # 2 languages x 4 rules, one seed


def test_out_writes_each_section_as_its_own_json_file(small_db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "report"
    ok("--db", small_db, "score", "report", "--format", "json", "--out", folder)
    assert sorted(p.name for p in folder.iterdir()) == [
        "score-accuracy.json", "score-agreement.json", "score-baselines.json",
        "score-gaps-mean.json", "score-gaps.json", "score-slices.json", "score-spread.json",
        "score-transfer.json",
    ]  # fmt: skip
    baselines = json.loads((folder / "score-baselines.json").read_text(encoding="utf-8"))
    assert baselines == [
        {"baseline": "majority", "lang": "de", "accuracy": 0.4, "rows": 10},
        {"baseline": "majority", "lang": "en", "accuracy": 0.3, "rows": 10},
    ]
    transfer = json.loads((folder / "score-transfer.json").read_text(encoding="utf-8"))
    assert [r["select"] for r in transfer] == ["en-dev"]


# --- the paper layout ---------------------------------------------------------------------


def test_paper_layout_has_languages_as_columns_and_xtremes_average(hand_db: Path) -> None:
    baseline = add_job(hand_db, add_run(hand_db, "score-baselines"), "majority",
                       mode="majority", model="")  # fmt: skip
    add_checkpoint(hand_db, baseline, 0, {("de", "test"): (333, 1000)})
    result = ok_result("--db", hand_db, "score", "report", "--layout", "paper", "--format", "md")
    lines = compact_table(result.stdout).splitlines()

    # XTREME: a model's accuracy per language and the mean over all of them, en included;
    # en-dev selection, mean over seeds: en 2341/3000, de 1945/3000
    assert "| model | en | de | avg |" in lines
    assert "| tiny/zero-shot | 78.0 | 64.8 | 71.4 |" in lines
    assert "| majority |  | 33.3 |  |" in lines  # no en: no average over fewer languages
    assert "majority has no test accuracy in en: no avg" in result.stderr
    # Keung Table 2: max, min, max - min; the training language's column is En dev
    assert "| model | statistic | en-dev | de |" in lines
    assert "| tiny/zero-shot | max | 79.0 | 65.5 |" in lines
    assert "| tiny/zero-shot | min | 78.0 | 64.0 |" in lines
    assert "| tiny/zero-shot | max - min | 1.0 | 1.5 |" in lines
    # Keung Table 5: the best run under target dev (their oracle) and under En dev
    assert "| model | selection | de |" in lines
    assert "| tiny/zero-shot | target-dev (Keung's oracle) | 67.1 |" in lines
    assert "| tiny/zero-shot | best en-dev | 65.5 |" in lines
    assert "| tiny/zero-shot | difference | 1.6 |" in lines
    assert "interval left out" not in result.stderr  # the paper layout shows no interval


def test_paper_layout_json_holds_the_unrounded_percentages(hand_db: Path) -> None:
    report = json_object("--db", hand_db, "score", "report", "--layout", "paper")

    assert list(report) == ["run_id", "jobs", "select", "paper_accuracy", "paper_spread",
                            "paper_gaps", "paper_agreement", "notes"]  # fmt: skip
    (row,) = report["paper_accuracy"]
    assert row == {"model": "tiny/zero-shot", "en": pytest.approx(2341 / 30),
                   "de": pytest.approx(1945 / 30),
                   "avg": pytest.approx((2341 + 1945) / 60)}  # fmt: skip
    gaps = {r["selection"]: r["de"] for r in report["paper_gaps"]}
    assert gaps == {"target-dev (Keung's oracle)": pytest.approx(67.1),
                    "best en-dev": pytest.approx(65.5),
                    "difference": pytest.approx(1.6)}  # fmt: skip


def test_paper_layout_latex_is_ready_to_paste(hand_db: Path) -> None:
    latex = ok("--db", hand_db, "score", "report", "--layout", "paper", "--format", "latex")

    assert latex.count("\\begin{tabular}") == 4
    assert "% Keung et al. Table 5" in latex
    assert "tiny/zero-shot & target-dev (Keung's oracle) & 67.1 \\\\" in compact_table(latex)


def test_a_store_without_scores_is_one_error_line(db: Path) -> None:
    fails(db, "score", "report", says=("no score run", "nlibuild score train"))
    fails(db, "score", "report", says=("no score run",))
    fails(db, "score", "report", "--run", 1, says=("--run 1 is not a score run", "runs"))


def test_bad_options_are_one_error_line(small_db: Path) -> None:
    fails(small_db, "score", "report", "--select", "best", says=("--select 'best'", "en-dev"))
    fails(small_db, "score", "report", "--ci", 1.5, says=("ci",))
    fails(small_db, "score", "report", "--layout", "wide", says=("--layout 'wide'", "paper"))


def test_select_oracle_names_both_rules_it_could_mean(small_db: Path) -> None:
    # Keung et al.'s "oracle" is target-dev selection; `oracle` here was the test ceiling
    fails(small_db, "score", "report", "--select", "oracle",
          says=("--select target-dev", "Keung", "--select test-ceiling"))  # fmt: skip


def test_the_report_page_shows_the_commands_tables(hand_db: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    ok("--db", hand_db, "report", "--out", page)
    scores = page.read_text(encoding="utf-8").split('id="scores"')[1]

    # "Scores: ": the corpus's own sections have an agreement table too (issue 28).
    assert "<h3>Scores: Keung et al. Table 5: test accuracy of the best run" in scores
    assert "<h3>Scores: Directional agreement with target test" in scores
    assert "<th>target-dev (Keung&#x27;s oracle)</th><th>target-dev - en-dev</th>" in scores
    assert '<td>de</td><td class="number">3</td><td class="number">0.655</td>' in scores
    assert "<th>oracle</th>" not in scores  # the ceiling's old name


def test_per_checkpoint_gives_each_seeds_accuracies_at_every_checkpoint(small_db: Path) -> None:
    assert "checkpoints" not in json_object("--db", small_db, "score", "report")  # when asked

    report = json_object("--db", small_db, "score", "report", "--per-checkpoint")
    rows = report["checkpoints"]
    assert len(rows) == 4  # 2 languages x 2 checkpoints, one seed
    assert {"group": "tiny/zero-shot", "seed": 1, "job": "tiny-zero-shot-s1", "lang": "de",
            "checkpoint": 1, "step": 10, "epoch": 0.1, "dev_accuracy": 0.6,
            "test_accuracy": 0.5} in rows  # fmt: skip
    assert [r["lang"] for r in rows] == ["en", "en", "de", "de"]  # the training language first
    lines = compact_table(ok("--db", small_db, "score", "report", "--per-checkpoint",
                             "--format", "md")).splitlines()  # fmt: skip
    assert ("| group | seed | job | lang | checkpoint | step | epoch | dev accuracy "
            "| test accuracy |") in lines  # fmt: skip


def page_charts(db: Path, page: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, str]]:
    """`report --out PAGE`, and the (figure, caption) of every chart it drew."""
    from nlibuild.report import html

    drawn: list[tuple[Any, str]] = []
    drawing = html.figure

    def figure(chart: Any, caption: str) -> str:
        drawn.append((chart, caption))
        return drawing(chart, caption)

    monkeypatch.setattr(html, "figure", figure)
    ok("--db", db, "report", "--out", page)
    return drawn


def test_the_report_page_charts_accuracy_by_checkpoint_with_the_picks_marked(
    hand_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "report.html"
    [(chart, caption)] = [drawn for drawn in page_charts(hand_db, page, monkeypatch)
                          if "accuracy at every checkpoint" in drawn[1]]  # fmt: skip
    scores = page.read_text(encoding="utf-8").split('id="scores"')[1]
    assert "<h3>Scores: accuracy at every checkpoint, tiny/zero-shot</h3><figure><svg" in scores
    assert "over epochs" in caption and "score report --per-checkpoint --per-seed" in caption
    assert "Each seed: the checkpoint every rule picks" not in scores  # charted, not printed

    # The command's numbers: each seed's picks, placed at their checkpoint's epoch.
    report = json_object("--db", hand_db, "score", "report", "--per-seed", "--per-checkpoint")
    epoch = {(r["job"], r["checkpoint"]): r["epoch"] for r in report["checkpoints"]}
    panels = {axis.get_title(): axis for axis in chart.axes if axis.get_visible()}
    assert list(panels) == ["en", "de"]
    for lang, axis in panels.items():
        marks = {line.get_label(): line for line in axis.get_lines()}
        for rule, name in (
            ("en-dev", "en-dev pick"),
            ("target-dev", "target-dev pick (Keung's oracle)"),
        ):
            picks = [r for r in report["per_seed"] if (r["lang"], r["select"]) == (lang, rule)]
            assert sorted(zip(marks[name].get_xdata(), marks[name].get_ydata(), strict=True)) == (
                sorted((epoch[(r["job"], r["checkpoint"])], r["test_accuracy"]) for r in picks)
            )  # fmt: skip
    # and they are the checkpoints worked out by hand (add_checkpoint: epoch = idx / 10)
    [de_en_dev] = [line for line in panels["de"].get_lines() if line.get_label() == "en-dev pick"]
    assert sorted(de_en_dev.get_xdata()) == pytest.approx(
        sorted(rules["en-dev"] / 10 for rules in SELECTED_BY_HAND.values())
    )
    # a dev and a test line a seed, each point a row of --per-checkpoint
    lines = [line for line in panels["de"].get_lines() if line.get_linestyle() != "None"]
    assert len(lines) == 6
    de_rows = [r for r in report["checkpoints"] if r["lang"] == "de"]
    drawn = sorted((x, y) for line in lines for x, y in zip(*line.get_data(), strict=True))
    assert drawn == sorted([(r["epoch"], r["dev_accuracy"]) for r in de_rows]
                           + [(r["epoch"], r["test_accuracy"]) for r in de_rows])  # fmt: skip
