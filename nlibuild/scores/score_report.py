"""The statistics of `nlibuild score report`: what a score run says about the corpus.

Keung et al. 2020 ("Don't Use English Dev: On the Zero-Shot Cross-Lingual Evaluation of
Contextual Embeddings") show that the checkpoint a zero-shot run reports depends on how it
is chosen. Per job and target language a `SelectRule` picks one checkpoint (ties: the
earliest); per model group (a model and a mode, over its seeds) the report gives:

- the test accuracy under every rule, the mean over seeds, with a percentile bootstrap
  interval that resamples the test rows (their per-example correctness read from the job
  folders' predictions; rows drawn in the order of their pair IDs with a fixed seed, so the
  interval does not depend on the order of the rows). It covers the test rows only
  (`INTERVAL_COVERS`), which the table and the json say;
- Table 2: "Zero-shot accuracies over 10 independent mBERT fine-tuning experiments ...
  For each run, we computed the zero-shot accuracies using the checkpoint with the best En
  dev performance. We show the minimum and maximum accuracy for each task across the 10
  experiments. En dev scores are within 0.9% of each other, but non-En test scores vary":
  so min, max and max - min across seeds at each seed's En-dev checkpoint, of the training
  language's *dev* accuracy and of each target language's test accuracy;
- Table 5: "Oracle zero-shot accuracies with mBERT across 10 independent runs, using
  target dev to select the best checkpoint for each language ... Best En dev results are
  from Table 2" (whose Max row they equal): so, per target language, the best run over the
  seeds under target-dev selection and under En-dev selection, and their difference; beside
  them the best test checkpoint of any seed (`test-ceiling`, not Keung's); the same columns
  as means over seeds are an extra view (`gaps_mean`);
- Table 3: "We randomly sample pairs of checkpoints where the change in target test
  accuracy for the pair is at least 0.5%, and compute the proportion for which the En dev
  accuracy changed in the same direction", and the same for target dev; pairs within one
  job, at most `max_pairs` of them sampled with the seed, all of them when fewer;
- XTREME's cross-lingual transfer gap (Hu et al. 2020, Table 3): "the difference between
  performance on the English test set and the average performance on the other languages",
  with the training language in English's place;
- per-slice test accuracy at the selected checkpoint (OCNLI Table 7 style);
- the `score baselines` jobs beside the models, as the floor;
- asked for, each seed's checkpoint and accuracies under every rule (`per_seed`), and each
  seed's dev and test accuracy at every checkpoint (`per_checkpoint`: the report page's
  accuracy-by-checkpoint chart, whose marks are the `per_seed` checkpoints).

A sweep (`score plan --lr 1e-5,2e-5`) gives a model and mode several configurations
(`score_jobs.configuration_key`), each with its seeds. XTREME (Hu et al. 2020, section 4.2):
"All hyper-parameter tuning is done on English validation data. We encourage authors
evaluating on XTREME to do the same." So per model and mode the report picks the
configuration with the best mean over its seeds of En dev accuracy, each seed at its En-dev
checkpoint, names it and the runner-up (a note, `configurations`), and computes every table
on the picked configuration's jobs (`ConfigurationChoice.ALL`: on every configuration, each
a group). Beside it, per target language, the configuration with the best mean target dev
(Keung's oracle applied to the sweep, `configuration_target_dev`). A model and mode with one
configuration is reported as it always was.

The "English" of a job is its first training language (`train_langs[0]`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from nlibuild.errors import ConfigError
from nlibuild.models import (
    BASELINE_MODES,
    AccuracyRow,
    AgreementRow,
    BaselineRow,
    CheckpointRow,
    ConfigurationChoice,
    ConfigurationRow,
    ConfigurationTargetDevRow,
    GapRow,
    ScoreReport,
    ScoreReportConfig,
    SeedRow,
    SelectRule,
    SliceRow,
    SpreadRow,
    TransferGapRow,
)
from nlibuild.queries.score_results import (
    BASELINE_RUN_STAGE,
    MODEL_RUN_STAGES,
    ScoreJob,
    checkpoint_progress,
    newest_baseline_run,
    score_jobs,
    score_run,
    slice_accuracy,
    whole_accuracy,
)
from nlibuild.scores.score_jobs import (
    CONFIGURATION_SETTINGS,
    Configuration,
    configuration_text,
    stored_configuration,
)
from nlibuild.scoring import job_files
from nlibuild.store import Store

Floats = npt.NDArray[np.float64]

_TOLERANCE = 1e-9
"""Accuracies are ratios of counts: a change of exactly 0.5 points may come out a hair under."""


@dataclass(frozen=True)
class JobSeries:
    """One job's accuracy at every checkpoint: per (lang, split), an array over the
    checkpoints in training order (NaN where a checkpoint has no row)."""

    job: ScoreJob
    indexes: tuple[int, ...]
    accuracy: dict[tuple[str, str], Floats]
    totals: dict[tuple[str, str], int]

    @property
    def source_lang(self) -> str:
        return self.job.train_langs[0]

    def series(self, lang: str, split: str) -> Floats:
        found = self.accuracy.get((lang, split))
        return found if found is not None else np.full(len(self.indexes), np.nan)


def job_series(job: ScoreJob, rows: Sequence[tuple[int, str, str, int, int]]) -> JobSeries:
    """A job's series from its `(idx, lang, split, correct, total)` rows."""
    indexes = tuple(sorted({row[0] for row in rows}))
    position = {idx: pos for pos, idx in enumerate(indexes)}
    accuracy: dict[tuple[str, str], Floats] = {}
    totals: dict[tuple[str, str], int] = {}
    for idx, lang, split, correct, total in rows:
        values = accuracy.setdefault((lang, split), np.full(len(indexes), np.nan))
        values[position[idx]] = correct / total if total else np.nan
        totals[(lang, split)] = total
    return JobSeries(job=job, indexes=indexes, accuracy=accuracy, totals=totals)


