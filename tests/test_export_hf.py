"""`export --format hf`: a folder that `datasets.load_dataset(folder)` reads as it is.

Loaded here with the real `datasets` package, offline: splits train/validation/test (the
store's dev is `validation`), `label` a ClassLabel named in the corpus's label order, one
config per language when there are several, and a dataset card that says where it all came
from. hf-jsonl keeps its sidecar (its own tests are in test_export.py); this folder has none.

The exports run through the Python API and their counts are read from `ExportResult`; the
first test keeps the line the CLI prints.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_MNLI, myxnli_store, ok, query, read_jsonl, refused, requires_fixtures

import nlibuild
from nlibuild.api import StageWarning

# Before `datasets` is imported: it reads these once, and must never reach for the Hub.
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
datasets = pytest.importorskip("datasets", reason="the dev extra installs `datasets`")

GLUE_ORDER = ["entailment", "neutral", "contradiction"]


def load(folder: Path, config: str | None = None) -> Any:
    """`datasets.load_dataset` on the folder as a user would call it, caching beside it."""
    return datasets.load_dataset(str(folder), config, cache_dir=str(folder.parent / "hf-cache"))


def split_store(db: Path) -> Path:
    nlibuild.open(db).split(dev=8, test=8, draw_from="labelled", seed=1)
    return db


def test_a_store_without_splits_loads_as_train_with_the_label_names(
    sample_db: Path, tmp_path: Path
) -> None:
    """`export --format hf`'s line as the CLI prints it."""
    folder = tmp_path / "sample"
    report = ok("--db", sample_db, "export", "--format", "hf", "--out", folder)
    assert report.startswith(f"Exported 48 pairs to {folder} as hf: train 48; labels e,n,c")
    assert "license 'unknown' in the card (give --license)" in report
    corpus = load(folder)
    assert list(corpus) == ["train"]
    train = corpus["train"]
    assert train.num_rows == 48
    assert train.features["label"].names == GLUE_ORDER
    assert train.column_names == ["id", "premise", "hypothesis", "label", "genre", "lang"]
    assert sorted(train["label"]).count(-1) == 3  # the sample's pairs without gold
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "so every pair is in `train`" in card
    assert 'license: "unknown"' in card


def test_the_stores_splits_become_train_validation_and_test(
    sample_db: Path, tmp_path: Path
) -> None:
    split_store(sample_db)
    folder = tmp_path / "split"
    result = nlibuild.open(sample_db).export(format="hf", out=folder)
    # 46 pairs have a label (the author's where no gold); the 2 without one are in no split.
    assert result.rows == result.pairs == 46
    assert list(result.split_rows.items()) == [("train", 30), ("validation", 8), ("test", 8)]
    assert result.unsplit_pairs == 2
    corpus = load(folder)
    assert list(corpus) == ["train", "validation", "test"]
    stored = dict(query(sample_db, "SELECT split, count(*) FROM splits GROUP BY split"))
    assert corpus["validation"].num_rows == stored["dev"] == 8
    assert corpus["test"].num_rows == stored["test"] == 8
    assert corpus["train"].num_rows == stored["train"] == 30
    in_dev = "SELECT p.id FROM splits s JOIN pairs p ON p.pk = s.pair_pk WHERE s.split = 'dev'"
    dev_ids = {r[0] for r in query(sample_db, in_dev)}
    assert set(corpus["validation"]["id"]) == dev_ids
    # Only the data files under data/: a sidecar there would be read as data.
    assert sorted(p.name for p in (folder / "data").iterdir()) == [
        "test.jsonl", "train.jsonl", "validation.jsonl",
    ]  # fmt: skip


