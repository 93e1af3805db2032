"""Premise sampling on real data: Parallel UD (en, de, zh; news and wiki) as a sentence
pool, myXNLI dev as a pool of released premises and as a corpus to stay disjoint from.

Expected numbers are worked out from the fixture files themselves, not from nlibuild.
"""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from conftest import (
    FIXTURES,
    MYXNLI,
    csv_rows,
    new_store,
    ok,
    query,
    read_tsv,
    requires_fixtures,
    run_cli,
)

from nlibuild.text.lang import split_sentences

PUD = FIXTURES / "ud_pud"
MYXNLI_DEV = MYXNLI / "my.genre.dev.tsv"
GENRE_FROM = ("--genre-from", "^([nw])", "--genre-map", "n=news,w=wiki")
XNLI_GENRES = {
    "facetoface", "fiction", "government", "letters", "nineeleven", "oup", "slate",
    "telephone", "travel", "verbatim",
}  # fmt: skip


# --- helpers ----------------------------------------------------------------------------


def measure(text: str, lang: str) -> int:
    """Characters other than white space for zh/my, whitespace tokens otherwise."""
    return len("".join(text.split())) if lang in ("zh", "my") else len(text.split())


def pud_texts(lang: str) -> dict[str, list[str]]:
    """The `# text =` sentences of a PUD file by genre (sent_id n... news, w... wiki)."""
    by_genre: dict[str, list[str]] = defaultdict(list)
    sent_id = ""
    path = PUD / f"{lang}_pud-ud-test.conllu"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# sent_id = "):
            sent_id = line.removeprefix("# sent_id = ").strip()
        elif line.startswith("# text = "):
            genre = {"n": "news", "w": "wiki"}[sent_id[0]]
            by_genre[genre].append(line.removeprefix("# text = ").strip())
    return by_genre


def myxnli_rows() -> list[dict[str, str]]:
    return read_tsv(MYXNLI_DEV)


def folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def ingest_pud(db: Path, lang: str) -> None:
    path = PUD / f"{lang}_pud-ud-test.conllu"
    ok("--db", db, "ingest", path, "--lang", lang, *GENRE_FROM)


# --- Parallel UD -------------------------------------------------------------------------


@requires_fixtures
@pytest.mark.parametrize(("lang", "unit"), [("en", "tokens"), ("de", "tokens"), ("zh", "chars")])
def test_pud_pool_is_500_news_and_500_wiki_and_lengths_are_in_the_languages_unit(
    tmp_path: Path, lang: str, unit: str
) -> None:
    db = tmp_path / f"{lang}.db"
    ok("--db", db, "init", "--lang", lang)
    ingest_pud(db, lang)
    texts = pud_texts(lang)
    assert {g: len(t) for g, t in texts.items()} == {"news": 500, "wiki": 500}

    assert query(db, "SELECT genre, count(*) FROM sentences GROUP BY genre ORDER BY genre") == [
        ("news", 500),
        ("wiki", 500),
    ]
    rows = csv_rows("--db", db, "stats", "--table", "premises")
    assert [(r["genre"], r["lang"], r["unit"], r["pool"]) for r in rows] == [
        ("news", lang, unit, "500"),
        ("wiki", lang, unit, "500"),
    ]
    for row in rows:
        in_range = sum(1 for t in texts[row["genre"]] if 8 <= measure(t, lang) <= 50)
        assert int(row["qualifying"]) == in_range

    ok("--db", db, "sample", "--per-genre", "100", "--min-len", "8", "--max-len", "50",
       "--seed", "5")  # fmt: skip
    premises = query(db, "SELECT genre, text, length FROM premises")
    assert Counter(g for g, _, _ in premises) == {"news": 100, "wiki": 100}
    for genre, text, length in premises:
        assert text in texts[genre]
        assert length == measure(text, lang), text
        assert 8 <= length <= 50, text


@requires_fixtures
def test_one_pool_of_three_languages_measures_each_in_its_own_unit(tmp_path: Path) -> None:
    db = new_store(tmp_path / "pud.db")
    for lang in ("en", "de", "zh"):
        ingest_pud(db, lang)
    assert [
        (r["genre"], r["lang"], r["unit"], r["pool"])
        for r in csv_rows("--db", db, "stats", "--table", "premises")
    ] == [
        ("news", "de", "tokens", "500"),
        ("news", "en", "tokens", "500"),
        ("news", "zh", "chars", "500"),
        ("wiki", "de", "tokens", "500"),
        ("wiki", "en", "tokens", "500"),
        ("wiki", "zh", "chars", "500"),
    ]
    ok("--db", db, "sample", "--per-genre", "150", "--min-len", "8", "--max-len", "50",
       "--lang", "zh")  # fmt: skip
    premises = query(db, "SELECT lang, text, length FROM premises")
    assert len(premises) == 300
    assert {lang for lang, _, _ in premises} == {"zh"}
    for _, text, length in premises:
        assert length == measure(text, "zh") and 8 <= length <= 50, text


