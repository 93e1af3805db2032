"""Translations as the file gives them, and one-language exports of translated pairs.

A store that tidies a translation's white space can no longer be compared with the release
it came from (1,254 of the Urdu texts of a real release differed from its file): texts are
stored byte for byte, and white space is normalised only inside the checks. And
`export --lang L` in a format that holds one language (hf-jsonl, mnli-jsonl, ocnli-json,
jsonl) writes the pairs in L: those stored in L and those translated into L, with the
source's IDs and labels, as XNLI copied them to every language.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import (
    MYXNLI,
    SAMPLE_MNLI,
    myxnli_store,
    ok,
    query,
    read_jsonl,
    refused,
    requires_fixtures,
    write_jsonl,
)

import nlibuild
from nlibuild.models import ExportResult

Records = list[dict[str, Any]]

UNIT_COLUMNS = ("unit_id", "source_lang", "source", "lang", "text")
DEMO_TRANSLATIONS = Path(__file__).resolve().parent.parent / "data/translations/sample_mnli.de.tsv"
HF_LABELS = {"entailment": 0, "neutral": 1, "contradiction": 2}
"""hf-jsonl's default order e,n,c as integers, and myXNLI's Swahili label names."""

CORPUS = [
    ("P1", "The cat sat on the warm mat by the door.", "A cat is sitting.", "entailment"),
    ("P1", "The cat sat on the warm mat by the door.", "No animal is present.", "contradiction"),
    ("P2", "Two children are playing football in the park.", "The children are asleep at home.",
     "contradiction"),
    ("P3", "A woman is reading a newspaper on the train.", "A woman is reading.", "neutral"),
    ("P3", "A woman is reading a newspaper on the train.", "A man is asleep.", "contradiction"),
]  # fmt: skip

UNTIDY_GERMAN = {
    # double spaces, a space at either end of the cell, a no-break space
    "The cat sat on the warm mat by the door.": " Die Katze  saß auf der warmen Matte an der Tür. ",
    "A cat is sitting.": "Eine\u00a0Katze sitzt.",
    # not NFC: u + combining diaeresis
    "Two children are playing football in the park.": "Zwei Kinder spielen im Park Fu\u00dfball.",
    "The children are asleep at home.": "Die Kinder schlafen zu Hause und tra\u0308umen.",
    # untranslated, but for its white space
    "No animal is present.": "No  animal is present. ",
    # like its premise, but for its white space
    "A woman is reading a newspaper on the train.": "Eine Frau liest im Zug  eine Zeitung.",
    "A woman is reading.": " Eine Frau liest im Zug eine Zeitung.",
    # white space alone: an empty row
    "A man is asleep.": " \u00a0 ",
}


def tsv_cells(path: Path) -> list[list[str]]:
    """The cells of a tsv file as its bytes give them: split at line feeds and tabs only,
    nothing stripped (the format has no quoting; a line's newline is not part of a cell)."""
    lines = path.read_bytes().decode("utf-8").split("\n")
    return [line.split("\t") for line in lines if line]


def tsv_records(path: Path) -> list[dict[str, str]]:
    header, *rows = tsv_cells(path)
    return [dict(zip(header, row, strict=True)) for row in rows]


def stored_translations(db: Path, lang: str) -> dict[str, str]:
    rows = query(db, "SELECT unit_id, text FROM translations WHERE lang = ?", lang)
    return {unit: text for unit, text in rows}


def stored_checks(db: Path) -> set[tuple[str, str, str]]:
    return set(query(db, 'SELECT unit_id, "check", detail FROM translation_checks'))


def small_store(db: Path, tmp_path: Path) -> Path:
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"premise_id": p, "premise": premise, "hypothesis": h, "labels": [label]}
         for p, premise, h, label in CORPUS],
    )  # fmt: skip
    nlibuild.create(db).import_corpus(path=corpus, format="jsonl")
    return db


