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
- translate-train: XTREME's translate-train-all: the training rows of zero-shot plus the
  machine translations (`translate import --kind mt`) of the train split into every other
  evaluation language, one model for all;
- translate-test: the rows of evaluation language L are the pairs whose original language
  is L, through their machine translation into the train language (a row's `lang` is then
  the language it evaluates, L, while its text is in the train language);
- hyp-only: the rows of zero-shot, the model reading the hypothesis alone.
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
    ScoreLanguages,
    ScoreMode,
    ScoreResult,
    ScoreRowCounts,
    ScoreTrainConfig,
)
from nlibuild.queries.scores import SplitPair, checkpoint_indexes, split_pairs, translated_langs
from nlibuild.queries.translations import translations_in
from nlibuild.render import counted, run_note
from nlibuild.scoring.job_files import (
    CHECKPOINTS_FILE,
    DONE_FILE,
    DYNAMICS_FILE,
    EVAL_SPLITS,
    RUNNING_FILE,
    TRAIN,
    CheckpointRecord,
    DoneRecord,
    JobSpec,
    PairRecord,
    RunningRecord,
    predictions_path,
)
from nlibuild.store import ScoreAccuracyRow, Store
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


SLICES = ("genre", "protocol", "level", "label", "relabelled", "negated")
"""The slices every evaluation row is counted in besides `all` (OCNLI Table 7 style):
genre, protocol and level as stored, the gold label, `relabelled` (yes: the pair has votes
beyond its author's) and `negated` (contradictions only: yes when the hypothesis has a
negator of `negators.negator_lexicon`, the cue Gururangan et al. 2018 found)."""


def corpus_lang(store: Store) -> str:
    """The corpus language (`init --lang`)."""
    return store.meta().get("lang", "en")


def check_model(path: Path) -> None:
    if not path.is_dir():
        raise ConfigError(
            f"--model {path}: not a folder; give a local model folder (config, tokenizer and "
            "weights); nothing is downloaded"
        )


def spec_of(cfg: ScoreTrainConfig, seed: int, train: str, evals: tuple[str, ...]) -> JobSpec:
    t = cfg.training
    return JobSpec(
        name=job_name(cfg.model, cfg.mode.value, seed), model=str(cfg.model),
        mode=cfg.mode.value, seed=seed, train_langs=train_langs(cfg.mode.value, train, evals),
        eval_langs=evals, epochs=t.epochs, lr=t.lr, schedule=t.schedule.value,
        batch_size=t.batch_size, max_length=t.max_length, eval_every=t.eval_every,
        hypothesis_only=cfg.mode.value == "hyp-only",
    )  # fmt: skip


def train_langs(mode: str, train: str, evals: tuple[str, ...]) -> tuple[str, ...]:
    """translate-train trains on every evaluated language (translate-train-all)."""
    return evals if mode == "translate-train" else (train,)


def job_name(model: Path | str, mode: str, seed: int) -> str:
    """<model folder name>-<mode>-s<seed>, as job_files.JobSpec names a job."""
    return f"{Path(model).name or 'model'}-{mode}-s{seed}"


def jobs_folder(store: Store, run_id: int) -> Path:
    """Where a run's job folders live: beside the store, `<store stem>.score/run-<id>/`
    (training data, tokenisation cache and predictions are files, not rows)."""
    return store.path.parent / f"{store.path.stem}.score" / f"run-{run_id}"


@dataclass
class Corpus:
    """What building jobs reads of a store, once for every job of a command."""

    lang: str
    pairs: list[SplitPair]
    texts: dict[tuple[str, str], dict[str, str]]  # (lang, kind) -> unit ID -> text
    langs_with: dict[str, list[str]]  # kind -> languages with translations of it

    def text(self, pair: SplitPair, lang: str, kind: str) -> tuple[str, str] | None:
        """The pair's (premise, hypothesis) in `lang`: the original when it is in `lang`
        (for kind human), else its translation of `kind`; None when it has none."""
        if kind == HUMAN and pair.lang == lang:
            return pair.premise, pair.hypothesis
        units = self.texts.get((lang, kind))
        if units is None:
            return None
        premise, hypothesis = units.get(f"p:{pair.premise_id}"), units.get(f"h:{pair.id}")
        return (premise, hypothesis) if premise is not None and hypothesis is not None else None


def read_corpus(store: Store, langs: Iterable[str]) -> Corpus:
    """The pairs of the splits and every translation into `langs`."""
    wanted = sorted(set(langs))
    return Corpus(
        lang=corpus_lang(store),
        pairs=split_pairs(store),
        texts={(lang, kind): translations_in(store, lang, kind) for lang in wanted
               for kind in (HUMAN, MT)},
        langs_with={kind: translated_langs(store, kind) for kind in (HUMAN, MT)},
    )  # fmt: skip


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


