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
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    FIXTURES,
    ok,
    query,
    read_jsonl,
    requires_fixtures,
    run_cli,
    table_counts,
    write_jsonl,
)
from legacy_stores import STORES

import nlibuild
from nlibuild.core.registry import CHECK_REPAIR, stage
from nlibuild.invoke import invoke_at
from nlibuild.models import CheckFinding, CheckResult

CLEAN = "every check agrees with the votes"
COUNTS_DIFFER = "pair_labels counts or author label differ from the votes"
ROW_MISSING = "pair_labels row missing for a pair with votes"
ROW_WITHOUT_VOTES = "pair_labels row for a pair without votes"
GOLD_DIFFERS = "majority gold differs from the rule on the votes it was computed from"
GOLD_MISSING = "majority gold missing (its pair_labels row was restored after aggregate-labels)"


def pair_labels(db: Path) -> list[tuple[Any, ...]]:
    return query(db, "SELECT * FROM pair_labels ORDER BY pair_pk")


def pair_id(db: Path, pk: int) -> str:
    return str(query(db, "SELECT id FROM pairs WHERE pk = ?", pk)[0][0])


def found(findings: list[CheckFinding]) -> dict[str, tuple[int, list[str]]]:
    """Each check's (pairs, first pair IDs), by the line that reports it."""
    return {f.description: (f.pairs, f.first_pair_ids) for f in findings}


def differing(result: CheckResult, error: str) -> dict[str, tuple[int, list[str]]]:
    """A check that found differences, whose advice (the CLI's one `Error:` line, exit 1)
    holds `error`; returns what each check found."""
    assert result.differences > 0, result
    problem = result.advice
    assert problem is not None and error in problem, problem
    return found(result.findings)


