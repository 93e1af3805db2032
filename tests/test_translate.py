"""`translate export|import`: units out, translations back by ID, coverage and checks.

XNLI (section 3.2) translated premises and hypotheses separately and copied the labels from
the source, so units are `p:<premise>` (each premise once) and `h:<pair>`, and labels never
travel. Translated corpora lost IDs (KorNLI) or silently dropped rows (AmericasNLI), so an
import aligns by unit ID, not by row, and checks that every unit came back.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    FIXTURES,
    SAMPLE_MNLI,
    copy_store,
    csv_rows,
    json_rows,
    ok,
    query,
    read_jsonl,
    read_tsv,
    refused,
    requires_fixtures,
    table_counts,
    write_jsonl,
)

import nlibuild
from nlibuild.models import TranslateImportResult
from nlibuild.translation.translation_checks import corpus_checks, unit_checks

COLUMNS = ["unit_id", "source_lang", "source", "lang", "text"]
CHECKS = ("empty", "untranslated", "roman_letters", "script", "length_ratio",
          "same_as_premise", "duplicate", "label_mismatch", "misaligned")  # fmt: skip

CORPUS = [
    ("P1", "The cat sat on the warm mat by the door.", "A cat is sitting.", "entailment"),
    ("P1", "The cat sat on the warm mat by the door.", "No animal is present.", "contradiction"),
    ("P2", "Two children are playing football in the park.", "Kids play outside.", "entailment"),
    ("P2", "Two children are playing football in the park.", "The children are asleep at home.",
     "contradiction"),
    ("P3", "A woman is reading a newspaper on the train.", "A woman is reading.", "neutral"),
]  # fmt: skip

GERMAN = {
    "The cat sat on the warm mat by the door.": "Die Katze saß auf der warmen Matte an der Tür.",
    "Two children are playing football in the park.": "Zwei Kinder spielen im Park Fußball.",
    "A woman is reading a newspaper on the train.": "Eine Frau liest im Zug eine Zeitung.",
    "A cat is sitting.": "Eine Katze sitzt.",
    "No animal is present.": "Kein Tier ist anwesend.",
    "Kids play outside.": "Kinder spielen draußen.",
    "The children are asleep at home.": "Die Kinder schlafen zu Hause.",
    "A woman is reading.": "Eine Frau liest.",
}

CHINESE = {
    "The cat sat on the warm mat by the door.": "猫坐在门边温暖的垫子上。",
    "Two children are playing football in the park.": "两个孩子在公园里踢足球。",
    "A woman is reading a newspaper on the train.": "一位女士在火车上看报纸。",
    "A cat is sitting.": "一只猫坐着。",
    "No animal is present.": "没有动物在场。",
    "Kids play outside.": "孩子们在外面玩。",
    "The children are asleep at home.": "孩子们在家睡觉。",
    "A woman is reading.": "一位女士在读书。",
}


# --- helpers ----------------------------------------------------------------------------


def write_corpus(path: Path, records: list[tuple[str, str, str, str]]) -> Path:
    """nlibuild jsonl of (premise_id, premise, hypothesis, label) pairs, author-only."""
    return write_jsonl(
        path,
        [
            {"premise_id": premise_id, "premise": premise, "hypothesis": hypothesis,
             "labels": [label]}
            for premise_id, premise, hypothesis, label in records
        ],
    )  # fmt: skip


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 3 English premises and 5 pairs, built once and copied per test."""
    folder = tmp_path_factory.mktemp("template")
    corpus = nlibuild.create(folder / "template.db")
    corpus.import_corpus(path=write_corpus(folder / "corpus.jsonl", CORPUS), format="jsonl")
    return corpus.path


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Path:
    return copy_store(template, tmp_path / "corpus.db")


