"""Issue 16, the script check and language identification of translations.

The script check compares a translation's letters with the scripts its language is written
in, per Unicode's Script property (through the `regex` package), for every language of XNLI,
AmericasNLI and IndoNLI: romanised Urdu, Russian, Bulgarian or Greek is flagged; text in the
language's own script is not. `translate import` identifies the language of a sample of the
rows (py3langid, offline) and refuses a file that is clearly in another language than
`--lang`, unless `--force`.

The stages run through the Python API; the CLI keeps the refusal's `Error:` line and the
notes `translate import` prints under its report.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import polars as pl
import pytest
import regex
from conftest import (
    MYXNLI,
    drawn_text,
    fails,
    ok,
    query,
    read_tsv,
    refused,
    requires_fixtures,
    write_jsonl,
)
from test_translate import CORPUS  # the five pairs the translation tests use

import nlibuild
from nlibuild.text.language_id import SAMPLE_SIZE, identifier_code, identify_language, sample_units
from nlibuild.text.writing_systems import EXPECTED_SCRIPTS, expected_scripts
from nlibuild.translation.translation_checks import unit_checks, unit_checks_of

XNLI = ("en", "fr", "es", "de", "el", "bg", "ru", "tr", "ar", "vi", "th", "zh", "hi", "sw", "ur")
AMERICAS_NLI = ("aym", "bzd", "cni", "gn", "hch", "nah", "oto", "quy", "shp", "tar")
SOURCE = "A woman is reading a newspaper on the train."

ROMANISED = {
    "ur": "Ek aurat train mein akhbaar parh rahi hai.",
    "ru": "Zhenshchina chitayet gazetu v poyezde.",
    "bg": "Edna zhena chete vestnik vav vlaka.",
    "el": "Mia gynaika diavazei efimerida sto treno.",
}
IN_OWN_SCRIPT = {
    "ur": "ایک عورت ٹرین میں اخبار پڑھ رہی ہے۔",
    "ru": "Женщина читает газету в поезде.",
    "bg": "Една жена чете вестник във влака.",
    "el": "Μια γυναίκα διαβάζει εφημερίδα στο τρένο.",
}


URDU = {
    "The cat sat on the warm mat by the door.": "بلی دروازے کے پاس گرم چٹائی پر بیٹھی تھی۔",
    "Two children are playing football in the park.": "دو بچے پارک میں فٹ بال کھیل رہے ہیں۔",
    "A woman is reading a newspaper on the train.": "ایک عورت ٹرین میں اخبار پڑھ رہی ہے۔",
    "A cat is sitting.": "ایک بلی بیٹھی ہے۔",
    "No animal is present.": "کوئی جانور موجود نہیں ہے۔",
    "Kids play outside.": "بچے باہر کھیلتے ہیں۔",
    "The children are asleep at home.": "بچے گھر پر سو رہے ہیں۔",
    "A woman is reading.": "عورت پڑھ رہی ہے۔",
}


def script_findings(text: str, lang: str) -> list[str]:
    return [c.check for c in unit_checks("p:1", SOURCE, "en", text, lang) if c.check == "script"]


# --- the expected scripts -----------------------------------------------------------------


def test_every_xnli_americasnli_and_indonli_language_has_unicode_scripts() -> None:
    for lang in (*XNLI, *AMERICAS_NLI, "id", "my", "ko", "ja", "eu"):
        scripts = expected_scripts(lang)
        assert scripts, lang
        for script in scripts:  # a name Unicode does not know is an error of the regex package
            regex.compile(rf"\p{{Script={script}}}")
    assert expected_scripts("ur") == ("Arabic",)
    assert expected_scripts("el") == ("Greek",)
    assert set(EXPECTED_SCRIPTS["ja"]) == {"Han", "Hiragana", "Katakana"}
    assert expected_scripts("zh-Hant") == ("Han",)
    assert expected_scripts("xx") is None


@pytest.mark.parametrize("lang", sorted(ROMANISED))
def test_romanised_text_is_flagged_and_the_own_script_is_not(lang: str) -> None:
    assert script_findings(ROMANISED[lang], lang) == ["script"]
    [detail] = [c.detail for c in unit_checks("p:1", SOURCE, "en", ROMANISED[lang], lang)
                if c.check == "script"]  # fmt: skip
    assert "100% of the letters" in detail and "mostly Latin" in detail
    assert script_findings(IN_OWN_SCRIPT[lang], lang) == []


def test_a_latin_script_language_written_in_cyrillic_is_flagged() -> None:
    assert script_findings("Мтото анасома гажети ндани ја треини.", "sw") == ["script"]
    assert script_findings("Mtoto anasoma gazeti ndani ya treni.", "sw") == []


def test_digits_and_punctuation_count_for_no_script() -> None:
    # Common characters (digits, punctuation) do not make Greek text "Latin".
    assert script_findings("Στις 12:30, 2.500 €!", "el") == []
    # Japanese mixes kanji and both kana; Korean may carry Han characters.
    assert script_findings("東京で新聞を読んでいるカタカナ。", "ja") == []
    assert script_findings("한국 大學 학생", "ko") == []


def test_an_unknown_language_gets_no_script_check() -> None:
    assert script_findings("Все это кириллица.", "xx") == []


def unit_frame(texts: list[str]) -> pl.DataFrame:
    return pl.DataFrame(
        {"unit": [f"h:{i}" for i in range(len(texts))], "source": ["x" * 20] * len(texts),
         "source_lang": ["en"] * len(texts), "text": texts},
        schema=dict.fromkeys(("unit", "source", "source_lang", "text"), pl.String),
    )  # fmt: skip


def myxnli_texts(lang: str) -> list[str]:
    rows = read_tsv(MYXNLI / f"{lang}.genre.dev.tsv")
    return list(dict.fromkeys(r[f"sentence{i}_{lang}"] for r in rows for i in (1, 2)))


@requires_fixtures
def test_real_myxnli_burmese_and_swahili_are_in_their_scripts() -> None:
    burmese, swahili = myxnli_texts("my"), myxnli_texts("sw")

    def flagged(texts: list[str], lang: str) -> int:
        return sum(c.check == "script" for c in unit_checks_of(unit_frame(texts), lang))

    # Real translations in their own script: (almost) nothing to flag.
    assert flagged(burmese, "my") <= len(burmese) // 100
    assert flagged(swahili, "sw") == 0
    # The same texts declared as the other language: nearly every one is in the wrong script.
    assert flagged(swahili, "my") >= len(swahili) * 0.95
    assert flagged(burmese, "sw") >= len(burmese) * 0.95


# --- language identification --------------------------------------------------------------


def test_the_identifier_knows_xnli_burmese_and_indonesian_but_not_most_of_americasnli() -> None:
    for lang in (*XNLI, "my", "id", "eu", "quy", "gn"):
        assert identifier_code(lang) is not None, lang
    for lang in ("aym", "bzd", "cni", "hch", "nah", "oto", "shp", "tar"):
        assert identifier_code(lang) is None, lang


def test_the_sample_does_not_depend_on_file_order() -> None:
    units = [(f"h:{i}", f"Sentensi ya mfano nambari {i} kwa Kiswahili.") for i in range(600)]
    shuffled = units[:]
    random.Random(7).shuffle(shuffled)
    assert sample_units(units) == sample_units(shuffled)
    assert len(sample_units(units)) == SAMPLE_SIZE
    # Units with fewer than ten letters are not identified.
    assert sample_units([("h:1", "Ndiyo."), ("h:2", "12345 678")]) == []


def test_a_language_the_identifier_does_not_know_is_skipped_saying_so() -> None:
    verdict = identify_language([("h:1", "Jichhaxa utan jakasiw sarnaqaraki.")] * 9, "aym")
    assert verdict.refusal() is None
    assert verdict.note() == "language not identified: py3langid does not know aym"


# --- translate import ---------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Path:
    corpus = nlibuild.create(tmp_path / "corpus.db")
    pairs = write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"premise_id": p, "premise": premise, "hypothesis": h, "labels": [label]}
         for p, premise, h, label in CORPUS],
    )  # fmt: skip
    corpus.import_corpus(path=pairs, format="jsonl")
    return corpus.path


def urdu_file(store: Path, tmp_path: Path, lang: str) -> Path:
    """The store's units exported for `lang`, filled with Urdu translations."""
    units = tmp_path / f"units.{lang}.tsv"
    nlibuild.open(store).translate_export(lang=lang, out=units)
    rows = read_tsv(units)
    with units.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter="\t",
                                quoting=csv.QUOTE_NONE, lineterminator="\n")  # fmt: skip
        writer.writeheader()
        writer.writerows({**r, "text": URDU[r["source"]]} for r in rows)
    return units


