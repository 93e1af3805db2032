"""Gold labels (`aggregate-labels`) and agreement (`stats --table agreement|annotators`).

The rule, from the issue: gold = the NLI label with at least `--min-agree` votes (3) and
more than any other NLI label, else `-`. Extra labels (unrelated, unknown, ...) are votes
that count towards the total but can never be gold. A pair with only its author's vote keeps
that label (MNLI's training-set convention) and is unvalidated. Pairs with 4 votes follow
the same rule. Ties are never broken (crowd-kit's MajorityVote settles 2-2-1 by row order
and never says "no majority"; ours says `-`), and the result never depends on input order.

Agreement (nlibuild/labelling/agreement.py's docstring gives each statistic's denominator): every
statistic is a ratio of per-pair sums, so groups (`--by`) add up to the whole; Fleiss'
kappa and Krippendorff's alpha (nominal) match the reference implementations; bootstrap
intervals are seeded. Annotators: leave-one-out agreement with gold, the author's share of
gold, elicitation violations, Dawid-Skene reliability.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
from collections import Counter
from operator import methodcaller
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import (
    FIXTURES,
    compact_table,
    copy_store,
    csv_rows,
    fails,
    ok,
    query,
    read_jsonl,
    refused,
    requires_fixtures,
    write_jsonl,
)
from pydantic import BaseModel

import nlibuild
from nlibuild.api import StageWarning
from nlibuild.core.registry import RELABEL_IMPORT
from nlibuild.labelling.agreement import STATISTICS, VoteTable, estimates, pair_parts
from nlibuild.models import AggregateResult
from nlibuild.store import Store

E, N, C, U = "entailment", "neutral", "contradiction", "unrelated"
NLI = (E, N, C)
KAPPA, ALPHA = "Fleiss' kappa", "Krippendorff's alpha (nominal)"
SHARES = tuple(s for s in STATISTICS if s not in (KAPPA, ALPHA))
LETTERS = {"e": E, "n": N, "c": C}

Record = dict[str, Any]


# --- helpers ------------------------------------------------------------------------------


def pair(
    pair_id: str,
    labels: list[str],
    annotators: list[str] | None = None,
    genre: str | None = None,
    **more: Any,
) -> Record:
    """One line of nlibuild's jsonl: a pair with its own premise; labels[0] is the author's."""
    record: Record = {
        "pair_id": pair_id,
        "premise_id": f"s-{pair_id}",
        "premise": f"The premise of pair {pair_id} is a sentence.",
        "hypothesis": f"The hypothesis of pair {pair_id}.",
        "labels": labels,
    }
    if annotators is not None:
        record["annotators"] = annotators
    if genre is not None:
        record["genre"] = genre
    return record | more


def store_with(path: Path, records: list[Record], extra: bool = True) -> Path:
    """A store (accepting the extra label `unrelated`) holding `records`."""
    corpus = nlibuild.create(path, extra_labels=(U,) if extra else ())
    source = write_jsonl(path.with_suffix(".jsonl"), records)
    corpus.import_corpus(path=source, format="jsonl")
    return path


def aggregate(db: Path, **settings: str | int) -> AggregateResult:
    """`aggregate-labels` with `settings` (`min_agree=4`, `method="dawid-skene"`)."""
    return nlibuild.open(db).aggregate_labels(**settings)


def gold_rows(db: Path, method: str = "majority") -> dict[str, tuple[str, int, int]]:
    """pair ID -> (label, n_votes, n_top) of the gold rows of `method`."""
    rows = query(
        db,
        "SELECT p.id, g.label, g.n_votes, g.n_top FROM gold g JOIN pairs p ON p.pk = g.pair_pk "
        "WHERE g.method = ?",
        method,
    )
    assert len(rows) == len({r[0] for r in rows}), "one gold row per pair and method"
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


SUMMARY = re.compile(
    r"Aggregated (\d+) pairs? by majority \(at least (\d+)\): entailment (\d+), neutral (\d+), "
    r"contradiction (\d+), - (\d+); (\d+) validated, (\d+) unvalidated \(author only\)"
)


def summary(stdout: str) -> dict[str, int]:
    """The counts of `aggregate-labels`'s line."""
    match = SUMMARY.search(stdout)
    assert match, stdout
    keys = ("pairs", "min_agree", E, N, C, "-", "validated", "unvalidated")
    return dict(zip(keys, map(int, match.groups()), strict=True))


def line_counts(result: AggregateResult, min_agree: int) -> dict[str, int]:
    """The counts of an `aggregate-labels` result, as its line gives them; `min_agree` is
    the setting it was run with."""
    return {
        "pairs": result.pairs,
        "min_agree": min_agree,
        **{label: result.by_label[label] for label in (*NLI, "-")},
        "validated": result.validated,
        "unvalidated": result.unvalidated,
    }


def expected_summary(gold: dict[str, tuple[str, int, int]], min_agree: int) -> dict[str, int]:
    labels = Counter(label for label, _, _ in gold.values())
    unvalidated = sum(1 for _, n_votes, _ in gold.values() if n_votes == 1)
    return {
        "pairs": len(gold),
        "min_agree": min_agree,
        **{label: labels[label] for label in (*NLI, "-")},
        "validated": len(gold) - unvalidated,
        "unvalidated": unvalidated,
    }


def last_min_agree(db: Path) -> int:
    """The `min_agree` the store's last run (an aggregate-labels) was given."""
    run = nlibuild.open(db).runs()[-1]
    assert run.stage == "aggregate-labels", run
    value: int = run.config["min_agree"]
    return value


def majority(votes: list[str], min_agree: int = 3) -> tuple[str, int, int]:
    """The rule, written out independently: (gold, n_votes, n_top)."""
    counts = Counter(v for v in votes if v in NLI)
    top = max(counts.values(), default=0)
    if len(votes) == 1:
        return (votes[0] if votes[0] in NLI else "-"), 1, top
    leaders = [label for label in NLI if counts[label] == top]
    label = leaders[0] if len(leaders) == 1 and top >= min_agree else "-"
    return label, len(votes), top


def agreement_json(db: Path, **options: str | int | float | bool) -> list[dict[str, Any]]:
    """The rows of `stats --table agreement --format json` (`by="genre"`, `ci=0.95`, ...)."""
    return nlibuild.open(db).stats("agreement", **options).to_dicts()


def annotators_json(db: Path, **options: str | float) -> dict[str, dict[str, Any]]:
    """The rows of `stats --table annotators --format json`, by annotator."""
    rows = nlibuild.open(db).stats("annotators", **options).to_dicts()
    return {row["annotator"]: row for row in rows}


def by_statistic(rows: list[dict[str, Any]], group: str = "all") -> dict[str, dict[str, Any]]:
    return {r["statistic"]: r for r in rows if r["group"] == group}


