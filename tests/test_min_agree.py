"""`aggregate-labels --min-agree N|SHARE` and pairs with other numbers of votes than five.

The papers' rule is "at least 3 of 5" (SNLI 2.2, MNLI, XNLI 3.1, OCNLI 3.3). A count of 3
means something else for LiveNLI's 15 votes a pair or ChaosNLI's 100 (a plurality), so
`--min-agree` also takes a share of each pair's votes, rounded up (0.6: 3 of 5, 9 of 15),
and a run over pairs whose vote counts differ from the preset's five warns, saying what
was applied; a run that gives no validated pair gold says why. `check` recomputes gold
with the `min_agree` of the run that wrote it, whether a count or a share.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import (
    FIXTURES,
    fails,
    ok_result,
    query,
    read_jsonl,
    requires_fixtures,
    write_jsonl,
)
from pydantic import ValidationError

import nlibuild
from nlibuild.api import StageWarning
from nlibuild.labelling.labels import majority_codes
from nlibuild.models import AggregateConfig
from nlibuild.presets import section_model

E, N, C = "entailment", "neutral", "contradiction"
LETTERS = {"e": E, "n": N, "c": C}


def votes(entailment: int, neutral: int, contradiction: int) -> list[str]:
    return [E] * entailment + [N] * neutral + [C] * contradiction


def corpus(tmp_path: Path, pairs: dict[str, list[str]]) -> Path:
    """A store holding one pair per entry: its ID and its votes (the first is the author's)."""
    records = [
        {
            "pair_id": pair_id,
            "premise": f"The premise of {pair_id}.",
            "hypothesis": f"The hypothesis of {pair_id}.",
            "labels": labels,
        }
        for pair_id, labels in pairs.items()
    ]
    corpus = nlibuild.create(tmp_path / "votes.db")
    corpus.import_corpus(path=write_jsonl(tmp_path / "pairs.jsonl", records), format="jsonl")
    return corpus.path


def gold(db: Path) -> dict[str, str]:
    rows = query(db, "SELECT p.id, l.gold FROM pair_labels l JOIN pairs p ON p.pk = l.pair_pk")
    return {row[0]: row[1] for row in rows}


def aggregate(db: Path, **settings: float) -> list[str]:
    """`aggregate-labels` with `settings` through the Python API; the warnings it issued
    (the CLI's `Warning:` lines without the prefix)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = nlibuild.open(db).aggregate_labels(**settings)
    issued = [str(w.message) for w in caught if issubclass(w.category, StageWarning)]
    assert issued == result.warnings
    return issued


def checks_clean(db: Path) -> int:
    """`check` finds no difference; the pairs it checked."""
    result = nlibuild.open(db).check()
    assert result.differences == 0, result.findings
    return result.pairs_checked


FIFTEEN = {
    "nine-of-fifteen": votes(9, 3, 3),  # 3 of 15 and 0.6 of 15 (9): entailment
    "eight-of-fifteen": votes(8, 4, 3),  # 3 of 15: entailment; 0.6 of 15: short by one
    "three-way-tie": votes(5, 5, 5),
    "unanimous": votes(0, 0, 15),
}
"""A hand-made corpus with LiveNLI's 15 votes a pair."""


def test_a_count_on_fifteen_votes_is_applied_with_a_warning_that_names_the_share(
    tmp_path: Path,
) -> None:
    db = corpus(tmp_path, FIFTEEN)
    issued = aggregate(db)
    assert gold(db) == {
        "nine-of-fifteen": E,
        "eight-of-fifteen": E,
        "three-way-tie": "-",
        "unanimous": C,
    }
    assert issued == [
        "validated pairs have 15 votes, the rule was written for 5; gold needs at "
        "least 3 votes agreeing (--min-agree 3); pass --min-agree 0.6 for a share of each "
        "pair's votes"
    ]


def test_a_share_is_rounded_up_per_pair_and_check_applies_the_same_share(
    tmp_path: Path,
) -> None:
    """The command's `Warning:` line and closing line say the share (the CLI's test of
    aggregate-labels --min-agree)."""
    db = corpus(tmp_path, FIFTEEN)
    result = ok_result("--db", db, "aggregate-labels", "--min-agree", "0.6")
    assert gold(db) == {
        "nine-of-fifteen": E,
        "eight-of-fifteen": "-",
        "three-way-tie": "-",
        "unanimous": C,
    }
    assert result.stderr.splitlines() == [
        "Warning: validated pairs have 15 votes, the rule was written for 5; gold needs at "
        "least 60% of a pair's votes agreeing, rounded up (--min-agree 0.6)"
    ]
    assert "(at least 0.6)" in result.stdout
    # check recomputes gold with the run's own share: under a count of 3 it would differ.
    assert checks_clean(db) == 4
    settings = query(db, "SELECT config_json FROM runs WHERE stage = 'aggregate-labels'")
    assert '"min_agree":0.6' in settings[0][0]


def test_changing_from_a_share_to_a_count_rewrites_the_gold(tmp_path: Path) -> None:
    db = corpus(tmp_path, FIFTEEN)
    aggregate(db, min_agree=0.6)
    aggregate(db, min_agree=3)
    assert gold(db)["eight-of-fifteen"] == E
    assert checks_clean(db) == 4


def test_a_share_times_the_votes_is_exact_where_floats_are_not(tmp_path: Path) -> None:
    # 0.7 * 10 is 7.000000000000001 in floating point; 7 of 10 votes is 70%.
    db = corpus(tmp_path, {"seven-of-ten": votes(7, 3, 0), "six-of-ten": votes(6, 4, 0)})
    aggregate(db, min_agree=0.7)
    assert gold(db) == {"seven-of-ten": E, "six-of-ten": "-"}
    counts = np.array([[7, 3, 0, 0], [6, 4, 0, 0]], dtype=np.int64)
    assert majority_codes(counts, 0.7).tolist() == [0, -1]
    assert majority_codes(counts, 7).tolist() == [0, -1]


def test_five_votes_a_pair_give_no_warning(tmp_path: Path) -> None:
    db = corpus(tmp_path, {"a": votes(3, 2, 0), "b": [*votes(1, 1, 2), E]})
    assert aggregate(db) == []
    assert gold(db) == {"a": E, "b": "-"}


def test_a_run_that_gives_no_validated_pair_gold_says_why(tmp_path: Path) -> None:
    db = corpus(tmp_path, {"tie": votes(2, 2, 1), "split": votes(2, 1, 2)})
    assert aggregate(db) == [
        "no validated pair has gold: gold needs at least 3 votes agreeing "
        "(--min-agree 3), and on no pair does one label reach that with more votes than "
        "any other (one label has at most 2 votes on a pair); lower --min-agree"
    ]
    issued = aggregate(db, min_agree=2)
    assert any("no validated pair has gold" in w for w in issued)  # 2-2-1 and 2-1-2 are ties


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("many", "neither a count of votes (3) nor a share"),
        ("0", "a count of votes is at least 1"),
        ("1.5", "a share of a pair's votes is above 0 and at most 1"),
        ("-0.5", "a share of a pair's votes is above 0 and at most 1"),
    ],
)
def test_a_bad_min_agree_is_one_error_line_and_changes_nothing(
    tmp_path: Path, value: str, says: str
) -> None:
    """--min-agree's text is read by the CLI: a count, a share, or one `Error:` line."""
    db = corpus(tmp_path, FIFTEEN)
    fails(db, "aggregate-labels", f"--min-agree={value}", says=(says,))
    assert set(gold(db).values()) == {None}


