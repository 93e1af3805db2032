"""A row-aligned translation whose rows do not line up with its reference is refused.

`translate import FILE --align rows --reference SOURCE` matches rows by position alone, so
a file in another order would put every translation under another pair (and, exported,
under another pair's label). Every piece of evidence a row carries must agree with its
reference row: the label (XNLI 3.2 copied labels to the translations), pairID, promptID
and genre, a copy of the source texts (myXNLI's `sentence1_en`), and premise repetition
(three hypotheses of a premise on consecutive rows, the premise translated once). One row
that disagrees refuses the import with one Error line naming the first rows; `--force`
imports the rows as they stand and records what disagrees with each.

The imports run through the Python API; the CLI keeps one refusal's `Error:` line and the
report of a forced import.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from conftest import (
    MYXNLI,
    copy_store,
    fails,
    ok,
    query,
    read_jsonl,
    refused,
    requires_fixtures,
)

import nlibuild
from nlibuild.models import TranslateImportResult

SOURCE_HEADER = ["pairID", "promptID", "genre", "sentence1", "sentence2", "gold_label"]
SOURCE = [
    ("1e", "1", "fiction", "A man plays a guitar on a stage.", "A man makes music.",
     "entailment"),
    ("1c", "1", "fiction", "A man plays a guitar on a stage.", "The man is asleep at home.",
     "contradiction"),
    ("1n", "1", "fiction", "A man plays a guitar on a stage.", "The man is a professional.",
     "neutral"),
    ("2e", "2", "travel", "Two dogs run across a snowy field.", "The dogs are outside.",
     "entailment"),
    ("2c", "2", "travel", "Two dogs run across a snowy field.", "The dogs are sleeping.",
     "contradiction"),
    ("2n", "2", "travel", "Two dogs run across a snowy field.", "The dogs chase a ball.",
     "neutral"),
]  # fmt: skip
GERMAN = [
    ("Ein Mann spielt auf einer Bühne Gitarre.", "Ein Mann macht Musik."),
    ("Ein Mann spielt auf einer Bühne Gitarre.", "Der Mann schläft zu Hause."),
    ("Ein Mann spielt auf einer Bühne Gitarre.", "Der Mann ist ein Profi."),
    ("Zwei Hunde rennen über ein verschneites Feld.", "Die Hunde sind draußen."),
    ("Zwei Hunde rennen über ein verschneites Feld.", "Die Hunde schlafen."),
    ("Zwei Hunde rennen über ein verschneites Feld.", "Die Hunde jagen einen Ball."),
]
GERMAN_HEADER = ["label", "sentence1_de", "sentence2_de"]


def write_tsv(path: Path, header: Sequence[str], rows: Sequence[Sequence[str]]) -> Path:
    lines = ["\t".join(header), *("\t".join(row) for row in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def store_with_source(db: Path, tmp_path: Path) -> Path:
    reference = write_tsv(tmp_path / "source.tsv", SOURCE_HEADER, SOURCE)
    nlibuild.open(db).import_corpus(path=reference, format="xnli", lang="en")
    return reference


def german_rows() -> list[list[str]]:
    """The German rows in the source's order, with the source's labels."""
    return [[s[5], p, h] for s, (p, h) in zip(SOURCE, GERMAN, strict=True)]


def swapped(rows: list[list[str]], first: int, second: int) -> list[list[str]]:
    rows = [list(row) for row in rows]
    rows[first], rows[second] = rows[second], rows[first]
    return rows


def import_rows(db: Path, file: Path, reference: Path) -> TranslateImportResult:
    """`translate import FILE --lang de --align rows --reference REFERENCE`."""
    return nlibuild.open(db).translate_import(
        path=file, lang="de", align="rows", reference=reference
    )


def misaligned(db: Path, file: Path, reference: Path, *says: str) -> str:
    """`import_rows` must be refused (see conftest's `refused`), the message saying the rows
    do not line up, naming --force and holding every fragment of `says`; returns it."""
    return refused(
        db,
        lambda corpus: corpus.translate_import(
            path=file, lang="de", align="rows", reference=reference
        ),
        "do not line up", "--force", *says,
    )  # fmt: skip


def pair_of(db: Path, hypothesis: str) -> str:
    """The store's ID of the pair whose hypothesis this is."""
    return str(query(db, "SELECT id FROM pairs WHERE hypothesis = ?", hypothesis)[0][0])


def test_rows_whose_every_piece_of_evidence_agrees_import(db: Path, tmp_path: Path) -> None:
    reference = store_with_source(db, tmp_path)
    rows = [[s[0], s[1], s[2], *row, s[3], s[4]] for s, row in zip(SOURCE, german_rows(),
                                                                     strict=True)]  # fmt: skip
    header = ["pairID", "promptID", "genre", *GERMAN_HEADER, "sentence1_en", "sentence2_en"]
    report = import_rows(db, write_tsv(tmp_path / "de.tsv", header, rows), reference)
    assert report.added == 8
    assert (report.label_mismatches, report.disagreements) == (0, {})


def test_two_hypotheses_of_a_premise_swapped_disagree_in_their_labels(
    db: Path, tmp_path: Path
) -> None:
    reference = store_with_source(db, tmp_path)
    file = write_tsv(tmp_path / "de.tsv", GERMAN_HEADER, swapped(german_rows(), 3, 4))
    # The CLI's one Error line (tests/test_translate_rows.py keeps its format).
    line = fails(db, "translate", "import", file, "--lang", "de", "--align", "rows",
                 "--reference", reference,
                 says=("do not line up", "--force", "de.tsv, line 5", "2 of 6 rows", "(label 2)",
                       f"line 5 (pair {pair_of(db, SOURCE[3][4])}, reference line 5): label "
                       "'contradiction' where the source has 'entailment'",
                       f"line 6 (pair {pair_of(db, SOURCE[4][4])}"))  # fmt: skip
    assert "source.tsv" in line


def test_rows_of_two_premises_swapped_break_the_premise_repetition(
    db: Path, tmp_path: Path
) -> None:
    """Rows 1 and 4 are both entailment: only the premises' repetition shows the swap."""
    reference = store_with_source(db, tmp_path)
    file = write_tsv(tmp_path / "de.tsv", GERMAN_HEADER, swapped(german_rows(), 0, 3))
    line = misaligned(db, file, reference, "de.tsv, line 3", "2 of 6 rows",
                      "(premise repetition 2)",
                      f"line 3 (pair {pair_of(db, SOURCE[1][4])}, reference line 3): its "
                      "premise is not line 2's where the source's repeats",
                      f"line 6 (pair {pair_of(db, SOURCE[4][4])}, reference line 6): its "
                      "premise is not line 5's")  # fmt: skip
    assert "line 5 (" not in line  # rows 4 and 5 repeat a premise where the source does not


def test_an_id_or_genre_column_that_disagrees_refuses(db: Path, tmp_path: Path) -> None:
    reference = store_with_source(db, tmp_path)
    rows = [[s[0], s[2], *row] for s, row in zip(SOURCE, german_rows(), strict=True)]
    rows[5][0], rows[5][1] = "2x", "fiction"
    file = write_tsv(tmp_path / "de.tsv", ["pairID", "genre", *GERMAN_HEADER], rows)
    misaligned(db, file, reference, "de.tsv, line 7", "1 of 6 rows", "genre 1, pairID 1",
               "pairID '2x' where the source has '2n'",
               "genre 'fiction' where the source has 'travel'")  # fmt: skip


def test_a_copy_of_the_source_texts_must_be_its_own_rows(db: Path, tmp_path: Path) -> None:
    reference = store_with_source(db, tmp_path)
    copies = [list(s[3:5]) for s in SOURCE]
    copies[1], copies[2] = copies[2], copies[1]
    rows = [[*row, *copy] for row, copy in zip(german_rows(), copies, strict=True)]
    file = write_tsv(tmp_path / "de.tsv", [*GERMAN_HEADER, "sentence1_en", "sentence2_en"], rows)
    misaligned(db, file, reference, "de.tsv, line 3", "(source text 2)",
               "its sentence1_en/sentence2_en is not the source's text")  # fmt: skip


def test_english_that_is_no_copy_of_the_source_is_no_evidence(db: Path, tmp_path: Path) -> None:
    """myXNLI's *.trans files hold a back-translation into English in sentence1_en."""
    reference = store_with_source(db, tmp_path)
    rows = [[*row, f"Back: {s[3]}", f"Back: {s[4]}"] for s, row in zip(SOURCE, german_rows(),
                                                                      strict=True)]  # fmt: skip
    file = write_tsv(tmp_path / "de.tsv", [*GERMAN_HEADER, "sentence1_en", "sentence2_en"], rows)
    assert import_rows(db, file, reference).added == 8


def test_forced_rows_are_recorded_and_spoil_nothing_else(db: Path, tmp_path: Path) -> None:
    """--force stores the rows as they stand: the two swapped hypotheses go under each
    other's pairs (what the user forced), every other pair keeps its own translation, the
    premises take the text most of their rows agree on, and what disagreed is kept as
    checks of the units."""
    reference = store_with_source(db, tmp_path)
    file = write_tsv(tmp_path / "de.tsv", GERMAN_HEADER, swapped(german_rows(), 0, 3))
    # The CLI's report names what was forced.
    out = ok("--db", db, "translate", "import", file, "--lang", "de", "--align", "rows",
             "--reference", reference, "--force")  # fmt: skip
    assert "8 added" in out
    assert "imported with --force: premise repetition 2" in out
    exported = tmp_path / "de.jsonl"
    corpus = nlibuild.open(db)
    corpus.export(format="hf-jsonl", langs=("de",), out=exported)
    pairs = {(r["premise"], r["hypothesis"]): r["label"] for r in read_jsonl(exported)}
    order = ["entailment", "neutral", "contradiction"]  # hf-jsonl's label integers
    forced = {0: 3, 3: 0}  # the rows swapped: each pair has the other's hypothesis
    expected = {
        (premise, GERMAN[forced.get(i, i)][1]): order.index(s[5])
        for i, (s, (premise, _)) in enumerate(zip(SOURCE, GERMAN, strict=True))
    }
    assert pairs == expected
    checks = query(db, "SELECT \"check\", detail FROM translation_checks WHERE \"check\" = "
                   "'misaligned' ORDER BY detail")  # fmt: skip
    assert [detail.split(" (")[0] for _, detail in checks] == ["line 3", "line 6"]
    (row,) = corpus.stats("translation").to_dicts()
    assert row["checks"] == {"misaligned": 2}  # and no label_mismatch: the labels agree


# --- the real myXNLI files ----------------------------------------------------------------


@pytest.fixture(scope="module")
def xnli_test_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The XNLI English test pairs (with their Burmese), from myXNLI's my.genre.test.tsv."""
    corpus = nlibuild.create(tmp_path_factory.mktemp("myxnli") / "xnli.db")
    if MYXNLI.is_dir():
        corpus.import_corpus(
            path=MYXNLI / "my.genre.test.tsv", format="xnli", lang="en", label_order="e,n,c"
        )
    return corpus.path


def tsv_lines(path: Path) -> tuple[str, list[str]]:
    header, *rows = path.read_text(encoding="utf-8").splitlines()
    return header, rows


@requires_fixtures
@pytest.mark.parametrize(
    ("file", "lang"),
    [("sw.genre.test.tsv", "sw"), ("sw.trans.test.tsv", "sw"), ("my.genre.test.tsv", "my")],
)
def test_the_real_myxnli_translations_line_up(
    xnli_test_store: Path, tmp_path: Path, file: str, lang: str
) -> None:
    """Swahili and Burmese: every label, genre and premise repetition agrees with XNLI's
    English; my.genre's English copy is the source's, sw.trans's English is a
    back-translation (no evidence)."""
    db = copy_store(xnli_test_store, tmp_path / "xnli.db")
    report = nlibuild.open(db).translate_import(
        path=MYXNLI / file, lang=lang, align="rows", reference=MYXNLI / "my.genre.test.tsv"
    )
    assert report.missing == 0
    assert (report.label_mismatches, report.disagreements) == (0, {})


def shuffled(rows: list[str]) -> list[str]:
    rows = list(rows)
    random.Random(16).shuffle(rows)
    return rows


def shifted(rows: list[str]) -> list[str]:
    return rows[1:] + rows[:1]


def across_premises(rows: list[str]) -> list[str]:
    """Lines 2503 and 2504 swapped: the last hypothesis of one travel premise and the first
    of the next, both contradiction: only the premise repetition tells."""
    rows = list(rows)
    rows[2501], rows[2502] = rows[2502], rows[2501]
    return rows


def within_a_premise(rows: list[str]) -> list[str]:
    """Lines 2501 and 2502 swapped: two hypotheses of one premise (entailment, neutral)."""
    rows = list(rows)
    rows[2499], rows[2500] = rows[2500], rows[2499]
    return rows


@requires_fixtures
@pytest.mark.parametrize(
    ("corrupt", "first_line", "what"),
    [
        (shuffled, 2, "label"),
        (shifted, 2, "label 'entailment' where the source has 'contradiction'"),
        (across_premises, 2503, "its premise is not line 2502's where the source's repeats"),
        (within_a_premise, 2501, "label 'neutral' where the source has 'entailment'"),
    ],
)
def test_a_real_file_out_of_order_is_refused_naming_the_first_rows(
    xnli_test_store: Path,
    tmp_path: Path,
    corrupt: Callable[[list[str]], list[str]],
    first_line: int,
    what: str,
) -> None:
    header, rows = tsv_lines(MYXNLI / "sw.genre.test.tsv")
    file = tmp_path / "sw.tsv"
    file.write_text("\n".join([header, *corrupt(rows)]) + "\n", encoding="utf-8")
    message = refused(
        xnli_test_store,
        lambda corpus: corpus.translate_import(
            path=file, lang="sw", align="rows", reference=MYXNLI / "my.genre.test.tsv"
        ),
        f"sw.tsv, line {first_line}: the rows do not line up", "my.genre.test.tsv",
        f"first line {first_line} (pair ", what, "pass --force",
    )  # fmt: skip
    assert "of 5010 rows disagree" in message