def assert_same_statistics(one: list[dict[str, Any]], two: list[dict[str, Any]]) -> None:
    """Equal tables, but for the rounding of sums taken in another pair order."""
    assert len(one) == len(two)
    for a, b in zip(one, two, strict=True):
        assert {k: v for k, v in a.items() if k != "value"} == {
            k: v for k, v in b.items() if k != "value"
        }
        assert a["value"] == pytest.approx(b["value"], rel=1e-12, abs=1e-12)


# --- 1. the majority rule, case by case -----------------------------------------------------

# pair ID: (votes, author's first; expected gold, n_votes, n_top) with --min-agree 3.
CASES: dict[str, tuple[list[str], tuple[str, int, int]]] = {
    "5-0": ([E, E, E, E, E], (E, 5, 5)),
    "4-1": ([N, N, C, N, N], (N, 5, 4)),
    "3-2": ([C, E, C, E, C], (C, 5, 3)),
    "3-2-author-outvoted": ([E, N, N, E, N], (N, 5, 3)),
    "3-1-1": ([N, E, C, E, E], (E, 5, 3)),
    "2-2-1": ([E, E, N, N, C], ("-", 5, 2)),
    "2-2-1-reordered": ([C, N, E, N, E], ("-", 5, 2)),
    "2-1-1-1-extra": ([E, N, E, C, U], ("-", 5, 2)),
    "3-extra-2-e": ([E, U, U, U, E], ("-", 5, 2)),
    "3-e-2-extra": ([E, U, E, U, E], (E, 5, 3)),
    "2-2-extra": ([N, C, U, N, C], ("-", 5, 2)),
    "author-only": ([C], (C, 1, 1)),
    "author-only-extra": ([U], ("-", 1, 0)),
    "4-votes-3-1": ([N, N, C, N], (N, 4, 3)),
    "4-votes-2-2": ([E, C, C, E], ("-", 4, 2)),
    "4-votes-4-0": ([C, C, C, C], (C, 4, 4)),
    "4-votes-2-1-1": ([E, N, E, C], ("-", 4, 2)),
    "3-votes-3-0": ([E, E, E], (E, 3, 3)),
    "2-votes-agree": ([N, N], ("-", 2, 2)),  # 2 votes never reach 3
}
# With --min-agree 4 the validated pairs whose top label has fewer than 4 votes lose their gold.
MIN_AGREE_4 = {pid: majority(votes, 4) for pid, (votes, _) in CASES.items()}


@pytest.fixture(scope="module")
def cases_imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of CASES, imported, not aggregated (do not modify)."""
    db = tmp_path_factory.mktemp("cases") / "imported.db"
    return store_with(db, [pair(pid, votes) for pid, (votes, _) in CASES.items()])


@pytest.fixture(scope="module")
def cases_db(cases_imported: Path) -> tuple[Path, AggregateResult]:
    """A store of CASES after `aggregate-labels`, and its result (do not modify)."""
    db = copy_store(cases_imported, cases_imported.with_name("cases.db"))
    return db, aggregate(db)


@pytest.mark.parametrize("case", list(CASES))
def test_majority_gold_of_each_vote_pattern(
    cases_db: tuple[Path, AggregateResult], case: str
) -> None:
    db, _ = cases_db
    votes, expected = CASES[case]
    assert gold_rows(db)[case] == expected
    assert majority(votes) == expected  # the test's own statement of the rule agrees


def test_the_printed_line_counts_labels_no_gold_and_unvalidated_pairs(
    cases_imported: Path, cases_db: tuple[Path, AggregateResult], tmp_path: Path
) -> None:
    """The command's closing line (the CLI's test of aggregate-labels) gives the counts of
    the result the Python API returns."""
    db = copy_store(cases_imported, tmp_path / "cases.db")
    stdout = ok("--db", db, "aggregate-labels")
    gold = gold_rows(db)
    assert set(gold) == set(CASES)
    assert gold == gold_rows(cases_db[0])
    expected = expected_summary({pid: exp for pid, (_, exp) in CASES.items()}, 3)
    assert summary(stdout) == expected == line_counts(cases_db[1], 3)
    # Spelled out once, so that a change to CASES shows.
    assert expected == {
        "pairs": 19,
        "min_agree": 3,
        E: 4,
        N: 3,
        C: 3,
        "-": 9,
        "validated": 17,
        "unvalidated": 2,
    }
    assert "released gold" not in stdout  # the jsonl gave no released gold to compare with


def test_author_only_pairs_are_unvalidated_and_keep_their_label(
    cases_db: tuple[Path, AggregateResult],
) -> None:
    db, _ = cases_db
    gold = gold_rows(db)
    assert gold["author-only"] == (C, 1, 1)
    assert gold["author-only-extra"] == ("-", 1, 0)  # an extra label is never gold
    single = query(
        db,
        "SELECT p.id FROM votes v JOIN pairs p ON p.pk = v.pair_pk "
        "GROUP BY v.pair_pk HAVING count(*) = 1",
    )
    assert {r[0] for r in single} == {"author-only", "author-only-extra"}
    assert query(db, "SELECT count(*) FROM votes WHERE position = 1")[0][0] == 17


def test_min_agree_4(cases_db: tuple[Path, AggregateResult], tmp_path: Path) -> None:
    db = copy_store(cases_db[0], tmp_path / "cases.db")
    result = aggregate(db, min_agree=4)
    gold = gold_rows(db)
    assert gold == MIN_AGREE_4
    assert gold["5-0"][0] == E and gold["4-1"][0] == N and gold["4-votes-4-0"][0] == C
    assert gold["3-2"][0] == gold["3-1-1"][0] == gold["4-votes-3-1"][0] == "-"
    assert gold["author-only"][0] == C  # the author-only convention does not depend on it
    assert line_counts(result, last_min_agree(db)) == expected_summary(MIN_AGREE_4, 4)


def test_rerunning_replaces_the_gold_rows_once_and_keeps_them_while_no_vote_comes(
    cases_db: tuple[Path, AggregateResult], tmp_path: Path
) -> None:
    db = copy_store(cases_db[0], tmp_path / "cases.db")
    aggregate(db, min_agree=4)
    result = aggregate(db)  # another min_agree: computed again
    # Nothing changed since: the rows stay those of the run before.
    again = aggregate(db)
    assert again.run_id > result.run_id
    same = {"run_id", "signature"}
    assert again.model_dump(exclude=same) == result.model_dump(exclude=same)
    assert gold_rows(db) == {pid: exp for pid, (_, exp) in CASES.items()}
    rows = query(
        db,
        "SELECT count(*), count(DISTINCT pair_pk), min(run_id), max(run_id) "
        "FROM gold WHERE method = 'majority'",
    )
    last_run = result.run_id
    assert rows == [(len(CASES), len(CASES), last_run, last_run)]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--min-agree", "0"), ("min_agree",)),
        (("--method", "plurality"), ("--method",)),
    ],
)
def test_bad_aggregate_options_are_one_error_line(
    cases_db: tuple[Path, AggregateResult],
    tmp_path: Path,
    args: tuple[str, ...],
    says: tuple[str, ...],
) -> None:
    """The options as typed: a bad one is the command's one `Error:` line."""
    db = copy_store(cases_db[0], tmp_path / "cases.db")
    fails(db, "aggregate-labels", *args, says=says)


