"""Dataset cartography (Swayamdipta et al. 2020, "Dataset Cartography: Mapping and
Diagnosing Datasets with Training Dynamics"): each training pair placed by its training
dynamics. Confidence is the mean, across epochs, of the probability the model gave the gold
label; variability is its standard deviation; correctness the share of epochs it was right.
A score job writes them (`results/dynamics.npy`) and `score train`/`score import` store
them in `score_dynamics`; with several seeds, each measure is the mean over the run's jobs.

Regions, as the paper reads the map: *ambiguous* pairs are those of high variability,
*hard-to-learn* pairs those of low confidence, *easy-to-learn* pairs those of high
confidence. The paper selects its subsets as the top 33% of the training pairs by
variability (ambiguous), the bottom 33% by confidence (hard-to-learn) and the top 33% by
confidence (easy-to-learn); those subsets overlap, so here a pair takes the first region
it falls in, in that order, and a pair in none is `other`. Ranks break ties by pair ID, so
the regions do not depend on the order of the rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from nlibuild.formats.tabular import write_text
from nlibuild.models import CartographyConfig, CartographyResult, CartographyRow
from nlibuild.queries.score_results import dynamics_run, jobs_with_dynamics, pair_dynamics
from nlibuild.store import Store

REGION_SHARE = 1 / 3
"""Swayamdipta et al. 2020: subsets of 33% of the training data per region."""

REGIONS = ("easy", "ambiguous", "hard", "other")

PairDynamics = tuple[str, str | None, str, str, float, float, float, int]
"""pair ID, gold, premise, hypothesis, confidence, variability, correctness, jobs"""


def _top_share(pairs: Sequence[PairDynamics], measure: int, highest: bool) -> set[str]:
    """The IDs of the REGION_SHARE of pairs with the highest (or lowest) `measure` (4:
    confidence, 5: variability)."""
    count = round(len(pairs) * REGION_SHARE)
    sign = -1.0 if highest else 1.0
    ranked = sorted(pairs, key=lambda pair: (sign * float(pair[measure] or 0), pair[0]))
    return {pair[0] for pair in ranked[:count]}


def regions(pairs: Sequence[PairDynamics]) -> dict[str, str]:
    """pair ID -> region, the first that holds the pair: ambiguous, hard, easy, else other."""
    ambiguous = _top_share(pairs, 5, highest=True)
    hard = _top_share(pairs, 4, highest=False)
    easy = _top_share(pairs, 4, highest=True)
    found = {}
    for pair in pairs:
        pair_id = pair[0]
        found[pair_id] = (
            "ambiguous" if pair_id in ambiguous else "hard" if pair_id in hard
            else "easy" if pair_id in easy else "other"
        )  # fmt: skip
    return found


def listed(pairs: Sequence[PairDynamics], top: int) -> list[CartographyRow]:
    """The `top` most ambiguous pairs (highest variability) and the `top` hardest to learn
    (lowest confidence); ties by pair ID."""
    ambiguous = sorted(pairs, key=lambda pair: (-pair[5], pair[0]))[:top]
    hard = sorted(pairs, key=lambda pair: (pair[4], pair[0]))[:top]
    return [
        CartographyRow(
            list=name,
            pair=pair[0],
            gold=pair[1],
            confidence=pair[4],
            variability=pair[5],
            correctness=pair[6],
            premise=pair[2],
            hypothesis=pair[3],
        )
        for name, chosen in (("ambiguous", ambiguous), ("hard", hard))
        for pair in chosen
    ]


def cartography(store: Store, cfg: CartographyConfig) -> CartographyResult:
    run_id = dynamics_run(store, cfg.run)
    pairs = pair_dynamics(store, run_id)
    counts = dict.fromkeys(REGIONS, 0)
    for region in regions(pairs).values():
        counts[region] += 1
    rows = listed(pairs, cfg.top)
    written = None
    if cfg.out is not None:
        ids = list(dict.fromkeys(row.pair for row in rows))  # a pair in both lists once
        header = f"# ambiguous and hard-to-learn pairs of score run {run_id}\n"
        write_text(cfg.out, header + "".join(f"{pair_id}\n" for pair_id in ids))
        written = len(ids)
    return CartographyResult(run_id=run_id, jobs=jobs_with_dynamics(store, run_id),
                             pairs=len(pairs), regions=counts, rows=rows,
                             written=written)  # fmt: skip
