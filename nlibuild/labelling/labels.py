"""Labels: normalising them on import, and the one rule for a pair's gold label.

Normalisation. Released corpora spell labels in many ways: `entailment`, `e`, `E`, XNLI-MT's
`contradictory`, integers whose meaning depends on the dataset (GLUE/XNLI number them
e,n,c; CLUE's OCNLI n,e,c). Integers are therefore accepted only with an explicit order.
Extra values a team uses (OCNLI's `unrelated`, `unknown`) are kept as votes when declared,
and can never become gold.

Gold. SNLI (Bowman et al. 2015, 2.2), MNLI (Williams et al. 2018), XNLI (Conneau et al.
2018, 3.1: "a gold label representing a majority vote between the initial label ... and
the four additional labels"; no three-vote consensus is marked `-`) and OCNLI (Hu et al.
2020, 3.3: "no gold label (no 3 labels match)") all give a validated pair the label that
at least 3 of its 5 votes agree on, and `-` otherwise. For pairs with other numbers of
votes (ChaosNLI's 100, LiveNLI's 15) the papers' count means something else, so
`--min-agree` also takes a share of a pair's votes (0.6 is 3 of 5, 9 of 15), rounded up.
`majority_gold_sql` computes that rule (method `majority`, written by `aggregate-labels`).
A corpus imported with its own gold keeps it as method `released`; it is the gold wherever
nlibuild has not aggregated.
Which stored gold a reader takes, and whether a pair with only its author's label gets
that label, is a `GoldRule`: `GOLD` for what is published (exports, `info`), and
`GOLD_OR_AUTHOR` where every pair needs the best label known (splits, artifact tables).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from nlibuild.models import NLI_LABELS, NO_GOLD, Label

_ALIASES: dict[str, str] = {
    "entailment": Label.ENTAILMENT.value,
    "e": Label.ENTAILMENT.value,
    "neutral": Label.NEUTRAL.value,
    "n": Label.NEUTRAL.value,
    "contradiction": Label.CONTRADICTION.value,
    "contradictory": Label.CONTRADICTION.value,
    "c": Label.CONTRADICTION.value,
}


class UnknownLabel(ValueError):
    """A label value that is neither an alias, a declared extra label, nor an ordered integer."""

    def __init__(self, value: str) -> None:
        self.value = value
        super().__init__(value)


class LabelNormaliser:
    """Maps raw label values to canonical strings; `None` stands for a missing label."""

    def __init__(
        self, extra_labels: Iterable[str] = (), label_order: tuple[Label, ...] | None = None
    ) -> None:
        self.extra_labels = tuple(dict.fromkeys(e.strip().lower() for e in extra_labels))
        table = dict(_ALIASES)
        for extra in self.extra_labels:
            table[extra] = extra
        if label_order is not None:
            for index, label in enumerate(label_order):
                table[str(index)] = label.value
        self._table = table
        self.label_order = label_order

    def vote(self, raw: object) -> str | None:
        """Canonical label of one individual vote; `None` when the value is empty."""
        if raw is None:
            return None
        text = str(raw).strip()
        if not text:
            return None
        found = self._table.get(text) or self._table.get(text.lower())
        if found is None:
            raise UnknownLabel(text)
        return found

    def gold(self, raw: object) -> str | None:
        """Canonical released gold label: an NLI label, `-`, or `None` when absent.

        An extra label cannot be gold (OCNLI 3.3: extra values are votes only).
        """
        if raw is None:
            return None
        text = str(raw).strip()
        if not text:
            return None
        if text == NO_GOLD:
            return NO_GOLD
        label = self.vote(text)
        if label not in NLI_LABELS:
            raise UnknownLabel(text)
        return label


def unknown_label_hint(values: Iterable[str], has_order: bool) -> str:
    """The 'what to do next' part of an unknown-label error."""
    values = list(values)
    hints = []
    if not has_order and any(v.lstrip("-").isdigit() for v in values):
        hints.append("integer labels need --label-order (e.g. e,n,c for GLUE/XNLI, n,e,c for CLUE)")
    words = [v for v in values if not v.lstrip("-").isdigit()]
    if words:
        hints.append(f"declare extra label values with --extra-labels {','.join(words)}")
    return "; ".join(hints)


MAJORITY = "majority"
"""The gold method of `aggregate-labels --method majority`: the published gold."""
RELEASED = "released"
"""The gold method of a label shipped with an imported corpus, kept for comparison."""

_METHOD_NAME = re.compile(r"^[a-z][a-z-]*$")


@dataclass(frozen=True)
class GoldRule:
    """Which label a pair is read with: the gold of the first of `methods` the pair has
    (preference order as data), else, with `author_fallback`, the label its author gave
    (a pair nobody validated yet), else none.

    The author fallback is a choice of its own: an exported gold column must hold
    validated or released gold only, whereas a split or an artifact table that counts
    labels needs one for every elicited pair, validated or not.
    """

    name: str
    methods: tuple[str, ...]
    author_fallback: bool

    def __post_init__(self) -> None:
        # The methods are written into SQL as literals: only plain names are allowed.
        bad = [m for m in self.methods if not _METHOD_NAME.match(m)]
        if bad or not self.methods:
            raise ValueError(f"gold rule {self.name}: bad methods {bad or self.methods}")

    def sql(self, pair_pk: str = "p.pk", author_label: str = "p.author_label") -> str:
        """The rule as one SQL expression over a pair (key `pair_pk`, author's label
        `author_label`): NULL where it gives no label."""
        terms = [stored_gold_sql(method, pair_pk) for method in self.methods]
        if self.author_fallback:
            terms.append(author_label)
        return terms[0] if len(terms) == 1 else f"coalesce({', '.join(terms)})"

    def preferred_method(self, present: Collection[str]) -> str | None:
        """The method whose gold this rule reads first among the methods `present`."""
        return next((m for m in self.methods if m in present), None)


def stored_gold_sql(method: str, pair_pk: str = "p.pk") -> str:
    """The stored gold of one method for the pair `pair_pk`, straight from where it lies:
    the majority on `pair_labels` (schema 9), any other method in `gold_rows` (the view
    `gold` shows both, but a lookup through a view of a union costs a scan of it)."""
    if method == MAJORITY:
        return f"(SELECT gold FROM pair_labels WHERE pair_pk = {pair_pk})"
    return f"(SELECT label FROM gold_rows WHERE pair_pk = {pair_pk} AND method = '{method}')"


GOLD = GoldRule("gold", (MAJORITY, RELEASED), author_fallback=False)
"""The published gold: nlibuild's majority vote once `aggregate-labels` has run, else the
corpus's released gold, else none (`-` in a file). Exports and `info` use it."""