def test_labels_follow_the_label_order_and_pairs_without_gold_can_be_dropped(
    sample_db: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "clue"
    nlibuild.open(sample_db).export(format="hf", out=folder, label_order="n,e,c", no_gold="drop")
    train = load(folder)["train"]
    assert train.features["label"].names == ["neutral", "entailment", "contradiction"]
    assert train.num_rows == 45
    gold = dict(query(sample_db, "SELECT p.id, g.label FROM gold g JOIN pairs p "
                                 "ON p.pk = g.pair_pk"))  # fmt: skip
    names = train.features["label"].names
    assert all(names[row["label"]] == gold[row["id"]] for row in train)


def test_the_card_states_license_provenance_and_how_gold_was_decided(
    sample_db: Path, tmp_path: Path
) -> None:
    corpus = nlibuild.open(sample_db)
    corpus.aggregate_labels()
    folder = tmp_path / "card"
    result = corpus.export(format="hf", out=folder, license="cc-by-sa-4.0")
    assert result.license == "cc-by-sa-4.0"  # no line asking for --license
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert 'license: "cc-by-sa-4.0"' in card
    assert "task_ids:\n- natural-language-inference" in card
    assert "at least three of a pair's five votes agree on" in card
    signatures = query(sample_db, "SELECT id, stage, signature FROM runs ORDER BY id")
    for run_id, stage, signature in signatures[:-1]:
        assert f"- run {run_id}, `{stage}` (ok): `{signature}`" in card
    export_id, _, export_signature = signatures[-1]
    assert f"- run {export_id}, `export` (this export): `{export_signature}`" in card
    assert "| train | en | 48 | 48 | 16 | 15 | 14 | 3 |" in card


def test_the_license_may_come_from_the_preset(tmp_path: Path) -> None:
    preset = tmp_path / "licensed.toml"
    preset.write_text('[export]\nformat = "hf"\nlicense = "cc-by-4.0"\n', encoding="utf-8")
    corpus = nlibuild.create(tmp_path / "p.db", preset=preset)
    corpus.import_corpus(path=SAMPLE_MNLI, format="mnli")
    corpus.export(out=tmp_path / "preset")
    assert 'license: "cc-by-4.0"' in (tmp_path / "preset" / "README.md").read_text()


def test_an_out_that_is_a_file_is_refused_and_nothing_changes(
    sample_db: Path, tmp_path: Path
) -> None:
    taken = tmp_path / "taken"
    taken.write_text("notes\n")
    refused(sample_db, lambda corpus: corpus.export(format="hf", out=taken),
            str(taken), "is a file, not a folder")  # fmt: skip
    assert taken.read_text() == "notes\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@requires_fixtures
def test_several_languages_are_a_config_each_and_all_languages_by_default(
    tmp_path: Path,
) -> None:
    corpus = nlibuild.create(tmp_path / "x.db")
    myxnli_store(corpus.path, "dev")  # 2,490 English pairs, my, sw
    corpus.split(dev=300, test=300, draw_from="labelled", seed=7)
    folder = tmp_path / "xnli"
    result = corpus.export(format="hf", langs=("en", "sw"), out=folder)
    assert (result.rows, result.pairs, result.languages) == (4980, 2490, ("en", "sw"))
    assert list(result.split_rows.items()) == [("train", 3780), ("validation", 600), ("test", 600)]
    assert result.unsplit_pairs == 0
    everything = load(folder)
    assert list(everything) == ["train", "validation", "test"]
    assert everything["validation"].num_rows == 600
    assert everything["train"].features["label"].names == GLUE_ORDER
    swahili = load(folder, "sw")
    assert {split: swahili[split].num_rows for split in swahili} == {
        "train": 1890, "validation": 300, "test": 300,
    }  # fmt: skip
    assert set(swahili["test"]["lang"]) == {"sw"}
    # A translated row keeps its English pair's ID and label (XNLI's way).
    english = {r["id"]: r["label"] for r in read_jsonl(folder / "data" / "en" / "test.jsonl")}
    assert {row["id"]: row["label"] for row in swahili["test"]} == english
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert 'language:\n- "en"\n- "sw"' in card
    assert '- config_name: "all_languages"\n  default: true' in card


@requires_fixtures
def test_multilingual_tsv_says_rows_pairs_and_languages(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "x.db")
    myxnli_store(corpus.path, "dev")
    out = tmp_path / "all.tsv"
    with pytest.warns(StageWarning, match="6 cells start with"):  # as stored, and said so
        result = corpus.export(format="xnli-tsv", out=out)
    assert (result.rows, result.pairs, result.languages) == (7470, 2490, ("en", "my", "sw"))
    assert result.formula_cells == 6
    assert result.out == out
