"""`stats --table cartography` (Swayamdipta et al. 2020) and `relabel create --pairs`:
the pairs a model found ambiguous or hard to learn, sent back to annotators.

The table and the stage run through the Python API; the CLI keeps the regions' line under
the table and `--fraction` refused beside `--pairs`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import copy_store, fails, ok, query, refused
from score_tables import add_checkpoint, add_dynamics, add_job, add_run

import nlibuild
from nlibuild.api import Corpus

# pair ID -> (confidence, variability) averaged over two seeds, written per seed below
DYNAMICS = {
    "10412ge": (0.95, 0.02),  # easy
    "10412gn": (0.90, 0.45),  # easy and ambiguous: the highest variability
    "10412gc": (0.50, 0.40),  # ambiguous
    "10587ge": (0.45, 0.35),  # in none of the paper's thirds
    "10587gn": (0.10, 0.05),  # hard: the lowest confidence
    "10587gc": (0.20, 0.08),  # hard
}


def map_run(db: Path, mode: str = "zero-shot", seeds: tuple[int, ...] = (1, 2),
            correctness: float | None = 0.5, epochs: int = 3) -> int:  # fmt: skip
    """A run with a job of `mode` per seed holding DYNAMICS; returns the run's ID."""
    run_id = add_run(db)
    for seed, shift in zip(seeds, (-0.01, 0.01), strict=False):
        job = add_job(db, run_id, f"tiny-{mode}-s{seed}", mode=mode, seed=seed)
        for pair_id, (confidence, variability) in DYNAMICS.items():
            add_dynamics(db, job, pair_id, confidence + shift, variability - shift,
                         correctness, epochs)  # fmt: skip
    return run_id


@pytest.fixture
def mapped_db(sample_db: Path) -> Path:
    map_run(sample_db)
    return sample_db


def test_lists_the_most_ambiguous_and_the_hardest_pairs(mapped_db: Path) -> None:
    rows = nlibuild.open(mapped_db).stats("cartography", top=2).to_dicts()

    listed = [(r["list"], r["pair"]) for r in rows]
    assert listed == [("ambiguous", "10412gn"), ("ambiguous", "10412gc"),
                      ("hard", "10587gn"), ("hard", "10587gc")]  # fmt: skip
    second = rows[1]
    assert second["confidence"] == pytest.approx(0.50)  # the mean over the two seeds
    assert second["variability"] == pytest.approx(0.40)
    assert second["correctness"] == pytest.approx(0.5)
    released = "SELECT g.label FROM gold_rows g JOIN pairs p ON p.pk = g.pair_pk WHERE p.id = ?"
    assert second["gold"] == query(mapped_db, released, "10412gc")[0][0]  # '-': no majority
    assert (
        second["hypothesis"]
        == query(mapped_db, "SELECT hypothesis FROM pairs WHERE id = '10412gc'")[0][0]
    )


def test_regions_are_the_papers_overlapping_thirds(mapped_db: Path) -> None:
    """Swayamdipta et al. 2020: easy-to-learn is the top 33% by confidence, hard-to-learn
    the bottom 33% by confidence, ambiguous the top 33% by variability; 10412gn is both
    easy and ambiguous, 10587ge in none."""
    text = ok("--db", mapped_db, "stats", "--table", "cartography")
    assert "of models/tiny, mode zero-shot, 2 seeds averaged (score run" in text
    assert ("6 pairs over 2 jobs; regions (the paper's overlapping thirds, 1 pair in two): "
            "easy 2, ambiguous 2, hard 2, none 1") in text  # fmt: skip


def test_exclusive_regions_put_each_pair_in_the_first_that_holds_it(mapped_db: Path) -> None:
    text = ok("--db", mapped_db, "stats", "--table", "cartography", "--regions", "exclusive")
    # ambiguous first (10412gn, 10412gc), then hard (10587gn, 10587gc), then what is left of
    # the easy third (10412ge); 10587ge is other
    assert ("regions (exclusive: ambiguous first, then hard, then easy): easy 1, ambiguous 2, "
            "hard 2, other 1") in text  # fmt: skip
    fails(mapped_db, "stats", "--table", "cartography", "--regions", "thirds",
          says=("regions", "overlapping", "exclusive"))  # fmt: skip


