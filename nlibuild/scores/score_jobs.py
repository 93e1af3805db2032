"""Scoring jobs from the store, and their results back into it (issue 17).

What `score train`, `score plan`, `score import` and `score baselines` share: the rows of a
job (nlibuild.scoring.job_files.PairRecord) built from the store's splits for each mode,
the slices every evaluation row is counted in, and the merging of a job folder's results
(checkpoints, predictions, training dynamics) into the store. The job itself (torch) is
nlibuild.scoring; nothing here imports it.

A pair's text in a language is the original when the pair is in that language, else its
human translation (`translate import`), else the pair is left out of that language and
counted. The modes (XNLI section 5, XTREME section 4):

- zero-shot: train on the train split in the train language, evaluate dev and test of
  every evaluation language as they are;
- translate-train-all: XTREME's, the training rows of zero-shot plus the machine
  translations (`translate import --kind mt`) of the train split into every other
  evaluation language, one model for all;
- translate-train-each: XNLI's TRANSLATE TRAIN, one job per evaluation language L other
  than the train language: trained on the train split machine-translated into L (a pair
  written in L keeps its text), evaluated on L's dev and test;
- translate-test: XNLI's TRANSLATE TEST, the train-language model; the rows of evaluation
  language L are the pairs with text in L (as zero-shot evaluates them), each read
  through the machine translation of that text into the train language: of the pair's
  own text when it is written in L, else of its human translation into L (`translate
  import --kind mt --source-lang L`, XNLI's "we translate each test set into English").
  A row's `lang` is the language it evaluates, L, while its text is in the train language;
- hyp-only: the model reading the hypothesis alone, one job per evaluation language that
  has train text (its pairs' own or their human translation): trained and evaluated in
  that language, as a hypothesis-only baseline measures the artifacts of that language's
  data; a language without train text gets none ("n.a.").
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import socket
import tokenize
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nlibuild.core.runs import process_alive
from nlibuild.errors import ConfigError, InputError
from nlibuild.formats.input_files import read_utf8_text, require_regular_file
from nlibuild.models import (
    ALL_LANGS,
    NLI_LABELS,
    PER_LANGUAGE_MODES,
    RENAMED_TRANSLATE_TRAIN,
    ScoreLanguages,
    ScoreMode,
    ScoreResult,
    ScoreRowCounts,
    ScoreTrainConfig,
)
from nlibuild.queries.scores import SplitPair, checkpoint_indexes, split_pairs, translated_langs
from nlibuild.queries.translations import machine_translation_sources, translations_in
from nlibuild.render import counted, run_note
from nlibuild.scoring.job_files import (
    CHECKPOINTS_FILE,
    DONE_FILE,
    DYNAMICS_FILE,
    EVAL_SPLITS,
    FIRST_VERSION,
    GOLD_ARGMAX_FILE,
    JOB_FILES_VERSION,
    NOT_REACHED,
    RUNNING_FILE,
    TRAIN,
    CheckpointRecord,
    DoneRecord,
    JobSpec,
    PairRecord,
    RunningRecord,
    predictions_path,
)
from nlibuild.store import DynamicsRow, ScoreAccuracyRow, Store
from nlibuild.text.negators import negator_lexicon

HUMAN, MT = "human", "mt"
NONE = "-"
"""The slice value of a pair without one (no genre, protocol or level)."""

SCORE_EXTRA = "install the score extra: pip install 'nlibuild[score]'"


def require_torch(command: str) -> None:
    """A `ConfigError` saying what to install when torch is missing. Asked of the import
    system, not by importing it: only nlibuild/scoring/ imports torch."""
    if importlib.util.find_spec("torch") is None:
        raise ConfigError(f"`{command}` needs torch; {SCORE_EXTRA}")


SLICES = ("genre", "protocol", "level", "label", "relabelled", "negated", "round")
"""The slices every evaluation row is counted in besides `all` (OCNLI Table 7 style):
genre, protocol and level as stored, the gold label, `relabelled` (yes: the pair has votes
beyond its author's), `negated` (contradictions only: yes when the hypothesis has a
negator of `negators.negator_lexicon`, the cue Gururangan et al. 2018 found) and `round`
(pairs of an adversarial round only, its number: ANLI's R1, R2, R3 test sets, which
`stats --table model-loop` reads back for the round's model)."""


def corpus_lang(store: Store) -> str:
    """The corpus language (`init --lang`)."""
    return store.meta().get("lang", "en")


def check_model(path: Path) -> None:
    if not path.is_dir():
        raise ConfigError(
            f"--model {path}: not a folder; give a local model folder (config, tokenizer and "
            "weights); nothing is downloaded"
        )


def spec_of(cfg: ScoreTrainConfig, seed: int, job: ModeJob) -> JobSpec:
    """A job of `cfg`. Its model folder is named by its absolute path: the job runs
    wherever its folder is, from any current directory (a `score plan` run.sh among them)."""
    t = cfg.training
    return JobSpec(
        name=job_name(cfg.model, cfg.mode.value, seed, job.name_lang),
        model=str(absolute(cfg.model)),
        mode=cfg.mode.value, seed=seed, train_langs=job.train_langs, eval_langs=job.eval_langs,
        epochs=t.epochs, lr=t.lr, schedule=t.schedule.value, batch_size=t.batch_size,
        max_length=t.max_length, eval_every=t.eval_every,
        hypothesis_only=cfg.mode is ScoreMode.HYP_ONLY,
    )  # fmt: skip


def job_name(
    model: Path | str, mode: str, seed: int, lang: str | None = None, configuration: str = ""
) -> str:
    """<model folder name>-<mode>[-<lang>][-<configuration>]-s<seed>, as job_files.JobSpec
    names a job: the language names the target of a per-language mode's job, and a job of a
    sweep says its configuration before the seed (`-lr1e-05-bs16-s1`)."""
    target = f"-{lang}" if lang else ""
    swept = f"-{configuration}" if configuration else ""
    return f"{absolute(model).name or 'model'}-{mode}{target}{swept}-s{seed}"


def absolute(path: Path | str) -> Path:
    """`path` from the root, `..` taken out, links kept (a model linked under another name
    keeps that name)."""
    return Path(os.path.abspath(path))


CONFIGURATION_SETTINGS = ("epochs", "lr", "schedule", "warmup", "batch_size", "max_length")
"""The settings of a job that make its configuration: what a sweep (`score plan --lr
1e-5,2e-5 --batch-size 16,32`) varies and XTREME picks on English dev ("All hyper-parameter
tuning is done on English validation data", Hu et al. 2020, section 4.2). Not the seed (the runs
of a configuration), nor the model, mode and languages (reported apart), nor when the job
evaluates and saves (eval_every, save_every: when it looks, not what it learns)."""

Configuration = tuple[tuple[str, float | int | str], ...]


def configuration_key(spec: JobSpec) -> Configuration:
    """The configuration of a job, (setting, value) in CONFIGURATION_SETTINGS order: the
    jobs of one model and mode that share it are the seeds of one configuration, the group
    a report takes the mean En dev accuracy of to pick a configuration."""
    return tuple((name, getattr(spec, name)) for name in CONFIGURATION_SETTINGS)


def stored_configuration(spec: str) -> Configuration:
    """`configuration_key` of a job as the store keeps it (the JSON of `score_jobs.spec`, a
    job.json's text): the settings it holds, so () for a baseline (whose spec is {})."""
    settings = json.loads(spec)
    return tuple((name, settings[name]) for name in CONFIGURATION_SETTINGS if name in settings)


def configuration_text(key: Configuration, names: Sequence[str] = CONFIGURATION_SETTINGS) -> str:
    """`lr 2e-05, batch_size 32`: the settings `names` of a configuration (e.g. the swept
    ones, to tell configurations apart in a header)."""
    return ", ".join(f"{name} {value!r}" if isinstance(value, float) else f"{name} {value}"
                     for name, value in key if name in names)  # fmt: skip


def current_mode(mode: str) -> str:
    """A job's mode as the store names it now: `translate-train`, in job folders written
    before translate-train-each existed, is `translate-train-all` (as migration 16 renamed
    the stored jobs)."""
    return ScoreMode.TRANSLATE_TRAIN_ALL.value if mode == RENAMED_TRANSLATE_TRAIN else mode


def jobs_folder(store: Store, run_id: int) -> Path:
    """Where a run's job folders live: beside the store, `<store stem>.score/run-<id>/`
    (training data, tokenisation cache and predictions are files, not rows)."""
    return store.path.parent / f"{store.path.stem}.score" / f"run-{run_id}"


PairText = tuple[str, str]
"""A pair's (premise, hypothesis) in some language."""


@dataclass
class Corpus:
    """What building jobs reads of a store, once for every job of a command."""

    lang: str
    pairs: list[SplitPair]
    # (lang, kind, source language; '' the pairs' own texts) -> unit ID -> text
    texts: dict[tuple[str, str, str], dict[str, str]]
    langs_with: dict[str, list[str]]  # kind -> languages with translations of it

    def text(self, pair: SplitPair, lang: str, kind: str, source: str = "") -> PairText | None:
        """The pair's (premise, hypothesis) in `lang`: the original when it is in `lang`
        (for kind human), else its translation of `kind` from `source` (see `Corpus.texts`);
        None when it has none."""
        if kind == HUMAN and pair.lang == lang:
            return pair.premise, pair.hypothesis
        units = self.texts.get((lang, kind, source))
        if units is None:
            return None
        premise, hypothesis = units.get(f"p:{pair.premise_id}"), units.get(f"h:{pair.id}")
        return (premise, hypothesis) if premise is not None and hypothesis is not None else None

    def human_text(self, pair: SplitPair, lang: str) -> PairText | None:
        """The pair in `lang` as people wrote it: its own text or its human translation."""
        return self.text(pair, lang, HUMAN)

    def translated_train_text(self, pair: SplitPair, lang: str) -> PairText | None:
        """translate-train's text of a train pair in `lang`: its machine translation, or its
        own text when it is written in `lang`."""
        return self.text(pair, lang, HUMAN if pair.lang == lang else MT)

    def translated_test_text(self, pair: SplitPair, lang: str, train_lang: str) -> PairText | None:
        """translate-test's text of an evaluation pair of `lang`: the machine translation
        into `train_lang` of the pair's text in `lang`, its own (a pair written in `lang`)
        or its human translation (XNLI, whose pairs are English)."""
        if self.human_text(pair, lang) is None:
            return None
        return self.text(pair, train_lang, MT, "" if pair.lang == lang else lang)


def read_corpus(store: Store, langs: Iterable[str]) -> Corpus:
    """The pairs of the splits, every translation into `langs`, and the machine
    translations into `langs` of their human translations into one another (translate-test)."""
    wanted = sorted(set(langs))
    texts = {(lang, kind, ""): translations_in(store, lang, kind) for lang in wanted
             for kind in (HUMAN, MT)}  # fmt: skip
    for lang in wanted:
        for source in set(machine_translation_sources(store, lang)) & set(wanted):
            texts[(lang, MT, source)] = translations_in(store, lang, MT, source)
    return Corpus(
        lang=corpus_lang(store),
        pairs=split_pairs(store),
        texts=texts,
        langs_with={kind: translated_langs(store, kind) for kind in (HUMAN, MT)},
    )


def resolve_langs(store: Store, langs: ScoreLanguages) -> tuple[str, tuple[str, ...]]:
    """The train language (default: the corpus's) and the evaluation languages, `all`
    being the corpus language and every language with translations, train language first."""
    corpus = corpus_lang(store)
    train = langs.train_lang or corpus
    named: list[str] = []
    for lang in langs.eval_langs:
        if lang == ALL_LANGS:
            named += [corpus, *translated_langs(store, HUMAN), *translated_langs(store, MT)]
        else:
            named.append(lang)
    ordered = [train, *sorted(set(named) - {train})]
    return train, tuple(ordered)


@dataclass
class JobRows:
    """A job's rows (training rows first), and what was left out building them."""

    records: list[PairRecord]
    left_out: ScoreRowCounts = field(default_factory=ScoreRowCounts)

    @property
    def train_rows(self) -> int:
        return sum(1 for r in self.records if r.split == TRAIN)

    @property
    def eval_rows(self) -> int:
        return len(self.records) - self.train_rows


def _record(pair: SplitPair, lang: str, text: PairText) -> PairRecord:
    return PairRecord(
        id=pair.id, lang=lang, split=pair.split, premise=text[0], hypothesis=text[1],
        label=NLI_LABELS.index(pair.gold or ""),
    )  # fmt: skip


TextOf = Callable[[SplitPair, str], PairText | None]
"""A pair's text in a language as a mode reads it (the `Corpus` methods)."""


def _split_rows(corpus: Corpus) -> tuple[list[SplitPair], list[SplitPair], JobRows]:
    """The train and the dev/test pairs with a gold label, and a job's rows so far (none,
    with the pairs left out for want of gold counted)."""
    gold = [p for p in corpus.pairs if p.gold in NLI_LABELS]
    rows = JobRows([], ScoreRowCounts(without_gold=len(corpus.pairs) - len(gold)))
    return [p for p in gold if p.split == TRAIN], [p for p in gold if p.split in EVAL_SPLITS], rows


def _training(train: Sequence[SplitPair], lang: str, text_of: TextOf) -> list[PairRecord]:
    return [_record(p, lang, t) for p in train if (t := text_of(p, lang))]


def _add_evaluation(
    rows: JobRows, evaluated: Sequence[SplitPair], lang: str, text_of: TextOf, refusal: str
) -> None:
    """The dev and test rows of `lang` (those without a text counted as left out); none at
    all is a `ConfigError` saying `refusal`."""
    found = [(p, text_of(p, lang)) for p in evaluated]
    if not any(text for _, text in found):
        raise ConfigError(refusal)
    missing = sum(1 for _, text in found if text is None)
    if missing:
        rows.left_out.untranslated[lang] = missing
    rows.records += [_record(p, lang, text) for p, text in found if text]


def _no_train_text(lang: str) -> ConfigError:
    return ConfigError(
        f"no pair of the train split has a gold label and text in {lang}; run "
        "`nlibuild split` (and `aggregate-labels`), or choose --train-lang"
    )


def _no_eval_text(lang: str) -> str:
    return (
        f"--eval-langs {lang}: no dev/test pair has text in {lang}; import a human "
        f"translation with `nlibuild translate import FILE --lang {lang}`"
    )


def job_rows(
    corpus: Corpus, mode: ScoreMode, train_lang: str, eval_langs: Sequence[str]
) -> JobRows:
    """The training and evaluation rows of the one job of zero-shot, translate-train-all
    or translate-test (see the module docstring). A mode whose rows are missing altogether
    is a `ConfigError` naming the import it needs."""
    train, evaluated, rows = _split_rows(corpus)
    rows.records += _training(train, train_lang, corpus.human_text)
    if not rows.records:
        raise _no_train_text(train_lang)
    others = [lang for lang in eval_langs if lang != train_lang]
    if mode is ScoreMode.TRANSLATE_TRAIN_ALL:
        for lang in others:
            translated = _training(train, lang, corpus.translated_train_text)
            if not translated:
                raise _needs_mt(f"no train pair has a machine translation into {lang}", lang)
            rows.records += translated
    for lang in eval_langs:
        if mode is ScoreMode.TRANSLATE_TEST and lang != train_lang:
            _add_evaluation(
                rows, evaluated, lang,
                lambda pair, target: corpus.translated_test_text(pair, target, train_lang),
                _needs_test_mt(corpus, evaluated, lang, train_lang),
            )  # fmt: skip
        else:
            _add_evaluation(rows, evaluated, lang, corpus.human_text, _no_eval_text(lang))
    return rows


def language_job_rows(corpus: Corpus, mode: ScoreMode, lang: str) -> JobRows | None:
    """The rows of the job of a per-language mode for target `lang`: translate-train-each
    trains on the train split machine-translated into `lang`, hyp-only on its text in
    `lang` (None when it has none: "n.a."); both evaluate `lang`'s dev and test."""
    train, evaluated, rows = _split_rows(corpus)
    if mode is ScoreMode.TRANSLATE_TRAIN_EACH:
        rows.records += _training(train, lang, corpus.translated_train_text)
        if not rows.records:
            raise _needs_mt(f"no train pair has a machine translation into {lang}", lang)
    else:
        rows.records += _training(train, lang, corpus.human_text)
        if not rows.records:
            return None
    _add_evaluation(rows, evaluated, lang, corpus.human_text, _no_eval_text(lang))
    return rows


@dataclass
class ModeJob:
    """One job of a mode before its seeds: its languages and rows."""

    train_langs: tuple[str, ...]
    eval_langs: tuple[str, ...]
    rows: JobRows
    name_lang: str | None = None
    """The target language a per-language mode's job is named by (None for the train
    language's hyp-only job, named as before per-language jobs existed)."""


@dataclass
class ModeJobs:
    """The jobs of one mode, and what building them left out over all of them."""

    jobs: list[ModeJob]
    left_out: ScoreRowCounts


def mode_jobs(
    corpus: Corpus, mode: ScoreMode, train_lang: str, eval_langs: Sequence[str]
) -> ModeJobs:
    """The jobs `mode` makes: one, or for translate-train-each and hyp-only one per target
    language (see the module docstring); a hyp-only language without train text is listed
    in `left_out.not_available`."""
    if mode in PER_LANGUAGE_MODES:
        return _per_language_jobs(corpus, mode, train_lang, eval_langs)
    rows = job_rows(corpus, mode, train_lang, eval_langs)
    trained = tuple(eval_langs) if mode is ScoreMode.TRANSLATE_TRAIN_ALL else (train_lang,)
    return ModeJobs([ModeJob(trained, tuple(eval_langs), rows)], rows.left_out)


def _per_language_jobs(
    corpus: Corpus, mode: ScoreMode, train_lang: str, eval_langs: Sequence[str]
) -> ModeJobs:
    targets = [lang for lang in eval_langs
               if mode is ScoreMode.HYP_ONLY or lang != train_lang]  # fmt: skip
    if not targets:
        raise ConfigError(
            f"{mode.value} trains a model for each evaluation language besides {train_lang}; "
            "name them with --eval-langs (or import their translations for --eval-langs all)"
        )
    jobs: list[ModeJob] = []
    not_available: list[str] = []
    for lang in targets:
        rows = language_job_rows(corpus, mode, lang)
        if rows is not None:
            jobs.append(ModeJob((lang,), (lang,), rows, None if lang == train_lang else lang))
        elif lang == train_lang:
            raise _no_train_text(train_lang)
        else:
            not_available.append(lang)
    left_out = merged_left_out([job.rows.left_out for job in jobs])
    if not_available:
        left_out.not_available[mode.value] = not_available
    return ModeJobs(jobs, left_out)


def merged_left_out(counts: Sequence[ScoreRowCounts]) -> ScoreRowCounts:
    """What several jobs of one command left out: the same pairs without gold, and each
    language's untranslated pairs (each job counts its languages' own)."""
    merged = ScoreRowCounts(without_gold=max((c.without_gold for c in counts), default=0))
    for count in counts:
        for lang, n in count.untranslated.items():
            merged.untranslated[lang] = max(n, merged.untranslated.get(lang, 0))
        for mode, langs in count.not_available.items():
            merged.not_available.setdefault(mode, []).extend(langs)
    return merged


def _needs_mt(what: str, lang: str) -> ConfigError:
    return ConfigError(
        f"{what}; import machine translations with "
        f"`nlibuild translate import FILE --lang {lang} --kind mt`"
    )


def _needs_test_mt(
    corpus: Corpus, evaluated: Sequence[SplitPair], lang: str, train_lang: str
) -> str:
    """translate-test's refusal for `lang`: the import its pairs' texts in `lang` need,
    of the pairs' own texts or (XNLI) of their human translations into `lang`."""
    native = any(p.lang == lang for p in evaluated)
    source = "" if native else f" --source-lang {lang}"
    return (
        f"no dev/test pair with text in {lang} has a machine translation of it into "
        f"{train_lang}; write the units with `nlibuild translate export --lang {train_lang} "
        f"--kind mt{source} --out FILE`, translate them and import them with `nlibuild "
        f"translate import FILE --lang {train_lang} --kind mt{source}`"
    )


def pairs_digest(records: Iterable[PairRecord]) -> str:
    """SHA-256 of the sorted distinct pair IDs of some rows: which store a plan is of."""
    digest = hashlib.sha256()
    for pair_id in sorted({r.id for r in records}):
        digest.update(pair_id.encode() + b"\n")
    return digest.hexdigest()


# --- slices and accuracy ------------------------------------------------------------------


@dataclass
class EvalGroups:
    """The evaluation rows of a job (in file order): gold label indexes, and the rows of
    every (lang, split, slice, value) they are counted in."""

    gold: np.ndarray
    groups: dict[tuple[str, str, str, str], np.ndarray]

    def accuracy_rows(self, predictions: np.ndarray) -> list[ScoreAccuracyRow]:
        correct = predictions.astype(np.int64) == self.gold
        return [(*key, int(correct[rows].sum()), len(rows)) for key, rows in self.groups.items()]


def eval_groups(
    records: Sequence[PairRecord], pairs: dict[str, SplitPair], text_lang: str | None = None
) -> EvalGroups:
    """The groups of a job's evaluation rows. `pairs` holds the store's pairs by ID;
    `text_lang` is the language their text is in when it is not the row's own (the train
    language under translate-test), for the negator slice."""
    evaluated = [r for r in records if r.split != TRAIN]
    members: dict[tuple[str, str, str, str], list[int]] = defaultdict(list)
    lexicons: dict[str, object] = {}
    for at, record in enumerate(evaluated):
        pair = pairs[record.id]
        label = NLI_LABELS[record.label]
        values = {
            "genre": pair.genre, "protocol": pair.protocol, "level": pair.level,
            "label": label, "relabelled": "yes" if pair.relabelled else "no",
        }  # fmt: skip
        if pair.round is not None:
            values["round"] = str(pair.round)
        lang = text_lang or record.lang
        lexicon = lexicons.get(lang) or lexicons.setdefault(lang, negator_lexicon(lang))
        if label == "contradiction" and not lexicon.empty:  # type: ignore[attr-defined]
            negated = lexicon.negated(record.hypothesis)  # type: ignore[attr-defined]
            values["negated"] = "yes" if negated else "no"
        members[(record.lang, record.split, "all", "")].append(at)
        for name in SLICES:
            if name in values:
                members[(record.lang, record.split, name, values[name] or NONE)].append(at)
    return EvalGroups(
        gold=np.asarray([r.label for r in evaluated], dtype=np.int64),
        groups={key: np.asarray(rows, dtype=np.int64) for key, rows in sorted(members.items())},
    )


# --- a job folder's results into the store ------------------------------------------------


COPY_BACK = "copy the job folder back whole from where it ran, or run the job again"


def merge_checkpoints(
    store: Store,
    job_pk: int,
    folder: Path,
    groups: EvalGroups,
    committed: Callable[[int], None],
) -> int:
    """Store the checkpoints of `folder` that the job does not have yet, each with its
    accuracy rows, calling `committed(index)` after each (a stage commits a step there);
    returns how many were added. While the job runs (no done.json), a checkpoint whose
    predictions are not written yet is left for later; a file that does not keep the
    contract of job_files.py is an `InputError` naming it (`check_results` reads them all
    first so that a stage can refuse before it writes)."""
    known = checkpoint_indexes(store, job_pk)
    added = 0
    for record, predictions in job_predictions(folder, groups.gold.size):
        if record.index in known:
            continue
        checkpoint = (record.index, record.step, record.epoch, record.examples_seen,
                      record.train_loss, record.seconds)  # fmt: skip
        store.add_score_checkpoint(job_pk, checkpoint, groups.accuracy_rows(predictions))
        added += 1
        committed(record.index)
    return added


def job_predictions(folder: Path, rows: int) -> list[tuple[CheckpointRecord, np.ndarray]]:
    """Every checkpoint of `folder` with its predictions, each file checked."""
    done = read_done_record(folder)
    found = []
    for record in read_checkpoint_records(folder, done):
        path = predictions_path(folder, record.index)
        if not os.path.lexists(path):
            if done is not None:
                raise InputError(path, f"missing, though results/done.json says the job "
                                 f"finished; {COPY_BACK}")  # fmt: skip
            break  # written after its checkpoint line: left for the next import
        found.append((record, read_predictions(path, rows)))
    return found


def check_results(folder: Path, records: Sequence[PairRecord]) -> None:
    """Read every result file of a job folder as an import would, raising the first
    `InputError`; nothing is written."""
    job_predictions(folder, sum(1 for r in records if r.split != TRAIN))
    probabilities = read_dynamics(folder, records)
    if probabilities is not None:
        read_gold_argmax(folder, probabilities)


def finished_dynamics(
    folder: Path, records: Sequence[PairRecord], pair_pks: dict[str, int]
) -> list[DynamicsRow] | None:
    """The training dynamics of a finished job (None while `results/done.json` is absent),
    per training pair, as Swayamdipta et al. 2020 (section 2) define them over the E epochs:
    confidence = (1/E) sum_e p(gold | x, epoch e), the mean gold-label probability;
    variability = its standard deviation over the epochs; correctness = the share of the
    epochs in which the gold label was the model's argmax (None for a job of files version
    1, which did not record it). Each is over the epochs that reached the pair (a partial
    last epoch reaches only some rows), and their number is kept: variability needs two.
    A pair with several training rows (translate-train) counts the mean of its rows that an
    epoch reached; a pair no epoch reached (fewer epochs than one) has no dynamics."""
    probabilities = read_dynamics(folder, records)
    if probabilities is None:
        return None
    gold_argmax = read_gold_argmax(folder, probabilities)
    train_ids = [r.id for r in records if r.split == TRAIN]
    pair_ids = list(dict.fromkeys(train_ids))
    code_of = {pair_id: code for code, pair_id in enumerate(pair_ids)}
    codes = np.asarray([code_of[pair_id] for pair_id in train_ids], dtype=np.int64)
    reached = ~np.isnan(probabilities)
    per_pair = _per_pair_mean(np.where(reached, probabilities, 0.0), reached, codes, len(pair_ids))
    epochs = (~np.isnan(per_pair)).sum(axis=0)
    kept = np.flatnonzero(epochs > 0)
    mapped = per_pair[:, kept]
    confidence = np.nanmean(mapped, axis=0)
    variability = np.nanstd(mapped, axis=0)
    correctness: list[float | None] = [None] * len(kept)
    if gold_argmax is not None:
        flags = np.where(reached, gold_argmax, 0).astype(np.float64)
        shares = _per_pair_mean(flags, reached, codes, len(pair_ids))[:, kept]
        correctness = [float(share) for share in np.nanmean(shares, axis=0)]
    return sorted(
        (pair_pks[pair_ids[code]], float(confidence[at]), float(variability[at]),
         correctness[at], int(epochs[code]))
        for at, code in enumerate(kept)
    )  # fmt: skip


def _per_pair_mean(
    values: np.ndarray, reached: np.ndarray, codes: np.ndarray, pairs: int
) -> np.ndarray:
    """[epochs, pairs]: per epoch, the mean of `values` over each pair's rows the epoch
    reached; NaN where it reached none of them."""
    means = np.full((values.shape[0], pairs), np.nan)
    for epoch in range(values.shape[0]):
        count = np.bincount(codes, weights=reached[epoch], minlength=pairs)
        total = np.bincount(codes, weights=values[epoch], minlength=pairs)
        np.divide(total, count, out=means[epoch], where=count > 0)
    return means


# --- reading a job's result files strictly -------------------------------------------------
# A job folder comes back from another machine, possibly cut short, edited or replaced: each
# file is checked to be a regular file (stat before open: a FIFO would block the read), to
# parse, and to hold what job_files.py says it holds, before anything reaches the store.


def read_done_record(folder: Path) -> DoneRecord | None:
    path = folder / DONE_FILE
    if not os.path.lexists(path):
        return None  # the job still runs, or stopped early: its checkpoints so far count
    raw = _json_object(path, read_utf8_text(path, "done record"), None)
    try:
        record = DoneRecord.from_json_object(raw)
    except TypeError as exc:
        raise InputError(path, f"not a done record ({exc}); {COPY_BACK}") from None
    if not _is_count(record.checkpoints):
        raise InputError(path, f"checkpoints {record.checkpoints!r} is not a count; {COPY_BACK}")
    version = record.files_version
    if not _is_count(version) or version < FIRST_VERSION:
        raise InputError(path, f"files_version {version!r} is not a version; {COPY_BACK}")
    if version > JOB_FILES_VERSION:
        raise InputError(path, f"job files of version {version}, written by a newer nlibuild "
                         f"(this one reads versions up to {JOB_FILES_VERSION}); upgrade "
                         "nlibuild to import them")  # fmt: skip
    return record


def stopped_reason(folder: Path) -> str | None:
    """Why a job without done.json is not running (None while it runs): no
    results/running.json (its process ended, or the folder was copied back before the job
    did), or a process of this host that is gone. A job on another host is taken at its
    word: its process cannot be asked."""
    path = folder / RUNNING_FILE
    if not os.path.lexists(path):
        return f"no process runs it ({RUNNING_FILE} is absent)"
    raw = _json_object(path, read_utf8_text(path, "running record"), None)
    try:
        record = RunningRecord(**raw)
    except TypeError as exc:
        raise InputError(path, f"not a running record ({exc}); {COPY_BACK}") from None
    if not isinstance(record.host, str) or not _is_count(record.pid):
        raise InputError(path, f"not a running record (host and pid); {COPY_BACK}")
    if record.host == socket.gethostname() and not process_alive(record.pid):
        return f"process {record.pid}, which ran it, is gone"
    return None


def read_checkpoint_records(folder: Path, done: DoneRecord | None) -> list[CheckpointRecord]:
    """The lines of results/checkpoints.jsonl. While the job runs, a last line without its
    newline is one being written and is left out; once it finished, every line is whole
    and there are as many as done.json says."""
    path = folder / CHECKPOINTS_FILE
    if not os.path.lexists(path):
        if done is not None:
            raise InputError(path, f"missing, though results/done.json says the job "
                             f"finished; {COPY_BACK}")  # fmt: skip
        return []
    lines = read_utf8_text(path, "checkpoints file").split("\n")
    if lines[-1] and done is not None:
        raise InputError(path, f"cut short: the last line has no newline; {COPY_BACK}",
                         len(lines))  # fmt: skip
    records = [_checkpoint(path, line, at) for at, line in enumerate(lines[:-1])]
    if done is not None and len(records) != done.checkpoints:
        raise InputError(path, f"{len(records)} checkpoints, but {folder / DONE_FILE} says "
                         f"{done.checkpoints}; {COPY_BACK}")  # fmt: skip
    return records


def _checkpoint(path: Path, line: str, at: int) -> CheckpointRecord:
    raw = _json_object(path, line, at + 1)
    try:
        record = CheckpointRecord(**raw)
    except TypeError as exc:
        raise InputError(path, f"not a checkpoint record ({exc}); {COPY_BACK}", at + 1) from None
    problem = _checkpoint_problem(record, at)
    if problem:
        raise InputError(path, f"{problem}; {COPY_BACK}", at + 1)
    return record


def _checkpoint_problem(record: CheckpointRecord, at: int) -> str | None:
    if record.index != at or not _is_count(record.index):
        return f"index {record.index!r} where checkpoint {at} belongs (they go 0, 1, 2, ...)"
    for name in ("step", "examples_seen"):
        if not _is_count(getattr(record, name)):
            return f"{name} {getattr(record, name)!r} is not a count"
    for name in ("epoch", "seconds"):
        if not _is_number(getattr(record, name)) or getattr(record, name) < 0:
            return f"{name} {getattr(record, name)!r} is not a number of at least 0"
    if record.train_loss is not None and not _is_number(record.train_loss):
        return f"train_loss {record.train_loss!r} is not a number"
    if not isinstance(record.accuracy, dict) or not all(
        isinstance(v, list) and len(v) == 2 and all(_is_count(n) for n in v)
        for v in record.accuracy.values()
    ):
        return "accuracy is not a map of [correct, total] counts"
    return None


def _json_object(path: Path, text: str, line: int | None) -> dict[str, Any]:
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(path, f"not JSON ({exc}); {COPY_BACK}", line) from None
    if not isinstance(raw, dict):
        raise InputError(path, f"not a JSON object; {COPY_BACK}", line)
    return raw


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def read_predictions(path: Path, rows: int) -> np.ndarray:
    """A checkpoint's predictions: one label index (0, 1, 2 of NLI_LABELS) per row."""
    predictions = _read_npy(path, "predictions file", "iu", (rows,))
    if predictions.size and (predictions.min() < 0 or predictions.max() >= len(NLI_LABELS)):
        bad = int(np.flatnonzero((predictions < 0) | (predictions >= len(NLI_LABELS)))[0])
        raise InputError(path, f"row {bad} predicts class {int(predictions[bad])}, not one of "
                         f"0..{len(NLI_LABELS) - 1}; {COPY_BACK}")  # fmt: skip
    return predictions


def read_dynamics(folder: Path, records: Sequence[PairRecord]) -> np.ndarray | None:
    """A finished job's gold-label probabilities [epochs, training rows]; None while it runs."""
    if read_done_record(folder) is None:
        return None
    path = folder / DYNAMICS_FILE
    if not os.path.lexists(path):
        raise InputError(path, f"missing, though results/done.json says the job finished; "
                         f"{COPY_BACK}")  # fmt: skip
    train = sum(1 for r in records if r.split == TRAIN)
    probabilities = _read_npy(path, "dynamics file", "f", (None, train))
    # NaN marks a row that a partial last epoch did not reach (loop.py close_epoch).
    outside = (probabilities < 0) | (probabilities > 1)
    if outside.any():
        epoch, row = (int(n) for n in np.argwhere(outside)[0])
        value = probabilities[epoch, row]
        raise InputError(path, f"epoch {epoch}, row {row}: probability {value} is not "
                         f"within 0..1; {COPY_BACK}")  # fmt: skip
    return probabilities


def read_gold_argmax(folder: Path, probabilities: np.ndarray) -> np.ndarray | None:
    """A finished job's argmax flags [epochs, training rows] (1: the gold label was the
    argmax, 0: it was not, NOT_REACHED where dynamics.npy has NaN); None for job files of
    version 1, which have none."""
    done = read_done_record(folder)
    if done is None or done.files_version < 2:
        return None
    path = folder / GOLD_ARGMAX_FILE
    if not os.path.lexists(path):
        raise InputError(path, f"missing, though results/done.json says the job finished "
                         f"(job files version {done.files_version}); {COPY_BACK}")  # fmt: skip
    flags = _read_npy(path, "argmax file", "iu", probabilities.shape)
    expected = np.isnan(probabilities)
    wrong = ((flags == NOT_REACHED) != expected) | ~np.isin(flags, (0, 1, NOT_REACHED))
    if wrong.any():
        epoch, row = (int(n) for n in np.argwhere(wrong)[0])
        meant = f"{NOT_REACHED}, as dynamics.npy has NaN" if expected[epoch, row] else "0 or 1"
        raise InputError(path, f"epoch {epoch}, row {row}: {int(flags[epoch, row])} where "
                         f"{meant}; {COPY_BACK}")  # fmt: skip
    return flags


NPY_HEADER_ERRORS = (
    ValueError, OSError, SyntaxError, TypeError, RecursionError, tokenize.TokenError
)  # fmt: skip
"""What numpy's reading of an .npy header raises for one that is not what it wrote: its
dict is parsed as Python (tokenized, then `ast.literal_eval`)."""


def _read_npy(path: Path, what: str, kinds: str, shape: tuple[int | None, ...]) -> np.ndarray:
    """An .npy file whose header is checked (dtype kind, shape, and the file's size) before
    its data is read, so that a header claiming a huge array allocates nothing."""
    require_regular_file(path, what)
    try:
        with path.open("rb") as handle:
            version = np.lib.format.read_magic(handle)
            header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                      else np.lib.format.read_array_header_2_0)  # fmt: skip
            found, _, dtype = header(handle, max_header_size=10_000)
            start = handle.tell()
    except NPY_HEADER_ERRORS as exc:
        raise InputError(path, f"not a .npy array ({exc}); {COPY_BACK}") from None
    wanted = " x ".join("epochs" if n is None else str(n) for n in shape)
    if len(found) != len(shape) or any(
        n is not None and n != f for n, f in zip(shape, found, strict=False)
    ):
        raise InputError(path, f"shape {found} is not [{wanted}]; {COPY_BACK}")
    if dtype.kind not in kinds or dtype.hasobject:
        raise InputError(path, f"dtype {dtype} is not {'float' if kinds == 'f' else 'integer'}; "
                         f"{COPY_BACK}")  # fmt: skip
    if path.stat().st_size != start + math.prod(found) * dtype.itemsize:
        raise InputError(path, f"{path.stat().st_size} bytes do not hold a {found} array of "
                         f"{dtype}: cut short or padded; {COPY_BACK}")  # fmt: skip
    try:
        array: np.ndarray = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise InputError(path, f"not a .npy array ({exc}); {COPY_BACK}") from None
    return array


