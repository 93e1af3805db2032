"""Premise sampling: `ingest` fills the sentence pool, `sample` draws premises from it,
`stats --table premises` describes both.

The pool holds each genre's sentences once (normalised, case-folded), measured in
characters (zh/ja/ko/th/my) or whitespace tokens (other languages). Sampling is seeded and
depends only on the pool's content, never takes a sentence twice, keeps to the length
range, and leaves out what an `--exclude` file holds. Every error is refused with one
message (the CLI's one `Error:` line, exit 1), and the store is exactly as it was.

The stages run through the Python API; the CLI's own tests keep the closing lines of
`ingest` and `sample --per-genre`, an `Error:` line and the csv header of the stats table.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import (
    DATA,
    assert_user_error,
    ok,
    query,
    refused,
    run_cli,
    table_counts,
    write_jsonl,
)

import nlibuild
from nlibuild.api import Corpus, StageWarning
from nlibuild.text.cleaning import Cleaner
from nlibuild.text.lang import split_sentences

EN = DATA / "sources" / "en"
ZH = DATA / "sources" / "zh"
EN_PROSE = [EN / "news.txt", EN / "fiction.txt", EN / "travel.txt", EN / "government.txt"]


# --- helpers ----------------------------------------------------------------------------


def snapshot(db: Path) -> dict[str, int]:
    """table_counts, the sentence pool among them."""
    counts = table_counts(db)
    assert counts["sentences"] == query(db, "SELECT count(*) FROM sentences")[0][0]
    return counts


def premises(db: Path, genre: str | None = None) -> list[tuple[str, str]]:
    """(id, text) of the premises, of one genre or all, in ID order."""
    if genre is None:
        return query(db, "SELECT id, text FROM premises ORDER BY id")
    return query(db, "SELECT id, text FROM premises WHERE genre = ? ORDER BY id", genre)


def qualifying(db: Path, genre: str, low: int = 8, high: int = 50) -> int:
    """Pool sentences of `genre` with a length in [low, high] not yet sampled (from SQL)."""
    (count,) = query(
        db,
        "SELECT count(*) FROM sentences WHERE genre = ? AND length BETWEEN ? AND ? "
        "AND pk NOT IN (SELECT sentence_pk FROM premises WHERE sentence_pk IS NOT NULL)",
        genre,
        low,
        high,
    )[0]
    return int(count)


@pytest.fixture
def en_store(tmp_path: Path) -> Path:
    """An English store whose pool holds news and fiction."""
    corpus = nlibuild.create(tmp_path / "en.db")
    corpus.ingest(paths=(EN / "news.txt",), genre="news")
    corpus.ingest(paths=(EN / "fiction.txt",), genre="fiction")
    return corpus.path


# --- 1. sentence splitting --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        pytest.param(
            "Mr. Smith met Dr. Jones at 9 a.m. today. They talked.",
            ["Mr. Smith met Dr. Jones at 9 a.m. today.", "They talked."],
            id="titles-and-a.m.",
        ),
        pytest.param(
            "Bring fruit, e.g. Apples and pears. Then go home.",
            ["Bring fruit, e.g. Apples and pears.", "Then go home."],
            id="e.g.",
        ),
        pytest.param(
            "He moved to the U.S. Navy base last year. It rained.",
            ["He moved to the U.S. Navy base last year.", "It rained."],
            id="U.S.",
        ),
        pytest.param(
            "One of them, Mr. A. B. Carver, stayed home. The rest left.",
            ["One of them, Mr. A. B. Carver, stayed home.", "The rest left."],
            id="initials",
        ),
        pytest.param(
            "Fares rose to $2.75 this week. Rates grew 3.5 percent. Done!",
            ["Fares rose to $2.75 this week.", "Rates grew 3.5 percent.", "Done!"],
            id="decimals",
        ),
        pytest.param(
            "She paused... and then left. Good.",
            ["She paused... and then left.", "Good."],
            id="ellipsis-then-lower-case",
        ),
        pytest.param(
            '"Why?" she asked. Nobody answered.',
            ['"Why?" she asked.', "Nobody answered."],
            id="quoted-question-then-lower-case",
        ),
        pytest.param("Is it? Yes! Go.", ["Is it?", "Yes!", "Go."], id="real-ends"),
        pytest.param(
            "a line with no end mark at all", ["a line with no end mark at all"], id="no-end"
        ),
    ],
)
def test_english_sentences_end_only_at_real_sentence_ends(text: str, sentences: list[str]) -> None:
    assert split_sentences(text, "en") == sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        pytest.param(
            "今天下雨了。你带伞了吗？太好了！",
            ["今天下雨了。", "你带伞了吗？", "太好了！"],
            id="full-width-ends",
        ),
        pytest.param(
            "他说：“我走了。”她没有回答。",
            ["他说：“我走了。”", "她没有回答。"],
            id="closing-quote-stays",
        ),
        pytest.param("今天下雨", ["今天下雨"], id="no-end"),
    ],
)
def test_chinese_sentences_end_at_full_width_marks(text: str, sentences: list[str]) -> None:
    assert split_sentences(text, "zh") == sentences


# --- 2. Callhome cleaning ---------------------------------------------------------------


def test_callhome_cleaning_strips_markup_and_keeps_uncertain_words() -> None:
    clean = Cleaner.build("callhome").clean
    english = clean("A: {laugh} I [noise] said <English okay> %um ((maybe)) yes (( )) fine")
    assert english.split() == ["I", "said", "maybe", "yes", "fine"]
    chinese = clean("B：%嗯 好的 ((对)) (( ))吧")
    assert chinese.split() == ["好的", "对", "吧"]
    assert clean("B: {laugh} %um").strip() == ""
    assert clean("A：喂？").strip() == "喂？"


# --- 3. ingest of a transcript ----------------------------------------------------------


def test_ingest_of_a_callhome_transcript_leaves_no_markup_in_the_pool(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "zh.db", lang="zh")
    result = corpus.ingest(
        paths=(ZH / "phone.txt",), genre="phone", clean="callhome", paragraph="line"
    )
    assert result.empty_after_cleaning > 0
    db = corpus.path
    texts = [t for (t,) in query(db, "SELECT text FROM sentences WHERE genre = 'phone'")]
    assert texts
    for text in texts:
        assert not any(mark in text for mark in ("{", "}", "[", "]", "%", "<", ">", "((")), text
        assert not re.match(r"[AB]\s*[:：]", text), text
    # Without cleaning, the same file does bring markup into the pool.
    raw = nlibuild.create(tmp_path / "raw.db", lang="zh")
    raw.ingest(paths=(ZH / "phone.txt",), genre="phone", paragraph="line")
    raw_texts = [t for (t,) in query(raw.path, "SELECT text FROM sentences")]
    assert any("{" in t or "%" in t for t in raw_texts)


# --- 4. ingest is idempotent ------------------------------------------------------------


def test_ingesting_the_same_files_again_adds_nothing(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "en.db")
    db = corpus.path
    first = corpus.ingest(paths=(EN / "news.txt", EN / "travel.txt"), genre="news")
    assert first.added > 0
    before = snapshot(db)
    second = corpus.ingest(paths=(EN / "news.txt", EN / "travel.txt"), genre="news")
    assert second.added == 0
    after = snapshot(db)
    assert after["sentences"] == before["sentences"]
    assert after["premises"] == before["premises"] == 0


def test_the_pool_holds_a_sentence_once_per_genre_whatever_its_case(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "en.db")
    db = corpus.path
    source = tmp_path / "dup.txt"
    source.write_text(
        "The ferry left at dawn. THE FERRY  LEFT AT DAWN. The ferry left at dawn.\n",
        encoding="utf-8",
    )
    result = ok("--db", db, "ingest", source, "--genre", "news")
    assert "2 duplicates; 1 added" in result
    # Another genre keeps its own copy.
    corpus.ingest(paths=(source,), genre="fiction")
    assert query(db, "SELECT genre, text FROM sentences ORDER BY genre") == [
        ("fiction", "The ferry left at dawn."),
        ("news", "The ferry left at dawn."),
    ]


# --- 5. sampling depends on the pool's content and the seed only -----------------------


def test_the_same_pool_and_seed_give_the_same_premises_whatever_the_ingest_order(
    tmp_path: Path,
) -> None:
    one, two = nlibuild.create(tmp_path / "one.db"), nlibuild.create(tmp_path / "two.db")
    for path in EN_PROSE:
        one.ingest(paths=(path,), genre="prose")
    two.ingest(paths=tuple(reversed(EN_PROSE)), genre="prose")
    # The pools hold the same sentences, in a different order.
    pool_one = query(one.path, "SELECT text FROM sentences ORDER BY pk")
    pool_two = query(two.path, "SELECT text FROM sentences ORDER BY pk")
    assert sorted(pool_one) == sorted(pool_two)
    assert pool_one != pool_two

    for corpus in (one, two):
        corpus.sample(genres=("prose",), n=30, seed=7)
    assert len(premises(one.path)) == 30
    assert premises(one.path) == premises(two.path)


def test_different_seeds_give_different_samples(tmp_path: Path) -> None:
    drawn = []
    for seed in (7, 8):
        corpus = nlibuild.create(tmp_path / f"seed{seed}.db")
        corpus.ingest(paths=tuple(EN_PROSE), genre="prose")
        corpus.sample(genres=("prose",), n=30, seed=seed)
        drawn.append({t for _, t in premises(corpus.path)})
    assert len(drawn[0]) == len(drawn[1]) == 30
    assert drawn[0] != drawn[1]


# --- 6. a sentence is sampled once ------------------------------------------------------


def test_sampling_twice_never_repeats_a_sentence_and_ids_continue(en_store: Path) -> None:
    corpus = nlibuild.open(en_store)
    (first,) = corpus.sample(genres=("news",), n=10).genres
    assert (first.first_id, first.last_id) == ("news_0001", "news_0010")
    (second,) = corpus.sample(genres=("news",), n=10).genres
    assert (second.first_id, second.last_id) == ("news_0011", "news_0020")
    rows = premises(en_store, "news")
    assert [i for i, _ in rows] == [f"news_{n:04d}" for n in range(1, 21)]
    assert len({t.casefold() for _, t in rows}) == 20
    # Each premise points at the pool sentence it came from.
    linked = query(
        en_store,
        "SELECT p.text, s.text, s.genre FROM premises p JOIN sentences s ON s.pk = p.sentence_pk",
    )
    assert len(linked) == 20
    assert all(p == s and g == "news" for p, s, g in linked)


# --- 7. the length range, in each language's unit ---------------------------------------


def test_english_lengths_are_whitespace_tokens(en_store: Path) -> None:
    for text, tokens, length in query(en_store, "SELECT text, tokens, length FROM sentences"):
        assert tokens == length == len(text.split()), text
    wanted = qualifying(en_store, "news", 10, 15)
    assert 0 < wanted < qualifying(en_store, "news", 1, 1000)
    nlibuild.open(en_store).sample(genres=("news",), n=wanted, min_len=10, max_len=15)
    rows = query(
        en_store,
        "SELECT p.text, p.length, s.tokens FROM premises p JOIN sentences s "
        "ON s.pk = p.sentence_pk",
    )
    assert len(rows) == wanted
    for text, length, tokens in rows:
        assert 10 <= length <= 15 and length == tokens == len(text.split()), text
    # Every qualifying sentence was taken: none is left in the range.
    assert qualifying(en_store, "news", 10, 15) == 0


def test_chinese_lengths_are_characters(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "zh.db", lang="zh")
    corpus.ingest(paths=(ZH / "news.txt",), genre="news")
    db = corpus.path
    for text, chars, length in query(db, "SELECT text, chars, length FROM sentences"):
        assert chars == length == len("".join(text.split())), text
    wanted = qualifying(db, "news", 8, 20)
    assert 0 < wanted < qualifying(db, "news", 1, 1000)
    corpus.sample(genres=("news",), n=wanted, min_len=8, max_len=20)
    rows = query(
        db,
        "SELECT p.text, p.length, s.chars FROM premises p JOIN sentences s ON s.pk = p.sentence_pk",
    )
    assert len(rows) == wanted
    for text, length, chars in rows:
        assert 8 <= length <= 20 and length == chars == len("".join(text.split())), text
    assert qualifying(db, "news", 8, 20) == 0


# --- 8. --exclude ------------------------------------------------------------------------


def test_an_excluded_sentence_is_never_sampled(en_store: Path, tmp_path: Path) -> None:
    (excluded,) = query(
        en_store,
        "SELECT text FROM sentences WHERE genre = 'news' AND length BETWEEN 8 AND 50 "
        "ORDER BY pk LIMIT 1",
    )[0]
    released = write_jsonl(
        tmp_path / "released.jsonl",
        [{"sentence1": excluded, "sentence2": "Nobody took the ferry."}],
    )
    total = qualifying(en_store, "news")
    before = snapshot(en_store)
    refused(
        en_store,
        lambda corpus: corpus.sample(genres=("news",), n=total, exclude=(released,)),
        f"only {total - 1} sentences qualify",
    )
    assert snapshot(en_store) == before

    nlibuild.open(en_store).sample(genres=("news",), n=total - 1, exclude=(released,))
    texts = [t for _, t in premises(en_store, "news")]
    assert len(texts) == total - 1
    assert excluded not in texts


# --- 9 and 10. errors leave the store unchanged ------------------------------------------


def test_asking_for_more_than_qualify_says_how_many_do(en_store: Path) -> None:
    nlibuild.open(en_store).sample(genres=("news",), n=5)
    left = qualifying(en_store, "news")
    before = snapshot(en_store)
    result = run_cli("--db", en_store, "sample", "--genre", "news", "--n", left + 1)
    assert_user_error(
        result, "genre news", f"only {left} sentences qualify", f"asked for {left + 1}"
    )
    assert snapshot(en_store) == before


def bad_jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "notes.jsonl"
    path.write_text(
        '{"text": "The tide came in early."}\n{"body": "No text here."}\n', encoding="utf-8"
    )
    return path


def bad_utf8(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"A fine first line.\nAnother fine line.\nThey met at the caf\xe9.\n")
    return path


Call = Callable[[Corpus], object]

ERRORS: list[object] = [
    pytest.param(
        lambda tmp: lambda corpus: corpus.sample(genres=("news",), n=3, min_len=20, max_len=10),
        ["--min-len 20 is above --max-len 10"],
        id="min-len-above-max-len",
    ),
    pytest.param(
        lambda tmp: lambda corpus: corpus.sample(genres=("sports",), n=3),
        ["sports", "genres: fiction, news"],
        id="unknown-genre",
    ),
    pytest.param(
        lambda tmp: (
            lambda corpus: corpus.ingest(paths=(bad_jsonl(tmp),), genre="news", field="text")
        ),
        ["notes.jsonl, line 2", "'text'"],
        id="jsonl-record-without-the-field",
    ),
    pytest.param(
        lambda tmp: lambda corpus: corpus.ingest(paths=(bad_utf8(tmp),), genre="news"),
        ["latin1.txt, line 3", "not valid UTF-8"],
        id="invalid-utf8",
    ),
    pytest.param(
        lambda tmp: lambda corpus: corpus.ingest(paths=(tmp / "nowhere.txt",), genre="news"),
        ["nowhere.txt", "no such file"],
        id="missing-file",
    ),
]


@pytest.mark.parametrize(("call", "fragments"), ERRORS)
def test_a_user_error_is_one_message_and_changes_nothing(
    en_store: Path,
    tmp_path: Path,
    call: Callable[[Path], Call],
    fragments: list[str],
) -> None:
    nlibuild.open(en_store).sample(genres=("news",), n=3)
    before = snapshot(en_store)
    refused(en_store, call(tmp_path), *fragments)
    assert snapshot(en_store) == before


# --- 11. genres the preset does not know -------------------------------------------------


def test_a_genre_outside_the_preset_warns_and_with_strict_is_refused(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "ocnli.db", preset="ocnli")
    db = corpus.path
    with warnings.catch_warnings(record=True) as known:
        warnings.simplefilter("always", StageWarning)
        corpus.ingest(paths=(ZH / "news.txt",), genre="news")
    assert [w for w in known if w.category is StageWarning] == []

    before = snapshot(db)
    refused(
        db,
        lambda corpus: corpus.ingest(paths=(ZH / "tv.txt",), genre="talk", strict=True),
        "'talk'", "gov, lit, news, phone, tv", "--strict",
    )  # fmt: skip
    assert snapshot(db) == before

    with pytest.warns(StageWarning) as loose:
        corpus.ingest(paths=(ZH / "tv.txt",), genre="talk")
    assert len(loose) == 1, [str(w.message) for w in loose]
    assert "'talk'" in str(loose[0].message)
    assert query(db, "SELECT count(*) FROM sentences WHERE genre = 'talk'")[0][0] > 0


# --- 12. --balance-lengths ---------------------------------------------------------------


def test_balanced_lengths_draw_evenly_from_both_halves(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "en.db")
    corpus.ingest(paths=tuple(EN_PROSE), genre="prose")
    db = corpus.path
    short, long = qualifying(db, "prose", 8, 17), qualifying(db, "prose", 18, 27)
    # The pool is lopsided, so an even split is the option's doing, not the data's.
    assert short >= 2 * long >= 2 * 11, (short, long)
    corpus.sample(genres=("prose",), n=21, min_len=8, max_len=27, balance_bins=2)
    lengths = [n for (n,) in query(db, "SELECT length FROM premises")]
    assert len(lengths) == 21
    low = sum(1 for n in lengths if 8 <= n <= 17)
    high = sum(1 for n in lengths if 18 <= n <= 27)
    assert low + high == 21
    assert {low, high} == {10, 11}


# --- 13. stats --table premises ---------------------------------------------------------


def test_premise_stats_agree_with_the_store(en_store: Path) -> None:
    corpus = nlibuild.open(en_store)
    corpus.ingest(
        paths=(EN / "telephone.txt",), genre="telephone", clean="callhome", paragraph="line"
    )
    corpus.sample(genres=("news",), n=12)
    corpus.sample(genres=("fiction",), n=5, seed=3)
    result = ok("--db", en_store, "stats", "--table", "premises", "--format", "csv")
    assert result.splitlines()[0] == (
        "min_len,max_len,genre,lang,unit,pool,qualifying,sampled,mean,min,max,histogram,"
        "sampled_mean"
    )
    rows = corpus.stats("premises").to_dicts()
    groups = query(en_store, "SELECT DISTINCT genre, lang FROM sentences ORDER BY genre, lang")
    assert [(r["genre"], r["lang"]) for r in rows] == groups
    sampled = {"fiction": 5, "news": 12, "telephone": 0}
    for row in rows:
        genre = row["genre"]
        pool = query(en_store, "SELECT count(*) FROM sentences WHERE genre = ?", genre)[0][0]
        in_db = query(en_store, "SELECT count(*) FROM premises WHERE genre = ?", genre)[0][0]
        assert row["unit"] == "tokens"
        assert int(row["pool"]) == pool
        assert int(row["sampled"]) == in_db == sampled[genre]
        assert int(row["qualifying"]) == qualifying(en_store, genre)
        low, high = query(
            en_store, "SELECT min(length), max(length) FROM sentences WHERE genre = ?", genre
        )[0]
        assert (int(row["min"]), int(row["max"])) == (low, high)


# --- 14. --per-genre ---------------------------------------------------------------------


def test_per_genre_samples_every_genre_of_the_pool(en_store: Path) -> None:
    nlibuild.open(en_store).ingest(paths=(EN / "travel.txt",), genre="travel")
    result = ok("--db", en_store, "sample", "--per-genre", "6")
    assert "Sampled 18 premises" in result
    assert query(
        en_store, "SELECT genre, count(*) FROM premises GROUP BY genre ORDER BY genre"
    ) == [
        ("fiction", 6),
        ("news", 6),
        ("travel", 6),
    ]
    ids = [i for i, _ in premises(en_store, "travel")]
    assert ids == [f"travel_{n:04d}" for n in range(1, 7)]
