"""`nlibuild aggregate-labels`: gold labels from the votes.

majority (SNLI, MNLI, XNLI, OCNLI): the NLI label with at least `min_agree` of the votes (3
of 5) and more than any other, else `-` ("no gold"). Extra label values (unrelated,
unknown, ...) are votes that count towards the total but can never be gold. A pair with its
author's vote only keeps that label (MNLI's training set); pairs with 4 votes follow the
same rule. Ties are never broken: 2-2-1 is `-`, whatever the order of the votes.
`min_agree` is a count (3) or a share of each pair's votes (0.6, rounded up); when the
validated pairs have other numbers of votes than the `votes_per_pair` the rule was written
for (LiveNLI's 15, ChaosNLI's 100), or no pair gets gold at all, the result carries a
warning that says what was applied and why.

dawid-skene (Dawid and Skene 1979): EM over each annotator's confusion matrix (true NLI
label x label value given) and the label priors, started from the vote shares. It stores
each pair's posterior, each annotator's confusion matrix and reliability (the mean of the
matrix's diagonal), and its own gold rows (method `dawid-skene`), and counts the pairs
where it disagrees with the majority rule; the majority stays the published gold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import orjson
from numpy.typing import NDArray

from nlibuild.core.progress import Advance, progress
from nlibuild.core.registry import AGGREGATE_LABELS
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError
from nlibuild.labelling.labels import MAJORITY, RELEASED
from nlibuild.models import (
    NLI_LABELS,
    NO_GOLD,
    AggregateConfig,
    AggregateMethod,
    AggregateResult,
    min_agree_text,
)
from nlibuild.queries.gold import (
    ValidatedVotes,
    gold_disagreements,
    gold_run,
    latest_vote_run,
    majority_summary,
    validated_votes,
)
from nlibuild.queries.pair_labels import latest_check_repair_run
from nlibuild.queries.votes import read_votes
from nlibuild.render import counted, run_note
from nlibuild.store import GoldRow, Store

DAWID_SKENE = AggregateMethod.DAWID_SKENE.value
_SMOOTHING = 0.01
"""Pseudo-count added to every cell of a confusion matrix, so that an annotator never
seen giving a label does not get probability 0 for it."""


@dataclass
class DawidSkene:
    """Dawid-Skene EM with the fitted attributes ending in `_` (crowd-kit's shape)."""

    classes: int = len(NLI_LABELS)
    max_iterations: int = 100
    tolerance: float = 1e-6

    def fit(
        self,
        items: NDArray[np.int64],
        workers: NDArray[np.int64],
        values: NDArray[np.int64],
        n_items: int,
        n_workers: int,
        n_values: int,
        advance: Advance | None = None,
    ) -> DawidSkene:
        """Votes as parallel arrays: item index, worker index, label value index (the
        first `classes` values are the NLI labels). Sets `posteriors_` (items x classes),
        `confusions_` (workers x classes x values), `priors_` and `iterations_`;
        `advance(1)` is called after each EM iteration."""
        k = self.classes
        posteriors = np.full((n_items, k), 1e-9)
        nli = values < k
        np.add.at(posteriors, (items[nli], values[nli]), 1.0)
        posteriors /= posteriors.sum(axis=1, keepdims=True)
        previous = -np.inf
        cells = workers * n_values + values
        iterations = 0
        while iterations < self.max_iterations:
            iterations += 1
            priors = posteriors.mean(axis=0)
            confusions = np.empty((n_workers, k, n_values))
            for c in range(k):
                counts = np.bincount(cells, weights=posteriors[items, c],
                                     minlength=n_workers * n_values)  # fmt: skip
                confusions[:, c, :] = counts.reshape(n_workers, n_values) + _SMOOTHING
            confusions /= confusions.sum(axis=2, keepdims=True)
            log_confusions = np.log(confusions)
            log_post = np.tile(np.log(priors), (n_items, 1))
            for c in range(k):
                log_post[:, c] += np.bincount(
                    items, weights=log_confusions[workers, c, values], minlength=n_items
                )
            top = log_post.max(axis=1, keepdims=True)
            likelihood = np.exp(log_post - top)
            totals = likelihood.sum(axis=1, keepdims=True)
            posteriors = likelihood / totals
            log_likelihood = float((np.log(totals) + top).sum())
            if abs(log_likelihood - previous) <= self.tolerance * max(1.0, abs(log_likelihood)):
                break
            previous = log_likelihood
            if advance is not None:
                advance(1)
        self.posteriors_ = posteriors
        self.confusions_ = confusions
        self.priors_ = priors
        self.iterations_ = iterations
        return self

    @property
    def reliabilities_(self) -> NDArray[np.float64]:
        """Per worker, the mean probability of giving the true label (the diagonal)."""
        k = self.classes
        return np.asarray(self.confusions_[:, np.arange(k), np.arange(k)].mean(axis=1))


def _dawid_skene(store: Store, cfg: AggregateConfig, run_id: int) -> tuple[int, int]:
    """Fit Dawid-Skene on every vote; store posteriors, gold, confusion matrices.
    Returns (disagreements with the majority, iterations)."""
    read = read_votes(store, cfg.min_agree)
    values = read.values
    items = read.items
    unique_pairs = read.pair_pks
    unique_workers, workers = np.unique(read.votes.annotator_pks, return_inverse=True)
    labels = read.votes.codes
    with progress("Dawid-Skene", cfg.max_iterations, "EM iterations (at most)") as advance:
        model = DawidSkene(max_iterations=cfg.max_iterations, tolerance=cfg.tolerance).fit(
            items, workers, labels, len(unique_pairs), len(unique_workers), len(values), advance
        )
    posteriors = model.posteriors_
    best = posteriors.argmax(axis=1)
    counts = read.table.counts
    totals = counts.sum(axis=1)
    agreeing = counts[np.arange(len(unique_pairs)), best]
    gold_rows: list[GoldRow] = [
        (int(pk), DAWID_SKENE, NLI_LABELS[int(b)], int(t), int(a))
        for pk, b, t, a in zip(unique_pairs, best, totals, agreeing, strict=True)
    ]
    store.write_gold(DAWID_SKENE, gold_rows, run_id)
    store.write_posteriors(
        DAWID_SKENE,
        [(int(pk), float(p[0]), float(p[1]), float(p[2]))
         for pk, p in zip(unique_pairs, posteriors, strict=True)],
        run_id,
    )  # fmt: skip
    store.write_annotator_quality(
        DAWID_SKENE,
        [
            (int(pk), orjson.dumps({"true": list(NLI_LABELS), "given": values,
                                    "matrix": np.round(m, 6).tolist()}).decode(), float(r))
            for pk, m, r in zip(unique_workers, model.confusions_, model.reliabilities_,
                                strict=True)
        ],
        run_id,
    )  # fmt: skip
    return gold_disagreements(store, DAWID_SKENE, MAJORITY), model.iterations_


def _votes_text(pairs_by_votes: dict[int, int]) -> str:
    """'15 votes', or '4 to 100 votes (mostly 100)' when validated pairs differ."""
    fewest, most = min(pairs_by_votes), max(pairs_by_votes)
    if fewest == most:
        return f"{most} votes"
    typical = max(pairs_by_votes, key=lambda votes: (pairs_by_votes[votes], votes))
    return f"{fewest} to {most} votes (mostly {typical})"


def rule_warnings(cfg: AggregateConfig, seen: ValidatedVotes) -> list[str]:
    """What the majority rule did that its user may not expect: applied to pairs with
    other numbers of votes than it was written for, or giving no gold at all."""
    if not seen.pairs_by_votes:
        return []
    warnings = []
    applied = f"gold needs {min_agree_text(cfg.min_agree)} (--min-agree {cfg.min_agree})"
    typical = max(seen.pairs_by_votes, key=lambda votes: (seen.pairs_by_votes[votes], votes))
    # A count written for 5 votes means something else for 15: 3 of 15 is a plurality.
    # Fewer votes on a few pairs (SNLI's 4-vote pairs) is the papers' own case.
    if typical != cfg.votes_per_pair or max(seen.pairs_by_votes) > cfg.votes_per_pair:
        warning = (
            f"validated pairs have {_votes_text(seen.pairs_by_votes)}, the rule was written "
            f"for {cfg.votes_per_pair}; {applied}"
        )
        if isinstance(cfg.min_agree, int):
            share = round(min(cfg.min_agree / cfg.votes_per_pair, 1.0), 2)
            warning += f"; pass --min-agree {share} for a share of each pair's votes"
        warnings.append(warning)
    if not seen.with_gold:
        warnings.append(
            f"no validated pair has gold: {applied}, and on no pair does one label reach "
            f"that with more votes than any other (one label has at most "
            f"{seen.most_agreeing} votes on a pair); lower --min-agree"
        )
    return warnings


def _same_min_agree(stored: object, wanted: int | float) -> bool:
    """A stored rule's `min_agree` is the one wanted: count 1 and share 1.0 differ."""
    return type(stored) is type(wanted) and stored == wanted


def run(store: Store, cfg: AggregateConfig) -> AggregateResult:
    with store.recorded_run(AGGREGATE_LABELS, cfg) as run:
        run_id = run.id
        # The majority is the published gold, and Dawid-Skene reports where it disagrees
        # with it: it is rewritten unless no vote came since it was computed with the same
        # --min-agree (votes are only ever added, by runs with higher IDs), and no
        # `check --repair` rewrote the counts it was computed from.
        current = gold_run(store, MAJORITY)
        up_to_date = (
            current is not None
            and _same_min_agree(current[1].get("min_agree"), cfg.min_agree)
            and max(latest_vote_run(store), latest_check_repair_run(store)) < current[0]
        )
        if not up_to_date:
            store.write_majority_gold(MAJORITY, cfg.min_agree, run_id)
        summary = majority_summary(store)
        by_label, validated = summary.by_label, summary.validated
        pairs = sum(by_label.values())
        if not pairs:
            raise ConfigError("the store has no votes to aggregate; import or relabel pairs first")
        has_released = gold_run(store, RELEASED) is not None
        released = gold_disagreements(store, MAJORITY, RELEASED) if has_released else 0
        ds_disagreements = iterations = None
        if cfg.method is AggregateMethod.DAWID_SKENE:
            ds_disagreements, iterations = _dawid_skene(store, cfg, run_id)
        result = AggregateResult(
            run_id=run_id,
            signature=run.signature,
            method=cfg.method.value,
            pairs=pairs,
            by_label={label: by_label.get(label, 0) for label in (*NLI_LABELS, NO_GOLD)},
            validated=validated,
            unvalidated=pairs - validated,
            released_disagreements=released if has_released else None,
            dawid_skene_disagreements=ds_disagreements,
            iterations=iterations,
            warnings=rule_warnings(cfg, validated_votes(store)),
        )
        counts = {
            "pairs": pairs,
            "no_gold": result.by_label[NO_GOLD],
            "unvalidated": pairs - validated,
        }
        if ds_disagreements is not None:
            counts["dawid_skene_disagreements"] = ds_disagreements
        run.finish(counts)
    return result


def summary(cfg: AggregateConfig, result: AggregateResult) -> str:
    labels = ", ".join(f"{label} {n}" for label, n in result.by_label.items())
    extra = ""
    if result.released_disagreements is not None:
        extra += f"; {result.released_disagreements} differ from the released gold"
    if result.dawid_skene_disagreements is not None:
        extra += (
            f"; Dawid-Skene ({result.iterations} iterations) disagrees with the majority on "
            f"{counted(result.dawid_skene_disagreements, 'pair')}"
        )
    return (
        f"Aggregated {counted(result.pairs, 'pair')} by majority (at least {cfg.min_agree}): "
        f"{labels}; {result.validated} validated, {result.unvalidated} unvalidated (author "
        f"only){extra} {run_note(result)}"
    )


STAGE = Stage(
    AGGREGATE_LABELS,
    settings=AggregateConfig,
    run=run,
    summary=summary,
    warnings=lambda result: result.warnings,
)
