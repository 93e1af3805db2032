"""Exports: integer labels with their order beside them, '-' policy, XNLI tsv hygiene."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import DATA, SAMPLE_MNLI, json_rows, new_store, ok, read_jsonl, run_cli, write_jsonl


def test_hf_jsonl_writes_integers_in_the_default_glue_order(
    sample_db: Path, tmp_path: Path
) -> None:
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
    report = ok(
        "--db", sample_db, "export", "--format", "hf-jsonl", "--out", out,
        "--label-order", "n,e,c", "--no-gold", "drop",
    )  # fmt: skip
    assert "labels n,e,c = 0,1,2" in report
    assert "3 pairs without gold dropped" in report
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
    ok("--db", db, "import", source, "--format", "jsonl")
    out = tmp_path / "x.tsv"
    ok("--db", db, "export", "--format", "xnli-tsv", "--out", out)
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
    db = new_store(tmp_path / "o.db", "--preset", "ocnli")
    ok("--db", db, "import", DATA / "sample_ocnli.json")
    out = tmp_path / "o.json"
    ok("--db", db, "export", "--format", "ocnli-json", "--out", out)
    assert read_jsonl(out) == read_jsonl(DATA / "sample_ocnli.json")


def test_nlibuild_jsonl_round_trip_keeps_ids_votes_and_annotators(
    sample_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "ours.jsonl"
    ok("--db", sample_db, "export", "--format", "jsonl", "--out", out)
    other = new_store(tmp_path / "other.db")
    ok("--db", other, "import", out, "--format", "jsonl")
    again = tmp_path / "again.jsonl"
    ok("--db", other, "export", "--format", "jsonl", "--out", again)
    assert read_jsonl(again) == read_jsonl(out)


def test_a_failed_export_leaves_no_half_written_file_and_no_run(
    sample_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "dir-in-the-way"
    out.mkdir()
    result = run_cli("--db", sample_db, "export", "--format", "mnli-jsonl", "--out", out)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {out}: cannot write it (")
    assert result.stderr.endswith("; choose another --out\n")
    assert not list(tmp_path.glob(".*.partial"))
    runs = json_rows("--db", sample_db, "runs")
    assert [r["stage"] for r in runs] == ["init", "import"]


def test_mnli_jsonl_keeps_an_empty_genre_key(db: Path, tmp_path: Path) -> None:
    source = tmp_path / "no-genre.jsonl"
    record = {
        "annotator_labels": ["neutral"], "genre": "", "gold_label": "neutral", "pairID": "1n",
        "promptID": "1", "sentence1": "A man reads.", "sentence2": "He reads a novel.",
    }  # fmt: skip
    write_jsonl(source, [record])
    ok("--db", db, "import", source, "--format", "mnli")
    out = tmp_path / "back.jsonl"
    ok("--db", db, "export", "--format", "mnli-jsonl", "--out", out)
    assert read_jsonl(out) == [record]
