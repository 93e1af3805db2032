"""`nlibuild score import DIR`: the results of a `score plan` folder's jobs into the store,
as one `score-import` run. Finished jobs and partly finished ones (their checkpoints so
far; said so) are merged; a job already imported keeps its row and gets only the
checkpoints it lacks, so importing twice adds nothing. A plan of another store is refused:
every pair ID of its jobs must be in this store."""

from __future__ import annotations

import json
import os
from pathlib import Path

from nlibuild.core.registry import SCORE_IMPORT
from nlibuild.core.stage import Stage
from nlibuild.errors import ConflictError, InputError
from nlibuild.formats.input_files import read_utf8_text
from nlibuild.models import NLI_LABELS, ScoreImportConfig, ScoreJobSummary, ScoreResult
from nlibuild.queries.scores import (
    SplitPair,
    checkpoint_indexes,
    job_of_folder,
    last_accuracy,
    pair_keys,
    split_pairs,
)
from nlibuild.scores.score_jobs import (
    COPY_BACK,
    check_results,
    current_mode,
    eval_groups,
    finished_dynamics,
    merge_checkpoints,
    read_checkpoint_records,
    read_done_record,
    score_summary,
    stopped_reason,
)
from nlibuild.scoring.job_files import (
    DONE_FILE,
    JOB_FILE,
    PAIRS_FILE,
    TRAIN,
    JobSpec,
    PairRecord,
)
from nlibuild.store import ScoreJobRow, Store

PLAN_FILE = "plan.json"


def plan_jobs(folder: Path) -> list[Path]:
    """The job folders a plan names, each checked to hold a job."""
    plan_path = folder / PLAN_FILE
    if not plan_path.is_file():
        raise InputError(folder, f"no {PLAN_FILE}: not a folder written by `nlibuild score plan`")
    try:
        names = [job["folder"] for job in json.loads(read_utf8_text(plan_path))["jobs"]]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(
            plan_path, f"not a score plan ({exc}); write it with `score plan`"
        ) from None
    jobs = [folder / name for name in names]
    for job in jobs:
        if not os.path.lexists(job / JOB_FILE):
            raise InputError(job / JOB_FILE, "missing: the plan names this job; copy it back whole")
    return jobs


def run(store: Store, cfg: ScoreImportConfig) -> ScoreResult:
    loaded = [(job, read_job_spec(job), read_job_pairs(job)) for job in plan_jobs(cfg.folder)]
    known = pair_keys(store, (r.id for _, _, records in loaded for r in records))
    by_id = {p.id: p for p in split_pairs(store)}
    # Every job file is read and checked before the run starts, so that a damaged one is
    # refused with the store left as it was.
    stopped = {}
    for job, spec, records in loaded:
        check_pairs_of_store(job, spec, records, known, by_id)
        check_results(job, records)
        reason = None if read_done_record(job) else stopped_reason(job)
        if reason is not None:
            stopped[spec.name] = (
                f"{job / DONE_FILE}: missing: job {spec.name} did not finish ({reason}); only "
                "its checkpoints so far are imported: finish it with `python -m "
                f"nlibuild.scoring.job {job} --resume` and import again"
            )
    with store.recorded_run(SCORE_IMPORT, cfg) as run:
        summaries, not_started = [], []
        for job, spec, records in loaded:
            if not read_checkpoint_records(job, read_done_record(job)):
                not_started.append(spec.name)
                stopped.pop(spec.name, None)
                continue
            summaries.append(_import_job(store, run.id, job, spec, records, by_id, known))
        run.finish({"jobs": len(summaries), "checkpoints": sum(s.added for s in summaries)})
    return ScoreResult(
        run_id=run.id, signature=run.signature, folder=str(cfg.folder), jobs=summaries,
        not_started=not_started, stopped=stopped,
    )  # fmt: skip