def test_an_urdu_file_declared_as_hindi_is_refused(store: Path, tmp_path: Path) -> None:
    path = urdu_file(store, tmp_path, "hi")
    line = fails(store, "translate", "import", path, "--lang", "hi",
                 says=(str(path), "identified as ur, not hi", "100% of 8 sampled units",
                       "(e.g. h:", "check --lang", "--force"))  # fmt: skip
    assert query(store, "SELECT count(*) FROM runs WHERE stage = 'translate-import'") == [(0,)]
    assert line.count(", h:") + line.count(", p:") == 2  # three example units


def test_force_imports_it_anyway_and_says_so(store: Path, tmp_path: Path) -> None:
    path = urdu_file(store, tmp_path, "hi")
    report = nlibuild.open(store).translate_import(path=path, lang="hi", force=True)
    assert report.added == 8
    identified = report.notes[0]
    assert "ur 100%" in identified and identified.endswith("(imported: --force)")


def test_the_urdu_file_as_urdu_is_accepted(store: Path, tmp_path: Path) -> None:
    report = ok("--db", store, "translate", "import", urdu_file(store, tmp_path, "ur"),
                "--lang", "ur")  # fmt: skip
    assert "8 added" in report
    notes = drawn_text(report, "Notes")
    assert "language identified (py3langid) in 8 sampled units: ur 100%" in notes
    assert query(store, "SELECT count(*) FROM translation_checks WHERE \"check\" = 'script'") == [
        (0,)
    ]


