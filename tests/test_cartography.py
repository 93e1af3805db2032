"""`stats --table cartography` (Swayamdipta et al. 2020) and `relabel create --pairs`:
the pairs a model found ambiguous or hard to learn, sent back to annotators.

The table and the stage run through the Python API; the CLI keeps the regions' line under
the table and `--fraction` refused beside `--pairs`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import fails, ok, query, refused
from score_tables import add_dynamics, add_job, add_run

import nlibuild
from nlibuild.api import Corpus

# pair ID -> (confidence, variability) averaged over two seeds, written per seed below
DYNAMICS = {
    "10412ge": (0.95, 0.02),  # easy
    "10412gn": (0.90, 0.05),  # easy
    "10412gc": (0.50, 0.40),  # ambiguous: the highest variability
    "10587ge": (0.45, 0.35),  # ambiguous
    "10587gn": (0.10, 0.05),  # hard: the lowest confidence
    "10587gc": (0.20, 0.08),  # hard
}


@pytest.fixture
def mapped_db(sample_db: Path) -> Path:
    run_id = add_run(sample_db)
    for seed, shift in ((1, -0.01), (2, 0.01)):
        job = add_job(sample_db, run_id, f"tiny-zero-shot-s{seed}", seed=seed)
        for pair_id, (confidence, variability) in DYNAMICS.items():
            add_dynamics(sample_db, job, pair_id, confidence + shift, variability - shift, 0.5)
    return sample_db


def test_lists_the_most_ambiguous_and_the_hardest_pairs(mapped_db: Path) -> None:
    rows = nlibuild.open(mapped_db).stats("cartography", top=2).to_dicts()

    listed = [(r["list"], r["pair"]) for r in rows]
    assert listed == [("ambiguous", "10412gc"), ("ambiguous", "10587ge"),
                      ("hard", "10587gn"), ("hard", "10587gc")]  # fmt: skip
    first = rows[0]
    assert first["confidence"] == pytest.approx(0.50)  # the mean over the two seeds
    assert first["variability"] == pytest.approx(0.40)
    released = "SELECT g.label FROM gold_rows g JOIN pairs p ON p.pk = g.pair_pk WHERE p.id = ?"
    assert first["gold"] == query(mapped_db, released, "10412gc")[0][0]  # '-': no majority
    assert (
        first["hypothesis"]
        == query(mapped_db, "SELECT hypothesis FROM pairs WHERE id = '10412gc'")[0][0]
    )


def test_counts_the_regions_by_thirds(mapped_db: Path) -> None:
    text = ok("--db", mapped_db, "stats", "--table", "cartography")
    # 6 pairs: the top third by variability (2) ambiguous, then the bottom third by
    # confidence (2) hard, then the top third by confidence (2) easy
    assert "6 pairs over 2 jobs; regions: easy 2, ambiguous 2, hard 2, other 0" in text


def test_out_writes_the_listed_ids_for_relabel_create(mapped_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "to-relabel.txt"
    corpus = nlibuild.open(mapped_db)
    corpus.stats("cartography", top=1, out=out)

    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#")
    assert lines[1:] == ["10412gc", "10587gn"]
    corpus.relabel_create(annotators=("v01", "v02", "v03", "v04"), pairs=out)
    sent = query(mapped_db, "SELECT DISTINCT s.item_id FROM assignments s JOIN batches b "
                 "ON b.pk = s.batch_pk WHERE b.kind = 'relabel' ORDER BY 1")  # fmt: skip
    assert [row[0] for row in sent] == ["10412gc", "10587gn"]


def test_without_dynamics_the_table_is_refused(sample_db: Path) -> None:
    refused(sample_db, lambda corpus: corpus.stats("cartography"), "no score run")


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