def selected_position(series: JobSeries, rule: SelectRule, lang: str) -> int | None:
    """The position of the checkpoint `rule` picks for target `lang`, among those with a
    test accuracy in `lang`; the earliest of equals; None when the rule has nothing to go on."""
    test = series.series(lang, "test")
    usable = np.isfinite(test)
    if not usable.any():
        return None
    if rule is SelectRule.LAST:
        return int(np.flatnonzero(usable)[-1])
    criterion = {
        SelectRule.EN_DEV: series.series(series.source_lang, "dev"),
        SelectRule.TARGET_DEV: series.series(lang, "dev"),
        SelectRule.TEST_CEILING: test,
    }[rule]
    scores = np.where(usable & np.isfinite(criterion), criterion, -np.inf)
    if not np.isfinite(scores).any():
        return None
    return int(np.argmax(scores))  # argmax takes the first of equal maxima: the earliest


def group_name(job: ScoreJob) -> str:
    """What the report calls a model group: the model folder's name and the mode."""
    return f"{Path(job.model).name}/{job.mode}" if job.model else job.mode


def group_langs(group: Sequence[JobSeries]) -> list[str]:
    """The group's evaluation languages: the training language first, then by code."""
    source = group[0].source_lang
    langs = {lang for s in group for (lang, split) in s.accuracy if split == "test"}
    return sorted(langs, key=lambda lang: (lang != source, lang))


def selected_accuracies(
    group: Sequence[JobSeries], rule: SelectRule, lang: str, split: str = "test"
) -> Floats:
    """Accuracy of each job (seed) at the checkpoint `rule` picks for target `lang`: in
    `lang`'s test split, or with `split` dev the training language's dev (Table 2's En row)."""
    values = []
    for series in group:
        pos = selected_position(series, rule, lang)
        if pos is not None:
            read = lang if split == "test" else series.source_lang
            values.append(series.series(read, split)[pos])
    return np.array(values, dtype=np.float64)


