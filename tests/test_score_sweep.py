"""`score report` of a sweep (issue 27, item 5's report half): the configuration picked on
En dev, as XTREME tunes ("All hyper-parameter tuning is done on English validation data",
Hu et al. 2020, section 4.2), named with its runner-up, the target-dev pick (Keung's oracle)
beside it, and every table computed on the picked configuration's jobs.

The hand sweep: learning rates 1e-5, 2e-5 and 3e-5, two seeds each, three checkpoints, two
languages (en, the training language, and de), every split 1000 rows (a count of 655 is
accuracy 0.655).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import compact_table, fails, json_object, ok, ok_result
from score_tables import add_checkpoint, add_job, add_run, job_spec

from nlibuild.models import ScoreReport, ScoreReportConfig
from nlibuild.scores.score_report import score_report
from nlibuild.store import Store

Series = dict[tuple[str, str], list[int]]

SWEEP: dict[float, dict[int, Series]] = {
    1e-5: {
        1: {("en", "dev"): [700, 760, 750],  # En-dev checkpoint 1; target-dev 2
            ("en", "test"): [690, 750, 745],
            ("de", "dev"): [600, 610, 640],
            ("de", "test"): [590, 620, 650]},
        2: {("en", "dev"): [710, 740, 770],  # En-dev 2; target-dev 1
            ("en", "test"): [700, 735, 760],
            ("de", "dev"): [620, 650, 630],
            ("de", "test"): [600, 640, 610]},
    },
    2e-5: {
        1: {("en", "dev"): [720, 790, 780],  # En-dev 1; target-dev 1
            ("en", "test"): [715, 785, 770],
            ("de", "dev"): [600, 620, 610],
            ("de", "test"): [610, 630, 625]},
        2: {("en", "dev"): [730, 780, 785],  # En-dev 2; target-dev 1
            ("en", "test"): [725, 770, 790],
            ("de", "dev"): [615, 625, 605],
            ("de", "test"): [612, 628, 622]},
    },
    3e-5: {
        1: {("en", "dev"): [740, 780, 770],  # En-dev 1; target-dev 1
            ("en", "test"): [735, 775, 772],
            ("de", "dev"): [650, 680, 660],
            ("de", "test"): [640, 662, 655]},
        2: {("en", "dev"): [750, 775, 790],  # En-dev 2; target-dev 2
            ("en", "test"): [745, 770, 780],
            ("de", "dev"): [640, 670, 690],
            ("de", "test"): [645, 650, 668]},
    },
}  # fmt: skip
"""Mean En dev at each seed's En-dev checkpoint: 1e-5 (760 + 770) / 2 = 765, 2e-5 787.5 (the
pick), 3e-5 785 (the runner-up). Mean de dev at each seed's target-dev checkpoint: 645,
622.5, 685: 3e-5 is the target-dev pick for de. De test under the En-dev pick (2e-5, En-dev
checkpoints): 630, 622; under the target-dev pick (3e-5, target-dev checkpoints): 662, 668."""


def add_sweep(db: Path, sweep: dict[float, dict[int, Series]]) -> None:
    """One run with a job per learning rate x seed, each with its job.json."""
    run_id = add_run(db, "score-import")
    for lr, seeds in sweep.items():
        for seed, series in seeds.items():
            name = f"tiny-zero-shot-lr{lr!r}-s{seed}"
            job = add_job(db, run_id, name, seed=seed, spec=job_spec(name, seed, lr=lr))
            for idx in range(len(next(iter(series.values())))):
                counts = {key: (values[idx], 1000) for key, values in series.items()}
                add_checkpoint(db, job, idx, counts)


@pytest.fixture
def sweep_db(db: Path) -> Path:
    add_sweep(db, SWEEP)
    return db


def report_of(db: Path, **settings: object) -> ScoreReport:
    with Store.open(db) as store:
        return score_report(store, ScoreReportConfig.model_validate(settings))


def test_the_configuration_with_the_best_mean_en_dev_is_picked(sweep_db: Path) -> None:
    report = report_of(sweep_db)

    ranked = {r.configuration: (r.seeds, r.rank) for r in report.configurations}
    assert ranked == {"lr 1e-05": (2, 3), "lr 2e-05": (2, 1), "lr 3e-05": (2, 2)}
    en_dev = {r.configuration: r.en_dev for r in report.configurations}
    assert en_dev == pytest.approx({"lr 1e-05": 0.765, "lr 2e-05": 0.7875, "lr 3e-05": 0.785})
    assert {r.group for r in report.configurations} == {"tiny/zero-shot"}
    assert report.configurations[1].settings["lr"] == 2e-5
    (note,) = report.notes[:1]
    assert note.startswith("tiny/zero-shot: of 3 configurations, lr 2e-05 has the best mean "
                           "en dev over its seeds, 0.7875 (2 seeds)")  # fmt: skip
    assert '"All hyper-parameter tuning is done on English validation data" (XTREME)' in note
    assert "runner-up lr 3e-05, 0.7850" in note
    assert "the tables show its jobs (--configuration all: every configuration)" in note


def test_every_table_is_computed_on_the_picked_configurations_jobs(sweep_db: Path) -> None:
    report = report_of(sweep_db, per_seed=True)

    accuracy = {(r.group, r.lang, r.select): r.accuracy for r in report.accuracy}
    assert accuracy[("tiny/zero-shot", "de", "en-dev")] == pytest.approx(0.626)
    assert accuracy[("tiny/zero-shot", "en", "en-dev")] == pytest.approx(0.7875)
    assert len(accuracy) == 8  # one group: 2 languages x 4 rules
    assert {r.seeds for r in report.accuracy} == {2}
    spread = {r.lang: (r.min, r.max) for r in report.spread}  # Keung et al. Table 2
    assert spread == {"en": pytest.approx((0.785, 0.790)), "de": pytest.approx((0.622, 0.630))}
    (gap,) = report.gaps  # Table 5: the best of the two seeds
    assert (gap.en_dev, gap.target_dev) == pytest.approx((0.630, 0.630))
    assert {r.job for r in report.per_seed} == {"tiny-zero-shot-lr2e-05-s1",
                                                "tiny-zero-shot-lr2e-05-s2"}  # fmt: skip
    (transfer,) = report.transfer
    assert transfer.gap == pytest.approx(0.7875 - 0.626)


def test_the_target_dev_pick_is_shown_beside_the_en_dev_pick(sweep_db: Path) -> None:
    (row,) = report_of(sweep_db).configuration_target_dev

    assert (row.group, row.lang) == ("tiny/zero-shot", "de")
    assert (row.en_dev_configuration, row.target_dev_configuration) == ("lr 2e-05", "lr 3e-05")
    assert (row.en_dev_test, row.target_dev) == pytest.approx((0.626, 0.685))
    assert row.target_dev_test == pytest.approx(0.665)
    assert row.target_dev_gain == pytest.approx(0.039)


def test_configuration_all_shows_each_configuration_as_its_own_group(sweep_db: Path) -> None:
    report = report_of(sweep_db, configuration="all")

    de = {r.group: r.accuracy for r in report.accuracy if (r.lang, r.select) == ("de", "en-dev")}
    assert de == {
        "tiny/zero-shot [lr 1e-05]": pytest.approx((620 + 610) / 2000),
        "tiny/zero-shot [lr 2e-05]": pytest.approx(0.626),
        "tiny/zero-shot [lr 3e-05]": pytest.approx((662 + 668) / 2000),
    }
    assert [r.rank for r in report.configurations] == [3, 1, 2]  # the pick is still named
    assert report.notes[0].endswith("the tables show every configuration (--configuration all)")


def test_the_command_names_the_pick_in_a_table_a_note_and_the_json(sweep_db: Path) -> None:
    result = ok_result("--db", sweep_db, "score", "report", "--format", "md")
    lines = compact_table(result.stdout).splitlines()

    assert "| group | configuration | seeds | mean en dev | rank | picked |" in lines
    assert "| tiny/zero-shot | lr 2e-05 | 2 | 0.7875 | 1 | en-dev |" in lines
    assert ("| tiny/zero-shot | lr 3e-05 | 2 | 0.7850 | 2 | en-dev runner-up; target-dev de "
            "|") in lines  # fmt: skip
    assert "| tiny/zero-shot | lr 1e-05 | 2 | 0.7650 | 3 |  |" in lines
    assert ("| tiny/zero-shot | de | lr 2e-05 | 0.6260 | lr 3e-05 | 0.6850 | 0.6650 "
            "| 0.0390 |") in lines  # fmt: skip
    assert "| tiny/zero-shot | de | en-dev | 0.6260 |  |  | 2 |" in lines
    assert "lr 2e-05 has the best mean en dev" in result.stderr  # md keeps notes off stdout

    report = json_object("--db", sweep_db, "score", "report")
    assert list(report)[:7] == ["run_id", "jobs", "select", "interval", "configuration",
                                "picked_configurations", "accuracy"]  # fmt: skip
    assert report["configuration"] == "en-dev"
    (picked,) = report["picked_configurations"]
    assert picked["group"] == "tiny/zero-shot"
    assert picked["picked"]["configuration"] == "lr 2e-05"
    assert picked["picked"]["settings"]["lr"] == 2e-5
    assert picked["picked"]["settings"]["batch_size"] == 32
    assert (picked["picked"]["mean_en_dev"], picked["picked"]["seeds"]) == (
        pytest.approx(0.7875), 2)  # fmt: skip
    assert picked["runner_up"]["configuration"] == "lr 3e-05"
    assert picked["runner_up"]["mean_en_dev"] == pytest.approx(0.785)
    assert [r["configuration"] for r in report["configurations"]] == [
        "lr 1e-05", "lr 2e-05", "lr 3e-05",
    ]  # fmt: skip
    assert report["configuration_picks"][0]["target_dev_configuration"] == "lr 3e-05"
    assert any("lr 2e-05 has the best mean en dev" in note for note in report["notes"])


def test_the_paper_layout_shows_the_picked_configuration_and_the_sweep(sweep_db: Path) -> None:
    lines = compact_table(ok("--db", sweep_db, "score", "report", "--layout", "paper",
                             "--format", "md")).splitlines()  # fmt: skip

    assert "| model | en | de | avg |" in lines
    assert "| tiny/zero-shot | 78.8 | 62.6 | 70.7 |" in lines  # the pick's: 78.75, 62.6
    assert "| model | configuration | seeds | en-dev | de dev | picked |" in lines
    assert "| tiny/zero-shot | lr 3e-05 | 2 | 78.5 | 68.5 | en-dev runner-up; target-dev de |" in (
        lines)  # fmt: skip
    assert "| tiny/zero-shot | lr 1e-05 | 2 | 76.5 | 64.5 |  |" in lines


def test_equal_means_pick_the_first_configuration_and_name_the_swept_settings(
    db: Path,
) -> None:
    one = {("en", "dev"): [780], ("en", "test"): [770], ("de", "dev"): [600],
           ("de", "test"): [610]}  # fmt: skip
    run_id = add_run(db, "score-import")
    for lr, size in ((2e-5, 32), (2e-5, 16), (1e-5, 32), (1e-5, 16)):
        name = f"tiny-zero-shot-lr{lr!r}-bs{size}-s1"
        job = add_job(db, run_id, name, spec=job_spec(name, 1, lr=lr, batch_size=size))
        add_checkpoint(db, job, 0, {key: (values[0], 1000) for key, values in one.items()})

    report = report_of(db)

    assert [(r.configuration, r.rank) for r in report.configurations] == [
        ("lr 1e-05, batch_size 16", 1), ("lr 1e-05, batch_size 32", 2),
        ("lr 2e-05, batch_size 16", 3), ("lr 2e-05, batch_size 32", 4),
    ]  # fmt: skip
    assert {r.seeds for r in report.accuracy} == {1}


def test_without_en_dev_nothing_is_picked_and_every_configuration_is_shown(db: Path) -> None:
    add_sweep(db, {lr: {seed: {key: values for key, values in series.items() if key[1] == "test"}
                        for seed, series in seeds.items()}
                   for lr, seeds in SWEEP.items()})  # fmt: skip

    report = report_of(db)

    assert [(r.en_dev, r.rank) for r in report.configurations] == [(None, None)] * 3
    assert report.notes[0] == ("tiny/zero-shot: 3 configurations and no En dev accuracy to "
                               "pick one on: the tables show every configuration")  # fmt: skip
    assert {r.group for r in report.accuracy} == {
        "tiny/zero-shot [lr 1e-05]", "tiny/zero-shot [lr 2e-05]", "tiny/zero-shot [lr 3e-05]",
    }  # fmt: skip


def test_one_configuration_is_no_sweep_and_reports_as_before(db: Path) -> None:
    add_sweep(db, {2e-5: SWEEP[2e-5]})

    report = report_of(db)

    assert (report.configurations, report.configuration_target_dev) == ([], [])
    assert not any("best mean" in note for note in report.notes)
    assert {r.group for r in report.accuracy} == {"tiny/zero-shot"}
    assert "configuration" not in json_object("--db", db, "score", "report")


def test_a_configuration_choice_it_does_not_know_is_one_error_line(sweep_db: Path) -> None:
    fails(sweep_db, "score", "report", "--configuration", "best",
          says=("--configuration 'best'", "en-dev", "all"))  # fmt: skip
