"""The command line: exact summary lines, presets as defaults, machine-readable tables."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    DATA,
    SAMPLE_MNLI,
    CliArg,
    csv_rows,
    fails,
    json_object,
    json_rows,
    ok,
    run_cli,
    table_counts,
)

from nlibuild.cli import main
from nlibuild.core.database import SCHEMA_VERSION
from nlibuild.core.registry import stage
from nlibuild.errors import StoreError
from nlibuild.invoke import Outcome, invoke, invoke_at
from nlibuild.store import Store

OCNLI_SAMPLE = DATA / "sample_ocnli.json"
SOURCE_TEXT = DATA / "sources" / "en" / "fiction.txt"


def test_init_prints_what_it_created(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    created = ok("--db", db, "init", "--lang", "zh", "--extra-labels", "unrelated,unknown")
    assert created == (
        f"Created store {db} (schema {SCHEMA_VERSION}, lang zh, preset none, "
        "extra labels unrelated,unknown; "
        "run 1, stage:init|lang:zh|extra-labels:unrelated,unknown|version:0.1.0)\n"
    )


def test_init_refuses_to_overwrite_a_store_and_leaves_it_whole(db: Path) -> None:
    result = run_cli("--db", db, "init")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {db}: a store already exists here")
    fails(db, "init", "--preset", "mnli", says=("a store already exists here",))
    ok("--db", db, "info")  # issue 28: a refused `init` emptied the store it found


def test_store_path_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "env.db"
    monkeypatch.setenv("NLIBUILD_DB", str(db))
    ok("init")
    assert db.exists()


def test_import_prints_counts_run_and_signature(db: Path) -> None:
    report = ok("--db", db, "import", SAMPLE_MNLI, "--format", "mnli")
    digest = hashlib.sha256(SAMPLE_MNLI.read_bytes()).hexdigest()[:12]
    assert report == (
        f"Imported {SAMPLE_MNLI}: 48 pairs, 16 premises, 192 votes, 0 translations added; "
        f"0 pairs already present (run 2, stage:import|path:{digest}|format:mnli|"
        "version:0.1.0)\n"
    )


def test_info_counts_by_genre_language_label_and_protocol(db: Path) -> None:
    ok("--db", db, "import", SAMPLE_MNLI, "--format", "mnli")
    summary = json_object("--db", db, "info")
    assert summary["pairs"] == 48
    assert summary["premises"] == 16
    assert summary["validated_pairs"] == 36
    assert summary["votes"] == 36 * 5 + 12
    assert summary["gold_method"] == "released"
    assert {r["key"]: r["count"] for r in summary["by_gold_label"]} == {
        "-": 3,
        "contradiction": 14,
        "entailment": 16,
        "neutral": 15,
    }
    assert {r["key"]: r["count"] for r in summary["by_genre"]} == {
        "fiction": 12,
        "government": 12,
        "telephone": 12,
        "travel": 12,
    }
    assert summary["by_protocol"] == [{"key": "(none)", "count": 48}]


def test_info_as_csv_is_one_table(db: Path) -> None:
    ok("--db", db, "import", SAMPLE_MNLI, "--format", "mnli")
    lines = ok("--db", db, "info", "--format", "csv").splitlines()
    assert lines[0] == "section,item,value"
    assert "store,pairs,48" in lines
    assert "pairs by gold label (released),-,3" in lines
    assert "pairs by language,en,48" in lines


def test_runs_is_the_provenance_log(db: Path, tmp_path: Path) -> None:
    ok("--db", db, "import", SAMPLE_MNLI, "--format", "mnli")
    ok("--db", db, "export", "--format", "hf-jsonl", "--out", tmp_path / "x.jsonl")
    runs = json_rows("--db", db, "runs")
    assert [r["stage"] for r in runs] == ["init", "import", "export"]
    assert all(r["status"] == "ok" and r["finished_at"] for r in runs)
    assert runs[1]["counts"]["pairs_added"] == 48
    assert runs[1]["config"]["format"] == "mnli"
    assert runs[2]["config"]["label_order"] == ["entailment", "neutral", "contradiction"]
    assert runs[2]["signature"] == (
        "stage:export|format:hf-jsonl|out:x.jsonl|label-order:e,n,c|no-gold:minus-one|version:0.1.0"
    )


def add_failed_run(db: Path, stage: str, counts: dict[str, int], error: str, command: str) -> None:
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            "INSERT INTO runs(stage, config_json, signature, started_at, finished_at, status, "
            "counts_json, version, command, host, pid, error) VALUES (?, '{}', ?, "
            "'2026-11-25T06:00:00.000+00:00', '2026-11-25T06:00:09.000+00:00', 'failed', ?, "
            "'0.1.0', ?, 'a-build-host.example.org', 4242, ?)",
            (stage, f"stage:{stage}|" + "x" * 150, json.dumps(counts), command, error),
        )


def test_runs_fits_120_columns_one_line_a_run_and_verbose_shows_the_rest(sample_db: Path) -> None:
    """Issue 28: `runs` folded into 4 parts at 120 columns (signature, error and command
    beside the rest). It shows id, stage, status, start, seconds and counts, the counts cut
    at a count to fit; `--verbose` (and csv, json) every column."""
    ok("--db", sample_db, "aggregate-labels", "--method", "dawid-skene")
    counts = {f"{name}_added": 123456 for name in ("premises", "pairs", "votes", "translations")}
    add_failed_run(
        sample_db,
        "bias-hypothesis-only",
        counts,
        "Error: " + "y" * 300,
        "nlibuild --db corpus.db bias hypothesis-only --resamples 200 " + "z" * 90,
    )
    shown = subprocess.run(
        [sys.executable, "-m", "nlibuild", "--db", str(sample_db), "runs"],
        capture_output=True, text=True, check=True, env=os.environ | {"COLUMNS": "120"},
    )  # fmt: skip
    lines = shown.stdout.splitlines()
    assert "part 1 of" not in shown.stdout and max(len(line) for line in lines) <= 120
    rows = [line for line in lines if line.startswith("│")]
    assert [row.split("│")[2].strip() for row in rows] == [
        "init",
        "import",
        "aggregate-labels",
        "bias-hypothesis-only",
    ]  # fmt: skip: one line each, not folded
    assert "premises 123456, pairs 123456" in rows[-1] and rows[-1].endswith("… │")
    assert "yyy" not in shown.stdout and "a-build-host" not in shown.stdout
    assert shown.stderr == "Note: 1 run failed or stopped; `runs --verbose` shows why\n"
    for every in (csv_rows("--db", sample_db, "runs"),
                  csv_rows("--db", sample_db, "runs", "--verbose")):  # fmt: skip
        assert every[-1]["error"] == "Error: " + "y" * 300
        assert (every[-1]["host"], every[-1]["pid"]) == ("a-build-host.example.org", "4242")
        assert "votes 123456, translations 123456" in every[-1]["counts"]
        assert json.loads(every[1]["settings"])["format"] == "mnli"
    verbose = ok("--db", sample_db, "runs", "--verbose", "--format", "md")
    assert "a-build-host.example.org" in verbose and "Error: yyy" in verbose


def test_preset_values_become_defaults_and_flags_override_them(tmp_path: Path) -> None:
    db = tmp_path / "ocnli.db"
    created = ok("--db", db, "init", "--preset", "ocnli")
    assert "lang zh, preset ocnli, extra labels unrelated,unknown" in created
    # The preset names the import format and declares OCNLI's extra label values.
    ok("--db", db, "import", OCNLI_SAMPLE)
    out = tmp_path / "o.jsonl"
    exported = ok("--db", db, "export", "--format", "hf-jsonl", "--out", out)
    assert "labels n,e,c = 0,1,2" in exported  # CLUE's order from the preset
    overridden = ok(
        "--db", db, "export", "--format", "hf-jsonl", "--out", out, "--label-order", "e,n,c"
    )
    assert "labels e,n,c = 0,1,2" in overridden


CORPUS_LIFE: list[tuple[str, tuple[CliArg, ...], dict[str, Any]]] = [
    ("init", ("--preset", "mnli"), {"preset": "mnli"}),
    ("import", (SAMPLE_MNLI,), {"path": SAMPLE_MNLI}),
    ("ingest", (SOURCE_TEXT, "--genre", "fiction"), {"paths": (SOURCE_TEXT,), "genre": "fiction"}),
    ("sample", ("--per-genre", "3"), {"n": 3, "all_genres": True, "genres": ()}),
    ("split", ("--dev", "5", "--test", "5", "--from", "labelled", "--replace"),
     {"dev": 5, "test": 5, "draw_from": "labelled", "replace": True}),
    ("export", ("--out", "{dir}/out.jsonl"), {"out": "{dir}/out.jsonl"}),
]  # fmt: skip
"""A store's life as commands and as the fields another front end gives `invoke`."""