def seeds_under_rules(group: Sequence[JobSeries], lang: str, rules: Sequence[SelectRule]) -> Floats:
    """Test accuracy in `lang`, one row a seed and one column a rule, of the seeds every
    rule picks a checkpoint in (so a best or a mean over seeds compares the same runs)."""
    rows = []
    for series in group:
        picked = [selected_position(series, rule, lang) for rule in rules]
        if all(pos is not None for pos in picked):
            test = series.series(lang, "test")
            rows.append([test[pos] for pos in picked if pos is not None])
    return np.array(rows, dtype=np.float64).reshape(len(rows), len(rules))


# --- the bootstrap over test rows ----------------------------------------------------------


class Correctness:
    """Per-example correctness at a checkpoint, read from job folders (each folder's
    pairs.jsonl read once). A missing or unreadable file is a reason, never a crash."""

    def __init__(self) -> None:
        self._eval_rows: dict[Path, tuple[list[str], list[str], list[str], Floats] | str] = {}

    def _rows_of(self, folder: Path) -> tuple[list[str], list[str], list[str], Floats] | str:
        if folder not in self._eval_rows:
            try:
                rows = [p for p in job_files.read_pairs(folder) if p.split != job_files.TRAIN]
                self._eval_rows[folder] = (
                    [p.id for p in rows], [p.lang for p in rows], [p.split for p in rows],
                    np.array([p.label for p in rows], dtype=np.float64),
                )  # fmt: skip
            except (OSError, ValueError, TypeError) as exc:
                self._eval_rows[folder] = f"job folder {folder} cannot be read ({exc})"
        return self._eval_rows[folder]

    def test_rows(self, folder: Path, idx: int, lang: str) -> dict[str, bool] | str:
        """pair ID -> whether checkpoint `idx` got the test row of `lang` right."""
        rows = self._rows_of(folder)
        if isinstance(rows, str):
            return rows
        ids, langs, splits, labels = rows
        path = job_files.predictions_path(folder, idx)
        try:
            predicted = np.load(path)
        except (OSError, ValueError) as exc:
            return f"the predictions {path} cannot be read ({exc})"
        if len(predicted) != len(ids):
            return f"the predictions {path} hold {len(predicted)} rows, not {len(ids)}"
        return {
            ids[i]: bool(predicted[i] == labels[i])
            for i in range(len(ids))
            if langs[i] == lang and splits[i] == "test"
        }


def bootstrap_interval(
    per_row: Floats, level: float, resamples: int, seed: int
) -> tuple[float, float]:
    """Percentile interval of the mean of `per_row`, resampling its entries with
    replacement; rows must come in a fixed order (by pair ID) for the draw to repeat."""
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, 4_000_000 // max(len(per_row), 1))  # bounds the index matrix's memory
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        draws = rng.integers(0, len(per_row), size=(size, len(per_row)))
        means[start : start + size] = per_row[draws].mean(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))


def seeds_interval(
    group: Sequence[JobSeries], rule: SelectRule, lang: str, cfg: ScoreReportConfig,
    correctness: Correctness,
) -> tuple[float, float] | str:  # fmt: skip
    """The interval of the mean over seeds: each test row's correctness averaged over the
    seeds (at each seed's own selected checkpoint), then the rows resampled."""
    per_seed: list[dict[str, bool]] = []
    for series in group:
        pos = selected_position(series, rule, lang)
        if pos is None:
            continue
        found = correctness.test_rows(series.job.folder, series.indexes[pos], lang)
        if isinstance(found, str):
            return found
        per_seed.append(found)
    ids = sorted(per_seed[0]) if per_seed else []
    if not ids:
        return f"no test rows of {lang} in the job folders"
    if any(sorted(rows) != ids for rows in per_seed[1:]):
        return f"the seeds of {group_name(group[0].job)} hold different {lang} test rows"
    per_row = np.array([[rows[i] for i in ids] for rows in per_seed], dtype=np.float64)
    return bootstrap_interval(per_row.mean(axis=0), cfg.ci, cfg.resamples, cfg.seed)


# --- the tables ----------------------------------------------------------------------------