def write_units(path: Path, fmt: str, rows: list[dict[str, str]]) -> Path:
    if fmt == "jsonl":
        return write_jsonl(path, rows)
    lines = ["\t".join(UNIT_COLUMNS)] + ["\t".join(r[c] for c in UNIT_COLUMNS) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def filled_units(db: Path, tmp_path: Path, texts: dict[str, str]) -> list[dict[str, str]]:
    out = tmp_path / "units.tsv"
    nlibuild.open(db).translate_export(lang="de", out=out)
    return [{**unit, "text": texts[unit["source"]]} for unit in tsv_records(out)]


# --- 1. texts stored as the file gives them -------------------------------------------------


@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
def test_a_translation_is_stored_byte_for_byte_and_checked_as_before(
    tmp_path: Path, fmt: str
) -> None:
    untidy = small_store(tmp_path / "untidy.db", tmp_path)
    tidy = small_store(tmp_path / "tidy.db", tmp_path)
    rows = filled_units(untidy, tmp_path, UNTIDY_GERMAN)
    path = write_units(tmp_path / f"untidy.{fmt}", fmt, rows)
    nlibuild.open(untidy).translate_import(path=path, lang="de")
    if fmt == "tsv":  # what the file holds, read without the csv module
        assert [row["text"] for row in tsv_records(path)] == [row["text"] for row in rows]
    written = {row["unit_id"]: row["text"] for row in rows}
    empty = [unit for unit, text in written.items() if not text.split()]
    assert stored_translations(untidy, "de") == {
        unit: text for unit, text in written.items() if unit not in empty
    }
    # The checks see what they saw when the store held the tidied texts.
    tidied = [{**row, "text": " ".join(row["text"].split())} for row in rows]
    path = write_units(tmp_path / f"tidy.{fmt}", fmt, tidied)
    nlibuild.open(tidy).translate_import(path=path, lang="de")
    found = stored_checks(untidy)
    assert found == stored_checks(tidy)
    assert {check for _, check, _ in found} >= {"empty", "untranslated", "same_as_premise"}


def test_importing_the_same_untidy_file_again_changes_nothing(tmp_path: Path) -> None:
    db = small_store(tmp_path / "corpus.db", tmp_path)
    rows = filled_units(db, tmp_path, UNTIDY_GERMAN)
    path = write_units(tmp_path / "de.tsv", "tsv", rows)
    corpus = nlibuild.open(db)
    corpus.translate_import(path=path, lang="de")
    before = stored_translations(db, "de"), stored_checks(db)
    again = corpus.translate_import(path=path, lang="de")
    assert (again.added, again.unchanged) == (0, 7)
    assert (stored_translations(db, "de"), stored_checks(db)) == before


def test_an_xnli_file_with_translation_columns_stores_them_as_written(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "corpus.db")
    header = ["pairID", "promptID", "gold_label", "sentence1_en", "sentence2_en",
              "sentence1_de", "sentence2_de"]  # fmt: skip
    rows = [
        ["1e", "1", "entailment", "The cat sat on the mat.", "A cat sits.",
         " Die Katze  saß auf der Matte. ", "Eine\u00a0Katze sitzt."],
        ["1c", "1", "contradiction", "The cat sat on the mat.", "No cat is there.",
         " Die Katze  saß auf der Matte. ", "Da ist keine Katze, tra\u0308ume ich. "],
    ]  # fmt: skip
    path = tmp_path / "xnli.tsv"
    path.write_text("\n".join("\t".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    corpus.import_corpus(path=path, format="xnli", lang="en")
    assert stored_translations(corpus.path, "de") == {
        "p:1": rows[0][5], "h:1e": rows[0][6], "h:1c": rows[1][6],
    }  # fmt: skip


def premise_and_pair_ids(db: Path) -> list[tuple[str, str]]:
    return [
        (premise, pair)
        for premise, pair in query(
            db,
            "SELECT pr.id, p.id FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
            "ORDER BY p.pk",
        )
    ]


@requires_fixtures
def test_every_myxnli_translation_equals_its_cell_in_the_file(tmp_path: Path) -> None:
    db = myxnli_store(nlibuild.create(tmp_path / "corpus.db").path, "dev")
    ids = premise_and_pair_ids(db)
    for lang, file in (("sw", "sw.genre.dev.tsv"), ("my", "my.genre.dev.tsv")):
        stored = stored_translations(db, lang)
        records = tsv_records(MYXNLI / file)
        assert len(records) == len(ids) == 2490
        differ = [
            unit
            for (premise, pair), record in zip(ids, records, strict=True)
            for unit, column in ((f"p:{premise}", "sentence1"), (f"h:{pair}", "sentence2"))
            if stored[unit] != record[f"{column}_{lang}"]
        ]
        assert differ == [], f"{len(differ)} {lang} translations differ from the file"


# --- 2. one-language exports of translated pairs ----------------------------------------------


@pytest.fixture
def demo_db(tmp_path: Path) -> Path:
    """`make demo`'s store: the MNLI sample (en) and its German translation."""
    corpus = nlibuild.create(tmp_path / "demo.db", preset="mnli")
    corpus.import_corpus(path=SAMPLE_MNLI, format="mnli")
    corpus.translate_import(path=DEMO_TRANSLATIONS, lang="de", translator="de01")
    return corpus.path


def export(db: Path, out: Path, fmt: str, lang: str | None = None) -> tuple[ExportResult, Records]:
    """The result and the records of an export, `--lang LANG` if given (ocnli-json is JSON
    lines too)."""
    langs = () if lang is None else (lang,)
    result = nlibuild.open(db).export(format=fmt, out=out, langs=langs)
    return result, read_jsonl(out)


def assert_translated(result: ExportResult, lang: str, translated: int, left_out: int) -> None:
    """`result` wrote the pairs in one language `lang`: `translated` from their human
    translation into it, `left_out` pairs without one left out (the report's parenthesis)."""
    assert result.lang == lang
    assert (result.translated_rows, result.untranslated_pairs) == (translated, left_out)


TEXT_FIELDS = {
    "hf-jsonl": ("premise", "hypothesis"),
    "mnli-jsonl": ("sentence1", "sentence2"),
    "ocnli-json": ("sentence1", "sentence2"),
    "jsonl": ("premise", "hypothesis"),
}


@pytest.mark.parametrize("fmt", sorted(TEXT_FIELDS))
def test_lang_writes_the_pairs_translated_into_it_with_the_source_ids_and_labels(
    demo_db: Path, tmp_path: Path, fmt: str
) -> None:
    german = {r["unit_id"]: r["text"] for r in tsv_records(DEMO_TRANSLATIONS)}
    _, source = export(demo_db, tmp_path / "en.jsonl", fmt)
    out = tmp_path / "de.jsonl"
    result, translated = export(demo_db, out, fmt, "de")
    assert (result.out, result.rows, result.pairs) == (out, 48, 48)
    assert_translated(result, "de", translated=48, left_out=0)
    premise, hypothesis = TEXT_FIELDS[fmt]
    ids = premise_and_pair_ids(demo_db)
    assert len(translated) == len(source) == len(ids) == 48
    for (premise_id, pair_id), english, row in zip(ids, source, translated, strict=True):
        assert (row[premise], row[hypothesis]) == (
            german[f"p:{premise_id}"],
            german[f"h:{pair_id}"],
        )
        # Everything else is the source's: IDs, genre, labels; only the language changes.
        assert {k: v for k, v in row.items() if k not in (premise, hypothesis, "lang")} == {
            k: v for k, v in english.items() if k not in (premise, hypothesis, "lang")
        }
        assert row.get("lang", "de") == "de"


def test_lang_of_the_stored_language_writes_the_stored_pairs(demo_db: Path, tmp_path: Path) -> None:
    _, everything = export(demo_db, tmp_path / "all.jsonl", "hf-jsonl")
    result, english = export(demo_db, tmp_path / "en.jsonl", "hf-jsonl", "en")
    assert english == everything
    assert_translated(result, "en", translated=0, left_out=0)


def test_a_pair_without_a_translation_is_left_out_and_counted(
    demo_db: Path, tmp_path: Path
) -> None:
    records = tsv_records(DEMO_TRANSLATIONS)
    # French for every unit but one hypothesis and one premise (with its three pairs).
    dropped = {"h:10412ge", "p:10587g"}
    path = tmp_path / "fr.tsv"
    path.write_text(
        "\n".join(["\t".join(UNIT_COLUMNS)] + [
            "\t".join({**r, "lang": "fr", "text": "fr " + r["text"]}[c] for c in UNIT_COLUMNS)
            for r in records if r["unit_id"] not in dropped
        ]) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    # The "French" is the German sample marked fr: --force past the language check.
    nlibuild.open(demo_db).translate_import(path=path, lang="fr", partial=True, force=True)
    out = tmp_path / "fr.jsonl"
    result, french = export(demo_db, out, "hf-jsonl", "fr")
    left_out = {"10412ge"} | {f"10587g{x}" for x in "enc"}
    written = {r["id"] for r in french}
    assert len(french) == 48 - len(left_out) and not written & left_out
    assert_translated(result, "fr", translated=44, left_out=4)
    assert all(r["premise"].startswith("fr ") for r in french)


def test_lang_of_a_language_without_translations_writes_nothing_and_says_why(
    demo_db: Path, tmp_path: Path
) -> None:
    # Through the CLI: its report says why.
    out = tmp_path / "ur.jsonl"
    report = ok("--db", demo_db, "export", "--format", "hf-jsonl", "--lang", "ur", "--out", out)
    urdu = read_jsonl(out)
    assert urdu == []
    assert "(0 pairs from their human translation into ur; 48 pairs without one left out)" in (
        report
    )


def test_a_one_language_format_refuses_two_languages(demo_db: Path, tmp_path: Path) -> None:
    refused(demo_db, lambda corpus: corpus.export(
        format="hf-jsonl", langs=("en", "de"), out=tmp_path / "both.jsonl",
    ), "--lang en,de", "hf-jsonl holds one language", "xnli-jsonl")  # fmt: skip
    assert not (tmp_path / "both.jsonl").exists()


@requires_fixtures
def test_myxnli_swahili_exports_as_hf_jsonl_with_the_file_texts_and_labels(
    tmp_path: Path,
) -> None:
    db = myxnli_store(nlibuild.create(tmp_path / "corpus.db").path, "dev")
    _, english = export(db, tmp_path / "en.jsonl", "hf-jsonl", "en")
    result, swahili = export(db, tmp_path / "sw.jsonl", "hf-jsonl", "sw")
    assert_translated(result, "sw", translated=2490, left_out=0)
    records = tsv_records(MYXNLI / "sw.genre.dev.tsv")
    assert len(swahili) == len(english) == len(records) == 2490
    for source, row, record in zip(english, swahili, records, strict=True):
        assert row["id"] == source["id"]
        assert (row["premise"], row["hypothesis"]) == (
            record["sentence1_sw"], record["sentence2_sw"],
        )  # fmt: skip
        assert row["label"] == source["label"] == HF_LABELS[record["label"]]