def test_an_unknown_language_imports_and_says_what_was_not_checked(
    store: Path, tmp_path: Path
) -> None:
    units = tmp_path / "units.tsv"
    corpus = nlibuild.open(store)
    corpus.translate_export(lang="xx", out=units)
    report = corpus.translate_import(path=units, lang="xx", partial=True)
    assert report.notes == [
        "language not identified: py3langid does not know xx",
        "script not checked: nlibuild does not know the script of xx",
    ]


def myxnli_corpus(db: Path) -> Path:
    """The XNLI English dev pairs of myXNLI's my.genre.dev.tsv, in a new store at `db`."""
    nlibuild.create(db).import_corpus(
        path=MYXNLI / "my.genre.dev.tsv", format="xnli", lang="en", label_order="e,n,c"
    )
    return db


@requires_fixtures
def test_the_real_swahili_file_declared_as_burmese_is_refused(tmp_path: Path) -> None:
    db = myxnli_corpus(tmp_path / "myxnli.db")
    reference = MYXNLI / "my.genre.dev.tsv"
    # The Swahili rows delivered as the Burmese translation (its columns named for my).
    swahili = tmp_path / "my.dev.tsv"
    text = (MYXNLI / "sw.genre.dev.tsv").read_text(encoding="utf-8")
    swahili.write_text(text.replace("_sw\t", "_my\t").replace("_sw\n", "_my\n", 1), "utf-8")
    message = refused(
        db,
        lambda corpus: corpus.translate_import(
            path=swahili, lang="my", kind="mt", align="rows", reference=reference
        ),
        str(swahili), "of 200 sampled units are identified as sw, not my", "check --lang",
    )  # fmt: skip
    share = int(message.split(": ", 1)[1].split("%")[0])
    assert share >= 95, message


@requires_fixtures
def test_the_real_swahili_file_as_swahili_is_accepted(tmp_path: Path) -> None:
    db = myxnli_corpus(tmp_path / "myxnli.db")
    report = nlibuild.open(db).translate_import(
        path=MYXNLI / "sw.genre.dev.tsv", lang="sw", align="rows",
        reference=MYXNLI / "my.genre.dev.tsv",
    )  # fmt: skip
    assert "language identified (py3langid) in 200 sampled units: sw 100%" in report.notes
    assert not [check for check in report.checks if "script" in check], report.checks