def invoked(name: str, db: Path, fields: dict[str, Any]) -> Outcome[Any, Any]:
    """The stage `name` run on the store at `db` as a front end other than the CLI runs it."""
    return invoke_at(stage(name), db, **fields)


def test_every_front_end_says_what_the_cli_prints(tmp_path: Path) -> None:
    """`invoke` (the path of the lead page, recipes and the Python API) runs each stage as
    its command does, preset defaults included, and gives the line the CLI prints."""
    by_cli, by_call = tmp_path / "cli", tmp_path / "call"
    for folder in (by_cli, by_call):
        folder.mkdir()
    for name, args, fields in CORPUS_LIFE:
        line = ok("--db", by_cli / "c.db", name, *(str(a).format(dir=by_cli) for a in args))
        given = {k: v.format(dir=by_call) if isinstance(v, str) else v for k, v in fields.items()}
        summary = invoked(name, by_call / "c.db", given).summary
        assert summary + "\n" == line.replace(str(by_cli), str(by_call)), name


def test_init_runs_on_no_open_store(db: Path) -> None:
    """init makes its store (`Stage.creates`); on a store that is open, there is one."""
    with Store.open(db) as store, pytest.raises(StoreError, match="a store already exists"):
        invoke(stage("init"), store)


def test_unknown_preset_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli("--db", tmp_path / "x.db", "init", "--preset", "snli2")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: unknown preset 'snli2'; choose one of mnli, ocnli, xnli or give the path of a "
        ".toml file\n"
    )


