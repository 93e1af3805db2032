"""Dataset cartography (Swayamdipta et al. 2020, "Dataset Cartography: Mapping and
Diagnosing Datasets with Training Dynamics"): each training pair placed on a data map by its
training dynamics over the E epochs of one model's training (section 2):

- confidence: the mean over the epochs of the probability the model gave the gold label;
- variability: the standard deviation of that probability over the epochs;
- correctness: the share of the epochs in which the gold label was the model's argmax.

A score job writes the per-epoch values (`results/dynamics.npy`, `results/gold_argmax.npy`)
and `score train`/`score import` store the three measures per job in `score_dynamics`
(scores/score_jobs.finished_dynamics). A map is of one job, or of one model and mode's jobs
(their seeds, each measure the mean over them); modes are never mixed: a hypothesis-only
model's map says nothing about the zero-shot model's. A map whose pairs some epoch count
under 2 reached is refused: a standard deviation over one epoch is 0, not a variability.

Regions, as the paper reads the map: the paper's subsets are the top 33% of the training
pairs by confidence (easy-to-learn), the bottom 33% by confidence (hard-to-learn) and the
top 33% by variability (ambiguous). Those subsets overlap (a pair may be both ambiguous and
easy), and so are they counted by default; `--regions exclusive` puts each pair in the first
of ambiguous, hard, easy that holds it, else `other`. Ranks break ties by pair ID, so the
regions do not depend on the order of the rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from nlibuild.errors import ConfigError
from nlibuild.formats.tabular import write_text
from nlibuild.models import (
    CartographyConfig,
    CartographyResult,
    CartographyRow,
    RegionRule,
)
from nlibuild.queries.score_results import (
    DynamicsJob,
    MappedPair,
    dynamics_run,
    jobs_with_dynamics,
    pair_dynamics,
)
from nlibuild.store import Store

REGION_SHARE = 1 / 3
"""Swayamdipta et al. 2020: subsets of 33% of the training data per region."""

REGIONS = ("easy", "ambiguous", "hard")
OTHER, NONE = "other", "none"
"""Exclusive regions put a pair in no region in `other`; overlapping ones count it in `none`."""

MIN_EPOCHS = 2
"""Variability is a standard deviation over epochs: one epoch gives 0, not a measure."""


def _top_share(pairs: Sequence[MappedPair], measure: str, highest: bool) -> set[str]:
    """The IDs of the REGION_SHARE of pairs with the highest (or lowest) `measure`."""
    count = round(len(pairs) * REGION_SHARE)
    sign = -1.0 if highest else 1.0
    ranked = sorted(pairs, key=lambda pair: (sign * float(getattr(pair, measure)), pair.id))
    return {pair.id for pair in ranked[:count]}


def region_sets(pairs: Sequence[MappedPair]) -> dict[str, set[str]]:
    """The paper's three subsets, by region: the pair IDs of each (they may overlap)."""
    return {
        "easy": _top_share(pairs, "confidence", highest=True),
        "ambiguous": _top_share(pairs, "variability", highest=True),
        "hard": _top_share(pairs, "confidence", highest=False),
    }


def exclusive_regions(pairs: Sequence[MappedPair]) -> dict[str, str]:
    """pair ID -> the first region that holds it: ambiguous, hard, easy, else other."""
    sets = region_sets(pairs)
    order = ("ambiguous", "hard", "easy")
    return {
        pair.id: next((name for name in order if pair.id in sets[name]), OTHER) for pair in pairs
    }


def region_counts(pairs: Sequence[MappedPair], rule: RegionRule) -> tuple[dict[str, int], int]:
    """Pairs per region under `rule`, and (overlapping) how many pairs are in two."""
    if rule is RegionRule.EXCLUSIVE:
        counts = dict.fromkeys((*REGIONS, OTHER), 0)
        for region in exclusive_regions(pairs).values():
            counts[region] += 1
        return counts, 0
    sets = region_sets(pairs)
    counts = {name: len(ids) for name, ids in sets.items()}
    memberships = [sum(pair.id in ids for ids in sets.values()) for pair in pairs]
    counts[NONE] = memberships.count(0)
    return counts, sum(1 for n in memberships if n >= 2)


def listed(pairs: Sequence[MappedPair], top: int) -> list[CartographyRow]:
    """The `top` most ambiguous pairs (highest variability) and the `top` hardest to learn
    (lowest confidence); ties by pair ID."""
    ambiguous = sorted(pairs, key=lambda pair: (-pair.variability, pair.id))[:top]
    hard = sorted(pairs, key=lambda pair: (pair.confidence, pair.id))[:top]
    return [
        CartographyRow(
            list=name,
            pair=pair.id,
            gold=pair.gold,
            confidence=pair.confidence,
            variability=pair.variability,
            correctness=pair.correctness,
            premise=pair.premise,
            hypothesis=pair.hypothesis,
        )
        for name, chosen in (("ambiguous", ambiguous), ("hard", hard))
        for pair in chosen
    ]


