"""`nlibuild check [--repair]`: pair_labels and the majority gold recomputed from the votes.

A store every stage wrote checks clean (a fresh import, real SNLI, relabel votes once
aggregated, the committed legacy stores after their migration); a store whose pair_labels
a test corrupts by SQL is reported pair by pair, read-only, with exit 1 and one `Error:`
line; --repair rewrites the rows as a recorded run; votes that came after aggregate-labels
show as stale gold, a gold written by hand as wrong gold.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    FIXTURES,
    json_rows,
    ok,
    query,
    read_jsonl,
    requires_fixtures,
    run_cli,
    table_counts,
    write_jsonl,
)
from legacy_stores import STORES
from typer.testing import Result

from nlibuild.core.registry import CHECK_REPAIR, stage
from nlibuild.invoke import invoke_at

CLEAN = "every check agrees with the votes"


def pair_labels(db: Path) -> list[tuple[Any, ...]]:
    return query(db, "SELECT * FROM pair_labels ORDER BY pair_pk")


def pair_id(db: Path, pk: int) -> str:
    return str(query(db, "SELECT id FROM pairs WHERE pk = ?", pk)[0][0])


def report_lines(result: Result) -> dict[str, str]:
    """The report's lines, by the text before their first colon."""
    return dict(line.split(": ", 1) for line in result.stdout.splitlines())


def differing(result: Result, error: str) -> dict[str, str]:
    """A check that found differences: exit 1, the report on stdout, one `Error:` line holding
    `error` on stderr; returns the report's lines."""
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr
    assert error in result.stderr, result.stderr
    return report_lines(result)


def test_a_fresh_import_checks_clean_and_records_no_run(sample_db: Path) -> None:
    before = table_counts(sample_db)
    lines = ok("--db", sample_db, "check").splitlines()
    assert lines == [
        "pair_labels counts or author label differ from the votes: 0 pairs",
        "pair_labels row missing for a pair with votes: 0 pairs",
        "pair_labels row for a pair without votes: 0 pairs",
        "majority gold stale (votes came after the aggregate-labels run that wrote it): 0 pairs",
        "majority gold differs from the rule on the votes it was computed from: 0 pairs",
        f"Checked 48 pairs: {CLEAN}",
    ]
    assert table_counts(sample_db) == before


def corrupt(db: Path) -> tuple[str, str, str]:
    """One wrong count, one missing row, one row of a pair whose votes are gone; their IDs."""
    query(db, "UPDATE pair_labels SET n_neutral = n_neutral + 1 WHERE pair_pk = 3")
    query(db, "DELETE FROM pair_labels WHERE pair_pk = 7")
    query(db, "DELETE FROM votes WHERE pair_pk = 11")
    return pair_id(db, 3), pair_id(db, 7), pair_id(db, 11)


def test_a_corrupted_pair_labels_is_reported_by_pair_and_left_as_it_is(sample_db: Path) -> None:
    wrong, missing, extra = corrupt(sample_db)
    before = table_counts(sample_db), pair_labels(sample_db)
    lines = differing(run_cli("--db", sample_db, "check"), "nlibuild check --repair")
    assert lines["pair_labels counts or author label differ from the votes"] == f"1 pair ({wrong})"
    assert lines["pair_labels row missing for a pair with votes"] == f"1 pair ({missing})"
    assert lines["pair_labels row for a pair without votes"] == f"1 pair ({extra})"
    assert lines["Checked 48 pairs"] == "3 differences"
    assert (table_counts(sample_db), pair_labels(sample_db)) == before


def test_repair_rewrites_pair_labels_as_a_run_and_a_second_check_is_clean(
    sample_db: Path,
) -> None:
    wrong, missing, extra = corrupt(sample_db)
    report = ok("--db", sample_db, "check", "--repair")
    assert report.startswith(
        f"Repaired pair_labels: recounted 1 row ({wrong}), added 1 row ({missing}), "
        f"removed 1 row ({extra}) (run 3, stage:check-repair|repair:yes|"
    )
    assert report.endswith(f"Checked 47 pairs after the repair: {CLEAN}\n")
    assert ok("--db", sample_db, "check").endswith(f"Checked 47 pairs: {CLEAN}\n")
    repair = json_rows("--db", sample_db, "runs")[-1]
    assert (repair["stage"], repair["status"]) == ("check-repair", "ok")
    assert repair["counts"] == {"recounted": 1, "added": 1, "removed": 1, "differences_left": 0}


def test_a_wrong_gold_is_reported_and_aggregate_labels_rewrites_it_after_a_repair(
    sample_db: Path,
) -> None:
    ok("--db", sample_db, "aggregate-labels")
    query(sample_db, "UPDATE pair_labels SET gold = '-' WHERE pair_pk = 1")
    advice = "run `nlibuild check --repair`, then `nlibuild aggregate-labels`"
    lines = differing(run_cli("--db", sample_db, "check"), advice)
    differs = "majority gold differs from the rule on the votes it was computed from"
    assert lines[differs] == f"1 pair ({pair_id(sample_db, 1)})"
    # Nothing to recount: the repair run only makes aggregate-labels compute the gold again.
    repaired = run_cli("--db", sample_db, "check", "--repair")
    differing(repaired, "the majority gold of 1 pair differs from the rule: run `nlibuild agg")
    ok("--db", sample_db, "aggregate-labels")
    assert ok("--db", sample_db, "check").endswith(f"{CLEAN}\n")


