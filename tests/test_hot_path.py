"""The hot path gives the numbers the votes give: the agreement table read from
`pair_labels` and summed over distinct rows equals the table computed vote by vote."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import FIXTURES, requires_fixtures, write_jsonl
from hypothesis import given, settings
from hypothesis import strategies as st

import nlibuild
from nlibuild.labelling.agreement import VoteTable, collapsed, estimates, pair_parts
from nlibuild.queries import pair_labels

LABELS = ("entailment", "neutral", "contradiction")


def vote_tables() -> st.SearchStrategy[tuple[VoteTable, np.ndarray[Any, Any]]]:
    """Small random vote tables (three NLI labels and one extra) with a group per pair."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[VoteTable, np.ndarray[Any, Any]]:
        n = draw(st.integers(1, 40))
        rows = [draw(st.lists(st.integers(0, 4), min_size=4, max_size=4)) for _ in range(n)]
        counts = np.array(rows, dtype=np.int64)
        author = np.array([draw(st.integers(-1, 3)) for _ in range(n)], dtype=np.int64)
        gold = np.array([draw(st.integers(-1, 2)) for _ in range(n)], dtype=np.int64)
        groups = np.array([draw(st.integers(0, 2)) for _ in range(n)], dtype=np.int64)
        return VoteTable(counts, author, gold, 3), groups

    return build()


@settings(max_examples=60, deadline=None)
@given(vote_tables())
def test_statistics_over_distinct_rows_weighted_equal_those_over_every_pair(
    table_and_groups: tuple[VoteTable, np.ndarray[Any, Any]],
) -> None:
    table, groups = table_and_groups
    rows, row_groups, multiplicity = collapsed(table, groups)
    assert multiplicity.sum() == len(groups)
    for group in (None, 0, 1, 2):
        pair_mask = None if group is None else groups == group
        row_mask = None if group is None else row_groups == group
        every_pair = estimates(pair_parts(table), pair_mask)
        distinct = estimates(pair_parts(rows), row_mask, multiplicity=multiplicity)
        for one, two in zip(every_pair, distinct, strict=True):
            assert (one.statistic, one.denominator) == (two.statistic, two.denominator)
            if one.value is None or two.value is None:  # a statistic over no pairs
                assert one.value is two.value is None
            else:
                assert one.value == pytest.approx(two.value, rel=1e-9, abs=1e-12)


def test_a_bootstrap_is_never_taken_over_collapsed_rows() -> None:
    table = VoteTable(np.array([[3, 1, 1, 0]]), np.array([0]), np.array([0]), 3)
    with pytest.raises(ValueError, match="resamples pairs"):
        estimates(pair_parts(table), ci=0.95, multiplicity=np.array([2.0]))


def random_pairs(seed: int, extra_votes: int) -> list[dict[str, Any]]:
    """Pairs of 1 to 5 votes by named annotators in three genres; up to `extra_votes`
    votes of a pair are `unrelated` or `unknown`."""
    rng = random.Random(seed)
    records = []
    for i in range(120):
        n_votes = rng.choice([1, 3, 4, 5, 5, 5])
        votes = [rng.choice(LABELS) for _ in range(n_votes)]
        for slot in rng.sample(range(n_votes), min(n_votes, rng.randint(0, extra_votes))):
            votes[slot] = rng.choice(["unrelated", "unknown"])
        records.append(
            {
                "pair_id": f"p{i:03d}",
                "premise_id": f"s{i // 3:03d}",
                "premise": f"Premise number {i // 3} of the test.",
                "hypothesis": f"Hypothesis number {i}.",
                "genre": ("news", "fiction", "gov")[i // 3 % 3],
                "labels": votes,
                "annotators": rng.sample([f"a{k}" for k in range(9)], n_votes),
            }
        )
    return records


def agreement_both_ways(
    db: Path, monkeypatch: pytest.MonkeyPatch, **options: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The agreement table as the hot path computes it, and as the votes give it."""
    fast = nlibuild.open(db).stats("agreement", **options).to_dicts()
    with monkeypatch.context() as patched:
        patched.setattr(pair_labels, "pair_label_table", lambda *_, **__: None)
        slow = nlibuild.open(db).stats("agreement", **options).to_dicts()
    return fast, slow


def assert_same_table(one: list[dict[str, Any]], two: list[dict[str, Any]]) -> None:
    assert [(r["group"], r["statistic"], r["denominator"]) for r in one] == [
        (r["group"], r["statistic"], r["denominator"]) for r in two
    ]
    for a, b in zip(one, two, strict=True):
        if a["value"] is None or b["value"] is None:
            assert a["value"] is b["value"] is None, (a, b)
        else:
            assert a["value"] == pytest.approx(b["value"], rel=1e-12, abs=1e-12), (a, b)


@pytest.mark.parametrize("extra_votes", [0, 1, 2])
def test_the_agreement_table_from_pair_labels_equals_the_one_from_the_votes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra_votes: int
) -> None:
    corpus = nlibuild.create(tmp_path / "s.db", extra_labels=("unrelated", "unknown"))
    source = write_jsonl(tmp_path / "pairs.jsonl", random_pairs(extra_votes, extra_votes))
    corpus.import_corpus(path=source, format="jsonl")
    for by in ({}, {"by": "genre"}, {"by": "genre,lang"}):
        assert_same_table(*agreement_both_ways(corpus.path, monkeypatch, **by))
    corpus.aggregate_labels()
    assert_same_table(*agreement_both_ways(corpus.path, monkeypatch, by="genre"))


@requires_fixtures
def test_snli_agreement_is_the_same_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = nlibuild.create(tmp_path / "snli.db")
    corpus.import_corpus(path=FIXTURES / "snli_prefix" / "snli_1.0_dev.jsonl", format="snli")
    corpus.aggregate_labels()
    assert_same_table(*agreement_both_ways(corpus.path, monkeypatch))
