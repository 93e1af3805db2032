"""`nlibuild score baselines`: the floors a model's scores are read against, on CPU and
recorded like a model's jobs (one job a baseline, one checkpoint, every slice), so that a
report shows them beside the model:

- majority: the train split's most frequent gold label (ties: entailment, neutral,
  contradiction);
- hypothesis-only-bow: the hypothesis-only classifier of `bias hypothesis-only`
  (artifacts.single_sentence_model: TF-IDF words and characters, logistic regression;
  Poliak et al. 2018, OCNLI Table 7);
- overlap: a logistic regression on lexical overlap (overlap.overlap_shares: the share of the
  hypothesis's and of the premise's units the two share), the length difference in the
  language's unit, and whether the hypothesis has a negator.

Majority and overlap are trained on the train split in the train language (the zero-shot
rows) and scored on the dev and test of every evaluation language. The hypothesis-only
classifier is trained per language, on that language's own train split (the pairs written
in it, or their human translations into it) and scored on its dev and test: its point is
the artifacts of that language's hypotheses (Poliak et al. 2018), which a model trained on
English hypotheses and applied to German ones does not measure. A language whose train
split has no text in it has no hypothesis-only score ("n.a."): the job's `train_langs` are
the languages it has a model for, its `eval_langs` all that were asked for.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlibuild.core.progress import progress
from nlibuild.core.registry import SCORE_BASELINES
from nlibuild.core.stage import Stage
from nlibuild.labelling.artifacts import model_texts, single_sentence_model
from nlibuild.models import (
    NLI_LABELS,
    BaselineMode,
    ScoreBaselinesConfig,
    ScoreJobSummary,
    ScoreMode,
    ScoreResult,
    ScoreRowCounts,
)
from nlibuild.queries.scores import last_accuracy
from nlibuild.scores.score_jobs import (
    ModeJob,
    eval_groups,
    job_rows,
    merged_left_out,
    mode_jobs,
    read_corpus,
    resolve_langs,
    score_summary,
)
from nlibuild.scoring.job_files import TRAIN, PairRecord
from nlibuild.store import ScoreJobRow, Store
from nlibuild.text.lang import text_length
from nlibuild.text.negators import negator_lexicon
from nlibuild.text.overlap import overlap_shares


def majority_label(labels: Sequence[int]) -> int:
    """The most frequent label index; ties go to the first in entailment, neutral,
    contradiction."""
    counts = Counter(labels)
    return max(range(len(NLI_LABELS)), key=lambda i: (counts[i], -i))


def _by_lang(records: Sequence[PairRecord]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for at, record in enumerate(records):
        found.setdefault(record.lang, []).append(at)
    return found


def _texts(records: Sequence[PairRecord]) -> list[str]:
    """The hypotheses as the classifier reads them, each language cut its own way."""
    texts = [""] * len(records)
    for lang, rows in _by_lang(records).items():
        for at, text in zip(rows, model_texts([records[i].hypothesis for i in rows], lang),
                            strict=True):  # fmt: skip
            texts[at] = text
    return texts


def overlap_features(records: Sequence[PairRecord]) -> np.ndarray:
    """Hypothesis share, premise share, length difference (hypothesis minus premise, in
    the language's unit) and negator present (0 where the language has no lexicon)."""
    rows = []
    lexicons = {lang: negator_lexicon(lang) for lang in {r.lang for r in records}}
    for r in records:
        of_hypothesis, of_premise = overlap_shares(r.hypothesis, r.premise, r.lang)
        length = text_length(r.hypothesis, r.lang) - text_length(r.premise, r.lang)
        negated = float(not lexicons[r.lang].empty and lexicons[r.lang].negated(r.hypothesis))
        rows.append((of_hypothesis, of_premise, float(length), negated))
    return np.asarray(rows, dtype=np.float64).reshape(-1, 4)


def _predict(
    mode: BaselineMode, train: list[PairRecord], evaluated: list[PairRecord], seed: int
) -> np.ndarray:
    labels = np.asarray([r.label for r in train])
    if mode is BaselineMode.MAJORITY:
        return np.full(len(evaluated), majority_label(labels.tolist()), dtype=np.int8)
    model: Any
    if mode is BaselineMode.HYPOTHESIS_ONLY_BOW:
        model = single_sentence_model(train[0].lang, seed)
        model.fit(_texts(train), labels)
        return np.asarray(model.predict(_texts(evaluated)), dtype=np.int8)
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000, random_state=seed))
    model.fit(overlap_features(train), labels)
    return np.asarray(model.predict(overlap_features(evaluated)), dtype=np.int8)


