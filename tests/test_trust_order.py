"""The same corpus gives the same agreement intervals whatever order its lines came in.

The bootstrap draws pair positions; those positions used to be the pairs' storage order,
which is the order the lines were imported in, so a shuffled copy of a corpus gave other
`--ci` intervals for the same pairs. The pairs are now resampled in the order of their
public IDs.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from conftest import copy_store, json_rows, new_store, ok, write_jsonl

LABELS = ("entailment", "neutral", "contradiction")
GENRES = ("fiction", "government", "travel")
ANNOTATORS = [f"a{n}" for n in range(8)]
CI = ("--ci", 0.95, "--resamples", 200, "--seed", 7)


def corpus(pairs: int = 102) -> list[dict[str, Any]]:
    """Pairs of 5 votes (the author's first) in 3 genres, agreeing to various degrees,
    a few with an extra `unrelated` vote."""
    rng = random.Random(3)
    records = []
    for i in range(pairs):
        truth = rng.choice(LABELS)
        labels = [truth if rng.random() < 0.65 else rng.choice(LABELS) for _ in range(5)]
        if i % 17 == 0:
            labels[4] = "unrelated"
        records.append(
            {
                "pair_id": f"p{i:03d}",
                "premise_id": f"s{i:03d}",
                "premise": f"Premise number {i} says something.",
                "hypothesis": f"Hypothesis number {i}.",
                "labels": labels,
                "annotators": rng.sample(ANNOTATORS, 5),
                "genre": GENRES[i % len(GENRES)],
            }
        )
    return records


def imported(path: Path, records: list[dict[str, Any]]) -> Path:
    new_store(path, "--extra-labels", "unrelated")
    source = write_jsonl(path.with_suffix(".jsonl"), records)
    ok("--db", path, "import", source, "--format", "jsonl")
    return path


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The corpus imported as written, and imported with its lines shuffled."""
    folder = tmp_path_factory.mktemp("order")
    records = corpus()
    mixed = list(records)
    random.Random(5).shuffle(mixed)
    assert [r["pair_id"] for r in mixed] != [r["pair_id"] for r in records]
    return imported(folder / "ordered.db", records), imported(folder / "shuffled.db", mixed)


def agreement(db: Path, *args: str | int | float) -> list[dict[str, Any]]:
    return json_rows("--db", db, "stats", "--table", "agreement", *args)


@pytest.mark.parametrize(
    "more",
    [(), ("--by", "genre"), ("--include-extra",), ("--include-extra", "--by", "genre")],
    ids=["all", "by-genre", "votes", "votes-by-genre"],
)
def test_intervals_do_not_depend_on_the_order_of_the_lines(
    stores: tuple[Path, Path], more: tuple[str, ...]
) -> None:
    ordered, shuffled = stores
    first = agreement(ordered, *CI, *more)
    assert all(r["low"] is not None for r in first if r["value"] is not None)
    assert agreement(shuffled, *CI, *more) == first


def test_aggregated_stores_agree_too(stores: tuple[Path, Path], tmp_path: Path) -> None:
    """With the stored majority gold (`aggregate-labels`), read from `pair_labels`."""
    ordered, shuffled = stores
    copies = []
    for db in (ordered, shuffled):
        copy = copy_store(db, tmp_path / db.name)
        ok("--db", copy, "aggregate-labels")
        copies.append(copy)
    assert agreement(copies[0], *CI, "--by", "genre") == agreement(copies[1], *CI, "--by", "genre")


def test_point_values_are_those_without_intervals(stores: tuple[Path, Path]) -> None:
    ordered, _ = stores
    with_ci = agreement(ordered, *CI, "--by", "genre")
    plain = agreement(ordered, "--by", "genre")
    # the interval's own fields: its bounds, and the level and draws it rests on
    interval = ("low", "high", "ci", "resamples", "seed")
    assert [{k: v for k, v in r.items() if k not in interval} for r in with_ci] == [
        {k: v for k, v in r.items() if k not in interval} for r in plain
    ]


def test_cross_validated_hypothesis_only_does_not_depend_on_the_order_either(
    tmp_path: Path,
) -> None:
    """Its interval is drawn from the accuracy, but the folds followed the rows (in key
    order) and the premises' keys: a shuffled copy scored other folds."""
    records = corpus(150)
    mixed = list(records)
    random.Random(5).shuffle(mixed)
    ordered = imported(tmp_path / "ordered.db", records)
    shuffled = imported(tmp_path / "shuffled.db", mixed)
    for side in ((), ("--premise-only",)):
        args = ("bias", "hypothesis-only", "--cross-validate", 3, *CI, *side)
        first = json_rows("--db", ordered, *args)
        assert all(r["low"] is not None for r in first)
        assert json_rows("--db", shuffled, *args) == first