def test_modes_are_never_mixed_in_one_map(sample_db: Path) -> None:
    """A hypothesis-only model's training dynamics are not the zero-shot model's: a run of
    both has one map per mode (--mode, seeds averaged) or per job (--job)."""
    run_id = add_run(sample_db)
    for mode in ("zero-shot", "hyp-only"):
        job = add_job(sample_db, run_id, f"tiny-{mode}-s1", mode=mode)
        for pair_id, (confidence, variability) in DYNAMICS.items():
            add_dynamics(sample_db, job, pair_id, confidence, variability, 0.5)
    fails(sample_db, "stats", "--table", "cartography",
          says=("models/tiny hyp-only; models/tiny zero-shot", "never mixed", "--mode MODE",
                "--job NAME"))  # fmt: skip
    one_mode = ok("--db", sample_db, "stats", "--table", "cartography", "--mode", "hyp-only")
    assert "of job tiny-hyp-only-s1 (score run" in one_mode
    assert "6 pairs over 1 job;" in one_mode
    one_job = nlibuild.open(sample_db).stats("cartography", job="tiny-zero-shot-s1")
    assert one_job.height == 12
    refused(sample_db, lambda corpus: corpus.stats("cartography", mode="translate-test"),
            "--mode translate-test", "its modes: hyp-only, zero-shot")  # fmt: skip
    refused(sample_db, lambda corpus: corpus.stats("cartography", job="tiny-s9"),
            "--job tiny-s9", "its jobs: tiny-hyp-only-s1, tiny-zero-shot-s1")  # fmt: skip


def test_the_corpus_report_draws_one_data_map_per_mode(sample_db: Path, tmp_path: Path) -> None:
    run_id = add_run(sample_db)
    for mode in ("zero-shot", "hyp-only"):
        job = add_job(sample_db, run_id, f"tiny-{mode}-s1", mode=mode)
        add_checkpoint(sample_db, job, 0, {("en", "dev"): (5, 10), ("en", "test"): (6, 10)})
        for pair_id, (confidence, variability) in DYNAMICS.items():
            add_dynamics(sample_db, job, pair_id, confidence, variability, 0.5)
    ok("--db", sample_db, "report", "--out", tmp_path / "report.html")
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    scores = re.search(r'<section id="scores">(.*?)</section>', page, re.S)
    assert scores is not None
    maps = re.findall(r"Data map of ([^:]*): 6 pairs", scores.group(1))
    assert maps == [f"job tiny-hyp-only-s1 (score run {run_id})",
                    f"job tiny-zero-shot-s1 (score run {run_id})"]  # fmt: skip


def test_variability_over_fewer_than_two_epochs_is_refused(sample_db: Path) -> None:
    map_run(sample_db, seeds=(1,), epochs=1)
    fails(sample_db, "stats", "--table", "cartography",
          says=("6 of the 6 training pairs of tiny-zero-shot-s1", "fewer than 2 epochs",
                "--epochs 2"))  # fmt: skip


def test_correctness_of_jobs_that_did_not_record_the_argmax_is_unavailable(
    sample_db: Path,
) -> None:
    map_run(sample_db, correctness=None)
    text = ok("--db", sample_db, "stats", "--table", "cartography", "--top", "1")
    assert "n.a." in text
    assert "correctness n.a.: a mapped job's files are of version 1" in text
    rows = nlibuild.open(sample_db).stats("cartography", top=1).to_dicts()
    assert [row["correctness"] for row in rows] == [None, None]