def test_bad_option_values_are_one_error_line(db: Path, tmp_path: Path) -> None:
    result = run_cli("--db", db, "export", "--format", "csv", "--out", tmp_path / "x")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --format 'csv' is not one of: mnli-jsonl, ocnli-json, xnli-tsv, xnli-jsonl, "
        "hf-jsonl, hf, jsonl\n"
    )


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "nlibuild", "--version"], capture_output=True, text=True, check=True
    )
    assert done.stdout == "nlibuild 0.1.0\n"


# --- a bug: one line, not a traceback ----------------------------------------------------


def failing_aggregation(monkeypatch: pytest.MonkeyPatch, db: Path) -> None:
    """`nlibuild --db DB aggregate-labels` as `main()` would run it, with a bug inside its
    recorded run."""

    def broken(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(Store, "write_majority_gold", broken)
    monkeypatch.setattr(sys, "argv", ["nlibuild", "--db", str(db), "aggregate-labels"])


def test_a_bug_is_one_error_line_and_the_run_shows_as_failed(
    sample_db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NLIBUILD_DEBUG", raising=False)
    failing_aggregation(monkeypatch, sample_db)
    before = table_counts(sample_db)
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (
        "",
        "Error: internal error (RuntimeError: boom); the store is unchanged unless a run says "
        "otherwise; please report this with the command\n",
    )
    assert table_counts(sample_db) == before | {"runs": before["runs"] + 1}
    runs = csv_rows("--db", sample_db, "runs")
    assert [(r["stage"], r["status"], r["error"]) for r in runs] == [
        ("init", "ok", ""),
        ("import", "ok", ""),
        ("aggregate-labels", "failed", "RuntimeError: boom"),
    ]


def test_nlibuild_debug_shows_the_traceback_of_a_bug(
    sample_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLIBUILD_DEBUG", "1")
    failing_aggregation(monkeypatch, sample_db)
    with pytest.raises(RuntimeError, match="boom"):
        main()