def accuracy_rows(
    name: str, group: Sequence[JobSeries], cfg: ScoreReportConfig, correctness: Correctness,
    notes: list[str],
) -> list[AccuracyRow]:  # fmt: skip
    rows = []
    for lang in group_langs(group):
        for rule in SelectRule:
            values = selected_accuracies(group, rule, lang)
            if not len(values):
                continue
            low, high = None, None
            if cfg.intervals:
                interval = seeds_interval(group, rule, lang, cfg, correctness)
                if isinstance(interval, str):
                    notes.append(f"{name} {lang} {rule.value}: interval left out: {interval}")
                else:
                    low, high = interval
            rows.append(AccuracyRow(group=name, lang=lang, select=rule.value,
                                    accuracy=float(values.mean()), low=low, high=high,
                                    seeds=len(values)))  # fmt: skip
    return rows


_TABLE_5_RULES = (SelectRule.EN_DEV, SelectRule.TARGET_DEV, SelectRule.TEST_CEILING)


def gap_rows(name: str, group: Sequence[JobSeries], best: bool) -> list[GapRow]:
    """Keung et al. Table 5, per target language (the paper's columns: the training language
    has none, its target dev being En dev). With `best` the best run over seeds, as the
    paper ("Best En dev results are from Table 2", its Max row); else the means over seeds."""
    rows = []
    source = group[0].source_lang
    for lang in group_langs(group):
        values = seeds_under_rules(group, lang, _TABLE_5_RULES)
        if lang == source or not len(values):
            continue
        en, target, ceiling = (float(v) for v in (values.max(0) if best else values.mean(0)))
        rows.append(GapRow(group=name, lang=lang, seeds=len(values), en_dev=en,
                           target_dev=target, target_dev_gain=target - en,
                           test_ceiling=ceiling, test_ceiling_gain=ceiling - en))  # fmt: skip
    return rows


def spread_rows(name: str, group: Sequence[JobSeries]) -> list[SpreadRow]:
    """Keung et al. Table 2: across seeds, each at its En-dev checkpoint; the training
    language's row is its dev accuracy ("En dev scores are within 0.9% of each other"), the
    others' their test accuracy."""
    rows = []
    source = group[0].source_lang
    for lang in group_langs(group):
        split = "dev" if lang == source else "test"
        values = selected_accuracies(group, SelectRule.EN_DEV, lang, split)
        if len(values):
            rows.append(SpreadRow(group=name, lang=lang, split=split, seeds=len(values),
                                  min=float(values.min()), max=float(values.max()),
                                  spread=float(values.max() - values.min())))  # fmt: skip
    return rows


def seed_rows(name: str, group: Sequence[JobSeries]) -> list[SeedRow]:
    """Each seed's checkpoint under every rule and its accuracies there (`--per-seed`)."""
    rows = []
    for series in sorted(group, key=lambda one: (one.job.seed, one.job.name)):
        en_dev = series.series(series.source_lang, "dev")
        for lang in group_langs(group):
            target_dev, test = series.series(lang, "dev"), series.series(lang, "test")
            for rule in SelectRule:
                pos = selected_position(series, rule, lang)
                if pos is None:
                    continue
                rows.append(SeedRow(
                    group=name, seed=series.job.seed, job=series.job.name, lang=lang,
                    select=rule.value, checkpoint=series.indexes[pos],
                    en_dev_accuracy=_finite(en_dev[pos]),
                    target_dev_accuracy=_finite(target_dev[pos]), test_accuracy=float(test[pos]),
                ))  # fmt: skip
    return rows


def checkpoint_rows(store: Store, name: str, group: Sequence[JobSeries]) -> list[CheckpointRow]:
    """Each seed's dev and test accuracy per language at every checkpoint, with the step and
    epoch it was taken at (`--per-checkpoint`): the series the rules pick from."""
    rows = []
    langs = group_langs(group)
    for series in sorted(group, key=lambda one: (one.job.seed, one.job.name)):
        progress = checkpoint_progress(store, series.job.pk)
        for lang in langs:
            dev, test = series.series(lang, "dev"), series.series(lang, "test")
            for pos, idx in enumerate(series.indexes):
                if np.isfinite(dev[pos]) or np.isfinite(test[pos]):
                    step, epoch = progress[idx]
                    rows.append(CheckpointRow(
                        group=name, seed=series.job.seed, job=series.job.name, lang=lang,
                        checkpoint=idx, step=step, epoch=epoch, dev_accuracy=_finite(dev[pos]),
                        test_accuracy=_finite(test[pos]),
                    ))  # fmt: skip
    return rows