def test_released_gold_disagreements_are_counted(tmp_path: Path) -> None:
    records = [
        pair("a", [E, E, E, N, N], gold_label=E),
        pair("b", [E, E, N, N, C], gold_label=E),  # released says e, the rule says '-'
        pair("c", [C, C, C, C, C], gold_label=C),
    ]
    db = store_with(tmp_path / "released.db", records)
    assert aggregate(db).released_disagreements == 1
    assert gold_rows(db, "released")["b"][0] == E
    assert gold_rows(db)["b"][0] == "-"


def test_a_missing_author_label_does_not_make_a_validator_the_author(tmp_path: Path) -> None:
    records = [pair("m1", ["", E, E, N, E], ["auth", "v1", "v2", "v3", "v4"])]
    db = store_with(tmp_path / "missing.db", records)
    with pytest.warns(StageWarning, match="validated pairs have 4 votes"):
        aggregate(db)
    assert gold_rows(db)["m1"] == (E, 4, 3)  # the validators' 3 of 4 (passes today)
    positions = dict(
        query(db, "SELECT a.id, v.position FROM votes v JOIN annotators a ON a.pk = v.annotator_pk")
    )
    assert positions.get("v1") != 0
    stats = annotators_json(db)
    assert stats["v1"]["authored"] == 0 and stats["v1"]["validated"] == 1


# --- 1b. input order never matters ------------------------------------------------------------

ANNOTATORS = [f"a{i:02d}" for i in range(1, 9)]
GENRES = ["fiction", "news", "travel", None]


def random_corpus(seed: int, pairs: int = 90) -> list[Record]:
    """Pairs with 1, 3, 4 or 5 votes from named annotators, some `unrelated` votes, some
    ties; the author's label is usually, not always, the validators' favourite."""
    rng = random.Random(seed)
    records = []
    for i in range(pairs):
        n_votes = rng.choice([1, 3, 4, 5, 5, 5, 5, 5])
        truth = rng.choice(NLI)
        votes = [
            truth if rng.random() < 0.6 else rng.choice([E, N, C, U] if i % 3 else NLI)
            for _ in range(n_votes)
        ]
        who = rng.sample(ANNOTATORS, n_votes)
        records.append(pair(f"r{i:03d}", votes, who, genre=GENRES[i % len(GENRES)]))
    return records


def shuffled(records: list[Record], seed: int) -> list[Record]:
    """The lines in another order, and each pair's validators (votes 1.., with their
    annotators) in another order; the author's vote stays first."""
    rng = random.Random(seed)
    out = []
    for record in records:
        validators = list(zip(record["labels"][1:], record["annotators"][1:], strict=True))
        rng.shuffle(validators)
        out.append(
            record
            | {
                "labels": [record["labels"][0], *(v[0] for v in validators)],
                "annotators": [record["annotators"][0], *(v[1] for v in validators)],
            }
        )
    rng.shuffle(out)
    return out


RANDOM = random_corpus(11)


@pytest.fixture(scope="module")
def random_imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """RANDOM imported, not aggregated (do not modify)."""
    return store_with(tmp_path_factory.mktemp("random") / "imported.db", RANDOM)


@pytest.fixture(scope="module")
def random_db(random_imported: Path) -> Path:
    """RANDOM imported and aggregated by majority (do not modify)."""
    db = copy_store(random_imported, random_imported.with_name("aggregated.db"))
    aggregate(db)
    return db


def test_random_corpus_gold_follows_the_rule(random_db: Path) -> None:
    gold = gold_rows(random_db)
    assert gold == {r["pair_id"]: majority(r["labels"]) for r in RANDOM}
    labels = Counter(label for label, _, _ in gold.values())
    assert all(labels[label] > 5 for label in (*NLI, "-"))  # every outcome is exercised
    assert any(n == 4 for _, n, _ in gold.values()) and any(n == 1 for _, n, _ in gold.values())


def test_shuffled_lines_and_validators_give_the_same_gold_and_statistics(
    random_db: Path, tmp_path: Path
) -> None:
    mixed = shuffled(RANDOM, seed=5)
    assert [r["pair_id"] for r in mixed] != [r["pair_id"] for r in RANDOM]
    assert any(
        a["labels"] != b["labels"]
        for a, b in zip(sorted(mixed, key=lambda r: r["pair_id"]), RANDOM, strict=True)
    )
    db = store_with(tmp_path / "shuffled.db", mixed)
    aggregate(db)
    assert gold_rows(db) == gold_rows(random_db)
    assert_same_statistics(agreement_json(db, by="genre"), agreement_json(random_db, by="genre"))


def test_dawid_skene_does_not_depend_on_input_order_either(
    random_imported: Path, tmp_path: Path
) -> None:
    first = copy_store(random_imported, tmp_path / "first.db")
    second = store_with(tmp_path / "second.db", shuffled(RANDOM, seed=9))
    for db in (first, second):
        aggregate(db, method="dawid-skene")
    assert gold_rows(first, "dawid-skene") == gold_rows(second, "dawid-skene")
    one, two = annotators_json(first), annotators_json(second)
    assert set(one) == set(two) == set(ANNOTATORS)
    for annotator in ANNOTATORS:
        assert one[annotator]["reliability"] == pytest.approx(
            two[annotator]["reliability"], abs=1e-6
        )


def test_agreement_before_aggregation_uses_the_same_rule(
    random_imported: Path, random_db: Path
) -> None:
    assert not gold_rows(random_imported)
    assert agreement_json(random_imported, by="genre") == agreement_json(random_db, by="genre")


# --- 2. real data ------------------------------------------------------------------------------

SNLI = FIXTURES / "snli_prefix"
CHAOS = FIXTURES / "chaosnli"


