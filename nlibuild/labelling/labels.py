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
`queries/gold_sql.majority_gold_sql` computes that rule in SQL, `majority_codes` on
arrays (method `majority`, written by `aggregate-labels`).
A corpus imported with its own gold keeps it as method `released`; it is the gold wherever
nlibuild has not aggregated.
Which stored gold a reader takes, and whether a pair with only its author's label gets
that label, is a `GoldRule`: `GOLD` for what is published (exports, `info`), and
`GOLD_OR_AUTHOR` where every pair needs the best label known (splits, artifact tables).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nlibuild.errors import ConfigError
from nlibuild.models import NLI_LABELS, NO_GOLD, Label

if TYPE_CHECKING:  # numpy is imported where the rule runs on arrays
    import numpy as np
    from numpy.typing import NDArray

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


def check_label_targets(
    label_values: Mapping[str, str], normaliser: LabelNormaliser, option: str = "--labels"
) -> None:
    """A ConfigError for the first label `--labels VALUE=LABEL` maps a value to that is no
    label the store takes (an NLI label or its initial, `-`, a declared extra label),
    naming the closest one: a typo is far likelier than an extra label nobody declared."""
    for value, target in label_values.items():
        if target.strip() == NO_GOLD:
            continue
        try:
            normaliser.vote(target)
        except UnknownLabel:
            known = [*NLI_LABELS, *normaliser.extra_labels]
            guess = difflib.get_close_matches(target.strip().lower(), known, n=1, cutoff=0.6)
            hint = f"did you mean {value}={guess[0]}?" if guess else f"labels: {', '.join(known)}"
            raise ConfigError(
                f"{option} {value}={target}: no label {target!r}; {hint} (`-` drops the "
                "value; an extra label must first be declared with --extra-labels)"
            ) from None


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

    def preferred_method(self, present: Collection[str]) -> str | None:
        """The method whose gold this rule reads first among the methods `present`."""
        return next((m for m in self.methods if m in present), None)


GOLD = GoldRule("gold", (MAJORITY, RELEASED), author_fallback=False)
"""The published gold: nlibuild's majority vote once `aggregate-labels` has run, else the
corpus's released gold, else none (`-` in a file). Exports and `info` use it."""

GOLD_OR_AUTHOR = GoldRule("gold-or-author", (MAJORITY, RELEASED), author_fallback=True)
"""`GOLD`, else the author's label: the label of every pair, validated or not. Splits
(which pairs are labelled) and the artifact tables use it."""


SHARE_ROUNDING = 1e-9
"""Taken off a share times a pair's votes before comparing a count with it: a float product
can land a hair above the integer it stands for (0.7 * 10 is 7.000000000000001), and no
share written with a few decimals times a vote count lands this close to an integer
without being one, so a count reaches the result exactly when it reaches the share of the
votes rounded up."""


def votes_needed(
    totals: NDArray[np.int64], min_agree: int | float
) -> NDArray[np.floating[Any]] | int:
    """The votes a label needs on pairs of `totals` votes: a count as it is, a share of each
    pair's own votes rounded up (`queries/gold_sql.votes_needed_sql` in numpy: compared
    with `>=`, `SHARE_ROUNDING` makes 0.7 x 10 need 7, not 8)."""
    if isinstance(min_agree, float):
        return totals * min_agree - SHARE_ROUNDING
    return min_agree


def majority_codes(counts: NDArray[np.int64], min_agree: int | float) -> NDArray[np.int64]:
    """The majority rule on count rows (NLI labels in the first 3 columns): the index of
    the NLI label with at least `min_agree` votes (a count, or a float share of the row's
    votes rounded up) and more than the others, else -1; a row with a single vote gets
    that vote's label (-1 if it is an extra value). The same rule as
    `queries/gold_sql.majority_gold_case`, which Store.write_majority_gold applies, for
    statistics computed without stored gold."""
    import numpy as np

    nli = counts[:, : len(NLI_LABELS)]
    top = nli.max(axis=1)
    totals = counts.sum(axis=1)
    needed = votes_needed(totals, min_agree)
    unique = (nli == top[:, None]).sum(axis=1) == 1
    codes = np.where(unique & (top >= needed), nli.argmax(axis=1), -1)
    single = totals == 1
    return np.where(single, np.where(top == 1, nli.argmax(axis=1), -1), codes)