def _record(pair: SplitPair, lang: str, text: tuple[str, str]) -> PairRecord:
    return PairRecord(
        id=pair.id, lang=lang, split=pair.split, premise=text[0], hypothesis=text[1],
        label=NLI_LABELS.index(pair.gold or ""),
    )  # fmt: skip


def job_rows(
    corpus: Corpus, mode: ScoreMode, train_lang: str, eval_langs: Sequence[str]
) -> JobRows:
    """The training and evaluation rows of a mode (see the module docstring). A mode
    whose rows are missing altogether is a `ConfigError` naming the import it needs."""
    gold = [p for p in corpus.pairs if p.gold in NLI_LABELS]
    rows = JobRows([], ScoreRowCounts(without_gold=len(corpus.pairs) - len(gold)))
    train = [p for p in gold if p.split == TRAIN]
    rows.records += [_record(p, train_lang, t) for p in train
                     if (t := corpus.text(p, train_lang, HUMAN))]  # fmt: skip
    if not rows.records:
        raise ConfigError(
            f"no pair of the train split has a gold label and text in {train_lang}; run "
            "`nlibuild split` (and `aggregate-labels`), or choose --train-lang"
        )
    others = [lang for lang in eval_langs if lang != train_lang]
    if mode is ScoreMode.TRANSLATE_TRAIN:
        for lang in others:
            translated = [_record(p, lang, t) for p in train if (t := corpus.text(p, lang, MT))]
            if not translated:
                raise _needs_mt(f"no train pair has a machine translation into {lang}", lang)
            rows.records += translated
    evaluated = [p for p in gold if p.split in EVAL_SPLITS]
    for lang in eval_langs:
        if mode is ScoreMode.TRANSLATE_TEST and lang != train_lang:
            # The pairs written in `lang`, read through their machine translation.
            own = [p for p in evaluated if p.lang == lang]
            found = [(p, corpus.text(p, train_lang, MT)) for p in own]
            if not any(text for _, text in found):
                raise _needs_mt(
                    f"no dev/test pair in {lang} has a machine translation into {train_lang}",
                    train_lang,
                )
        else:
            found = [(p, corpus.text(p, lang, HUMAN)) for p in evaluated]
            if not any(text for _, text in found):
                raise ConfigError(
                    f"--eval-langs {lang}: no dev/test pair has text in {lang}; import a human "
                    f"translation with `nlibuild translate import FILE --lang {lang}`"
                )
        missing = sum(1 for _, text in found if text is None)
        if missing:
            rows.left_out.untranslated[lang] = missing
        rows.records += [_record(p, lang, text) for p, text in found if text]
    return rows


def _needs_mt(what: str, lang: str) -> ConfigError:
    return ConfigError(
        f"{what}; import machine translations with "
        f"`nlibuild translate import FILE --lang {lang} --kind mt`"
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
    read_dynamics(folder, records)


def finished_dynamics(
    folder: Path, records: Sequence[PairRecord], pair_pks: dict[str, int]
) -> list[tuple[int, float, float, float]] | None:
    """The training dynamics of a finished job (None while `results/done.json` is absent):
    per training pair, confidence = the mean over epochs of the probability of its gold
    label, variability = its standard deviation (Swayamdipta et al. 2020, section 2), and
    correctness = the share of epochs where that probability was over 0.5 (the job keeps
    the gold probability only, not whether it was the highest). A pair with several
    training rows (translate-train) counts their mean probability in each epoch; a pair no
    epoch reached (fewer epochs than one) has none."""
    probabilities = read_dynamics(folder, records)
    if probabilities is None:
        return None
    train_ids = [r.id for r in records if r.split == TRAIN]
    rows_of: dict[str, list[int]] = defaultdict(list)
    for at, pair_id in enumerate(train_ids):
        rows_of[pair_id].append(at)
    found = []
    for pair_id, rows in rows_of.items():
        per_epoch = probabilities[:, rows].mean(axis=1)
        # An epoch that did not reach the pair (NaN: a partial last epoch) is not counted.
        per_epoch = per_epoch[~np.isnan(per_epoch)]
        if not per_epoch.size:
            continue
        found.append((pair_pks[pair_id], float(per_epoch.mean()), float(per_epoch.std()),
                      float((per_epoch > 0.5).mean())))  # fmt: skip
    return sorted(found)


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
        record = DoneRecord(**raw)
    except TypeError as exc:
        raise InputError(path, f"not a done record ({exc}); {COPY_BACK}") from None
    if not _is_count(record.checkpoints):
        raise InputError(path, f"checkpoints {record.checkpoints!r} is not a count; {COPY_BACK}")
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
    lines.append(
        f"{len(result.jobs)} jobs"
        + (f" in {result.folder}" if result.folder else "")
        + f"; {left.without_gold} pairs without gold left out"
        + (f"; left out for want of a translation: {untranslated}" if untranslated else "")
        + (f"; not started: {', '.join(result.not_started)}" if result.not_started else "")
        + f" {run_note(result)}"
    )
    return "\n".join(lines)