@requires_fixtures
@pytest.mark.parametrize(
    ("split", "pairs", "no_gold", "four_votes"), [("dev", 1289, 16, 3), ("test", 1277, 23, 0)]
)
def test_snli_gold_is_reproduced_on_every_pair(
    tmp_path: Path, split: str, pairs: int, no_gold: int, four_votes: int
) -> None:
    import krippendorff

    source = SNLI / f"snli_1.0_{split}.jsonl"
    corpus = nlibuild.create(tmp_path / f"snli_{split}.db")
    corpus.import_corpus(path=source, format="snli")
    db = corpus.path
    result = corpus.aggregate_labels()

    original = read_jsonl(source)
    gold = gold_rows(db)
    assert len(original) == len(gold) == pairs
    for record in original:
        label, n_votes, n_top = gold[record["pairID"]]
        votes = record["annotator_labels"]
        assert label == record["gold_label"], record["pairID"]
        assert n_votes == len(votes)
        assert n_top == max(votes.count(v) for v in NLI)
    assert sum(1 for g in gold.values() if g[0] == "-") == no_gold
    assert sum(1 for g in gold.values() if g[1] == 4) == four_votes
    assert result.released_disagreements == 0
    assert line_counts(result, 3) == expected_summary(gold, 3)

    rows = agreement_json(db)
    table = "\n".join(f"{row['statistic']}: {row['value']}" for row in rows)
    print(f"\nSNLI {split} (first {pairs} pairs): {result}\n{table}")
    values = by_statistic(rows)
    counts = np.array([[r["annotator_labels"].count(v) for v in NLI] for r in original])
    reference = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    assert values[ALPHA]["value"] == pytest.approx(reference, abs=1e-9)
    assert values["no gold label"]["numerator"] == no_gold
    assert values["pairs relabelled"]["value"] == 1.0


def chaos_records(path: Path) -> list[tuple[Record, str]]:
    """nlibuild jsonl records from ChaosNLI's original labels, and each item's old label."""
    out = []
    for item in read_jsonl(path):
        example = item["example"]
        record = {
            "pair_id": item["uid"],
            "premise": example["premise"],
            "hypothesis": example["hypothesis"],
            "labels": item["old_labels"],
        }
        out.append((record, LETTERS[item["old_label"]]))
    return out


@requires_fixtures
@pytest.mark.parametrize(
    ("name", "items", "four_votes"),
    [("chaosNLI_snli.jsonl", 1514, 7), ("chaosNLI_mnli_m.jsonl", 1599, 0)],
)
def test_chaosnli_old_labels_aggregate_to_the_old_gold(
    tmp_path: Path, name: str, items: int, four_votes: int
) -> None:
    records = chaos_records(CHAOS / name)
    assert len(records) == items
    corpus = nlibuild.create(tmp_path / "chaos.db")
    source = write_jsonl(tmp_path / name, [r for r, _ in records])
    corpus.import_corpus(path=source, format="jsonl")
    result = corpus.aggregate_labels()
    gold = gold_rows(corpus.path)
    assert len(gold) == items
    for record, old_label in records:
        assert gold[record["pair_id"]][0] == old_label, record["pair_id"]
    # Chosen for low agreement: exactly 3 of the old votes agree on every item.
    assert {g[2] for g in gold.values()} == {3}
    assert sum(1 for g in gold.values() if g[1] == 4) == four_votes
    assert result.by_label["-"] == 0


# --- 3. kappa and alpha, exactly -------------------------------------------------------------


def coefficients(table: VoteTable, include_extra: bool = False) -> tuple[float, float]:
    values = {e.statistic: e.value for e in estimates(pair_parts(table, include_extra))}
    kappa, alpha = values[KAPPA], values[ALPHA]
    assert kappa is not None and alpha is not None
    return kappa, alpha


def vote_table(counts: list[list[int]] | np.ndarray) -> VoteTable:
    """A table with author and gold left out (the coefficients do not use them)."""
    array = np.asarray(counts, dtype=np.int64)
    none = np.full(len(array), -1, dtype=np.int64)
    return VoteTable(array, none, none)


def test_kappa_and_alpha_by_hand() -> None:
    # Columns e, n, c, unrelated; 4 validated pairs of 5 votes, one author-only pair (left
    # out: a single vote gives no agreement) and no extra votes.
    table = vote_table([[5, 0, 0, 0], [3, 2, 0, 0], [0, 4, 1, 0], [1, 1, 3, 0], [1, 0, 0, 0]])
    kappa, alpha = coefficients(table)
    # Fleiss: P_i = (sum_j n_ij^2 - n) / (n (n - 1)), n = 5, n (n - 1) = 20
    #   P_1 = (25 - 5) / 20 = 1.0;  P_2 = (9 + 4 - 5) / 20 = 0.4
    #   P_3 = (16 + 1 - 5) / 20 = 0.6;  P_4 = (1 + 1 + 9 - 5) / 20 = 0.3
    #   P-bar = (1.0 + 0.4 + 0.6 + 0.3) / 4 = 0.575
    #   column totals 9, 7, 4 of 20 votes: p_j = 0.45, 0.35, 0.20
    #   P_e = 0.45^2 + 0.35^2 + 0.20^2 = 0.2025 + 0.1225 + 0.04 = 0.365
    #   kappa = (0.575 - 0.365) / (1 - 0.365) = 0.21 / 0.635 = 42/127
    assert kappa == pytest.approx(42 / 127, abs=1e-12)
    # Krippendorff, coincidences o_ck = sum_u n_uc n_uk / (m_u - 1), m_u = 5 (c != k):
    #   unit 1 (5,0,0): none;  unit 2 (3,2,0): o_en = 3*2/4 = 1.5
    #   unit 3 (0,4,1): o_nc = 4*1/4 = 1.0;  unit 4 (1,1,3): o_en = 0.25, o_ec = 0.75,
    #   o_nc = 0.75.  Off-diagonal total (both halves) = 2 * (1.75 + 0.75 + 1.75) = 8.5
    #   n = 20 pairable values; D_o = 8.5 / 20 = 0.425
    #   n_c = 9, 7, 4: D_e = 2 (9*7 + 9*4 + 7*4) / (20 * 19) = 254 / 380
    #   alpha = 1 - D_o / D_e = 1 - 0.425 * 380 / 254 = 92.5 / 254 = 185/508
    assert alpha == pytest.approx(185 / 508, abs=1e-12)


def random_counts(rng: np.random.Generator, rows: int, columns: int) -> np.ndarray:
    """Count rows of 5, 4, 3, 2 or 1 votes over `columns` values, skewed towards one."""
    out = np.zeros((rows, columns), dtype=np.int64)
    for i in range(rows):
        n = rng.choice([5, 5, 5, 4, 4, 3, 2, 1])
        shares = rng.dirichlet(np.full(columns, 0.5))
        out[i] = rng.multinomial(n, shares)
    return out


@pytest.mark.parametrize("seed", range(8))
def test_alpha_equals_the_krippendorff_package(seed: int) -> None:
    import krippendorff

    rng = np.random.default_rng(seed)
    counts = random_counts(rng, int(rng.integers(5, 80)), 4)
    # Extra labels (column 3) dropped: the package sees the NLI columns only.
    _, alpha = coefficients(vote_table(counts))
    reference = krippendorff.alpha(value_counts=counts[:, :3], level_of_measurement="nominal")
    assert alpha == pytest.approx(reference, abs=1e-9)
    _, alpha = coefficients(vote_table(counts), include_extra=True)
    reference = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    assert alpha == pytest.approx(reference, abs=1e-9)