def test_the_gold_is_checked_with_the_min_agree_of_the_run_that_wrote_it(
    sample_db: Path,
) -> None:
    ok("--db", sample_db, "aggregate-labels", "--min-agree", "5")
    assert ok("--db", sample_db, "check").endswith(f"{CLEAN}\n")


def relabel_every_waiting_pair(db: Path, label: str) -> None:
    """`relabel create`, `export` and `import`: 4 votes of `label` on 8 author-only pairs."""
    ok("--db", db, "relabel", "create", "--annotators", "v01,v02,v03,v04,v05",
       "--fraction", "0.5")  # fmt: skip
    package = db.parent / "package"
    ok("--db", db, "relabel", "export", "--all", "--format", "jsonl", "--out", package)
    tasks = [t for path in sorted(package.glob("r*.tasks.jsonl")) for t in read_jsonl(path)]
    votes = [{k: t[k] for k in ("batch", "annotator", "pair_id")} | {"label": label}
             for t in tasks]  # fmt: skip
    ok("--db", db, "relabel", "import", write_jsonl(db.parent / "votes.jsonl", votes))


def test_votes_added_after_aggregate_labels_show_as_stale_gold(sample_db: Path) -> None:
    ok("--db", sample_db, "aggregate-labels")
    relabel_every_waiting_pair(sample_db, "neutral")
    result = run_cli("--db", sample_db, "check", "--format", "json")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: the majority gold of 4 pairs is stale: run `nlibuild aggregate-labels`\n"
    )
    findings = {f["check"]: f for f in json.loads(result.stdout)}
    assert {kind: f["pairs"] for kind, f in findings.items()} == {
        "counts": 0, "missing": 0, "extra": 0, "gold-stale": 4, "gold-differs": 0
    }  # fmt: skip
    # The pairs whose author's label was not neutral: their gold turns neutral.
    stale = findings["gold-stale"]["first_pair_ids"].split()
    assert all(not pair.endswith("n") for pair in stale), stale
    ok("--db", sample_db, "aggregate-labels")
    assert json_rows("--db", sample_db, "check")[3]["pairs"] == 0


def test_check_as_csv_is_the_findings_table_and_repair_out_writes_both(
    sample_db: Path, tmp_path: Path
) -> None:
    ok("--db", sample_db, "aggregate-labels")
    relabel_every_waiting_pair(sample_db, "neutral")
    result = run_cli("--db", sample_db, "check", "--format", "csv")
    table = list(csv.reader(io.StringIO(result.stdout)))
    assert table[0] == ["check", "description", "pairs", "first_pair_ids"]
    assert len(table) == 6 and all(len(row) == 4 for row in table)
    assert result.stderr == (  # nothing left out: without --repair, one table
        "Error: the majority gold of 4 pairs is stale: run `nlibuild aggregate-labels`\n"
    )
    folder = tmp_path / "check"
    run_cli("--db", sample_db, "check", "--repair", "--format", "csv", "--out", folder)
    assert sorted(p.name for p in folder.iterdir()) == ["check-findings.csv", "check-repairs.csv"]


@requires_fixtures
def test_real_snli_checks_clean_before_and_after_aggregation(db: Path) -> None:
    for split in ("dev", "test"):
        ok("--db", db, "import", FIXTURES / "snli_prefix" / f"snli_1.0_{split}.jsonl",
           "--format", "snli")  # fmt: skip
    assert ok("--db", db, "check").endswith(f"Checked 2566 pairs: {CLEAN}\n")
    ok("--db", db, "aggregate-labels")
    assert ok("--db", db, "check").endswith(f"Checked 2566 pairs: {CLEAN}\n")


@pytest.mark.parametrize("name", sorted(p.name for p in STORES.glob("*.db")))
def test_a_legacy_store_checks_clean_after_its_migration(name: str, tmp_path: Path) -> None:
    db = shutil.copyfile(STORES / name, tmp_path / name)  # the original stays at schema 7
    assert ok("--db", db, "check").endswith(f"{CLEAN}\n")


def test_check_repair_from_any_front_end_is_the_repair_the_log_names(sample_db: Path) -> None:
    """A recipe's `check-repair` step gives no settings: it is still the repair, and its run
    says `repair: yes` as `check --repair`'s does."""
    wrong, missing, extra = corrupt(sample_db)
    outcome = invoke_at(stage(CHECK_REPAIR), sample_db)
    assert outcome.summary.startswith(
        f"Repaired pair_labels: recounted 1 row ({wrong}), added 1 row ({missing}), "
        f"removed 1 row ({extra}) (run 3, stage:check-repair|repair:yes|"
    )
    assert json_rows("--db", sample_db, "runs")[-1]["config"] == {"repair": True}