# --- myXNLI -------------------------------------------------------------------------------


@requires_fixtures
def test_myxnli_premises_enter_the_pool_once_and_sample_per_genre(tmp_path: Path) -> None:
    rows = myxnli_rows()
    assert len(rows) == 2490
    premises_by_genre: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        premises_by_genre[row["genre"]].add(row["sentence1_en"].strip())
    # Each premise has three hypotheses: 830 distinct premises, 83 per genre.
    assert {g: len(p) for g, p in premises_by_genre.items()} == dict.fromkeys(XNLI_GENRES, 83)

    db = new_store(tmp_path / "xnli.db")
    ok("--db", db, "ingest", MYXNLI_DEV, "--format", "tsv", "--field", "sentence1_en",
       "--genre-field", "genre", "--lang", "en")  # fmt: skip
    pool = dict(query(db, "SELECT genre, count(*) FROM sentences GROUP BY genre"))
    # A tsv record is one pool entry, kept whole: the repeated premises (three rows each)
    # are stored once, so deduplication leaves the 830 premises, 83 per genre.
    assert pool == dict.fromkeys(XNLI_GENRES, 83)

    result = ok("--db", db, "sample", "--per-genre", "20", "--min-len", "1", "--max-len", "200")
    assert "Sampled 200 premises" in result
    sampled = query(db, "SELECT genre, text FROM premises")
    assert len(sampled) == 200
    assert Counter(g for g, _ in sampled) == dict.fromkeys(XNLI_GENRES, 20)
    assert len({folded(t) for _, t in sampled}) == 200


@requires_fixtures
def test_sampling_with_myxnli_excluded_takes_none_of_its_sentences(tmp_path: Path) -> None:
    rows = myxnli_rows()
    released = {folded(row[c]) for row in rows for c in ("sentence1_en", "sentence2_en")}
    released |= {
        folded(s)
        for row in rows
        for c in ("sentence1_en", "sentence2_en")
        for s in split_sentences(row[c], "en")
    }
    db = new_store(tmp_path / "fresh.db")
    ingest_pud(db, "en")
    # The released premises and hypotheses are in the news pool too, so that only the
    # exclusion keeps them out of the sample.
    for field in ("sentence1_en", "sentence2_en"):
        ok("--db", db, "ingest", MYXNLI_DEV, "--format", "tsv", "--field", field, "--genre", "news")
    pud_news = [t for t in pud_texts("en")["news"] if folded(t) not in released]
    news_pool = query(db, "SELECT count(*) FROM sentences WHERE genre = 'news'")[0][0]
    assert news_pool > len(pud_news) == 500

    length = ("--min-len", "1", "--max-len", "200")
    too_many = run_cli("--db", db, "sample", "--genre", "news", "--n", "501", *length,
                       "--exclude", MYXNLI_DEV)  # fmt: skip
    assert too_many.exit_code == 1
    assert "only 500 sentences qualify" in too_many.stderr
    assert query(db, "SELECT count(*) FROM premises")[0][0] == 0

    ok("--db", db, "sample", "--genre", "news", "--n", "500", *length, "--exclude", MYXNLI_DEV)
    texts = [t for (t,) in query(db, "SELECT text FROM premises")]
    assert len(texts) == 500
    assert not {folded(t) for t in texts} & released
    assert sorted(texts) == sorted(pud_news)


# --- Burmese ------------------------------------------------------------------------------


@requires_fixtures
def test_burmese_premises_are_measured_in_characters(tmp_path: Path) -> None:
    rows = myxnli_rows()
    translations: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        translations[row["sentence1_en"]].add(row["sentence1_my"])
    # Every English premise has one Burmese translation, repeated on its three rows.
    assert len(translations) == 830
    assert all(len(t) == 1 for t in translations.values())

    db = new_store(tmp_path / "my.db", "--lang", "my")
    ok("--db", db, "ingest", MYXNLI_DEV, "--format", "tsv", "--field", "sentence1_my",
       "--genre-field", "genre", "--lang", "my")  # fmt: skip
    stats = csv_rows("--db", db, "stats", "--table", "premises")
    assert {r["genre"] for r in stats} == XNLI_GENRES
    assert {(r["lang"], r["unit"]) for r in stats} == {("my", "chars")}
    sources = {t.strip() for ts in translations.values() for t in ts}
    for text, chars, length in query(db, "SELECT text, chars, length FROM sentences"):
        # Stored as the file has it (some translations are not in NFC); lengths count the
        # characters of its NFC form, as deduplication compares it.
        assert text in sources, text
        assert length == chars == measure(unicodedata.normalize("NFC", text), "my"), text
    # One entry per distinct translation: records are kept whole, not split.
    assert sum(int(r["pool"]) for r in stats) == 830