@pytest.mark.parametrize(("seed", "votes"), [(s, v) for s in range(4) for v in (5, 4, 3)])
def test_kappa_equals_statsmodels_on_equal_votes(seed: int, votes: int) -> None:
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(100 + seed)
    counts = np.array([rng.multinomial(votes, rng.dirichlet(np.full(3, 0.6))) for _ in range(40)])
    kappa, _ = coefficients(vote_table(counts))
    assert kappa == pytest.approx(inter_rater.fleiss_kappa(counts, method="fleiss"), abs=1e-9)
    # With extra votes as a fourth category and every row of `votes` votes in all.
    extra = counts.copy()
    extra[::3, 0] -= np.minimum(extra[::3, 0], 1)
    extra = np.column_stack([extra, votes - extra.sum(axis=1)])
    kappa, _ = coefficients(vote_table(extra), include_extra=True)
    assert kappa == pytest.approx(inter_rater.fleiss_kappa(extra, method="fleiss"), abs=1e-9)


def test_extra_labels_are_left_out_of_kappa_and_alpha_unless_included() -> None:
    counts = np.array([[3, 0, 0, 2], [1, 2, 0, 2], [0, 0, 4, 1], [2, 2, 1, 0], [0, 1, 0, 4]])
    dropped = coefficients(vote_table(counts))
    # The same as the table without its extra votes: (3,0,0), (1,2,0), (0,0,4), (2,2,1);
    # the last pair keeps one NLI vote only and gives no agreement.
    assert dropped == pytest.approx(coefficients(vote_table(counts[:, :3])), abs=1e-12)
    assert dropped == pytest.approx(coefficients(vote_table(counts[:4, :3])), abs=1e-12)
    included = coefficients(vote_table(counts), include_extra=True)
    assert included != pytest.approx(dropped)
    import krippendorff

    assert included[1] == pytest.approx(
        krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"), abs=1e-9
    )
    parts = pair_parts(vote_table(counts))
    assert {e.statistic: e.denominator for e in estimates(parts)}[KAPPA] == 4


def test_include_extra_on_a_store_changes_only_kappa_and_alpha(random_db: Path) -> None:
    plain = by_statistic(agreement_json(random_db))
    extra = by_statistic(agreement_json(random_db, include_extra=True))
    for name in SHARES:
        assert plain[name] == extra[name]
    assert plain[KAPPA]["value"] != pytest.approx(extra[KAPPA]["value"])
    assert plain[ALPHA]["value"] != pytest.approx(extra[ALPHA]["value"])


# --- 4. the shares and their denominators ------------------------------------------------------

# Columns e, n, c, unrelated. author / gold: a column index, -1 for none / '-'.
SHARE_TABLE = VoteTable(
    counts=np.array(
        [
            [1, 0, 0, 0],  # r0: author only: has votes, not validated
            [5, 0, 0, 0],  # r1: all agree, gold e = author
            [3, 2, 0, 0],  # r2: gold e, author n
            [2, 2, 1, 0],  # r3: no gold, author c
            [0, 0, 3, 2],  # r4: gold c = author, 2 extra votes
            [0, 3, 1, 0],  # r5: 4 votes, gold n = author
            [0, 0, 0, 0],  # r6: no votes at all
            [2, 0, 1, 0],  # r7: 3 votes, no author label, no gold
            [0, 0, 3, 0],  # r8: 3 votes all agree, no author label, gold c
        ]
    ),
    author=np.array([0, 0, 1, 2, 2, 1, -1, -1, -1]),
    gold=np.array([0, 0, 0, -1, 2, 1, -1, -1, 2]),
)

# statistic: (numerator, denominator), worked out from the rows above.
SHARE_EXPECTED = {
    # validated (2+ votes): r1 r2 r3 r4 r5 r7 r8 = 7, over pairs with votes (all but r6) = 8
    "pairs relabelled": (7, 8),
    # top label has all the votes: r1 (5 of 5), r8 (3 of 3); r4's extra votes count
    "all labels agree": (2, 7),
    "4+ labels agree": (1, 7),  # r1
    "3+ labels agree": (5, 7),  # r1 r2 r4 r5 r8
    # votes for gold / votes of validated pairs with gold: r1 5/5, r2 3/5, r4 3/5, r5 3/4,
    # r8 3/3
    "individual label = gold": (17, 22),
    # validators' votes for the author's label / validators' votes, pairs with an author:
    # r1 4/4, r2 1/4, r3 0/4, r4 2/4, r5 2/3 (the author's own vote taken out of each)
    "individual label = author's label": (9, 19),
    # over validated pairs with an author's label: r1 r2 r3 r4 r5 (not r7 r8)
    "gold = author's label": (3, 5),  # r1 r4 r5
    "gold != author's label": (1, 5),  # r2 (r3 has no gold: neither)
    "no gold label": (2, 7),  # r3 r7
    "extra labels": (2, 30),  # r4's 2 of the 5+5+5+5+4+3+3 votes of validated pairs
}


@pytest.mark.parametrize("statistic", list(SHARE_EXPECTED))
def test_each_share_has_its_documented_denominator(statistic: str) -> None:
    found = {e.statistic: e for e in estimates(pair_parts(SHARE_TABLE))}[statistic]
    numerator, denominator = SHARE_EXPECTED[statistic]
    assert (found.numerator, found.denominator) == (numerator, denominator)
    assert found.value == pytest.approx(numerator / denominator, abs=1e-12)
    assert found.low is None and found.high is None


def test_kappa_and_alpha_count_validated_pairs_with_two_nli_votes() -> None:
    found = {e.statistic: e for e in estimates(pair_parts(SHARE_TABLE))}
    # r1 r2 r3 r4 r5 r7 r8: all have 2+ NLI votes (r4 keeps 3 of its 5)
    assert found[KAPPA].denominator == found[ALPHA].denominator == 7
    assert found[KAPPA].numerator is None
    rows = [1, 2, 3, 4, 5, 7, 8]
    assert found[ALPHA].value == pytest.approx(
        coefficients(vote_table(SHARE_TABLE.counts[rows, :3]))[1], abs=1e-12
    )


def test_a_share_over_an_empty_denominator_is_none() -> None:
    table = VoteTable(np.array([[1, 0, 0], [0, 1, 0]]), np.array([0, 1]), np.array([0, 1]))
    found = {e.statistic: e for e in estimates(pair_parts(table))}
    assert found["pairs relabelled"].value == 0.0
    for name in (*SHARES[1:], KAPPA, ALPHA):
        assert found[name].value is None, name


def test_masks_split_every_sum() -> None:
    rng = np.random.default_rng(3)
    counts = random_counts(rng, 60, 4)
    author = np.where(rng.random(60) < 0.9, rng.integers(0, 3, 60), -1)
    gold = np.where(rng.random(60) < 0.8, rng.integers(0, 3, 60), -1)
    parts = pair_parts(VoteTable(counts, author, gold))
    mask = rng.random(60) < 0.4
    whole, left, right = (estimates(parts, m) for m in (None, mask, ~mask))
    for w, a, b in zip(whole, left, right, strict=True):
        assert w.denominator == a.denominator + b.denominator, w.statistic
        if w.numerator is not None:
            assert a.numerator is not None and b.numerator is not None, w.statistic
            assert w.numerator == pytest.approx(a.numerator + b.numerator)


