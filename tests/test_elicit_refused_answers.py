"""An answer refused whole is counted in `elicit import`'s closing line (issue 28's note: the
line said "0 rejected" while two answers named premises their batch does not hold)."""

from __future__ import annotations

from pathlib import Path

from conftest import DATA, ok

ELICIT = DATA / "elicit"


def test_answers_whose_premise_is_not_in_their_batch_are_counted_as_refused(
    tmp_path: Path,
) -> None:
    db = tmp_path / "zh.db"
    ok("--db", db, "init", "--preset", "ocnli")
    for genre in ("gov", "phone"):  # lit and news, which the file also answers, are not here
        ok("--db", db, "ingest", DATA / "sources" / "zh" / f"{genre}.txt", "--genre", genre)
    ok("--db", db, "sample", "--per-genre", 10, "--seed", 13)
    ok("--db", db, "elicit", "create", "--protocol", "MULTI_CONSTRAINT", "--annotators",
       "w01,w02", "--batch-size", 4, "--max-per-writer", 8)  # fmt: skip
    out = ok("--db", db, "elicit", "import", ELICIT / "zh_e0001.labelstudio.json", "--format",
             "labelstudio", "--annotator-map", ELICIT / "annotators.csv")  # fmt: skip
    assert "17 pairs added, 0 rejected, 2 answers refused whole (see the checks)," in out
