"""The gold rule: which stored gold a pair is read with, and the majority vote itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from nlibuild.core.stage import StageName
from nlibuild.labelling.labels import (
    GOLD,
    GOLD_OR_AUTHOR,
    MAJORITY,
    RELEASED,
    GoldRule,
)
from nlibuild.queries.gold_sql import gold_sql, majority_gold_sql
from nlibuild.store import Store

TEST_STAGE = StageName("test", (), "a test's own stage", "tests")
VOTES_STAGE = StageName("votes", (), "a test's own stage", "tests")


class Fixture(BaseModel):
    pairs: int = 4


def _store_with_pairs(path: Path) -> Store:
    """Four pairs by author w1 with label `neutral`: p1 has majority and released gold, p2
    released gold only, p3 neither, p4 a majority of `-`."""
    store = Store.create(path, {"lang": "en"})
    with store.recorded_run(TEST_STAGE, Fixture()) as recorded:
        run = recorded.id
        store.insert("annotators", [(1, "w1", 0, None)])
        store.insert("premises", [(1, "x_1", "g", "en", "A man sleeps.", 3, None)], run)
        store.insert(
            "pairs",
            [(pk, f"x_1-{pk}", 1, f"Hypothesis {pk}.", "en", None, None, 1, "neutral", None)
             for pk in (1, 2, 3, 4)],
            run,
        )  # fmt: skip
        store.insert(
            "gold_rows",
            [(1, RELEASED, "contradiction", 5, 3), (2, RELEASED, "contradiction", 5, 3)],
            run,
        )
        store.insert(
            "pair_labels",
            [(1, 5, 3, 1, 1, "neutral"), (4, 5, 2, 2, 1, "neutral")],
        )
        store.conn.execute("UPDATE pair_labels SET gold = ?, gold_run_id = ?", ("-", run))
        store.conn.execute("UPDATE pair_labels SET gold = 'entailment' WHERE pair_pk = 1")
    return store


def _labels(store: Store, rule: GoldRule) -> list[str | None]:
    return [
        row[0] for row in store.conn.execute(f"SELECT {gold_sql(rule)} FROM pairs p ORDER BY pk")
    ]


def test_gold_prefers_the_majority_then_the_released_gold_and_never_the_author(
    tmp_path: Path,
) -> None:
    with _store_with_pairs(tmp_path / "s.db") as store:
        assert _labels(store, GOLD) == ["entailment", "contradiction", None, "-"]


def test_gold_or_author_falls_back_to_the_authors_label(tmp_path: Path) -> None:
    with _store_with_pairs(tmp_path / "s.db") as store:
        assert _labels(store, GOLD_OR_AUTHOR) == ["entailment", "contradiction", "neutral", "-"]


def test_the_preferred_method_is_the_first_present() -> None:
    assert GOLD.preferred_method({RELEASED, MAJORITY}) == MAJORITY
    assert GOLD.preferred_method({RELEASED, "dawid-skene"}) == RELEASED
    assert GOLD.preferred_method({"dawid-skene"}) is None


def test_a_method_that_is_not_a_plain_name_is_refused() -> None:
    with pytest.raises(ValueError, match="bad methods"):
        GoldRule("bad", ("majority'; DROP TABLE gold; --",), author_fallback=False)


@pytest.mark.parametrize(
    ("votes", "gold"),
    [
        (["entailment"] * 3 + ["neutral"] * 2, "entailment"),
        (["neutral"] * 2 + ["contradiction"] * 2 + ["entailment"], "-"),  # 2-2-1: no gold
        (["contradiction"] * 3 + ["unrelated"] * 2, "contradiction"),
        (["unrelated"] * 3 + ["neutral"] * 2, "-"),  # an extra label is never gold
        (["neutral"], "neutral"),  # the author's vote alone
        (["unrelated"], "-"),
        (["entailment", "neutral"], "-"),
    ],
)
def test_the_majority_vote_needs_three_agreeing_votes(
    tmp_path: Path, votes: list[str], gold: str
) -> None:
    with (
        _store_with_pairs(tmp_path / "s.db") as store,
        store.recorded_run(VOTES_STAGE, Fixture()) as recorded,
    ):
        voters = [(pk, f"v{pk}", 0, None) for pk in range(2, 2 + len(votes))]
        store.insert("annotators", voters)
        store.add_votes([(3, v[0], i, label) for i, (v, label) in
                         enumerate(zip(voters, votes, strict=True))], recorded.id)  # fmt: skip
        row = store.conn.execute(
            f"SELECT label, total, top FROM ({majority_gold_sql()}) WHERE pair_pk = 3",
            {"min_agree": 3},
        ).fetchone()
        assert row[0] == gold
        # The same rule over the counts kept on pair_labels, as aggregate-labels writes it.
        store.write_majority_gold(MAJORITY, 3, recorded.id)
        stored = store.conn.execute("SELECT gold FROM pair_labels WHERE pair_pk = 3").fetchone()
        assert stored == (gold,)
        assert row[1] == len(votes)