def test_by_genre_gives_every_statistic_per_group_and_the_groups_add_up(random_db: Path) -> None:
    rows = agreement_json(random_db, by="genre")
    groups = list(dict.fromkeys(r["group"] for r in rows))
    assert groups == ["all", "genre=-", "genre=fiction", "genre=news", "genre=travel"]
    for group in groups:
        assert [r["statistic"] for r in rows if r["group"] == group] == list(STATISTICS)
    whole = by_statistic(rows)
    parts = [by_statistic(rows, g) for g in groups[1:]]
    for name in STATISTICS:
        assert whole[name]["denominator"] == sum(p[name]["denominator"] for p in parts), name
        if whole[name]["numerator"] is not None:
            total = sum(p[name]["numerator"] for p in parts)
            assert whole[name]["numerator"] == pytest.approx(total), name
    # The 'all' column is the table without --by (its sums taken in another order).
    alone = by_statistic(agreement_json(random_db))
    assert_same_statistics(list(alone.values()), list(whole.values()))
    # Pairs per genre: 'pairs relabelled' is over every pair with votes.
    per_genre = Counter(r.get("genre") or "-" for r in RANDOM)
    for group in groups[1:]:
        genre = group.removeprefix("genre=")
        assert by_statistic(rows, group)["pairs relabelled"]["denominator"] == per_genre[genre]


def test_shares_on_the_random_corpus_match_a_direct_count(random_db: Path) -> None:
    values = by_statistic(agreement_json(random_db))
    validated = [r for r in RANDOM if len(r["labels"]) >= 2]
    gold = {r["pair_id"]: majority(r["labels"])[0] for r in RANDOM}
    with_gold = [r for r in validated if gold[r["pair_id"]] != "-"]
    expected = {
        "pairs relabelled": (len(validated), len(RANDOM)),
        "individual label = gold": (
            sum(r["labels"].count(gold[r["pair_id"]]) for r in with_gold),
            sum(len(r["labels"]) for r in with_gold),
        ),
        "individual label = author's label": (
            sum(r["labels"][1:].count(r["labels"][0]) for r in validated),
            sum(len(r["labels"]) - 1 for r in validated),
        ),
        "gold = author's label": (
            sum(1 for r in validated if gold[r["pair_id"]] == r["labels"][0]),
            len(validated),
        ),
        "no gold label": (sum(1 for r in validated if gold[r["pair_id"]] == "-"), len(validated)),
        "extra labels": (
            sum(r["labels"].count(U) for r in validated),
            sum(len(r["labels"]) for r in validated),
        ),
    }
    for name, (numerator, denominator) in expected.items():
        assert (values[name]["numerator"], values[name]["denominator"]) == (
            numerator,
            denominator,
        ), name


def test_bootstrap_intervals_hold_the_estimate_and_follow_the_seed(random_db: Path) -> None:
    first = agreement_json(random_db, ci=0.95, by="genre")  # 1000 resamples
    for row in first:
        assert row["low"] is not None and row["high"] is not None, row
        assert row["low"] <= row["value"] <= row["high"], row
    plain = agreement_json(random_db, by="genre")
    assert [(r["value"], r["denominator"]) for r in first] == [
        (r["value"], r["denominator"]) for r in plain
    ]
    assert all(r["low"] is None and r["high"] is None for r in plain)
    wide = agreement_json(random_db, ci=0.95, resamples=200)
    assert agreement_json(random_db, ci=0.95, resamples=200) == wide  # same seed (13)
    assert agreement_json(random_db, ci=0.95, resamples=200, seed=13) == wide
    other = agreement_json(random_db, ci=0.95, resamples=200, seed=7)
    assert [(r["low"], r["high"]) for r in other] != [(r["low"], r["high"]) for r in wide]
    # The same resamples at a lower level give a narrower interval.
    narrow = by_statistic(agreement_json(random_db, ci=0.5, resamples=200))
    for name, row in by_statistic(wide).items():
        assert row["low"] <= narrow[name]["low"] <= narrow[name]["high"] <= row["high"], name
    # The printed table says what its intervals are.
    table = ok("--db", random_db, "stats", "--table", "agreement", "--ci", 0.95, "--resamples", 50)
    assert "95% bootstrap intervals" in table


@pytest.mark.parametrize("level", [1.0, -0.2])
def test_a_ci_level_outside_0_1_is_an_error(random_db: Path, level: float) -> None:
    refused(random_db, lambda corpus: corpus.stats("agreement", ci=level), "--ci")


def test_agreement_formats(random_db: Path) -> None:
    """The command's formats (the CLI's test of stats --table agreement): csv, md, latex
    and the table carry the JSON rows' figures."""
    values = by_statistic(agreement_json(random_db))
    rows = csv_rows("--db", random_db, "stats", "--table", "agreement")
    assert [r["statistic"] for r in rows] == list(STATISTICS)
    assert ",".join(rows[0]) == "min_agree,statistic,group,value,numerator,denominator,low,high"
    for row in rows:
        assert int(row["denominator"]) == values[row["statistic"]]["denominator"]
        assert float(row["value"]) == pytest.approx(values[row["statistic"]]["value"], abs=1e-4)
    validated = values["all labels agree"]["denominator"]
    md = compact_table(ok("--db", random_db, "stats", "--table", "agreement", "--format", "md"))
    assert f"| statistic | all ({validated}) |" in md
    kappa = f"{values[KAPPA]['value']:.3f}"
    assert f"| {KAPPA} | {kappa} |" in md
    relabelled = f"{values['pairs relabelled']['value']:.1%}"
    assert f"| pairs relabelled | {relabelled} |" in md
    latex = compact_table(
        ok("--db", random_db, "stats", "--table", "agreement", "--format", "latex")
    )
    assert "\\begin{tabular}" in latex and "\\end{tabular}" in latex
    escaped = relabelled.replace("%", r"\%")
    assert f"pairs relabelled & {escaped} " + "\\\\" in latex
    table = ok("--db", random_db, "stats", "--table", "agreement")
    assert f"all ({validated})" in table and kappa in table
    fails(random_db, "stats", "--table", "agreement", "--format", "xml", says=("--format",))
    fails(random_db, "stats", "--table", "agreement", "--by", "colour", says=("--by", "colour"))


# --- 5. annotators ------------------------------------------------------------------------------