def _finite(value: np.float64) -> float | None:
    return float(value) if np.isfinite(value) else None


def checkpoint_changes(
    group: Sequence[JobSeries], lang: str, min_change: float
) -> tuple[Floats, Floats, Floats]:
    """For every pair of checkpoints of a job whose target test accuracy changes by at least
    `min_change`: the change in target test, En dev and target dev (jobs by name, pairs
    in checkpoint order, so a seeded sample of them repeats)."""
    test_parts, en_parts, target_parts = [], [], []
    for series in group:
        test, target = series.series(lang, "test"), series.series(lang, "dev")
        en = series.series(series.source_lang, "dev")
        known = np.flatnonzero(np.isfinite(test) & np.isfinite(target) & np.isfinite(en))
        first, second = np.triu_indices(len(known), 1)
        first, second = known[first], known[second]
        change = test[second] - test[first]
        keep = np.abs(change) >= min_change - _TOLERANCE
        test_parts.append(change[keep])
        en_parts.append((en[second] - en[first])[keep])
        target_parts.append((target[second] - target[first])[keep])
    return (np.concatenate(test_parts), np.concatenate(en_parts),
            np.concatenate(target_parts))  # fmt: skip


def same_direction(dev: Floats, test: Floats) -> float | None:
    """The share of changes in which `dev` moved the way `test` did."""
    return float(np.mean(np.sign(dev) == np.sign(test))) if len(test) else None


def agreement_rows(
    name: str, group: Sequence[JobSeries], cfg: ScoreReportConfig
) -> list[AgreementRow]:
    """Keung et al. Table 3: a dev set agrees when its accuracy moved the same way as target
    test (a dev set that did not move does not agree)."""
    rows = []
    for lang in group_langs(group):
        test, en, target = checkpoint_changes(group, lang, cfg.min_change)
        sampled = np.arange(len(test))
        if len(test) > cfg.max_pairs:
            rng = np.random.default_rng(cfg.seed)
            sampled = np.sort(rng.choice(len(test), cfg.max_pairs, replace=False))
        test = test[sampled]
        rows.append(AgreementRow(group=name, lang=lang, pairs=len(en),
                                 sampled=len(sampled),
                                 en_dev=same_direction(en[sampled], test),
                                 target_dev=same_direction(target[sampled], test)))  # fmt: skip
    return rows


def transfer_gap_row(
    name: str, group: Sequence[JobSeries], rule: SelectRule
) -> TransferGapRow | None:
    """XTREME's transfer gap under `rule`: training language minus the others' mean."""
    means = {
        lang: float(values.mean())
        for lang in group_langs(group)
        if len(values := selected_accuracies(group, rule, lang))
    }
    source = group[0].source_lang
    if source not in means:
        return None
    others = [value for lang, value in means.items() if lang != source]
    others_mean = float(np.mean(others)) if others else None
    gap = means[source] - others_mean if others_mean is not None else None
    return TransferGapRow(
        group=name, select=rule.value, train_lang=source, train_accuracy=means[source],
        others_mean=others_mean, gap=gap,
    )  # fmt: skip


def slice_rows(
    store: Store, name: str, group: Sequence[JobSeries], rule: SelectRule
) -> list[SliceRow]:
    """Per language, slice and value: test accuracy at each seed's selected checkpoint,
    the mean over the seeds that have the value."""
    rows = []
    for lang in group_langs(group):
        found: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
        for series in group:
            pos = selected_position(series, rule, lang)
            if pos is None:
                continue
            idx = series.indexes[pos]
            for slice_name, value, correct, total in slice_accuracy(
                store, series.job.pk, idx, lang, "test"
            ):
                found[(slice_name, value)].append((correct, total))
        for (slice_name, value), counts in sorted(found.items()):
            accuracy = float(np.mean([c / t for c, t in counts if t]))
            rows.append(SliceRow(group=name, lang=lang, slice=slice_name, value=value,
                                 accuracy=accuracy, total=counts[0][1]))  # fmt: skip
    return rows