def test_presets_take_a_count_or_a_share_and_refuse_anything_else() -> None:
    aggregate = section_model("aggregate")
    assert aggregate(min_agree=0.6, votes_per_pair=15).model_dump()["min_agree"] == 0.6
    assert aggregate(min_agree=3).model_dump()["min_agree"] == 3
    for bad in (0, 1.5, True, "3"):
        with pytest.raises(ValidationError):
            aggregate(min_agree=bad)
    assert AggregateConfig().min_agree == 3
    assert AggregateConfig().votes_per_pair == 5


# --- ChaosNLI: 100 votes a pair ------------------------------------------------------------

CHAOS_MNLI = FIXTURES / "chaosnli" / "chaosNLI_mnli_m.jsonl"


def chaos_corpus(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """A store of ChaosNLI's MNLI items, each with its 100 labels (`label_count`, e n c)."""
    items = read_jsonl(CHAOS_MNLI)
    records = [
        {
            "pair_id": item["uid"],
            "premise": item["example"]["premise"],
            "hypothesis": item["example"]["hypothesis"],
            "labels": votes(*item["label_count"]),
        }
        for item in items
    ]
    corpus = nlibuild.create(tmp_path / "chaos.db")
    corpus.import_corpus(path=write_jsonl(tmp_path / "chaos.jsonl", records), format="jsonl")
    return corpus.path, items


def expected_gold(label_count: list[int], needed: int) -> str:
    top = max(label_count)
    if top < needed or label_count.count(top) > 1:
        return "-"
    return (E, N, C)[label_count.index(top)]


@requires_fixtures
def test_chaosnli_hundred_votes_warn_and_follow_a_count_or_a_share(tmp_path: Path) -> None:
    db, items = chaos_corpus(tmp_path)
    assert {sum(item["label_count"]) for item in items} == {100}
    assert aggregate(db) == [
        "validated pairs have 100 votes, the rule was written for 5; gold needs at "
        "least 3 votes agreeing (--min-agree 3); pass --min-agree 0.6 for a share of each "
        "pair's votes"
    ]
    plurality = gold(db)
    for item in items:
        assert plurality[item["uid"]] == expected_gold(item["label_count"], 3), item["uid"]
        if plurality[item["uid"]] != "-":  # ChaosNLI's majority_label is the plurality
            assert plurality[item["uid"]] == LETTERS[item["majority_label"]]

    aggregate(db, min_agree=0.6)
    share = gold(db)
    for item in items:
        assert share[item["uid"]] == expected_gold(item["label_count"], 60), item["uid"]
    # Chosen for low agreement: most items have no label with 60 of their 100 votes.
    no_gold = sum(1 for label in share.values() if label == "-")
    print(f"\nChaosNLI MNLI-m: {len(items)} items, no gold: plurality "
          f"{sum(1 for v in plurality.values() if v == '-')}, 60% share {no_gold}")  # fmt: skip
    assert sum(1 for v in plurality.values() if v == "-") < no_gold < len(items)
    assert checks_clean(db) == len(items)


# --- the statistics apply the store's own rule where no gold is stored ---------------------


def add_pairs(db: Path, tmp_path: Path, name: str, pairs: dict[str, list[str]]) -> None:
    """Import more pairs (first vote the author's) after the store was aggregated."""
    records = [
        {"pair_id": pair_id, "premise": f"The premise of {pair_id}.",
         "hypothesis": f"The hypothesis of {pair_id}.", "labels": labels}
        for pair_id, labels in pairs.items()
    ]  # fmt: skip
    nlibuild.open(db).import_corpus(
        path=write_jsonl(tmp_path / f"{name}.jsonl", records), format="jsonl"
    )


def note(db: Path, table: str) -> str:
    """The `Note:` line `stats --table TABLE` prints on stderr: which rule it applied where no
    gold is stored (the CLI prints it; the Python API's frame does not carry it)."""
    return ok_result("--db", db, "stats", "--table", table, "--format", "json").stderr


def agreement(db: Path) -> tuple[dict[str, dict[str, Any]], str]:
    """`stats --table agreement`'s figures over all pairs, by statistic, and its note."""
    rows = nlibuild.open(db).stats("agreement").to_dicts()
    return {row["statistic"]: row for row in rows if row["group"] == "all"}, note(db, "agreement")


def judged_votes(db: Path) -> tuple[int, str]:
    """How many votes `stats --table annotators` compared with their pair's gold left
    without them (the sum of agree_pairs), and its note."""
    rows = nlibuild.open(db).stats("annotators").to_dicts()
    return sum(row["agree_pairs"] for row in rows), note(db, "annotators")


AGGREGATED = {"nine-of-fifteen": FIFTEEN["nine-of-fifteen"], "unanimous": FIFTEEN["unanimous"]}
LATER = {"eight-of-fifteen": FIFTEEN["eight-of-fifteen"]}
"""Imported after `aggregate-labels`: no stored gold. 3 of 15 gives it entailment; 0.6 of 15
(9) gives it none."""


def test_agreement_applies_the_share_of_the_latest_aggregate_run_to_pairs_without_gold(
    tmp_path: Path,
) -> None:
    db = corpus(tmp_path, AGGREGATED)
    aggregate(db, min_agree=0.6)
    add_pairs(db, tmp_path, "later", LATER)
    figures, notes = agreement(db)
    # Stored: nine-of-fifteen entailment, unanimous contradiction. Computed with 0.6 x 15 = 9
    # votes: eight-of-fifteen has no gold (a count of 3 would give it entailment).
    assert figures["no gold label"]["numerator"] == 1
    assert figures["no gold label"]["denominator"] == 3
    assert figures["individual label = gold"]["denominator"] == 2 * 15
    run_id = query(db, "SELECT max(id) FROM runs WHERE stage = 'aggregate-labels'")[0][0]
    assert notes.splitlines() == [
        "Note: pairs without stored gold get the majority rule: at least 60% of a pair's "
        f"votes agreeing, rounded up (--min-agree 0.6, of aggregate-labels run {run_id})"
    ]
    aggregate(db, min_agree=3)
    add_pairs(db, tmp_path, "latest", {"eight-again": FIFTEEN["eight-of-fifteen"]})
    figures, notes = agreement(db)
    # A count of 3 now: eight-of-fifteen is stored as entailment, and eight-again, which
    # came after, gets entailment by the same count.
    assert figures["no gold label"]["numerator"] == 0
    assert "(--min-agree 3, of aggregate-labels run" in notes


def test_annotators_leave_one_out_with_the_share_of_each_pairs_own_votes(
    tmp_path: Path,
) -> None:
    db = corpus(tmp_path, AGGREGATED)
    aggregate(db, min_agree=0.6)
    add_pairs(db, tmp_path, "later", LATER)
    judged, notes = judged_votes(db)
    # Without one vote, a label needs 9 of the pair's 14 others: nine-of-fifteen keeps it
    # when a neutral or contradiction vote is left out (6 votes), unanimous always (15),
    # eight-of-fifteen never. A count of 3 would judge all 45.
    assert judged == 6 + 15
    assert "needs at least 60% of a pair's votes agreeing, rounded up (--min-agree 0.6" in notes
    aggregate(db, min_agree=3)
    assert judged_votes(db)[0] == 45


def test_before_any_aggregate_run_the_statistics_take_the_presets_rule(tmp_path: Path) -> None:
    preset = tmp_path / "livenli.toml"
    preset.write_text(
        '[corpus]\nlang = "en"\n\n[aggregate]\nmin_agree = 0.6\nvotes_per_pair = 15\n'
    )
    db = nlibuild.create(tmp_path / "preset.db", preset=str(preset)).path
    add_pairs(db, tmp_path, "pairs", FIFTEEN)
    figures, notes = agreement(db)
    # 0.6 of 15: eight-of-fifteen and the three-way tie have no gold.
    assert figures["no gold label"]["numerator"] == 2
    assert f"(--min-agree 0.6, [aggregate] of the store's preset {preset})" in notes
    # Without a preset: the model's default, the papers' 3 of 5.
    plain = corpus(tmp_path, FIFTEEN)
    figures, notes = agreement(plain)
    assert figures["no gold label"]["numerator"] == 1
    assert "(--min-agree 3, the default; no aggregate-labels run yet)" in notes