# Author `auth`, three careful validators, and `contrarian`, who never agrees with the rest.
#            auth g1 g2 g3 contrarian
TEAM = ["auth", "g1", "g2", "g3", "contrarian"]
TEAM_VOTES = {
    "t1": [E, E, E, E, C],
    "t2": [N, N, N, N, E],
    "t3": [C, C, C, C, N],
    "t4": [E, E, E, E, N],
    "t5": [N, C, C, C, E],  # the author is outvoted
    "t6": [E, N, N, N, C],  # the author is outvoted
}


@pytest.fixture(scope="module")
def team_imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    records = [pair(pid, votes, TEAM) for pid, votes in TEAM_VOTES.items()]
    return store_with(tmp_path_factory.mktemp("team") / "team.db", records)


@pytest.fixture
def team_db(team_imported: Path, tmp_path: Path) -> Path:
    """The team's votes, imported, not aggregated: a copy each test may change."""
    return copy_store(team_imported, tmp_path / "team.db")


def test_leave_one_out_agreement_flags_the_contrarian(team_db: Path) -> None:
    aggregate(team_db)
    stats = annotators_json(team_db, threshold=0.5)
    assert set(stats) == set(TEAM)
    # contrarian: on every pair the other four give a gold (4 of 4 on t1-t4, 3 of 4 on
    # t5 and t6), and the contrarian's vote is never it.
    assert stats["contrarian"]["agree_with_gold"] == 0.0
    assert stats["contrarian"]["agree_pairs"] == 6
    assert stats["contrarian"]["flagged"] is True
    # g1: t1-t4 the others keep 3 of 4 for g1's label; on t5 and t6 they split 2-1-1 without
    # g1, no gold: left out.
    assert (stats["g1"]["agree_with_gold"], stats["g1"]["agree_pairs"]) == (1.0, 4)
    assert stats["g1"]["flagged"] is False
    # auth: agrees on t1-t4, is outvoted by the three g's on t5 and t6.
    assert stats["auth"]["agree_with_gold"] == pytest.approx(4 / 6)
    assert stats["auth"]["agree_pairs"] == 6
    assert stats["auth"]["flagged"] is False  # 0.667 is not under 0.5 ...
    assert annotators_json(team_db)["auth"]["flagged"] is True  # ... but under the default 0.7


def test_votes_and_author_gold_per_annotator(team_db: Path) -> None:
    aggregate(team_db)
    stats = annotators_json(team_db)
    assert (stats["auth"]["votes"], stats["auth"]["authored"], stats["auth"]["validated"]) == (
        6,
        6,
        0,
    )
    # The author's label is gold on t1-t4, not on t5 and t6.
    assert stats["auth"]["author_gold"] == pytest.approx(4 / 6)
    assert stats["auth"]["author_pairs"] == 6
    for validator in TEAM[1:]:
        row = stats[validator]
        assert (row["votes"], row["authored"], row["validated"]) == (6, 0, 6)
        assert row["author_gold"] is None and row["author_pairs"] == 0
        assert row["violations"] == 0
        assert row["reliability"] is None  # no Dawid-Skene yet


def test_annotator_table_is_the_same_before_and_after_aggregation(team_db: Path) -> None:
    before = annotators_json(team_db)
    aggregate(team_db)
    assert annotators_json(team_db) == before


def test_annotators_sorted_by_a_column_and_unknown_sort_is_an_error(team_db: Path) -> None:
    rows = nlibuild.open(team_db).stats("annotators").to_dicts()
    values = [r["agree_with_gold"] for r in rows]
    assert values == sorted(values)  # agree_with_gold, lowest first
    assert rows[0]["annotator"] == "contrarian"
    table = ok("--db", team_db, "stats", "--table", "annotators", "--format", "csv")
    # after what the title says (the threshold) and the note (the majority rule)
    header = next(csv.reader(io.StringIO(table)))
    assert header[:3] == ["threshold", "min_agree", "annotator"]
    refused(team_db, lambda corpus: corpus.stats("annotators", sort="shoe_size"), "--sort")


def test_dawid_skene_reliability_appears_in_the_annotator_table(team_db: Path) -> None:
    result = aggregate(team_db, method="dawid-skene")
    assert result.method == "dawid-skene" and result.iterations is not None
    stats = annotators_json(team_db)
    for annotator in TEAM:
        assert 0 < stats[annotator]["reliability"] < 1
    assert min(stats, key=lambda a: stats[a]["reliability"]) == "contrarian"
    stored = dict(
        query(
            team_db,
            "SELECT a.id, q.reliability FROM annotator_quality q JOIN "
            "annotators a ON a.pk = q.annotator_pk",
        )
    )
    assert {a: stats[a]["reliability"] for a in TEAM} == stored


def test_elicitation_violations_are_counted_per_writer(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "elicit.db", lang="en")
    db = corpus.path
    premises = [
        "The city council approved a new budget for public parks on Monday.",
        "Heavy rain flooded several streets in the old town overnight.",
    ]
    source = tmp_path / "news.txt"
    source.write_text("\n\n".join(premises) + "\n", encoding="utf-8")
    corpus.ingest(paths=(source,), genre="news")
    corpus.sample(genres=("news",), n=2, min_len=3, max_len=40)
    corpus.elicit_create(protocol="SINGLE", annotators=("w01",))
    package = tmp_path / "package"
    corpus.elicit_export(all=True, format="jsonl", out=package)
    tasks = read_jsonl(package / "e0001.tasks.jsonl")
    answers = []
    for task in tasks:
        answer = {
            "batch": task["batch"],
            "writer": task["writer"],
            "premise_id": task["premise_id"],
            "unusable": False,
            "entailment": ["Something was reported."],
            "neutral": ["Everyone was pleased about it."],
            "contradiction": ["Nothing like that happened."],
        }
        if task["premise_id"] == "news_0001":
            answer["entailment"] = [task["premise"]]  # COPY
            answer["contradiction"] = ["Everyone was pleased about it."]  # DUPLICATE
        answers.append(answer)
    answers_file = write_jsonl(tmp_path / "answers.jsonl", answers)
    corpus.elicit_import(path=answers_file, format="jsonl")
    stored = query(db, "SELECT count(*) FROM violations")[0][0]
    assert stored == 2
    stats = annotators_json(db)
    assert stats["w01"]["violations"] == stored
    assert (stats["w01"]["votes"], stats["w01"]["authored"]) == (6, 6)
    # Author-only pairs: nothing to agree with, and gold without validation is not counted.
    assert stats["w01"]["agree_pairs"] == stats["w01"]["author_pairs"] == 0


# --- 6. Dawid-Skene ---------------------------------------------------------------------------

WORKERS = ["good1", "good2", "good3", "good4", "random"]


def synthetic(seed: int, items: int = 80) -> list[Record]:
    """Four annotators right 80% of the time, one answering at random; all label every
    pair, good1 as its author."""
    rng = random.Random(seed)
    records = []
    for i in range(items):
        truth = rng.choice(NLI)
        votes = [
            truth if rng.random() < 0.8 else rng.choice([x for x in NLI if x != truth])
            for _ in range(4)
        ] + [rng.choice(NLI)]
        records.append(pair(f"d{i:03d}", votes, WORKERS))
    return records