def score_summary(result: ScoreResult, did: str) -> str:
    """What `score train`, `score import` and `score baselines` print: a line per job
    (`did` says how it came: Trained, Imported, Scored) with its last checkpoint's accuracy,
    then the jobs, what was left out and the run."""
    lines = []
    for job in result.jobs:
        state = "finished" if job.finished else "partly finished (running)"
        if job.name in result.stopped:
            state = "stopped before it finished"
        accuracy = ", ".join(f"{key} {value:.1%}" for key, value in job.last_accuracy.items())
        lines.append(
            f"{did} {job.name}: {job.train_rows} training and {job.eval_rows} evaluation rows, "
            f"{counted(job.checkpoints, 'checkpoint')} ({job.added} new), {state}; "
            f"last checkpoint: {accuracy or 'no accuracy yet'}"
        )
    left = result.left_out
    untranslated = ", ".join(f"{lang} {n}" for lang, n in left.untranslated.items())
    missing = "; ".join(f"{mode} {', '.join(langs)}" for mode, langs in left.not_available.items())
    lines.append(
        f"{len(result.jobs)} jobs"
        + (f" in {result.folder}" if result.folder else "")
        + f"; {left.without_gold} pairs without gold left out"
        + (f"; left out for want of a translation: {untranslated}" if untranslated else "")
        + (f"; n.a. for want of train text: {missing}" if missing else "")
        + (f"; not started: {', '.join(result.not_started)}" if result.not_started else "")
        + f" {run_note(result)}"
    )
    return "\n".join(lines)