def baseline_rows(series: Sequence[JobSeries]) -> list[BaselineRow]:
    """Each baseline mode's test accuracy per language (its one checkpoint; mean over jobs)."""
    found: dict[tuple[str, str], list[tuple[float, int]]] = defaultdict(list)
    for one in series:
        for (lang, split), values in one.accuracy.items():
            if split == "test" and np.isfinite(values[-1]):
                found[(one.job.mode, lang)].append((float(values[-1]), one.totals[(lang, split)]))
    order = {mode: rank for rank, mode in enumerate(BASELINE_MODES)}
    rows = []
    for (mode, lang), kept in sorted(found.items(), key=lambda i: (order[i[0][0]], i[0])):
        accuracy = float(np.mean([a for a, _ in kept]))
        rows.append(BaselineRow(baseline=mode, lang=lang, accuracy=accuracy, total=kept[0][1]))
    return rows


def report_jobs(store: Store, run_id: int) -> tuple[list[JobSeries], list[JobSeries]]:
    """The run's model jobs, and the baseline jobs shown beside them: the run's own and
    those of the newest `score baselines` run."""
    jobs = score_jobs(store, run_id)
    baseline_run = newest_baseline_run(store)
    if baseline_run is not None and baseline_run != run_id:
        jobs += score_jobs(store, baseline_run)
    series = [job_series(job, whole_accuracy(store, job.pk)) for job in jobs]
    series = [s for s in series if s.indexes]
    models = [s for s in series if s.job.mode not in BASELINE_MODES]
    return models, [s for s in series if s.job.mode in BASELINE_MODES]


def report_run(store: Store, run_id: int | None) -> int:
    """`run_id`, else the newest model run, else the newest `score baselines` run."""
    if run_id is None and newest_baseline_run(store) is not None:
        try:
            return score_run(store, None, MODEL_RUN_STAGES)
        except ConfigError:
            return score_run(store, None, (BASELINE_RUN_STAGE,))
    return score_run(store, run_id, (*MODEL_RUN_STAGES, BASELINE_RUN_STAGE))


def score_report(store: Store, cfg: ScoreReportConfig) -> ScoreReport:
    run_id = report_run(store, cfg.run)
    models, baselines = report_jobs(store, run_id)
    report = ScoreReport(run_id=run_id, jobs=len(models) + len(baselines), select=cfg.select,
                         ci=cfg.ci, resamples=cfg.resamples, min_change=cfg.min_change,
                         accuracy=[], gaps=[], gaps_mean=[], spread=[], agreement=[],
                         transfer=[], slices=[], baselines=baseline_rows(baselines),
                         per_seed=[], notes=[], configuration=cfg.configuration)  # fmt: skip
    correctness = Correctness()
    for name, group in shown_groups(report, models, cfg.configuration):
        add_group_tables(store, report, name, group, cfg, correctness)
    return report


def add_group_tables(
    store: Store, report: ScoreReport, name: str, group: Sequence[JobSeries],
    cfg: ScoreReportConfig, correctness: Correctness,
) -> None:  # fmt: skip
    """Every table's rows of one group (a model and mode, or one configuration of it)."""
    report.accuracy += accuracy_rows(name, group, cfg, correctness, report.notes)
    report.gaps += gap_rows(name, group, best=True)
    report.gaps_mean += gap_rows(name, group, best=False)
    report.spread += spread_rows(name, group)
    report.agreement += agreement_rows(name, group, cfg)
    if (gap := transfer_gap_row(name, group, cfg.select)) is not None:
        report.transfer.append(gap)
    report.slices += slice_rows(store, name, group, cfg.select)
    if cfg.per_seed:
        report.per_seed += seed_rows(name, group)
    if cfg.per_checkpoint:
        report.checkpoints += checkpoint_rows(store, name, group)