def read_unit_file(path: Path, fmt: str) -> list[dict[str, str]]:
    if fmt == "jsonl":
        return read_jsonl(path)
    if fmt == "tsv":
        return read_tsv(path)
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def write_unit_file(path: Path, fmt: str, rows: list[dict[str, str]]) -> Path:
    if fmt == "jsonl":
        return write_jsonl(path, rows)
    if fmt == "tsv":  # unquoted, as NLI tsv files are: a `"` is text
        lines = ["\t".join(COLUMNS)] + ["\t".join(r.get(c, "") for c in COLUMNS) for r in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows([r.get(c, "") for c in COLUMNS] for r in rows)
    return path


Unit = dict[str, str]
"""One row of a unit file: unit_id, source_lang, source, lang, text."""
Translations = dict[tuple[str, str, str], tuple[str, int | None]]
"""(unit, lang, kind) -> (text, translator pk) of every stored translation."""


def export(db: Path, tmp_path: Path, lang: str, fmt: str = "tsv", **settings: Any) -> list[Unit]:
    """`translate export --lang LANG --out units-LANG.FMT` with `settings` (`missing_only`,
    `kind`); the units it wrote."""
    out = tmp_path / f"units-{lang}.{fmt}"
    nlibuild.open(db).translate_export(lang=lang, out=out, **settings)
    return read_unit_file(out, fmt)


def filled(units: list[Unit], table: dict[str, str]) -> list[Unit]:
    return [{**u, "text": table[u["source"]]} for u in units]


def translations(db: Path) -> Translations:
    rows = query(db, "SELECT unit_id, lang, kind, text, translator_pk FROM translations")
    return {(u, lang, kind): (text, pk) for u, lang, kind, text, pk in rows}


def stored_checks(db: Path) -> set[tuple[str, str, str]]:
    rows = query(db, 'SELECT unit_id, lang, "check" FROM translation_checks')
    return {(u, lang, check) for u, lang, check in rows}


def snapshot(db: Path) -> tuple[dict[str, int], int, Translations]:
    """table_counts, the number of stored checks and every translation."""
    [(checks,)] = query(db, "SELECT count(*) FROM translation_checks")
    return table_counts(db), checks, translations(db)


def import_units(db: Path, path: Path, lang: str, **settings: Any) -> TranslateImportResult:
    """`translate import PATH --lang LANG` with `settings` (`partial`, `kind`, ...), which
    must succeed."""
    return nlibuild.open(db).translate_import(path=path, lang=lang, **settings)


def refused_import(db: Path, path: Path, lang: str, *says: str, **settings: Any) -> str:
    """`translate import PATH --lang LANG` with `settings`, which must be refused with a
    message holding every fragment of `says`, the store as it was; the message."""
    return refused(
        db, lambda corpus: corpus.translate_import(path=path, lang=lang, **settings), *says
    )


def ids_of(units: list[Unit], source: str) -> str:
    (unit_id,) = [u["unit_id"] for u in units if u["source"] == source]
    return unit_id


# --- export -----------------------------------------------------------------------------


def test_export_writes_each_premise_once_and_one_unit_per_hypothesis(
    store: Path, tmp_path: Path
) -> None:
    # Through the CLI: its report is part of the spec.
    out = tmp_path / "units.tsv"
    report = ok("--db", store, "translate", "export", "--lang", "de", "--out", out)
    assert report.startswith(
        f"Exported 8 units to translate into de (3 premises, 5 hypotheses) to {out} (run "
    )
    header = out.read_text(encoding="utf-8").splitlines()[0]
    assert header.split("\t") == COLUMNS
    units = read_unit_file(out, "tsv")
    premises = [u for u in units if u["unit_id"].startswith("p:")]
    hypotheses = [u for u in units if u["unit_id"].startswith("h:")]
    assert [u["unit_id"] for u in premises] == ["p:P1", "p:P2", "p:P3"]
    assert [u["source"] for u in premises] == list(dict.fromkeys(r[1] for r in CORPUS))
    assert [u["source"] for u in hypotheses] == [r[2] for r in CORPUS]
    assert len({u["unit_id"] for u in units}) == 8
    assert all(u["source_lang"] == "en" and u["lang"] == "de" and u["text"] == "" for u in units)
    # Labels never travel with the units.
    assert all(set(u) == set(COLUMNS) for u in units)
    text = out.read_text(encoding="utf-8")
    assert not any(label in text for label in ("entailment", "neutral", "contradiction"))


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_export_csv_and_jsonl_hold_the_same_units(store: Path, tmp_path: Path, fmt: str) -> None:
    tsv = export(store, tmp_path, "de", "tsv")
    other = export(store, tmp_path, "de", fmt)
    assert other == tsv
    if fmt == "jsonl":
        first = read_jsonl(tmp_path / "units-de.jsonl")[0]
        assert list(first) == COLUMNS


def test_export_tsv_is_unquoted_and_puts_tabs_and_newlines_on_one_line(
    db: Path, tmp_path: Path
) -> None:
    corpus = tmp_path / "c.jsonl"
    write_jsonl(corpus, [{"premise_id": "Q", "premise": 'He said "no"\tand\nleft.',
                          "hypothesis": "He left.", "labels": ["entailment"]}])  # fmt: skip
    nlibuild.open(db).import_corpus(path=corpus, format="jsonl")
    units = export(db, tmp_path, "de", "tsv")
    assert units[0]["source"] == 'He said "no" and left.'
    assert len((tmp_path / "units-de.tsv").read_text().splitlines()) == 3


def test_export_missing_only_leaves_out_translated_units(store: Path, tmp_path: Path) -> None:
    units = export(store, tmp_path, "de")
    done = filled(units[:3], GERMAN)
    path = write_unit_file(tmp_path / "part.tsv", "tsv", done)
    import_units(store, path, "de", partial=True)
    rest = export(store, tmp_path, "de", "tsv", missing_only=True)
    assert [u["unit_id"] for u in rest] == [u["unit_id"] for u in units[3:]]
    # Another kind or language still has everything to do.
    assert len(export(store, tmp_path, "de", "csv", missing_only=True, kind="mt")) == 8
    assert len(export(store, tmp_path, "zh", "jsonl", missing_only=True)) == 8
    path = write_unit_file(tmp_path / "rest.tsv", "tsv", filled(rest, GERMAN))
    import_units(store, path, "de")
    refused(store, lambda corpus: corpus.translate_export(
        lang="de", missing_only=True, out=tmp_path / "none.tsv",
    ), "nothing to translate into de", "without a translation")  # fmt: skip


def test_export_into_the_store_language_is_an_error(store: Path, tmp_path: Path) -> None:
    refused(store, lambda corpus: corpus.translate_export(lang="en", out=tmp_path / "u.tsv"),
            "nothing to translate into en")  # fmt: skip
    assert not (tmp_path / "u.tsv").exists()


def test_export_of_mnli_sample_has_each_premise_once(sample_db: Path, tmp_path: Path) -> None:
    records = read_jsonl(SAMPLE_MNLI)
    units = export(sample_db, tmp_path, "fr", "jsonl")
    premises = [u for u in units if u["unit_id"].startswith("p:")]
    hypotheses = [u for u in units if u["unit_id"].startswith("h:")]
    assert len(hypotheses) == len(records)
    assert {u["source"] for u in premises} == {r["sentence1"] for r in records}
    assert len(premises) == len({u["source"] for u in premises})
    assert {u["unit_id"] for u in hypotheses} == {f"h:{r['pairID']}" for r in records}


# --- round trip -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
def test_round_trip_by_id_stores_every_translation(store: Path, tmp_path: Path, fmt: str) -> None:
    units = export(store, tmp_path, "de", fmt)
    path = write_unit_file(tmp_path / f"de.{fmt}", fmt, filled(units, GERMAN))
    result = import_units(store, path, "de", translator="T1")
    assert (result.rows, result.added, result.unchanged, result.empty) == (8, 8, 0, 0)
    assert (result.missing, result.extra, result.checks) == (0, 0, {})
    stored = translations(store)
    assert {k: text for k, (text, _) in stored.items()} == {
        (u["unit_id"], "de", "human"): GERMAN[u["source"]] for u in units
    }
    assert len({pk for _, pk in stored.values()}) == 1
    assert None not in {pk for _, pk in stored.values()}
    assert stored_checks(store) == set()


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
def test_a_shuffled_file_imports_the_same(
    tmp_path: Path, fmt: str, store: Path, template: Path
) -> None:
    units = export(store, tmp_path, "de", fmt)
    rows = filled(units, GERMAN)
    other = copy_store(template, tmp_path / "other.db")
    shuffled = rows[:]
    random.Random(7).shuffle(shuffled)
    assert shuffled != rows
    import_units(store, write_unit_file(tmp_path / f"a.{fmt}", fmt, rows), "de")
    import_units(other, write_unit_file(tmp_path / f"b.{fmt}", fmt, shuffled), "de")
    assert translations(store) == translations(other)
    # Only unit_id and text are needed on the way back.
    minimal = write_jsonl(
        tmp_path / "min.jsonl", [{"unit_id": r["unit_id"], "text": r["text"]} for r in shuffled]
    )
    third = copy_store(template, tmp_path / "third.db")
    import_units(third, minimal, "de")
    assert translations(third) == translations(store)


def test_importing_the_same_file_twice_changes_nothing(store: Path, tmp_path: Path) -> None:
    units = export(store, tmp_path, "zh")
    path = write_unit_file(tmp_path / "zh.tsv", "tsv", filled(units, CHINESE))
    import_units(store, path, "zh")
    counts, checks, stored = snapshot(store)
    result = import_units(store, path, "zh")
    assert (result.rows, result.added, result.unchanged, result.empty) == (8, 0, 8, 0)
    after_counts, after_checks, after = snapshot(store)
    assert after == stored
    assert after_checks == checks
    # Only the run is recorded.
    assert {k: v for k, v in after_counts.items() if k != "runs"} == {
        k: v for k, v in counts.items() if k != "runs"
    }


def test_a_different_second_translation_is_a_conflict(store: Path, tmp_path: Path) -> None:
    units = export(store, tmp_path, "de")
    rows = filled(units, GERMAN)
    import_units(store, write_unit_file(tmp_path / "a.tsv", "tsv", rows), "de")
    before = snapshot(store)
    changed = [dict(r) for r in rows]
    changed[4]["text"] = "Es ist kein Tier da."
    path = write_unit_file(tmp_path / "b.tsv", "tsv", changed)
    message = refused_import(store, path, "de", changed[4]["unit_id"], "line 6",
                             "already has another human translation into de")  # fmt: skip
    assert "Kein Tier ist anwesend." in message
    assert snapshot(store) == before
    # The same text as another kind is a separate translation.
    import_units(store, path, "de", kind="mt")
    assert translations(store)[(changed[4]["unit_id"], "de", "mt")][0] == "Es ist kein Tier da."
    assert translations(store)[(changed[4]["unit_id"], "de", "human")][0] == rows[4]["text"]


def test_whitespace_in_a_translation_is_kept_as_written(store: Path, tmp_path: Path) -> None:
    # The file's text is the translation: a store that tidied it could not be compared with
    # its release (tests/test_trust_translate.py has the checks' side of this).
    units = export(store, tmp_path, "de", "csv")
    rows = filled(units, GERMAN)
    rows[0]["text"] = "  Die Katze saß\nauf der warmen   Matte an der Tür. "
    import_units(store, write_unit_file(tmp_path / "a.csv", "csv", rows), "de")
    assert translations(store)[("p:P1", "de", "human")][0] == rows[0]["text"]


# --- coverage ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
def test_a_dropped_row_is_an_error_naming_the_unit(store: Path, tmp_path: Path, fmt: str) -> None:
    units = export(store, tmp_path, "de", fmt)
    rows = filled(units, GERMAN)
    dropped = rows.pop(3)
    path = write_unit_file(tmp_path / f"d.{fmt}", fmt, rows)
    before = snapshot(store)
    refused_import(store, path, "de", "1 unit without a translation", dropped["unit_id"],
                   "--partial")  # fmt: skip
    assert snapshot(store) == before


def test_partial_imports_what_matches_and_reports_what_is_left(store: Path, tmp_path: Path) -> None:
    units = export(store, tmp_path, "de")
    rows = filled(units, GERMAN)
    kept = rows[:2] + rows[4:]
    result = import_units(store, write_unit_file(tmp_path / "p.tsv", "tsv", kept), "de",
                          partial=True)  # fmt: skip
    assert result.added == 6
    assert (result.missing, result.extra) == (2, 0)
    assert {k[0] for k in translations(store)} == {r["unit_id"] for r in kept}
    # A later file with only the rest completes it without --partial.
    path = write_unit_file(tmp_path / "rest.tsv", "tsv", rows[2:4])
    result = import_units(store, path, "de")
    assert (result.added, result.missing) == (2, 0)
    assert len(translations(store)) == 8


def test_many_missing_units_are_listed_up_to_five(store: Path, tmp_path: Path) -> None:
    units = export(store, tmp_path, "de")
    path = write_unit_file(tmp_path / "one.tsv", "tsv", filled(units[:1], GERMAN))
    message = refused_import(store, path, "de", "7 units without a translation", "and 2 more",
                             "--partial")  # fmt: skip
    assert units[1]["unit_id"] in message


def test_a_row_for_an_unknown_unit_is_an_error_or_counted_with_partial(
    store: Path, tmp_path: Path
) -> None:
    units = export(store, tmp_path, "de", "jsonl")
    rows = [*filled(units, GERMAN), {"unit_id": "h:NOPE", "source_lang": "en", "source": "x",
                                     "lang": "de", "text": "Unbekannt."}]  # fmt: skip
    path = write_unit_file(tmp_path / "x.jsonl", "jsonl", rows)
    before = snapshot(store)
    refused_import(store, path, "de", "1 row for units the store does not hold", "h:NOPE",
                   "--partial")  # fmt: skip
    assert snapshot(store) == before
    result = import_units(store, path, "de", partial=True)
    assert (result.rows, result.added) == (9, 8)
    assert (result.missing, result.extra) == (0, 1)
    assert ("h:NOPE", "de", "human") not in translations(store)


def test_a_repeated_unit_id_is_an_error_naming_both_lines(store: Path, tmp_path: Path) -> None:
    units = export(store, tmp_path, "de")
    rows = filled(units, GERMAN)
    rows.insert(5, dict(rows[1]))  # p:P2 at data row 2 (line 3) and again at line 7
    path = write_unit_file(tmp_path / "r.tsv", "tsv", rows)
    before = snapshot(store)
    refused_import(store, path, "de", "line 7", "p:P2 again", "first at line 3")
    refused_import(store, path, "de", "p:P2 again", partial=True)
    assert snapshot(store) == before


@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
def test_a_lang_column_that_disagrees_is_an_error(store: Path, tmp_path: Path, fmt: str) -> None:
    units = export(store, tmp_path, "de", fmt)
    path = write_unit_file(tmp_path / f"l.{fmt}", fmt, filled(units, GERMAN))
    before = snapshot(store)
    refused_import(store, path, "fr", "p:P1 is marked lang de, not fr", "check --lang")
    assert snapshot(store) == before


def test_a_file_without_a_text_column_is_an_error(store: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("unit_id,translation\np:P1,Die Katze\n", encoding="utf-8")
    refused_import(store, path, "de", "no text column")


def test_import_format_option_overrides_the_suffix(store: Path, tmp_path: Path) -> None:
    # Through the CLI: the commands' `--format` option.
    out = tmp_path / "units.tsv"
    ok("--db", store, "translate", "export", "--lang", "de", "--format", "csv", "--out", out)
    assert out.read_text().startswith("unit_id,source_lang,")
    rows = filled(read_unit_file(out, "csv"), GERMAN)
    write_unit_file(out, "csv", rows)
    ok("--db", store, "translate", "import", out, "--lang", "de", "--format", "csv")
    assert len(translations(store)) == 8


# --- checks -----------------------------------------------------------------------------


def test_unit_checks_empty_and_untranslated() -> None:
    assert [c.check for c in unit_checks("p:1", "A dog runs.", "en", "  ", "de")] == ["empty"]
    found = [c.check for c in unit_checks("p:1", "A dog runs fast.", "en", "a dog  runs FAST.",
                                          "de")]  # fmt: skip
    assert found == ["untranslated"]
    # Digits only are the same in any language.
    assert unit_checks("p:1", "1999", "en", "1999", "de") == []
    # Same language (en-GB from en) is not a translation to check.
    assert unit_checks("p:1", "A dog runs.", "en", "A dog runs.", "en-GB") == []


def test_unit_checks_roman_letters_over_ten() -> None:
    source = "The company released a new phone yesterday."
    ten = "这家公司昨天发布了一款新手机ABCDEFGHIJ。"
    eleven = "这家公司昨天发布了一款新手机ABCDEFGHIJK。"
    assert unit_checks("p:1", source, "en", ten, "zh") == []
    found = unit_checks("p:1", source, "en", eleven, "zh")
    assert [c.check for c in found] == ["roman_letters"]
    assert "11 Roman letters" in found[0].detail
    # Latin-script targets are not checked for Roman letters.
    assert unit_checks("p:1", source, "en", "Die Firma ABCDEFGHIJKLMNOP.", "de") == []


def test_unit_checks_script() -> None:
    found = unit_checks("p:1", "Apple sells the iPad.", "en", "Mac 卖 iPad", "zh")
    assert [c.check for c in found] == ["script"]
    assert unit_checks("p:1", "Apple sells computers.", "en", "苹果公司卖电脑Apple", "zh") == []


def test_unit_checks_length_ratio_is_scaled_by_script() -> None:
    source = "Two children are playing football in the park."  # 40 characters
    # A normal Chinese translation, about 0.3 of the characters, passes.
    assert unit_checks("p:1", source, "en", "两个孩子在公园里踢足球。", "zh") == []
    # The same length in German is far too short, as is a stub in Chinese.
    assert [c.check for c in unit_checks("p:1", source, "en", "Kinder spielen.", "de")] == [
        "length_ratio"
    ]
    assert [c.check for c in unit_checks("p:1", source, "en", "孩子。", "zh")] == ["length_ratio"]
    long = "两个孩子在公园里踢足球" * 4
    assert [c.check for c in unit_checks("p:1", source, "en", long, "zh")] == ["length_ratio"]
    assert [c.check for c in unit_checks("p:1", source, "en", source * 3 + "x", "de")] == [
        "length_ratio"
    ]
    # Short sources are not checked for length.
    assert unit_checks("p:1", "A dog.", "en", "Ein sehr, sehr großer Hund.", "de") == []


def test_corpus_checks_same_as_premise_and_duplicate() -> None:
    sources = {"p:A": "A man sleeps.", "h:A1": "A man is asleep.", "h:A2": "A man sleeps.",
               "p:B": "A dog barks.", "h:B1": "It barks."}  # fmt: skip
    translations = {"p:A": "Ein Mann schläft.", "h:A1": "Ein Mann schläft.",
                    "h:A2": "Ein Mann schläft.", "p:B": "Ein Hund bellt.",
                    "h:B1": "Ein Hund bellt."}  # fmt: skip
    premise_of = {"h:A1": "p:A", "h:A2": "p:A", "h:B1": "p:B"}
    found = {(c.unit_id, c.check) for c in corpus_checks(translations, sources, premise_of)}
    # h:A2's source is its premise's: the same translation is right.
    assert found == {
        ("h:A1", "same_as_premise"), ("h:B1", "same_as_premise"),
        ("p:A", "duplicate"), ("h:A1", "duplicate"), ("h:A2", "duplicate"),
        ("p:B", "duplicate"), ("h:B1", "duplicate"),
    }  # fmt: skip
    # One translation of two identical sources is no duplicate.
    assert corpus_checks({"h:1": "X", "h:2": "X"}, {"h:1": "s", "h:2": "s"}, {}) == []


def test_import_stores_counts_and_reports_every_check(store: Path, tmp_path: Path) -> None:
    units = export(store, tmp_path, "zh")
    rows = filled(units, CHINESE)
    unit = {u["source"]: u["unit_id"] for u in units}
    text = {r["unit_id"]: r for r in rows}
    text[unit["A cat is sitting."]]["text"] = ""  # empty
    # untranslated (and so Latin script, Roman letters, length)
    text[unit["A woman is reading a newspaper on the train."]]["text"] = (
        "A woman is reading a newspaper on the train."
    )
    text[unit["Two children are playing football in the park."]]["text"] = (
        "两个孩子在公园里踢足球，他们叫Alexandrina。"  # 11 Roman letters
    )
    text[unit["No animal is present."]]["text"] = "没有animal在场"  # mostly Latin letters
    text[unit["The children are asleep at home."]]["text"] = "睡"  # far too short
    premise = "A woman is reading a newspaper on the train."
    text[unit["A woman is reading."]]["text"] = premise  # like its premise, a duplicate too
    # one translation for two different sources
    text[unit["Kids play outside."]]["text"] = CHINESE["The cat sat on the warm mat by the door."]
    path = write_unit_file(tmp_path / "zh.tsv", "tsv", rows)
    # Through the CLI: the report and the stats table in each format are part of the spec.
    report = ok("--db", store, "translate", "import", path, "--lang", "zh")
    assert "7 added, 0 already there, 1 empty; 1 units still untranslated" in report
    found = stored_checks(store)
    expected = {
        (unit["A cat is sitting."], "empty"),
        (unit["A woman is reading a newspaper on the train."], "untranslated"),
        (unit["A woman is reading a newspaper on the train."], "roman_letters"),
        (unit["A woman is reading a newspaper on the train."], "script"),
        (unit["A woman is reading a newspaper on the train."], "length_ratio"),
        (unit["Two children are playing football in the park."], "roman_letters"),
        (unit["No animal is present."], "script"),
        (unit["The children are asleep at home."], "length_ratio"),
        (unit["A woman is reading."], "same_as_premise"),
        (unit["A woman is reading."], "roman_letters"),
        (unit["A woman is reading."], "script"),
        (unit["A woman is reading."], "length_ratio"),
        (unit["A woman is reading."], "duplicate"),
        (unit["A woman is reading a newspaper on the train."], "duplicate"),
        (unit["Kids play outside."], "duplicate"),
        (unit["The cat sat on the warm mat by the door."], "duplicate"),
    }
    assert {(u, check) for u, lang, check in found} == expected
    assert {lang for _, lang, _ in found} == {"zh"}
    counts: dict[str, int] = {}
    for _, check in expected:
        counts[check] = counts.get(check, 0) + 1
    closing = ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))
    assert f"checks: {closing} (run " in report
    # The empty row is not stored as a translation.
    assert (unit["A cat is sitting."], "zh", "human") not in translations(store)

    table = csv_rows("--db", store, "stats", "--table", "translation")
    assert table == [
        {"lang": "zh", "kind": "human", "translated": "7",
         **{c: str(counts.get(c, 0)) for c in CHECKS}}
    ]  # fmt: skip
    assert json_rows("--db", store, "stats", "--table", "translation") == [
        {"lang": "zh", "kind": "human", "translated": 7, "checks": counts}
    ]
    shown = ok("--db", store, "stats", "--table", "translation")
    assert "Translations and their checks (units)" in shown and "zh" in shown