def read_job_spec(job: Path) -> JobSpec:
    """job.json, which must label its classes in the store's order (NLI_LABELS): the
    predictions and the labels of pairs.jsonl are indexes into it."""
    path = job / JOB_FILE
    try:
        spec = JobSpec.from_json(read_utf8_text(path, "job file"))
    except (json.JSONDecodeError, RecursionError, KeyError, TypeError, ValueError) as exc:
        raise InputError(path, f"not a job spec ({exc}); {COPY_BACK}") from None
    if list(spec.labels) != list(NLI_LABELS):
        raise InputError(path, f"labels {list(spec.labels)} are not {list(NLI_LABELS)} in this "
                         f"order, as `score plan` writes them; {COPY_BACK}")  # fmt: skip
    return spec


def read_job_pairs(job: Path) -> list[PairRecord]:
    path = job / PAIRS_FILE
    records = []
    for number, line in enumerate(read_utf8_text(path, "pairs file").splitlines(), 1):
        try:
            record = PairRecord(**json.loads(line))
        except (json.JSONDecodeError, RecursionError, TypeError) as exc:
            raise InputError(path, f"not a pair record ({exc}); {COPY_BACK}", number) from None
        if not isinstance(record.id, str) or not isinstance(record.label, int):
            raise InputError(path, f"not a pair record (id and label); {COPY_BACK}", number)
        records.append(record)
    if not records:
        raise InputError(path, f"no pairs: `score plan` writes every row of a job; {COPY_BACK}")
    return records


def check_pairs_of_store(
    job: Path,
    spec: JobSpec,
    records: list[PairRecord],
    known: dict[str, int],
    by_id: dict[str, SplitPair],
) -> None:
    """Every pair of a job is in this store, in the split and with the gold label the plan
    was written with; otherwise the plan is another store's or its rows were edited."""
    absent = [r.id for r in records if r.id not in known]
    if absent:
        raise ConflictError(
            f"{job}: pair {absent[0]} (and {len(set(absent)) - 1} more) of job "
            f"{spec.name} is not in this store; the plan was written from another "
            "store: import it into that one"
        )
    for number, record in enumerate(records, 1):
        pair = by_id.get(record.id)
        gold = NLI_LABELS.index(pair.gold) if pair and pair.gold in NLI_LABELS else None
        if pair is None or pair.split != record.split or gold != record.label:
            raise InputError(
                job / PAIRS_FILE,
                f"pair {record.id} (split {record.split}, label {record.label}) is not so in "
                "this store; the plan was written before the store changed, or from another "
                "store: write it again with `score plan`",
                number,
            )


def _import_job(
    store: Store,
    run_id: int,
    job: Path,
    spec: JobSpec,
    records: list[PairRecord],
    by_id: dict[str, SplitPair],
    pair_pks: dict[str, int],
) -> ScoreJobSummary:
    folder = str(job.resolve())
    stored = job_of_folder(store, folder)
    job_pk = stored.pk if stored else store.add_score_job(
        ScoreJobRow(spec.name, spec.model, current_mode(spec.mode), spec.seed, spec.train_langs,
                    spec.eval_langs, spec.to_json(), folder),
        run_id,
    )  # fmt: skip
    text_lang = spec.train_langs[0] if spec.mode == "translate-test" else None
    groups = eval_groups(records, by_id, text_lang)
    added = merge_checkpoints(store, job_pk, job, groups, lambda _: None)
    finished = bool(stored and stored.finished)
    if not finished:
        dynamics = finished_dynamics(job, records, pair_pks)
        if dynamics is not None:
            store.finish_score_job(job_pk, dynamics)
            finished = True
    train_rows = sum(1 for r in records if r.split == TRAIN)
    return ScoreJobSummary(
        name=spec.name, mode=current_mode(spec.mode), seed=spec.seed, train_rows=train_rows,
        eval_rows=len(records) - train_rows, checkpoints=len(checkpoint_indexes(store, job_pk)),
        added=added, finished=finished, last_accuracy=last_accuracy(store, job_pk),
    )  # fmt: skip


def summary(_cfg: ScoreImportConfig, result: ScoreResult) -> str:
    return score_summary(result, "Imported")


def stopped_warnings(result: ScoreResult) -> list[str]:
    """A job that stopped before it finished is imported as far as it got, and said so:
    its accuracy is of a model trained less than the plan asked."""
    return list(result.stopped.values())


STAGE = Stage(
    SCORE_IMPORT,
    settings=ScoreImportConfig,
    run=run,
    summary=summary,
    warnings=stopped_warnings,
)