GOLD_OR_AUTHOR = GoldRule("gold-or-author", (MAJORITY, RELEASED), author_fallback=True)
"""`GOLD`, else the author's label: the label of every pair, validated or not. Splits
(which pairs are labelled) and the artifact tables use it."""


COUNT_COLUMNS = tuple(f"n_{label}" for label in NLI_LABELS)
"""The per-pair vote count of each NLI label, as `pair_labels` (schema 9) names them."""


SHARE_ROUNDING = 1e-9
"""Taken off a share times a pair's votes before comparing a count with it: a float product
can land a hair above the integer it stands for (0.7 * 10 is 7.000000000000001), and no
share written with a few decimals times a vote count lands this close to an integer
without being one, so a count reaches the result exactly when it reaches the share of the
votes rounded up."""


def votes_needed_sql(min_agree: str = ":min_agree", total: str = "n_votes") -> str:
    """The votes a label needs as an SQL expression: `min_agree` (an SQL value, as
    `AggregateConfig.min_agree` stores it) is a count when an integer, else a share of the
    pair's `total` votes, rounded up (see `SHARE_ROUNDING`)."""
    return (
        f"(CASE WHEN typeof({min_agree}) = 'real' "
        f"THEN {min_agree} * {total} - {SHARE_ROUNDING} ELSE {min_agree} END)"
    )


def majority_gold_case(min_agree: str = ":min_agree", total: str = "n_votes") -> str:
    """The majority rule as an SQL CASE over a pair's label counts (`COUNT_COLUMNS`) and
    its number of votes (`total`): the NLI label with at least `min_agree` votes (an SQL
    value: a count, 3 of 5 in the papers and `AggregateConfig.min_agree`'s default, or a
    share of the pair's votes, see `votes_needed_sql`) and more than any other NLI label,
    else `-`. Extra labels (OCNLI's `unrelated`) count towards the votes but are never gold;
    ties are never broken, so 2-2-1 is `-` whatever order the votes came in. A pair with
    its author's vote alone keeps that label (MNLI's training set, whose pairs were mostly
    never validated). queries/votes.py's `majority_codes` applies the same rule to count
    arrays."""
    pairs = list(zip(NLI_LABELS, COUNT_COLUMNS, strict=True))
    needed = votes_needed_sql(min_agree, total)
    single = " ".join(f"WHEN {column} = 1 THEN '{label}'" for label, column in pairs)
    majority = " ".join(
        f"WHEN {column} >= {needed} "
        + " ".join(f"AND {column} > {other}" for other in COUNT_COLUMNS if other != column)
        + f" THEN '{label}'"
        for label, column in pairs
    )
    return (
        f"CASE WHEN {total} = 1 THEN CASE {single} ELSE '{NO_GOLD}' END "
        f"{majority} ELSE '{NO_GOLD}' END"
    )


def majority_gold_sql(min_agree: str = ":min_agree") -> str:
    """A SELECT of (pair key, gold label, votes, votes of the top NLI label) per pair,
    computed from the votes themselves by `majority_gold_case` (what `nlibuild check`
    compares the stored gold with)."""
    counts = ", ".join(
        f"sum(label = '{label}') AS {column}"
        for label, column in zip(NLI_LABELS, COUNT_COLUMNS, strict=True)
    )
    return (
        f"SELECT pair_pk, {majority_gold_case(min_agree, 'total')} AS label, total, "
        f"max({', '.join(COUNT_COLUMNS)}) AS top "
        f"FROM (SELECT pair_pk, {counts}, count(*) AS total FROM votes GROUP BY pair_pk)"
    )