def test_stats_translation_of_a_store_without_translations_is_empty(store: Path) -> None:
    assert nlibuild.open(store).stats("translation").to_dicts() == []


def test_a_later_translation_clears_the_empty_check(store: Path, tmp_path: Path) -> None:
    units = export(store, tmp_path, "de")
    rows = filled(units, GERMAN)
    blank = [dict(r) for r in rows]
    blank[0]["text"] = ""
    import_units(store, write_unit_file(tmp_path / "a.tsv", "tsv", blank), "de")
    assert ("p:P1", "de", "empty") in stored_checks(store)
    import_units(store, write_unit_file(tmp_path / "b.tsv", "tsv", rows[:1]), "de")
    assert ("p:P1", "de", "human") in translations(store)
    assert ("p:P1", "de", "empty") not in stored_checks(store)


# --- real data: UD PUD ------------------------------------------------------------------


def read_pud(lang: str) -> dict[str, str]:
    """sent_id -> the `# text = ` sentence of a PUD CoNLL-U file."""
    sentences: dict[str, str] = {}
    sent_id = None
    path = FIXTURES / "ud_pud" / f"{lang}_pud-ud-test.conllu"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# sent_id = "):
            sent_id = line.removeprefix("# sent_id = ").strip()
        elif line.startswith("# text = ") and sent_id is not None:
            sentences[sent_id] = line.removeprefix("# text = ").strip()
            sent_id = None
    return sentences