def test_out_writes_the_listed_ids_for_relabel_create(mapped_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "to-relabel.txt"
    corpus = nlibuild.open(mapped_db)
    corpus.stats("cartography", top=1, out=out)

    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#")
    assert lines[1:] == ["10412gn", "10587gn"]
    corpus.relabel_create(annotators=("v01", "v02", "v03", "v04"), pairs=out)
    sent = query(mapped_db, "SELECT DISTINCT s.item_id FROM assignments s JOIN batches b "
                 "ON b.pk = s.batch_pk WHERE b.kind = 'relabel' ORDER BY 1")  # fmt: skip
    assert [row[0] for row in sent] == ["10412gn", "10587gn"]


def test_without_dynamics_the_table_is_refused(sample_db: Path) -> None:
    refused(sample_db, lambda corpus: corpus.stats("cartography"), "no score run")


def test_a_partial_last_epoch_trains_imports_and_is_mapped_only_from_two_epochs(
    sample_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`score train --epochs 1.5` with the tiny model on the CPU (issue 27: it ended in an
    IntegrityError, NaN confidence): the pairs the second epoch reached have the dynamics of
    two epochs, the others of one, and `score import` of the job again stores the same;
    the data map is refused (variability over one epoch), and given at 2.5 epochs."""
    pytest.importorskip("torch", reason="the score extra (torch) is not installed")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    nlibuild.open(sample_db).split(dev=10, test=10, draw_from="labelled", group_by="pair")
    model = tmp_path / "tiny"
    ok("--db", sample_db, "score", "tiny-model", "--out", model)
    train = ("score", "train", "--model", model, "--seeds", "1", "--eval-every", "0.5",
             "--batch-size", "8")  # fmt: skip
    assert "finished" in ok("--db", sample_db, *train, "--epochs", "1.5")
    stored = "SELECT epochs, count(*), count(correctness) FROM score_dynamics GROUP BY 1"
    # 25 training pairs in batches of 8 (the last of 1): 4 steps an epoch, 6 in all, so the
    # second epoch reaches 16 pairs, or 9 when its two batches hold the short one
    by_epochs = query(sample_db, stored)
    assert by_epochs in ([(1, 9, 9), (2, 16, 16)], [(1, 16, 16), (2, 9, 9)])
    (folder,) = query(sample_db, "SELECT folder FROM score_jobs")[0]
    imported = copy_store(sample_db, tmp_path / "imported.db")
    query(imported, "DELETE FROM score_dynamics")
    query(imported, "UPDATE score_jobs SET finished = 0")
    plan = tmp_path / "plan"
    plan.mkdir()
    (plan / "plan.json").write_text(json.dumps({"jobs": [{"folder": folder}]}))
    ok("--db", imported, "score", "import", plan)
    assert query(imported, stored) == by_epochs
    fails(sample_db, "stats", "--table", "cartography",
          says=("of the 25 training pairs", "fewer than 2 epochs"))  # fmt: skip
    assert "finished" in ok("--db", sample_db, *train, "--epochs", "2.5")
    assert "25 pairs over 1 job" in ok("--db", sample_db, "stats", "--table", "cartography")


def relabel_listed(listed: Path) -> Callable[[Corpus], object]:
    """`relabel create --annotators v01,v02,v03,v04 --pairs LISTED`."""
    return lambda corpus: corpus.relabel_create(
        annotators=("v01", "v02", "v03", "v04"), pairs=listed
    )


def test_relabel_pairs_file_errors_name_the_line(sample_db: Path, tmp_path: Path) -> None:
    listed = tmp_path / "pairs.txt"
    listed.write_text("# from cartography\n10412gc\n\nnope  # a typo\n", encoding="utf-8")
    refused(sample_db, relabel_listed(listed), "pairs.txt, line 4", "'nope' is not in the store")
    listed.write_text("10412gc\n10587gn\n10412gc\n", encoding="utf-8")
    refused(sample_db, relabel_listed(listed), "pairs.txt, line 3",
            "listed again (first on line 1)")  # fmt: skip
    fails(sample_db, "relabel", "create", "--annotators", "v01,v02,v03,v04", "--pairs", listed,
          "--fraction", 0.5, says=("--fraction", "--pairs", "one or the other"))  # fmt: skip
