"""`stats --table annotators`: per annotator, votes, agreement with gold leaving their own
vote out, the share of an author's pairs whose gold is their label, elicitation
violations and the Dawid-Skene reliability when computed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from nlibuild.errors import ConfigError
from nlibuild.labelling.majority_rule import MajorityRule, majority_rule
from nlibuild.models import NLI_LABELS, AnnotatorStat, TableFormat
from nlibuild.stats import Fact, StatsOptions, StatsTable, render_rows, rule_facts
from nlibuild.store import Store

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


@dataclass(frozen=True)
class AnnotatorsSettings:
    threshold: float
    sort: str
    rule: MajorityRule
    """The rule of the leave-one-out gold and of pairs without stored gold."""


def annotators_settings(options: StatsOptions, store: Store) -> AnnotatorsSettings:
    if options.sort not in AnnotatorStat.model_fields:
        fields = ", ".join(AnnotatorStat.model_fields)
        raise ConfigError(f"--sort {options.sort!r} is not one of: {fields}")
    return AnnotatorsSettings(options.threshold, options.sort, majority_rule(store))


def compute_annotators(store: Store, settings: AnnotatorsSettings) -> list[AnnotatorStat]:
    return annotator_stats(store, settings.threshold, settings.rule.min_agree)


def rule_note(settings: AnnotatorsSettings) -> str:
    """What `stats` says on stderr: the rule of the leave-one-out gold."""
    return f"gold without each vote, and where none is stored, needs {settings.rule.text()}"


def annotators_facts(rows: object, settings: AnnotatorsSettings) -> list[Fact]:
    """The title's threshold (`flagged`: agreement with gold under it) and the note's
    majority rule, which every row's gold rests on."""
    return [("threshold", settings.threshold), *rule_facts(settings.rule)]


def annotator_stats(
    store: Store, threshold: float = 0.7, min_agree: int | float | None = None
) -> list[AnnotatorStat]:
    """Per annotator: votes, as author and as validator; agreement with the gold label
    computed without their own vote (leave-one-out: the majority rule over the pair's other
    votes, on validated pairs where that has a gold label); for authors, the share of their
    validated pairs whose gold is their label; elicitation violations; the Dawid-Skene
    reliability when computed. `flagged` when the leave-one-out agreement is under
    `threshold`. The rule is `min_agree`, by default the store's own (`majority_rule`)."""
    # numpy loads here, not at import: `nlibuild --help` imports every table.
    import numpy as np

    from nlibuild.queries.votes import read_votes
    from nlibuild.queries.workbench_work import seconds_per_item

    if min_agree is None:
        min_agree = majority_rule(store).min_agree
    read = read_votes(store, min_agree)
    items = read.items
    labels = read.votes.codes
    annotators = read.votes.annotator_pks
    positions = read.votes.positions
    gold = read.table.gold
    loo_gold = _gold_without_each_vote(read.table.counts, items, labels, min_agree)
    validated = read.table.counts.sum(axis=1)[items] >= 2
    judged = validated & (loo_gold >= 0)
    agrees = judged & (loo_gold == labels)
    authored = positions == 0
    author_judged = authored & validated & (gold[items] >= 0)
    author_agrees = author_judged & (gold[items] == labels)
    ids = store.annotator_ids()
    violations = store.violations_per_annotator()
    reliability = store.reliabilities("dawid-skene")
    seconds = seconds_per_item(store)
    rows = []
    for pk in np.unique(annotators):
        mine = annotators == pk
        annotator = ids[int(pk)]
        judged_n = int((mine & judged).sum())
        author_n = int((mine & author_judged).sum())
        agree = float((mine & agrees).sum()) / judged_n if judged_n else None
        rows.append(
            AnnotatorStat(
                annotator=annotator,
                votes=int(mine.sum()),
                authored=int((mine & authored).sum()),
                validated=int((mine & ~authored).sum()),
                agree_with_gold=agree,
                agree_pairs=judged_n,
                author_gold=float((mine & author_agrees).sum()) / author_n if author_n else None,
                author_pairs=author_n,
                violations=violations.get(annotator, 0),
                reliability=reliability.get(annotator),
                seconds_per_item=seconds.get(annotator),
                flagged=agree is not None and agree < threshold,
            )
        )
    return rows


def _gold_without_each_vote(
    counts: NDArray[np.int64],
    items: NDArray[np.int64],
    labels: NDArray[np.int64],
    min_agree: int | float,
) -> NDArray[np.int64]:
    """Per vote, the gold label of its pair with that vote left out: the pair's other
    votes through the majority rule (-1 where they give none, or are fewer than 2)."""
    import numpy as np

    from nlibuild.labelling.labels import votes_needed

    without = counts[items].copy()
    without[np.arange(len(labels)), labels] -= 1
    others = without.sum(axis=1)
    nli = without[:, : len(NLI_LABELS)]
    top = nli.max(axis=1)
    unique = (nli == top[:, None]).sum(axis=1) == 1
    # The pair's own rule, by its own vote count (a share of 15 votes needs 9), met by its
    # other votes: with 4 others, 3 must agree, as for 5.
    needed = np.minimum(votes_needed(counts.sum(axis=1)[items], min_agree), others)
    agreed = unique & (top >= np.maximum(needed, 1)) & (others >= 2)
    return np.where(agreed, nli.argmax(1), -1)


def sorted_annotators(
    rows: list[AnnotatorStat], settings: AnnotatorsSettings
) -> list[AnnotatorStat]:
    """Sorted by --sort, missing values last (in every format)."""
    sort = settings.sort
    return sorted(rows, key=lambda r: (getattr(r, sort) is None, getattr(r, sort)))


def render_annotators(
    rows: list[AnnotatorStat], settings: AnnotatorsSettings, fmt: TableFormat, out: Console
) -> None:
    columns = list(AnnotatorStat.model_fields)
    if all(row.seconds_per_item is None for row in rows):
        columns.remove("seconds_per_item")  # shown once the workbench has recorded times
    ordered = sorted_annotators(rows, settings)
    title = f"Annotators (flagged: agreement with gold under {settings.threshold:.0%})"
    render_rows(out, title, columns, [tuple(getattr(r, c) for c in columns) for r in ordered],
                fmt, annotators_facts(rows, settings), decimals=3)  # fmt: skip


TABLE = StatsTable(
    name="annotators",
    rank=40,
    help="per annotator, votes (as author, as validator), agreement with gold leaving "
    "their own vote out (the store's majority rule, named on stderr), for authors the "
    "share of their pairs whose gold is their label, "
    "elicitation violations, the Dawid-Skene reliability when computed, the median "
    "seconds per item where the workbench recorded them.",
    options=frozenset({"threshold", "sort"}),
    settings=annotators_settings,
    compute=compute_annotators,
    render=render_annotators,
    rows=sorted_annotators,
    note=rule_note,
    facts=annotators_facts,
)