@requires_fixtures
def test_pud_translations_round_trip_by_sentence_id(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    english, german, chinese = read_pud("en"), read_pud("de"), read_pud("zh")
    assert len(english) == len(german) == len(chinese) == 1000
    ids = list(english)[:50]
    records = []
    for sent_id in ids:
        words = english[sent_id].split()
        hypothesis = " ".join(words[: max(3, len(words) // 2)])
        records.append((sent_id, english[sent_id], hypothesis, "neutral"))
    corpus = write_corpus(tmp_path / "pud_en.jsonl", records)
    nlibuild.open(db).import_corpus(path=corpus, format="jsonl")

    def half(text: str, lang: str) -> str:
        if lang == "zh":
            return text[: max(4, len(text) // 2)]
        words = text.split()
        return " ".join(words[: max(3, len(words) // 2)])

    report: dict[str, TranslateImportResult] = {}
    for lang, target in (("de", german), ("zh", chinese)):
        units = export(db, tmp_path, lang, "tsv")
        premises = [u for u in units if u["unit_id"].startswith("p:")]
        assert len(premises) == 50 and len(units) == 100
        rows = []
        for unit in units:
            kind, key = unit["unit_id"].split(":", 1)
            sent_id = key if kind == "p" else key.rsplit("-", 1)[0]
            assert sent_id in target, unit["unit_id"]
            text = target[sent_id] if kind == "p" else half(target[sent_id], lang)
            rows.append({**unit, "text": text})
        random.Random(3).shuffle(rows)
        path = write_unit_file(tmp_path / f"pud_{lang}.tsv", "tsv", rows)
        imported = import_units(db, path, lang, translator=f"pud-{lang}")
        stored = translations(db)
        for sent_id in ids:
            assert stored[(f"p:{sent_id}", lang, "human")][0] == " ".join(target[sent_id].split())
        report[lang] = imported

    table = nlibuild.open(db).stats("translation")
    data = table.to_dicts()
    flagged = {
        lang: {check: sorted(u for u, la, c in stored_checks(db) if la == lang and c == check)
               for check in CHECKS}
        for lang in ("de", "zh")
    }  # fmt: skip
    with capsys.disabled():
        print("\n--- PUD translation import ---")
        for lang, result in report.items():
            print(f"{lang}: {result.added} of {result.rows} units added, checks {result.checks}")
        print(table)
        for lang in ("de", "zh"):
            for check, unit_ids in flagged[lang].items():
                if unit_ids:
                    print(f"{lang} {check}: {len(unit_ids)} {unit_ids[:6]}")
    by_lang = {r["lang"]: r for r in data}
    assert by_lang["de"]["translated"] == by_lang["zh"]["translated"] == 100
    zh_premises_flagged = {
        u for check in ("roman_letters", "script", "length_ratio", "untranslated", "empty")
        for u in flagged["zh"][check] if u.startswith("p:")
    }  # fmt: skip
    # The genuine PUD Chinese sentences mostly pass the script and length checks.
    assert len(zh_premises_flagged) <= 10, zh_premises_flagged
    assert not flagged["zh"]["untranslated"] and not flagged["zh"]["empty"]
    assert not flagged["de"]["untranslated"] and not flagged["de"]["empty"]