# --- sweeps: the configuration picked on En dev ---------------------------------------------


def dev_accuracies(group: Sequence[JobSeries], rule: SelectRule, lang: str) -> Floats:
    """Dev accuracy in `lang` of each job (seed) at the checkpoint `rule` picks for `lang`:
    with the training language and `EN_DEV`, En dev at the En-dev checkpoint (Table 2's En
    row); with a target and `TARGET_DEV`, target dev at the target-dev one. Jobs without one
    are left out."""
    values = []
    for series in group:
        pos = selected_position(series, rule, lang)
        if pos is not None and np.isfinite(dev := series.series(lang, "dev")[pos]):
            values.append(dev)
    return np.array(values, dtype=np.float64)


def _mean(values: Floats) -> float | None:
    return float(values.mean()) if len(values) else None


def _best_first(scored: dict[Configuration, float | None]) -> list[Configuration]:
    """The configurations with a score, best first; of equal scores (up to the summation
    order's last digits) the first in settings order, as selection takes the earliest."""
    known = [key for key, value in scored.items() if value is not None]
    return sorted(known, key=lambda key: -round(scored[key] or 0.0, 12))


def _settings_order(key: Configuration) -> tuple[tuple[str, int, float, str], ...]:
    """Configurations in the order of their settings, numbers by value (1e-05 before 2e-05)."""
    return tuple((name, 0, float(value), "") if isinstance(value, int | float)
                 else (name, 1, 0.0, str(value)) for name, value in key)  # fmt: skip


@dataclass(frozen=True)
class Sweep:
    """A model and mode's jobs by configuration (a sweep when there are several), the
    configurations in settings order, each holding its seeds."""

    name: str
    configurations: dict[Configuration, list[JobSeries]]

    @property
    def swept(self) -> tuple[str, ...]:
        """The settings whose values differ between the configurations: what names them."""
        values = [dict(key) for key in self.configurations]
        return tuple(name for name in CONFIGURATION_SETTINGS
                     if len({repr(one.get(name)) for one in values}) > 1)  # fmt: skip

    def text(self, key: Configuration) -> str:
        return configuration_text(key, self.swept)

    def en_dev(self, key: Configuration) -> float | None:
        """XTREME's criterion: the mean over the seeds of En dev at the En-dev checkpoint."""
        group = self.configurations[key]
        return _mean(dev_accuracies(group, SelectRule.EN_DEV, group[0].source_lang))

    def target_dev(self, key: Configuration, lang: str) -> float | None:
        """The mean over the seeds of `lang`'s dev at the target-dev checkpoint."""
        return _mean(dev_accuracies(self.configurations[key], SelectRule.TARGET_DEV, lang))

    def ranked(self) -> list[Configuration]:
        """By mean En dev, best first: the first is the pick, the second the runner-up."""
        return _best_first({key: self.en_dev(key) for key in self.configurations})

    def langs(self) -> list[str]:
        return group_langs([one for group in self.configurations.values() for one in group])


def sweeps_of(models: Sequence[JobSeries]) -> dict[str, Sweep]:
    """Each model and mode's jobs by configuration (a job's from its stored spec)."""
    found: dict[str, dict[Configuration, list[JobSeries]]] = defaultdict(dict)
    for series in models:
        key = stored_configuration(series.job.spec)
        found[group_name(series.job)].setdefault(key, []).append(series)
    return {name: Sweep(name, {key: configurations[key]
                               for key in sorted(configurations, key=_settings_order)})
            for name, configurations in sorted(found.items())}  # fmt: skip


def configuration_rows(sweep: Sweep, ranked: Sequence[Configuration]) -> list[ConfigurationRow]:
    rank = {key: place for place, key in enumerate(ranked, 1)}
    rows = []
    for key, group in sweep.configurations.items():
        source = group[0].source_lang
        target_dev = {lang: value for lang in group_langs(group) if lang != source
                      and (value := sweep.target_dev(key, lang)) is not None}  # fmt: skip
        rows.append(ConfigurationRow(
            group=sweep.name, configuration=sweep.text(key), settings=dict(key),
            seeds=len(group), train_lang=source, en_dev=sweep.en_dev(key), rank=rank.get(key),
            target_dev=target_dev,
        ))  # fmt: skip
    return rows