def test_a_fresh_import_checks_clean_and_records_no_run(sample_db: Path) -> None:
    """The report a user reads, line by line (the CLI's test of check)."""
    before = table_counts(sample_db)
    lines = ok("--db", sample_db, "check").splitlines()
    assert lines == [
        "pair_labels counts or author label differ from the votes: 0 pairs",
        "pair_labels row missing for a pair with votes: 0 pairs",
        "pair_labels row for a pair without votes: 0 pairs",
        "majority gold stale (votes came after the aggregate-labels run that wrote it): 0 pairs",
        "majority gold differs from the rule on the votes it was computed from: 0 pairs",
        f"{GOLD_MISSING}: 0 pairs",
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
    result = nlibuild.open(sample_db).check()
    lines = differing(result, "nlibuild check --repair")
    assert lines[COUNTS_DIFFER] == (1, [wrong])
    assert lines[ROW_MISSING] == (1, [missing])
    assert lines[ROW_WITHOUT_VOTES] == (1, [extra])
    assert (result.pairs_checked, result.differences) == (48, 3)
    assert (table_counts(sample_db), pair_labels(sample_db)) == before


def test_repair_rewrites_pair_labels_as_a_run_and_a_second_check_is_clean(
    sample_db: Path,
) -> None:
    wrong, missing, extra = corrupt(sample_db)
    corpus = nlibuild.open(sample_db)
    repaired = corpus.check(repair=True)
    assert repaired.repaired is not None
    assert found(repaired.repaired) == {  # recounted 1 row, added 1 row, removed 1 row
        COUNTS_DIFFER: (1, [wrong]), ROW_MISSING: (1, [missing]), ROW_WITHOUT_VOTES: (1, [extra])
    }  # fmt: skip
    assert repaired.run_id == 3 and repaired.signature is not None
    assert repaired.signature.startswith("stage:check-repair|repair:yes|")
    # The check again after the repair: clean, over 47 pairs (one lost its votes).
    assert (repaired.pairs_checked, repaired.differences) == (47, 0)
    again = corpus.check()
    assert (again.pairs_checked, again.differences, again.run_id) == (47, 0, None)
    repair = corpus.runs()[-1]
    assert (repair.id, repair.stage, repair.status) == (3, "check-repair", "ok")
    assert repair.counts == {"recounted": 1, "added": 1, "removed": 1, "differences_left": 0}


def test_a_wrong_gold_is_reported_and_aggregate_labels_rewrites_it_after_a_repair(
    sample_db: Path,
) -> None:
    corpus = nlibuild.open(sample_db)
    corpus.aggregate_labels()
    query(sample_db, "UPDATE pair_labels SET gold = '-' WHERE pair_pk = 1")
    steps = "run `nlibuild check --repair`, then `nlibuild aggregate-labels`"
    lines = differing(corpus.check(), steps)
    assert lines[GOLD_DIFFERS] == (1, [pair_id(sample_db, 1)])
    # Nothing to recount: the repair run only makes aggregate-labels compute the gold again.
    repaired = corpus.check(repair=True)
    differing(repaired, "the majority gold of 1 pair differs from the rule: run `nlibuild agg")
    assert repaired.repaired is not None and sum(f.pairs for f in repaired.repaired) == 0
    corpus.aggregate_labels()
    assert corpus.check().differences == 0


def gold_labels(db: Path) -> list[tuple[Any, ...]]:
    return query(db, "SELECT pair_pk, gold FROM pair_labels ORDER BY pair_pk")


@pytest.mark.parametrize("lost", ["one row", "every row"])
def test_lost_rows_are_restored_and_their_gold_asked_of_aggregate_labels(
    sample_db: Path, lost: str
) -> None:
    """Every lost row is reported however many were lost, the repair restores the counts,
    and the check after it names the pairs left without gold: the repair writes no gold
    (that is a recorded aggregate-labels run's), and aggregate-labels then gives the gold
    back as it was."""
    corpus = nlibuild.open(sample_db)
    corpus.aggregate_labels()
    gold = gold_labels(sample_db)
    count = 1 if lost == "one row" else 48
    query(sample_db, "DELETE FROM pair_labels WHERE pair_pk = 7 OR ?", count > 1)
    lines = differing(corpus.check(), "run `nlibuild check --repair`")
    assert lines[ROW_MISSING][0] == count
    repaired = corpus.check(repair=True)
    assert repaired.repaired is not None and found(repaired.repaired)[ROW_MISSING][0] == count
    assert found(repaired.findings)[GOLD_MISSING][0] == count
    pairs = "1 pair" if count == 1 else f"{count} pairs"
    assert repaired.advice == (
        f"the majority gold of {pairs} is missing: run `nlibuild aggregate-labels`"
    )
    assert corpus.check().advice == repaired.advice  # and it stays reported until then
    corpus.aggregate_labels()
    assert corpus.check().differences == 0
    assert gold_labels(sample_db) == gold


def test_the_gold_is_checked_with_the_min_agree_of_the_run_that_wrote_it(
    sample_db: Path,
) -> None:
    corpus = nlibuild.open(sample_db)
    corpus.aggregate_labels(min_agree=5)
    assert corpus.check().differences == 0


def relabel_every_waiting_pair(db: Path, label: str) -> None:
    """`relabel create`, `export` and `import`: 4 votes of `label` on 8 author-only pairs."""
    corpus = nlibuild.open(db)
    corpus.relabel_create(annotators=("v01", "v02", "v03", "v04", "v05"), fraction=0.5)
    package = db.parent / "package"
    corpus.relabel_export(all=True, format="jsonl", out=package)
    tasks = [t for path in sorted(package.glob("r*.tasks.jsonl")) for t in read_jsonl(path)]
    votes = [{k: t[k] for k in ("batch", "annotator", "pair_id")} | {"label": label}
             for t in tasks]  # fmt: skip
    corpus.relabel_import(path=write_jsonl(db.parent / "votes.jsonl", votes), format="jsonl")


def test_votes_added_after_aggregate_labels_show_as_stale_gold(sample_db: Path) -> None:
    corpus = nlibuild.open(sample_db)
    corpus.aggregate_labels()
    relabel_every_waiting_pair(sample_db, "neutral")
    result = corpus.check()
    assert result.advice == "the majority gold of 4 pairs is stale: run `nlibuild aggregate-labels`"
    findings = {f.check: f for f in result.findings}
    assert {kind: f.pairs for kind, f in findings.items()} == {
        "counts": 0, "missing": 0, "extra": 0, "gold-stale": 4, "gold-differs": 0,
        "gold-missing": 0,
    }  # fmt: skip
    # The pairs whose author's label was not neutral: their gold turns neutral.
    stale = findings["gold-stale"].first_pair_ids
    assert len(stale) == 4 and all(not pair.endswith("n") for pair in stale), stale
    corpus.aggregate_labels()
    assert corpus.check().findings[3].pairs == 0


def test_check_as_csv_is_the_findings_table_and_repair_out_writes_both(
    sample_db: Path, tmp_path: Path
) -> None:
    nlibuild.open(sample_db).aggregate_labels()
    relabel_every_waiting_pair(sample_db, "neutral")
    result = run_cli("--db", sample_db, "check", "--format", "csv")
    table = list(csv.reader(io.StringIO(result.stdout)))
    assert table[0] == ["check", "description", "pairs", "first_pair_ids"]
    assert len(table) == 7 and all(len(row) == 4 for row in table)
    assert result.stderr == (  # nothing left out: without --repair, one table
        "Error: the majority gold of 4 pairs is stale: run `nlibuild aggregate-labels`\n"
    )
    folder = tmp_path / "check"
    run_cli("--db", sample_db, "check", "--repair", "--format", "csv", "--out", folder)
    assert sorted(p.name for p in folder.iterdir()) == ["check-findings.csv", "check-repairs.csv"]


@requires_fixtures
def test_real_snli_checks_clean_before_and_after_aggregation(db: Path) -> None:
    corpus = nlibuild.open(db)
    for split in ("dev", "test"):
        corpus.import_corpus(path=FIXTURES / "snli_prefix" / f"snli_1.0_{split}.jsonl",
                             format="snli")  # fmt: skip
    before = corpus.check()
    assert (before.pairs_checked, before.differences) == (2566, 0)
    corpus.aggregate_labels()
    after = corpus.check()
    assert (after.pairs_checked, after.differences) == (2566, 0)


@pytest.mark.parametrize("name", sorted(p.name for p in STORES.glob("*.db")))
def test_a_legacy_store_checks_clean_after_its_migration(name: str, tmp_path: Path) -> None:
    db = shutil.copyfile(STORES / name, tmp_path / name)  # the original stays at schema 7
    assert nlibuild.open(db).check().differences == 0


def test_check_repair_from_any_front_end_is_the_repair_the_log_names(sample_db: Path) -> None:
    """A recipe's `check-repair` step gives no settings: it is still the repair, and its run
    says `repair: yes` as `check --repair`'s does."""
    wrong, missing, extra = corrupt(sample_db)
    outcome = invoke_at(stage(CHECK_REPAIR), sample_db)
    assert outcome.summary.startswith(
        f"Repaired pair_labels: recounted 1 row ({wrong}), added 1 row ({missing}), "
        f"removed 1 row ({extra}) (run 3, stage:check-repair|repair:yes|"
    )
    assert nlibuild.open(sample_db).runs()[-1].config == {"repair": True}
