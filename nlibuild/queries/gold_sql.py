"""The gold rules as SQL: where each method's stored gold lies, a `GoldRule` as one
expression over a pair, and the majority rule (labelling/labels.py says whose rule it is and
why) as a CASE over a pair's label counts, which the store's hot path writes and
`nlibuild check` recomputes. SQL is composed here, beside the queries that run it, and
never in the rule's own module."""

from __future__ import annotations

from nlibuild.labelling.labels import MAJORITY, SHARE_ROUNDING, GoldRule
from nlibuild.models import NLI_LABELS, NO_GOLD


def gold_sql(rule: GoldRule, pair_pk: str = "p.pk", author_label: str = "p.author_label") -> str:
    """`rule` as one SQL expression over a pair (key `pair_pk`, author's label
    `author_label`): NULL where it gives no label."""
    terms = [stored_gold_sql(method, pair_pk) for method in rule.methods]
    if rule.author_fallback:
        terms.append(author_label)
    return terms[0] if len(terms) == 1 else f"coalesce({', '.join(terms)})"


def stored_gold_sql(method: str, pair_pk: str = "p.pk") -> str:
    """The stored gold of one method for the pair `pair_pk`, straight from where it lies:
    the majority on `pair_labels` (schema 9), any other method in `gold_rows` (the view
    `gold` shows both, but a lookup through a view of a union costs a scan of it)."""
    if method == MAJORITY:
        return f"(SELECT gold FROM pair_labels WHERE pair_pk = {pair_pk})"
    return f"(SELECT label FROM gold_rows WHERE pair_pk = {pair_pk} AND method = '{method}')"


COUNT_COLUMNS = tuple(f"n_{label}" for label in NLI_LABELS)
"""The per-pair vote count of each NLI label, as `pair_labels` (schema 9) names them."""


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
