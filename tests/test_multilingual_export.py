"""Multilingual exports: rows keyed by (language, pairID) as XNLI ships them, labels copied
from the source, read back the way consumers read them (tsv with QUOTE_NONE, json lines);
`--split` writes one split only."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MYXNLI, myxnli_store, read_jsonl, read_tsv, refused, requires_fixtures

import nlibuild
from nlibuild.api import StageWarning

pytestmark = requires_fixtures


def test_xnli_tsv_and_jsonl_hold_every_language_with_the_source_labels(
    db: Path, tmp_path: Path
) -> None:
    myxnli_store(db, "dev")
    tsv, jsonl = tmp_path / "dev.tsv", tmp_path / "dev.jsonl"
    corpus = nlibuild.open(db)
    # Real sentences open with '-' or '=' now and then: written as they are, and said so.
    with pytest.warns(StageWarning, match=f"{tsv}: 6 cells start with =, "):
        corpus.export(format="xnli-tsv", out=tsv)
    corpus.export(format="xnli-jsonl", out=jsonl)
    rows = read_tsv(tsv)
    records = read_jsonl(jsonl)
    assert len(rows) == len(records) == 3 * 2490
    for row, record in zip(rows, records, strict=True):
        assert {k: row[k] for k in record} == record
    by_key = {(r["language"], r["pairID"]): r for r in records}
    assert len(by_key) == len(records)  # (language, pairID) is a key, as in XNLI
    swahili = read_tsv(MYXNLI / "sw.genre.dev.tsv")
    english = [r for r in records if r["language"] == "en"]
    for source, sw_row in zip(english, swahili, strict=True):
        translated = by_key[("sw", source["pairID"])]
        assert translated["gold_label"] == source["gold_label"] == sw_row["label"]
        assert translated["sentence2"] == sw_row["sentence2_sw"]  # as the file has it


def test_lang_picks_languages_and_split_picks_pairs(db: Path, tmp_path: Path) -> None:
    myxnli_store(db, "dev")
    out = tmp_path / "sw.jsonl"
    nlibuild.open(db).export(format="xnli-jsonl", langs=("en", "sw"), out=out)
    langs = {r["language"] for r in read_jsonl(out)}
    assert langs == {"en", "sw"}
    refused(db, lambda corpus: corpus.export(
        format="xnli-jsonl", split="dev", out=tmp_path / "none.jsonl",
    ), "--split dev: the store has no such split", "nlibuild split")  # fmt: skip
