"""Label normalisation: aliases, integer codes only with an explicit order, extra labels."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nlibuild.labelling.labels import LabelNormaliser, UnknownLabel, unknown_label_hint
from nlibuild.models import Label, parse_label_order


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("entailment", "entailment"),
        ("e", "entailment"),
        ("E", "entailment"),
        ("Neutral", "neutral"),
        ("n", "neutral"),
        ("N", "neutral"),
        ("contradiction", "contradiction"),
        ("contradictory", "contradiction"),  # XNLI-MT's spelling
        ("c", "contradiction"),
        ("C", "contradiction"),
        (" neutral ", "neutral"),
    ],
)
def test_known_aliases_become_canonical_labels(raw: str, label: str) -> None:
    assert LabelNormaliser().vote(raw) == label


@pytest.mark.parametrize("raw", [None, "", "   "])
def test_empty_values_are_missing_votes(raw: str | None) -> None:
    assert LabelNormaliser().vote(raw) is None


def test_integer_labels_need_an_explicit_order() -> None:
    with pytest.raises(UnknownLabel):
        LabelNormaliser().vote("0")
    glue = LabelNormaliser(label_order=parse_label_order("e,n,c"))
    clue = LabelNormaliser(label_order=parse_label_order("n,e,c"))
    assert [glue.vote(i) for i in (0, 1, 2)] == ["entailment", "neutral", "contradiction"]
    assert [clue.vote(str(i)) for i in (0, 1, 2)] == ["neutral", "entailment", "contradiction"]


def test_extra_labels_are_votes_but_never_gold() -> None:
    labels = LabelNormaliser(extra_labels=["unrelated", "Unknown"])
    assert labels.vote("unrelated") == "unrelated"
    assert labels.vote("UNKNOWN") == "unknown"
    with pytest.raises(UnknownLabel):
        labels.gold("unrelated")
    assert labels.gold("-") == "-"
    assert labels.gold("") is None


def test_unknown_values_get_a_hint_that_says_how_to_declare_them() -> None:
    hint = unknown_label_hint(["maybe", "2"], has_order=False)
    assert "--label-order" in hint
    assert "--extra-labels maybe" in hint


@pytest.mark.parametrize("text", ["e,n", "e,e,c", "e,n,x", "entailment,neutral,contradiction,e"])
def test_bad_label_orders_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="label order"):
        parse_label_order(text)


@given(st.permutations(list(Label)), st.sampled_from([str.lower, str.upper]))
def test_any_permutation_of_initials_or_names_parses(order: list[Label], case: object) -> None:
    assert callable(case)
    initials = ",".join(case(label.initial) for label in order)
    names = ",".join(case(label.value) for label in order)
    assert parse_label_order(initials) == tuple(order)
    assert parse_label_order(names) == tuple(order)


@given(st.text(max_size=12))
def test_normaliser_never_returns_a_value_outside_the_label_set(raw: str) -> None:
    labels = LabelNormaliser(extra_labels=["unrelated"])
    try:
        value = labels.vote(raw)
    except UnknownLabel:
        return
    assert value in {None, "entailment", "neutral", "contradiction", "unrelated"}
