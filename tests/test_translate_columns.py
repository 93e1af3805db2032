"""`translate import --columns`: translation files whose headers are not nlibuild's own
(`sentence1_tgt`, XNLI-MT's `hypo`, a units file with `id` and `translation`) are read by
naming their columns, as `import --format table` reads any table of pairs; the result is
the same store as from the standard file. A mapping naming a column the file lacks, a
column for two keys, a key of the other alignment or a key twice is one error line, and
the store is as it was."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import FIXTURES, fails, ok, query, read_tsv, refused, requires_fixtures

# The corpus and its German rows of the row-aligned tests.
from test_translate_rows import GERMAN, SOURCE, write_tsv

import nlibuild
from nlibuild.models import TranslateImportResult


@pytest.fixture
def reference(db: Path, tmp_path: Path) -> Path:
    """The English source, imported into `db`: the rows a row-aligned file follows."""
    path = write_tsv(tmp_path / "source.tsv", ["sentence1", "sentence2", "gold_label"], SOURCE)
    nlibuild.open(db).import_corpus(path=path, format="xnli", lang="en")
    return path


def source_store(db: Path, reference: Path) -> Path:
    """A second English store at `db` holding the source rows of `reference`."""
    nlibuild.create(db, lang="en").import_corpus(path=reference, format="xnli", lang="en")
    return db


def german_rows(header: list[str], tmp_path: Path, name: str) -> Path:
    """The German rows in the source's order, under `header` (label, premise, hypothesis)."""
    rows = [(label, p, h) for (_, _, label), (p, h) in zip(SOURCE, GERMAN, strict=True)]
    return write_tsv(tmp_path / name, header, rows)


def stored(db: Path) -> list[tuple[str, str, str, str]]:
    """Every stored translation: unit, language, kind, text."""
    return query(db, "SELECT unit_id, lang, kind, text FROM translations ORDER BY unit_id")


def checks(db: Path) -> list[tuple[str, str, str]]:
    return query(
        db, 'SELECT unit_id, "check", detail FROM translation_checks ORDER BY unit_id, "check"'
    )


def import_rows(db: Path, file: Path, reference: Path, **columns: str) -> TranslateImportResult:
    """`translate import FILE --lang de --align rows --reference REFERENCE`, the file's
    columns named by `columns` (`--columns KEY=COLUMN,...`)."""
    return nlibuild.open(db).translate_import(
        path=file, lang="de", align="rows", reference=reference, columns=columns
    )


def test_sentence1_tgt_columns_import_like_the_standard_file(
    db: Path, tmp_path: Path, reference: Path
) -> None:
    standard = german_rows(["label", "sentence1_de", "sentence2_de"], tmp_path, "de.tsv")
    import_rows(db, standard, reference)
    expected, expected_checks = stored(db), checks(db)
    assert len(expected) == 6

    again = source_store(tmp_path / "again.db", reference)
    renamed = german_rows(["label", "sentence1_tgt", "sentence2_tgt"], tmp_path, "tgt.tsv")
    result = import_rows(again, renamed, reference,
                         premise="sentence1_tgt", hypothesis="sentence2_tgt")  # fmt: skip
    assert (result.added, result.missing) == (6, 0)
    assert stored(again) == expected
    assert checks(again) == expected_checks


def test_xnli_mt_hypo_header_is_named_with_one_key(
    db: Path, tmp_path: Path, reference: Path
) -> None:
    # XNLI-MT's files call the hypothesis `hypo`; `premise` is found under its own name.
    file = german_rows(["label", "premise", "hypo"], tmp_path, "hypo.tsv")
    assert import_rows(db, file, reference, hypothesis="hypo").added == 6
    assert sorted(text for unit, _, _, text in stored(db) if unit.startswith("h:")) == sorted(
        h for _, h in GERMAN
    )


def test_a_mapped_label_column_is_compared_with_the_source(
    db: Path, tmp_path: Path, reference: Path
) -> None:
    rows = [(label, p, h) for (_, _, label), (p, h) in zip(SOURCE, GERMAN, strict=True)]
    rows[0] = ("contradiction", *rows[0][1:])
    file = write_tsv(tmp_path / "gold.tsv", ["gold", "s1", "s2"], rows)
    refused(db, lambda corpus: corpus.translate_import(
        path=file, lang="de", align="rows", reference=reference,
        columns={"premise": "s1", "hypothesis": "s2", "label": "gold"},
    ), "gold.tsv, line 2", "do not line up")  # fmt: skip
    # Unmapped, the `gold` column is no label column: nothing disagrees.
    result = import_rows(db, file, reference, premise="s1", hypothesis="s2")
    assert result.label_mismatches == 0


def units_by_id(db: Path, tmp_path: Path) -> list[dict[str, str]]:
    """The units `translate export` writes for German, translated."""
    out = tmp_path / "units.tsv"
    nlibuild.open(db).translate_export(lang="de", out=out)
    german = dict(zip([t for row in SOURCE for t in row[:2]],
                      [t for row in GERMAN for t in row], strict=True))  # fmt: skip
    return [{**unit, "text": german[unit["source"]]} for unit in read_tsv(out)]


