"""A language's translations imported in several partial files (`--align rows` of the dev
file, then of the test file): the checks across units (`duplicate`, `same_as_premise`) are
computed over every stored translation of the language and kind, so a second file neither
erases what the first one's units were found to share nor misses a duplicate across files.

The imports run and the translation table is read through the Python API."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conftest import MYXNLI, query, requires_fixtures
from test_translate_rows import SOURCE, german, write_tsv

import nlibuild

# Pairs 0 and 1 share their premise; their hypotheses differ in English.
FILE_1 = [
    ("entailment", "Ein Mann spielt auf einer Bühne Gitarre.", "Der Mann ist da."),
    ("contradiction", "Ein Mann spielt auf einer Bühne Gitarre.", "Der Mann ist da."),
]
FILE_2 = [
    ("entailment", "Zwei Hunde rennen über ein verschneites Feld.", "Die Hunde sind draußen."),
    ("neutral", "Zwei Hunde rennen über ein verschneites Feld.", "Die Hunde jagen einen Ball."),
]


def findings(db: Path, check: str, lang: str = "de") -> dict[str, str]:
    return dict(
        query(
            db,
            'SELECT unit_id, detail FROM translation_checks WHERE lang = ? AND "check" = ?',
            lang,
            check,
        )
    )


def import_in_two_files(
    db: Path,
    tmp_path: Path,
    second: Sequence[tuple[str, ...]],
    first: Sequence[tuple[str, ...]] = FILE_1,
) -> None:
    """The source as one store, the German as two row-aligned files of two pairs each."""
    header = ["sentence1", "sentence2", "gold_label"]
    whole = write_tsv(tmp_path / "source.tsv", header, SOURCE)
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=whole, format="xnli", lang="en")
    for part, rows in enumerate((first, second)):
        pairs = SOURCE[2 * part : 2 * part + 2]
        reference = write_tsv(tmp_path / f"source{part}.tsv", header, pairs)
        file = german(tmp_path, list(rows), name=f"de{part}.tsv")
        corpus.translate_import(
            path=file, lang="de", align="rows", reference=reference, partial=True
        )


def hypothesis_units(db: Path) -> list[str]:
    return [u for (u,) in query(db, "SELECT 'h:' || id FROM pairs ORDER BY pk")]


def test_a_second_file_keeps_the_duplicates_of_the_first(db: Path, tmp_path: Path) -> None:
    import_in_two_files(db, tmp_path, FILE_2)
    h = hypothesis_units(db)
    assert findings(db, "duplicate") == {
        h[0]: f"the same translation as {h[1]}",
        h[1]: f"the same translation as {h[0]}",
    }
    (row,) = nlibuild.open(db).stats("translation").to_dicts()
    assert row["translated"] == 6 and row["checks"]["duplicate"] == 2


def test_a_duplicate_across_files_is_found(db: Path, tmp_path: Path) -> None:
    second = [("entailment", FILE_2[0][1], "Der Mann ist da."), FILE_2[1]]
    import_in_two_files(db, tmp_path, second)
    h = hypothesis_units(db)
    group = sorted([h[0], h[1], h[2]])
    assert findings(db, "duplicate") == {
        unit: "the same translation as " + ", ".join(u for u in group if u != unit)
        for unit in group
    }


def test_a_second_file_keeps_same_as_premise(db: Path, tmp_path: Path) -> None:
    # Hypothesis 0 is translated exactly like its premise, in the first file.
    first = [("entailment", FILE_1[0][1], FILE_1[0][1]), FILE_1[1]]
    import_in_two_files(db, tmp_path, FILE_2, first)
    h = hypothesis_units(db)
    assert list(findings(db, "same_as_premise")) == [h[0]]


@requires_fixtures
def test_myxnli_dev_then_test_keeps_the_findings_of_dev(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "corpus.db")
    splits = ("dev", "test")
    for split in splits:
        corpus.import_corpus(
            path=MYXNLI / f"my.genre.{split}.tsv", format="xnli", lang="en", label_order="e,n,c"
        )
    counts: list[set[str]] = []
    for split in splits:
        corpus.translate_import(
            path=MYXNLI / f"sw.genre.{split}.tsv", lang="sw", align="rows",
            reference=MYXNLI / f"my.genre.{split}.tsv", partial=True,
        )  # fmt: skip
        counts.append(set(findings(corpus.path, "duplicate", lang="sw")))
    # Dev's duplicates survive the test file; the second import may only add to them.
    assert counts[0] and counts[0] <= counts[1]