def mapped_jobs(store: Store, cfg: CartographyConfig) -> tuple[int, list[DynamicsJob]]:
    """The run and the jobs of the map: `--job`, else `--mode`'s jobs, else the run's jobs
    when they are of one model and mode; an error naming the choices otherwise."""
    run_id = dynamics_run(store, cfg.run)
    jobs = jobs_with_dynamics(store, run_id)
    if not jobs:
        where = "no score run has" if cfg.run is None else f"score run {run_id} has no"
        raise ConfigError(f"{where} training dynamics: they come with a training job that "
                          "finished (`score train`, `score import`)")  # fmt: skip
    chosen = jobs
    if cfg.job is not None:
        chosen = [job for job in jobs if job.name == cfg.job]
        if not chosen:
            raise ConfigError(f"--job {cfg.job}: score run {run_id} has no such job with "
                              f"training dynamics; its jobs: {_names(jobs)}")  # fmt: skip
    elif cfg.mode is not None:
        chosen = [job for job in jobs if job.mode == cfg.mode]
        if not chosen:
            modes = ", ".join(sorted({job.mode for job in jobs}))
            raise ConfigError(f"--mode {cfg.mode}: score run {run_id} has no job of that "
                              f"mode with training dynamics; its modes: {modes}")  # fmt: skip
    groups = sorted({f"{job.model} {job.mode}" for job in chosen})
    if len(groups) > 1:
        raise ConfigError(
            f"score run {run_id} has training dynamics of {len(groups)} models or modes "
            f"({'; '.join(groups)}); a data map is of one model's training, never mixed: "
            f"choose --mode MODE, or --job NAME of {_names(chosen)}"
        )
    return run_id, chosen


def _names(jobs: Sequence[DynamicsJob]) -> str:
    return ", ".join(job.name for job in jobs)


def map_pairs(store: Store, jobs: Sequence[DynamicsJob]) -> list[MappedPair]:
    """The mapped jobs' pairs; refused when some pair was reached by fewer than MIN_EPOCHS
    epochs (a job of under 2 epochs, or a partial last epoch after one whole one)."""
    pairs = pair_dynamics(store, [job.pk for job in jobs])
    short = [pair for pair in pairs if pair.epochs is not None and pair.epochs < MIN_EPOCHS]
    if short:
        raise ConfigError(
            f"{len(short)} of the {len(pairs)} training pairs of {_names(jobs)} were trained "
            f"on in fewer than {MIN_EPOCHS} epochs (pair {short[0].id}: {short[0].epochs}); "
            "variability is the standard deviation over epochs (Swayamdipta et al. 2020) and "
            f"needs {MIN_EPOCHS} at least: train again with --epochs {MIN_EPOCHS} or more"
        )
    return pairs


def result_pairs(store: Store, result: CartographyResult) -> list[MappedPair]:
    """The pairs of a map computed before (for its chart)."""
    jobs = jobs_with_dynamics(store, result.run_id)
    return pair_dynamics(store, [job.pk for job in jobs if job.name in result.job_names])


def run_modes(store: Store, run_id: int | None) -> list[str]:
    """The modes of the run's jobs with training dynamics (each one map)."""
    jobs = jobs_with_dynamics(store, dynamics_run(store, run_id))
    return sorted({job.mode for job in jobs})


def cartography(store: Store, cfg: CartographyConfig) -> CartographyResult:
    run_id, jobs = mapped_jobs(store, cfg)
    pairs = map_pairs(store, jobs)
    counts, in_two = region_counts(pairs, cfg.regions)
    rows = listed(pairs, cfg.top)
    written = None
    if cfg.out is not None:
        ids = list(dict.fromkeys(row.pair for row in rows))  # a pair in both lists once
        header = f"# ambiguous and hard-to-learn pairs of {_names(jobs)} (score run {run_id})\n"
        write_text(cfg.out, header + "".join(f"{pair_id}\n" for pair_id in ids))
        written = len(ids)
    return CartographyResult(
        run_id=run_id, jobs=len(jobs), job_names=[job.name for job in jobs],
        model=jobs[0].model, mode=jobs[0].mode, pairs=len(pairs), region_rule=cfg.regions,
        regions=counts, in_two=in_two, correctness=all(job.correctness for job in jobs),
        rows=rows, written=written,
    )  # fmt: skip
