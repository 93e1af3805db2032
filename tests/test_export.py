"""Exports: integer labels with their order beside them, '-' policy, XNLI tsv hygiene."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import DATA, SAMPLE_MNLI, fails, ok, read_jsonl, write_jsonl

import nlibuild
from nlibuild.errors import NlibuildError
from nlibuild.models import ExportFormat, NoGoldPolicy


def test_hf_jsonl_writes_integers_in_the_default_glue_order(
    sample_db: Path, tmp_path: Path
) -> None:
    # Through the CLI: its report is part of the spec.
    out = tmp_path / "hf.jsonl"
    report = ok("--db", sample_db, "export", "--format", "hf-jsonl", "--out", out)
    assert report.startswith(
        f"Exported 48 pairs to {out} as hf-jsonl; labels e,n,c = 0,1,2 "
        f"(written to {out}.labels.json); 3 pairs without gold written with label -1 (run 3, "
    )
    originals = {r["pairID"]: r["gold_label"] for r in read_jsonl(SAMPLE_MNLI)}
    codes = {"entailment": 0, "neutral": 1, "contradiction": 2, "-": -1}
    assert {r["id"]: r["label"] for r in read_jsonl(out)} == {
        pid: codes[str(gold)] for pid, gold in originals.items()
    }
    sidecar = json.loads((tmp_path / "hf.jsonl.labels.json").read_text())
    assert sidecar == {
        "label_names": ["entailment", "neutral", "contradiction"],
        "label_order": "e,n,c",
        "no_gold": "minus-one",
        "rows": 48,
        "no_gold_rows": 3,
    }


def test_hf_jsonl_in_clue_order_can_drop_pairs_without_gold(
    sample_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "clue.jsonl"
    result = nlibuild.open(sample_db).export(
        format="hf-jsonl", out=out, label_order="n,e,c", no_gold="drop"
    )
    assert result.label_order == "n,e,c"
    assert (result.no_gold_rows, result.no_gold_policy) == (3, NoGoldPolicy.DROP)
    records = read_jsonl(out)
    assert len(records) == 45
    originals = {r["pairID"]: r["gold_label"] for r in read_jsonl(SAMPLE_MNLI)}
    clue = {"neutral": 0, "entailment": 1, "contradiction": 2}
    assert all(r["label"] == clue[str(originals[r["id"]])] for r in records)
    assert json.loads((tmp_path / "clue.jsonl.labels.json").read_text())["no_gold"] == "drop"


def test_xnli_tsv_has_no_quotes_tabs_or_newlines_inside_fields(db: Path, tmp_path: Path) -> None:
    source = tmp_path / "messy.jsonl"
    messy = {
        "premise": 'She said "yes"\tthen left.\nThe end.',
        "hypothesis": "She\r\nagreed.",
        "labels": ["e", "e", "e", "n", "e"],
        "gold_label": "e",
    }
    write_jsonl(source, [messy])
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=source, format="jsonl")
    out = tmp_path / "x.tsv"
    corpus.export(format="xnli-tsv", out=out)
    header, row = out.read_text(encoding="utf-8").splitlines()
    assert header.split("\t")[:7] == [
        "language", "gold_label", "sentence1", "sentence2", "promptID", "pairID", "genre",
    ]  # fmt: skip
    fields = row.split("\t")
    assert len(fields) == len(header.split("\t"))
    assert fields[2] == 'She said "yes" then left. The end.'
    assert fields[3] == "She agreed."
    assert fields[7:12] == ["entailment", "entailment", "entailment", "neutral", "entailment"]


def test_ocnli_json_round_trip_of_the_sample(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "o.db", preset="ocnli")
    corpus.import_corpus(path=DATA / "sample_ocnli.json")  # the preset's format
    out = tmp_path / "o.json"
    corpus.export(format="ocnli-json", out=out)
    assert read_jsonl(out) == read_jsonl(DATA / "sample_ocnli.json")


def test_nlibuild_jsonl_round_trip_keeps_ids_votes_and_annotators(
    sample_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "ours.jsonl"
    nlibuild.open(sample_db).export(format="jsonl", out=out)
    other = nlibuild.create(tmp_path / "other.db")
    other.import_corpus(path=out, format="jsonl")
    again = tmp_path / "again.jsonl"
    other.export(format="jsonl", out=again)
    assert read_jsonl(again) == read_jsonl(out)


def test_a_failed_export_leaves_no_half_written_file_and_no_run(
    sample_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "dir-in-the-way"
    out.mkdir()
    corpus = nlibuild.open(sample_db)
    with pytest.raises(NlibuildError) as raised:
        corpus.export(format="mnli-jsonl", out=out)
    assert str(raised.value).startswith(f"{out}: cannot write it (")
    assert str(raised.value).endswith("; choose another --out")
    assert not list(tmp_path.glob(".*.partial"))
    assert [run.stage for run in corpus.runs()] == ["init", "import"]


def test_mnli_jsonl_keeps_an_empty_genre_key(db: Path, tmp_path: Path) -> None:
    source = tmp_path / "no-genre.jsonl"
    record = {
        "annotator_labels": ["neutral"], "genre": "", "gold_label": "neutral", "pairID": "1n",
        "promptID": "1", "sentence1": "A man reads.", "sentence2": "He reads a novel.",
    }  # fmt: skip
    write_jsonl(source, [record])
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=source, format="mnli")
    out = tmp_path / "back.jsonl"
    corpus.export(format="mnli-jsonl", out=out)
    assert read_jsonl(out) == [record]


@pytest.mark.parametrize("export_format", [f.value for f in ExportFormat])
def test_a_store_without_pairs_is_not_exported(
    db: Path, tmp_path: Path, export_format: str
) -> None:
    # An empty dataset written and exit 0 reads as a release (issue 28): refused instead.
    out = tmp_path / "out" / "corpus"
    fails(db, "export", "--format", export_format, "--out", out,
          says=("has no pairs", "nothing to export", "nlibuild import"))  # fmt: skip
    assert not out.parent.exists() or list(out.parent.iterdir()) == []
    assert [run.stage for run in nlibuild.open(db).runs()] == ["init"]