@dataclass
class Scored:
    """A baseline's predictions over the evaluation rows of the jobs it was fitted in."""

    train_langs: tuple[str, ...]
    train_rows: int
    evaluated: list[PairRecord]
    predictions: np.ndarray


def scored(mode: BaselineMode, jobs: Sequence[ModeJob], seed: int) -> Scored:
    """Fit `mode` on each job's training rows and predict its evaluation rows."""
    langs: list[str] = []
    train_rows = 0
    evaluated: list[PairRecord] = []
    predictions = []
    for job in jobs:
        train = [r for r in job.rows.records if r.split == TRAIN]
        rows = [r for r in job.rows.records if r.split != TRAIN]
        langs += [lang for lang in job.train_langs if lang not in langs]
        train_rows += len(train)
        evaluated += rows
        predictions.append(_predict(mode, train, rows, seed))
    return Scored(tuple(langs), train_rows, evaluated, np.concatenate(predictions))


def run(store: Store, cfg: ScoreBaselinesConfig) -> ScoreResult:
    with store.recorded_run(SCORE_BASELINES, cfg) as run:
        train_lang, evals = resolve_langs(store, cfg.langs)
        corpus = read_corpus(store, evals)
        rows = job_rows(corpus, ScoreMode.ZERO_SHOT, train_lang, evals)
        per_language = mode_jobs(corpus, ScoreMode.HYP_ONLY, train_lang, evals)
        zero_shot = [ModeJob((train_lang,), evals, rows)]
        jobs_of = {mode: zero_shot for mode in BaselineMode}
        jobs_of[BaselineMode.HYPOTHESIS_ONLY_BOW] = per_language.jobs
        pairs = {p.id: p for p in corpus.pairs}
        jobs = []
        with progress("baselines", len(BaselineMode), "baselines") as advance:
            for mode in BaselineMode:
                started = time.perf_counter()
                found = scored(mode, jobs_of[mode], cfg.seed)
                groups = eval_groups(found.evaluated, pairs)
                name = f"{mode.value}-s{cfg.seed}"
                job_pk = store.add_score_job(
                    ScoreJobRow(name, "", mode.value, cfg.seed, found.train_langs, evals, "{}", ""),
                    run.id,
                )
                checkpoint = (0, 0, 1.0, found.train_rows, None, time.perf_counter() - started)
                store.add_score_checkpoint(
                    job_pk, checkpoint, groups.accuracy_rows(found.predictions)
                )
                store.finish_score_job(job_pk, [])
                jobs.append(
                    ScoreJobSummary(
                        name=name, mode=mode.value, seed=cfg.seed, train_rows=found.train_rows,
                        eval_rows=len(found.evaluated), checkpoints=1, added=1, finished=True,
                        last_accuracy=last_accuracy(store, job_pk),
                    )
                )  # fmt: skip
                advance(1)
        run.finish({"jobs": len(jobs), "train_rows": rows.train_rows,
                    "eval_rows": rows.eval_rows})  # fmt: skip
    not_available = per_language.left_out.not_available.get(ScoreMode.HYP_ONLY.value)
    left_out = merged_left_out([rows.left_out, ScoreRowCounts(
        not_available={BaselineMode.HYPOTHESIS_ONLY_BOW.value: not_available}
        if not_available else {},
    )])  # fmt: skip
    return ScoreResult(run_id=run.id, signature=run.signature, jobs=jobs, left_out=left_out)


def summary(_cfg: ScoreBaselinesConfig, result: ScoreResult) -> str:
    return score_summary(result, "Scored")


STAGE = Stage(SCORE_BASELINES, settings=ScoreBaselinesConfig, run=run, summary=summary)
