"""`stats --table lengths`: XNLI's Table 2 from the store, per language: the mean premise and
hypothesis length in the language's unit (tokens; characters for zh/ja/ko/th/my), for the
pairs' own language and for each translation; each premise counts once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, json_rows, ok, read_jsonl, requires_fixtures, write_jsonl


def lengths(db: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows = json_rows("--db", db, "stats", "--table", "lengths")
    return {(r["lang"], r["kind"]): r for r in rows}


def test_means_count_each_premise_once_in_each_languages_unit(db: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "pairs.jsonl"
    records = [
        {"premise_id": "p1", "premise": "one two three four", "hypothesis": "one two",
         "labels": ["entailment"]},
        {"premise_id": "p1", "premise": "one two three four", "hypothesis": "three",
         "labels": ["neutral"]},
        {"premise_id": "p2", "premise": "five six", "hypothesis": "five six seven",
         "labels": ["contradiction"]},
    ]  # fmt: skip
    write_jsonl(corpus, records)
    ok("--db", db, "import", corpus, "--format", "jsonl")
    units = tmp_path / "zh.jsonl"
    ok("--db", db, "translate", "export", "--lang", "zh", "--out", units)
    # By source text: the pairs have no IDs of their own, so theirs are derived from content.
    chinese = {"one two three four": "一二三四五", "five six": "五六七", "one two": "一二",
               "three": "三", "five six seven": "五六七八"}  # fmt: skip
    write_jsonl(units, [r | {"text": chinese[r["source"]]} for r in read_jsonl(units)])
    ok("--db", db, "translate", "import", units, "--lang", "zh")
    table = lengths(db)
    source, zh = table[("en", "source")], table[("zh", "human")]
    assert (source["unit"], source["premises"], source["premise_mean"]) == ("tokens", 2, 3.0)
    assert (source["hypotheses"], source["hypothesis_mean"]) == (3, 2.0)
    assert (zh["unit"], zh["premises"], zh["premise_mean"]) == ("chars", 2, 4.0)
    assert zh["hypotheses"] == 3 and zh["hypothesis_mean"] == pytest.approx(7 / 3)


@requires_fixtures
def test_myxnli_lengths_per_language(db: Path) -> None:
    path = FIXTURES / "myxnli" / "my.genre.dev.tsv"
    ok("--db", db, "import", path, "--format", "xnli", "--lang", "en", "--label-order", "e,n,c")
    print(ok("--db", db, "stats", "--table", "lengths", "--format", "csv"))
    table = lengths(db)
    english, burmese = table[("en", "source")], table[("my", "human")]
    assert english["premises"] == burmese["premises"] == 830
    assert english["hypotheses"] == burmese["hypotheses"] == 2490
    # XNLI Table 2 reports English dev premises of ~20 tokens and hypotheses of ~10.
    assert 15 < english["premise_mean"] < 25 and 7 < english["hypothesis_mean"] < 13
    assert burmese["unit"] == "chars" and burmese["premise_mean"] > english["premise_mean"]
