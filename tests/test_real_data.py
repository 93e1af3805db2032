"""Real released corpora (../shared/fixtures): import, then export without losing a field."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import (
    FIXTURES,
    MYXNLI,
    ok,
    query,
    read_jsonl,
    read_tsv,
    refused,
    requires_fixtures,
    table_counts,
)

import nlibuild
from nlibuild.api import StageWarning
from nlibuild.models import CountRow

pytestmark = requires_fixtures

SNLI = FIXTURES / "snli_prefix"
XNLI_GENRES = (
    "facetoface", "fiction", "government", "letters", "nineeleven", "oup", "slate",
    "telephone", "travel", "verbatim",
)  # fmt: skip
EU = FIXTURES / "xnli_eu_native"


@pytest.fixture
def snli_db(db: Path) -> Path:
    corpus = nlibuild.open(db)
    for split in ("dev", "test"):
        corpus.import_corpus(path=SNLI / f"snli_1.0_{split}.jsonl", format="snli")
    return db


def counts(rows: list[CountRow]) -> dict[str, int]:
    """One of `info`'s breakdowns (pairs by genre, language, ...) as a mapping."""
    return {row.key: row.count for row in rows}


def test_snli_round_trip_reproduces_every_input_field_of_every_pair(
    snli_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "snli.jsonl"
    nlibuild.open(snli_db).export(format="mnli-jsonl", out=out)
    exported = {record["pairID"]: record for record in read_jsonl(out)}
    originals = read_jsonl(SNLI / "snli_1.0_dev.jsonl") + read_jsonl(SNLI / "snli_1.0_test.jsonl")
    assert len(exported) == len(originals) == 1289 + 1277
    for original in originals:
        record = exported[original["pairID"]]
        assert {key: record.get(key) for key in original} == original
        # MNLI's own premise key is added: SNLI groups premises by captionID.
        assert record["promptID"] == original["captionID"]


def test_snli_votes_keep_the_four_label_pairs_and_the_released_gold(snli_db: Path) -> None:
    votes_per_pair = dict(
        query(
            snli_db,
            "SELECT n, count(*) FROM (SELECT count(*) AS n FROM votes GROUP BY pair_pk) GROUP BY n",
        )
    )
    [(authors,)] = query(snli_db, "SELECT count(*) FROM votes WHERE position = 0")
    [(no_gold,)] = query(
        snli_db, "SELECT count(*) FROM gold WHERE method = 'released' AND label = '-'"
    )
    # 3 dev pairs have only 4 labels; 16 dev and 23 test pairs have gold '-'.
    assert votes_per_pair == {4: 3, 5: 1289 + 1277 - 3}
    assert authors == 1289 + 1277
    assert no_gold == 16 + 23


def test_snli_anonymous_annotators_are_stable_per_corpus(snli_db: Path) -> None:
    ids = sorted(row[0] for row in query(snli_db, "SELECT id FROM annotators"))
    assert ids == sorted(
        f"snli_1.0_{split}:{slot}"
        for split in ("dev", "test")
        for slot in ("author", "v1", "v2", "v3", "v4")
    )


def test_snli_reimport_adds_nothing(snli_db: Path) -> None:
    # Through the CLI: its report is part of the spec.
    before = table_counts(snli_db)
    report = ok("--db", snli_db, "import", SNLI / "snli_1.0_dev.jsonl", "--format", "snli")
    assert "0 pairs, 0 premises, 0 votes" in report
    assert "1289 pairs already present" in report
    after = table_counts(snli_db)
    assert {k: v for k, v in after.items() if k not in ("runs", "sources")} == {
        k: v for k, v in before.items() if k not in ("runs", "sources")
    }


def test_myxnli_dev_loads_as_a_pair_corpus_with_genres_and_translations(db: Path) -> None:
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=MYXNLI / "my.genre.dev.tsv", format="xnli")
    summary = corpus.info()
    # Premises repeat across 3 hypotheses: grouping by text leaves 830 dev premises.
    assert summary.premises == 830
    assert summary.pairs == 2490
    assert counts(summary.by_genre) == {genre: 249 for genre in XNLI_GENRES}
    assert counts(summary.by_lang) == {"en": 2490}
    # Burmese premises and hypotheses are kept as human translations, one per unit.
    assert summary.translations == 830 + 2490


def test_myxnli_export_as_xnli_tsv_rebuilds_both_languages(db: Path, tmp_path: Path) -> None:
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=MYXNLI / "my.genre.dev.tsv", format="xnli")
    out = tmp_path / "xnli.tsv"
    with pytest.warns(StageWarning, match=f"{out}: 3 cells start with =, "):  # as stored
        corpus.export(format="xnli-tsv", out=out)
    source = read_tsv(MYXNLI / "my.genre.dev.tsv")
    rows = read_tsv(out)
    by_lang = {lang: [r for r in rows if r["language"] == lang] for lang in ("en", "my")}
    for lang in ("en", "my"):
        assert [(r["gold_label"], r["sentence1"], r["sentence2"]) for r in by_lang[lang]] == [
            (s["label"], s[f"sentence1_{lang}"], s[f"sentence2_{lang}"]) for s in source
        ]
    assert [r["pairID"] for r in by_lang["en"]] == [r["pairID"] for r in by_lang["my"]]


def test_basque_native_pairs_need_and_use_the_declared_integer_order(db: Path) -> None:
    path = EU / "xnli-eu-native.tsv"
    refused(db, lambda corpus: corpus.import_corpus(path=path, format="xnli", lang="eu"),
            "--label-order")  # fmt: skip
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=path, format="xnli", lang="eu", label_order="e,n,c")
    summary = corpus.info()
    assert summary.premises == 207
    assert counts(summary.by_gold_label) == {
        "contradiction": 207,
        "entailment": 207,
        "neutral": 207,
    }