@pytest.fixture(scope="module")
def ds_imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic store, imported, not aggregated (do not modify)."""
    return store_with(tmp_path_factory.mktemp("ds") / "imported.db", synthetic(21), extra=False)


@pytest.fixture(scope="module")
def ds_db(ds_imported: Path) -> tuple[Path, AggregateResult]:
    """The synthetic store after `aggregate-labels --method dawid-skene`, and its result
    (do not modify)."""
    db = copy_store(ds_imported, ds_imported.with_name("ds.db"))
    return db, aggregate(db, method="dawid-skene")


def test_the_random_annotator_gets_the_lowest_reliability(
    ds_db: tuple[Path, AggregateResult],
) -> None:
    db, _ = ds_db
    reliability = {a: r["reliability"] for a, r in annotators_json(db).items()}
    assert set(reliability) == set(WORKERS)
    assert min(reliability, key=reliability.__getitem__) == "random"
    assert reliability["random"] < 0.5 < min(reliability[w] for w in WORKERS[:4])


def test_posteriors_sum_to_one_and_gold_is_their_argmax(
    ds_db: tuple[Path, AggregateResult],
) -> None:
    db, _ = ds_db
    rows = query(
        db,
        "SELECT p.id, q.entailment, q.neutral, q.contradiction FROM posteriors q "
        "JOIN pairs p ON p.pk = q.pair_pk WHERE q.method = 'dawid-skene'",
    )
    assert len(rows) == 80
    gold = gold_rows(db, "dawid-skene")
    for pid, *posterior in rows:
        assert sum(posterior) == pytest.approx(1.0, abs=1e-9)
        assert all(0 <= p <= 1 for p in posterior)
        label, n_votes, _ = gold[pid]
        assert label == NLI[int(np.argmax(posterior))]
        assert n_votes == 5


def test_confusion_matrices_are_stochastic_and_reliability_is_their_diagonal(
    ds_db: tuple[Path, AggregateResult],
) -> None:
    db, _ = ds_db
    for confusion, reliability in query(
        db, "SELECT confusion_json, reliability FROM annotator_quality"
    ):
        matrix = json.loads(confusion)
        assert matrix["true"] == list(NLI) and matrix["given"] == list(NLI)
        array = np.array(matrix["matrix"])
        assert array.sum(axis=1) == pytest.approx(np.ones(3), abs=1e-5)
        assert reliability == pytest.approx(np.trace(array) / 3, abs=1e-5)


def test_the_disagreements_are_the_pairs_where_ds_differs_from_majority(
    ds_db: tuple[Path, AggregateResult],
) -> None:
    db, result = ds_db
    majority_gold, ds_gold = gold_rows(db), gold_rows(db, "dawid-skene")
    assert set(majority_gold) == set(ds_gold)
    differ = sum(1 for pid in ds_gold if ds_gold[pid][0] != majority_gold[pid][0])
    assert result.dawid_skene_disagreements == differ > 0  # ties ('-') at least
    assert result.iterations is not None and 1 <= result.iterations <= 100
    # The majority stays the published gold.
    assert line_counts(result, 3) == expected_summary(majority_gold, 3)


def test_the_printed_disagreements_are_those_of_the_result(
    ds_imported: Path, ds_db: tuple[Path, AggregateResult], tmp_path: Path
) -> None:
    """The command's closing line says how often Dawid-Skene and the majority disagree,
    after the majority's counts (the CLI's test of --method dawid-skene)."""
    db = copy_store(ds_imported, tmp_path / "ds.db")
    stdout = ok("--db", db, "aggregate-labels", "--method", "dawid-skene")
    result = ds_db[1]
    match = re.search(
        r"Dawid-Skene \((\d+) iterations\) disagrees with the majority on "
        r"(\d+) pairs?",
        stdout,
    )
    assert match, stdout
    assert (int(match.group(1)), int(match.group(2))) == (
        result.iterations,
        result.dawid_skene_disagreements,
    )
    assert summary(stdout) == line_counts(result, 3)


def test_dawid_skene_with_extra_labels_keeps_gold_among_nli_labels(
    cases_db: tuple[Path, AggregateResult], tmp_path: Path
) -> None:
    db = copy_store(cases_db[0], tmp_path / "cases.db")
    aggregate(db, method="dawid-skene")
    assert {label for label, _, _ in gold_rows(db, "dawid-skene").values()} <= set(NLI)
    given = {
        json.loads(c)["given"][-1]
        for (c,) in query(db, "SELECT confusion_json FROM annotator_quality")
    }
    assert given == {U}
    assert gold_rows(db) == {pid: exp for pid, (_, exp) in CASES.items()}


def test_an_empty_store_is_an_error_and_stays_unchanged(db: Path) -> None:
    for method in ("majority", "dawid-skene"):
        refused(db, methodcaller("aggregate_labels", method=method), "no votes")
    for table in ("agreement", "annotators"):
        refused(db, methodcaller("stats", table), "no votes")


def test_pairs_without_votes_are_an_error_and_stay_unchanged(tmp_path: Path) -> None:
    db = store_with(tmp_path / "novotes.db", [pair("q1", [], gold_label=E)])
    assert query(db, "SELECT count(*) FROM votes")[0][0] == 0
    for method in ("majority", "dawid-skene"):
        refused(db, methodcaller("aggregate_labels", method=method), "no votes")
    assert gold_rows(db, "released") == {"q1": (E, 0, 0)}
    assert not gold_rows(db)
    for table in ("agreement", "annotators"):
        refused(db, methodcaller("stats", table), "no votes")


class NewVote(BaseModel):
    votes: int = 1


def test_new_votes_make_the_next_aggregation_compute_the_gold_again(
    cases_db: tuple[Path, AggregateResult], tmp_path: Path
) -> None:
    db = copy_store(cases_db[0], tmp_path / "cases.db")
    aggregate(db)
    first = query(db, "SELECT DISTINCT run_id FROM gold WHERE method = 'majority'")
    # A vote added by a later run (as relabel import does) makes the stored gold stale.
    with Store.open(db) as store, store.recorded_run(RELABEL_IMPORT, NewVote()) as run:
        store.insert("annotators", [(999, "late-validator", 0, None)])
        pair_pk = store.conn.execute("SELECT min(pair_pk) FROM votes").fetchone()[0]
        store.add_votes([(pair_pk, 999, 9, "neutral")], run.id)
        run_id = run.id
    # The pair now has 6 votes where the rule was written for 5: said, and applied.
    with pytest.warns(StageWarning, match="the rule was written for 5"):
        aggregate(db)
    again = query(db, "SELECT DISTINCT run_id FROM gold WHERE method = 'majority'")
    assert again != first and again[0][0] > run_id