def target_dev_rows(sweep: Sweep, picked: Configuration | None) -> list[ConfigurationTargetDevRow]:
    """Per target language the En-dev pick beside the target-dev one (Keung's oracle), and
    the mean test accuracy under each (the pick's jobs at their En-dev, resp. target-dev,
    checkpoints)."""
    rows = []
    source = next(iter(sweep.configurations.values()))[0].source_lang
    for lang in sweep.langs():
        ranked = _best_first({key: sweep.target_dev(key, lang) for key in sweep.configurations})
        if lang == source or not ranked:
            continue
        best = ranked[0]
        oracle_dev, oracle_test = (
            sweep.target_dev(best, lang),
            _mean(selected_accuracies(sweep.configurations[best], SelectRule.TARGET_DEV, lang)),
        )
        en_test = (
            None
            if picked is None
            else _mean(selected_accuracies(sweep.configurations[picked], SelectRule.EN_DEV, lang))
        )
        if oracle_dev is None or oracle_test is None:
            continue
        rows.append(ConfigurationTargetDevRow(
            group=sweep.name, lang=lang,
            en_dev_configuration=None if picked is None else sweep.text(picked),
            en_dev_test=en_test, target_dev_configuration=sweep.text(best),
            target_dev=oracle_dev, target_dev_test=oracle_test,
            target_dev_gain=None if en_test is None else oracle_test - en_test,
        ))  # fmt: skip
    return rows


XTREME_TUNING = '"All hyper-parameter tuning is done on English validation data" (XTREME)'


def pick_note(sweep: Sweep, ranked: Sequence[Configuration], choice: ConfigurationChoice) -> str:
    """The line that says which configuration the tables show and why."""
    count = len(sweep.configurations)
    if not ranked:
        return (f"{sweep.name}: {count} configurations and no En dev accuracy to pick one on: "
                "the tables show every configuration")  # fmt: skip
    picked = ranked[0]
    source = sweep.configurations[picked][0].source_lang
    text = (f"{sweep.name}: of {count} configurations, {sweep.text(picked)} has the best mean "
            f"{source} dev over its seeds, {sweep.en_dev(picked):.4f} "
            f"({len(sweep.configurations[picked])} seeds); {XTREME_TUNING}")  # fmt: skip
    if len(ranked) > 1:
        text += f"; runner-up {sweep.text(ranked[1])}, {sweep.en_dev(ranked[1]):.4f}"
    if choice is ConfigurationChoice.ALL:
        return text + "; the tables show every configuration (--configuration all)"
    return text + "; the tables show its jobs (--configuration all: every configuration)"


def shown_groups(
    report: ScoreReport, models: Sequence[JobSeries], choice: ConfigurationChoice
) -> list[tuple[str, list[JobSeries]]]:
    """The groups the tables are computed on, by name: a model and mode with one
    configuration as it is; of a sweep the configuration picked on En dev, or with
    `choice` all (or nothing to pick on) each configuration as `name [lr 2e-05]`. A
    sweep's configurations, picks and note go into `report`."""
    shown = []
    for name, sweep in sweeps_of(models).items():
        if len(sweep.configurations) == 1:
            shown.append((name, next(iter(sweep.configurations.values()))))
            continue
        ranked = sweep.ranked()
        picked = ranked[0] if ranked else None
        report.configurations += configuration_rows(sweep, ranked)
        report.configuration_target_dev += target_dev_rows(sweep, picked)
        report.notes.append(pick_note(sweep, ranked, choice))
        if picked is not None and choice is ConfigurationChoice.EN_DEV:
            shown.append((name, sweep.configurations[picked]))
        else:
            shown += [(f"{name} [{sweep.text(key)}]", group)
                      for key, group in sweep.configurations.items()]  # fmt: skip
    return shown
