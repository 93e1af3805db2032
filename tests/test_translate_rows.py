"""`translate import --align rows --reference SOURCE`: translations without IDs that follow
their source row by row (myXNLI's `sentence1_<lang>` tsv, KorNLI), one row per pair. Each
reference row names a store pair by its texts, in the store's pair order; labels are never
taken from the translation; rows whose label disagrees with the source are refused unless
--force, which imports them and reports them. A dropped row, a shuffled file and an
untranslated row are caught (tests/test_trust_align.py: every piece of alignment evidence)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conftest import FIXTURES, fails, ok, query, refused, requires_fixtures

import nlibuild
from nlibuild.api import Corpus
from nlibuild.models import TranslateImportResult

SOURCE = [
    ("A man plays a guitar on a stage.", "A man makes music.", "entailment"),
    ("A man plays a guitar on a stage.", "The man is asleep at home.", "contradiction"),
    ("Two dogs run across a snowy field.", "The dogs are outside.", "entailment"),
    ("Two dogs run across a snowy field.", "The dogs are chasing a ball.", "neutral"),
]
GERMAN = [
    ("Ein Mann spielt auf einer Bühne Gitarre.", "Ein Mann macht Musik."),
    ("Ein Mann spielt auf einer Bühne Gitarre.", "Der Mann schläft zu Hause."),
    ("Zwei Hunde rennen über ein verschneites Feld.", "Die Hunde sind draußen."),
    ("Zwei Hunde rennen über ein verschneites Feld.", "Die Hunde jagen einen Ball."),
]


def write_tsv(path: Path, header: list[str], rows: Sequence[tuple[str, ...]]) -> Path:
    path.write_text(
        "\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def store_with_source(db: Path, tmp_path: Path) -> Path:
    reference = write_tsv(tmp_path / "source.tsv", ["sentence1", "sentence2", "gold_label"], SOURCE)
    nlibuild.open(db).import_corpus(path=reference, format="xnli", lang="en")
    return reference


def german(tmp_path: Path, rows: list[tuple[str, ...]], name: str = "de.tsv") -> Path:
    return write_tsv(tmp_path / name, ["label", "sentence1_de", "sentence2_de"], rows)


def aligned_rows() -> list[tuple[str, ...]]:
    """The German rows with the source's labels, in the source's order."""
    return [(label, p, h) for (_, _, label), (p, h) in zip(SOURCE, GERMAN, strict=True)]


def translations(db: Path) -> dict[str, str]:
    return dict(query(db, "SELECT unit_id, text FROM translations WHERE lang = 'de'"))


def import_by_rows(
    corpus: Corpus, file: Path, reference: Path, *, force: bool = False
) -> TranslateImportResult:
    """`translate import FILE --lang de --align rows --reference REFERENCE` (`--force`)."""
    return corpus.translate_import(
        path=file, lang="de", align="rows", reference=reference, force=force
    )


def test_rows_follow_the_reference_and_become_units(db: Path, tmp_path: Path) -> None:
    reference = store_with_source(db, tmp_path)
    file = german(tmp_path, aligned_rows())
    result = import_by_rows(nlibuild.open(db), file, reference)
    assert (result.added, result.missing) == (6, 0)
    stored = translations(db)
    assert sorted(text for unit, text in stored.items() if unit.startswith("p:")) == sorted(
        {p for p, _ in GERMAN}
    )
    assert sorted(text for unit, text in stored.items() if unit.startswith("h:")) == sorted(
        h for _, h in GERMAN
    )
    # Importing the same file again changes nothing.
    again = import_by_rows(nlibuild.open(db), file, reference)
    assert (again.added, again.unchanged) == (0, 6)


def test_a_dropped_row_cannot_be_aligned_and_says_where_labels_part(
    db: Path, tmp_path: Path
) -> None:
    reference = store_with_source(db, tmp_path)
    rows = aligned_rows()
    file = german(tmp_path, rows[:1] + rows[2:])
    refused(db, lambda corpus: import_by_rows(corpus, file, reference),
            "3 rows where the reference", "has 4", "line 3")  # fmt: skip


def test_a_shuffled_file_is_refused_and_forced_shows_as_labels_that_disagree(
    db: Path, tmp_path: Path
) -> None:
    # Through the CLI: its Error line, and the report's clause on labels that disagree.
    reference = store_with_source(db, tmp_path)
    rows = aligned_rows()
    shuffled = german(tmp_path, [rows[1], rows[0], rows[3], rows[2]])
    fails(db, "translate", "import", shuffled, "--lang", "de", "--align", "rows",
          "--reference", reference,
          says=("de.tsv, line 2", "do not line up", "4 of 4 rows", "--force"))  # fmt: skip
    out = ok("--db", db, "translate", "import", shuffled, "--lang", "de", "--align", "rows",
             "--reference", reference, "--force")  # fmt: skip
    assert "4 label columns disagree with the source" in out


def test_labels_are_never_taken_from_the_translation(db: Path, tmp_path: Path) -> None:
    reference = store_with_source(db, tmp_path)
    rows = aligned_rows()
    rows[2] = ("contradiction", *rows[2][1:])
    result = import_by_rows(nlibuild.open(db), german(tmp_path, rows), reference, force=True)
    assert result.checks["label_mismatch"] == 1 and result.label_mismatches == 1
    labels = nlibuild.open(db).pairs()["gold"].to_list()
    assert labels == [label for _, _, label in SOURCE]


def test_an_untranslated_row_is_flagged(db: Path, tmp_path: Path) -> None:
    reference = store_with_source(db, tmp_path)
    rows = aligned_rows()
    rows[3] = (rows[3][0], rows[3][1], SOURCE[3][1])
    result = import_by_rows(nlibuild.open(db), german(tmp_path, rows), reference)
    assert result.checks["untranslated"] == 1


def test_a_reference_the_store_does_not_hold_is_an_error(db: Path, tmp_path: Path) -> None:
    store_with_source(db, tmp_path)
    other = write_tsv(tmp_path / "other.tsv", ["sentence1", "sentence2", "gold_label"],
                      [("A cat sleeps.", "An animal rests.", "entailment")])  # fmt: skip
    file = german(tmp_path, [("entailment", "Eine Katze schläft.", "Ein Tier ruht.")])
    refused(db, lambda corpus: import_by_rows(corpus, file, other),
            "other.tsv, line 2", "no pair of the store has this premise")  # fmt: skip


def test_rows_without_a_reference_is_an_error(db: Path, tmp_path: Path) -> None:
    store_with_source(db, tmp_path)
    file = german(tmp_path, [("entailment", "Ein Mann.", "Musik.")])
    refused(db, lambda corpus: corpus.translate_import(path=file, lang="de", align="rows"),
            "--align rows needs --reference")  # fmt: skip


@requires_fixtures
def test_myxnli_swahili_human_translation_by_row(db: Path) -> None:
    folder = FIXTURES / "myxnli"
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=folder / "my.genre.dev.tsv", format="xnli", lang="en",
                         label_order="e,n,c")  # fmt: skip
    result = corpus.translate_import(path=folder / "sw.genre.dev.tsv", lang="sw", align="rows",
                                     reference=folder / "my.genre.dev.tsv")  # fmt: skip
    print(result)
    assert (result.added, result.missing) == (3320, 0)
    assert result.label_mismatches == 0  # no label column disagrees with the source
    print(corpus.stats("lengths"))