@pytest.mark.parametrize("suffix", ["tsv", "csv"])
def test_units_under_other_headers_import_like_the_exported_file(
    db: Path, tmp_path: Path, reference: Path, suffix: str
) -> None:
    units = units_by_id(db, tmp_path)
    standard = tmp_path / "standard.tsv"
    write_tsv(standard, ["unit_id", "text"], [(u["unit_id"], u["text"]) for u in units])
    other = source_store(tmp_path / "other.db", reference)
    nlibuild.open(db).translate_import(path=standard, lang="de")

    renamed = tmp_path / f"renamed.{suffix}"
    with renamed.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t" if suffix == "tsv" else ",")
        writer.writerow(["id", "translation", "language"])
        writer.writerows([(u["unit_id"], u["text"], "de") for u in units])
    result = nlibuild.open(other).translate_import(
        path=renamed,
        lang="de",
        columns={"unit_id": "id", "text": "translation", "lang": "language"},
    )
    assert result.added == 6
    assert stored(other) == stored(db) and checks(other) == checks(db)


def test_without_columns_the_run_signature_is_unchanged(
    db: Path, tmp_path: Path, reference: Path
) -> None:
    # Through the CLI: the report shows the run's signature.
    standard = german_rows(["label", "sentence1_de", "sentence2_de"], tmp_path, "de.tsv")
    out = ok("--db", db, "translate", "import", standard, "--lang", "de", "--align", "rows",
             "--reference", reference)  # fmt: skip
    assert "columns" not in out
    ((signature,),) = query(db, "SELECT signature FROM runs WHERE stage = 'translate-import'")
    assert "columns" not in signature and signature in out


@pytest.mark.parametrize(
    ("align", "columns", "says"),
    [
        ("rows", {"premise": "s1", "hypothesis": "nope"},
         ("tgt.tsv, line 1", "hypothesis=nope", "no column 'nope'", "s1, s2")),
        ("rows", {"premise": "s1", "hypothesis": "s1"},
         ("tgt.tsv, line 1", "column 's1'", "both premise and hypothesis")),
        ("rows", {"unit_id": "s1"}, ("no key 'unit_id' with --align rows", "premise, hypothesis")),
        ("id", {"premise": "s1"}, ("no key 'premise' with --align id", "unit_id, text, lang")),
        ("id", {"unit_id": "s1", "text": "missing"},
         ("tgt.tsv, line 1", "text=missing", "no column 'missing'")),
        ("id", {"unit_id": "label", "text": "s1", "lang": "s1"},
         ("tgt.tsv, line 1", "column 's1'", "both text and lang")),
    ],
)  # fmt: skip
def test_bad_mappings_are_one_error_and_leave_the_store(
    db: Path, tmp_path: Path, reference: Path, align: str, columns: dict[str, str],
    says: tuple[str, ...],
) -> None:  # fmt: skip
    file = german_rows(["label", "s1", "s2"], tmp_path, "tgt.tsv")
    given = {"reference": reference} if align == "rows" else {}
    refused(db, lambda corpus: corpus.translate_import(
        path=file, lang="de", align=align, columns=columns, **given
    ), *says)  # fmt: skip


@pytest.mark.parametrize(
    ("columns", "says"),
    [
        ("premise=s1,premise=s2", ("--columns names premise twice",)),
        ("text", ("give KEY=COLUMN items",)),
    ],
)
def test_columns_text_that_is_no_mapping_is_one_error_line(
    db: Path, tmp_path: Path, reference: Path, columns: str, says: tuple[str, ...]
) -> None:
    # What the CLI's `--columns` text cannot say as a mapping: a key twice, an item without `=`.
    file = german_rows(["label", "s1", "s2"], tmp_path, "tgt.tsv")
    fails(db, "translate", "import", file, "--lang", "de", "--align", "rows",
          "--reference", reference, "--columns", columns, says=says)  # fmt: skip


@requires_fixtures
def test_myxnli_swahili_with_renamed_headers_imports_identically(db: Path, tmp_path: Path) -> None:
    folder = FIXTURES / "myxnli"
    source = folder / "sw.genre.dev.tsv"
    lines = source.read_text(encoding="utf-8").split("\n")
    assert lines[0].split("\t") == ["genre", "label", "sentence1_sw", "sentence2_sw"]
    renamed = tmp_path / "sw.renamed.tsv"
    renamed.write_text(
        "\n".join(["domain\tgold\tsentence1_tgt\thypo", *lines[1:]]), encoding="utf-8"
    )
    stores = []
    for name, file, columns in [
        ("standard.db", source, {}),
        ("renamed.db", renamed, {"premise": "sentence1_tgt", "hypothesis": "hypo",
                                 "label": "gold"}),
    ]:  # fmt: skip
        corpus = nlibuild.create(tmp_path / name, lang="en")
        corpus.import_corpus(path=folder / "my.genre.dev.tsv", format="xnli", lang="en",
                             label_order="e,n,c")  # fmt: skip
        result = corpus.translate_import(path=file, lang="sw", align="rows",
                                         reference=folder / "my.genre.dev.tsv",
                                         columns=columns)  # fmt: skip
        assert result.added == 3320 and result.label_mismatches == 0
        stores.append(corpus.path)
    assert stored(stores[0]) == stored(stores[1])
    assert sum(lang == "sw" for _, lang, _, _ in stored(stores[1])) == 3320
    assert checks(stores[0]) == checks(stores[1])
