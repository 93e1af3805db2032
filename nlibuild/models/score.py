"""`score train|plan|import|baselines`: baseline scores on the corpus (issue 17)."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import Annotated, TypeVar

from pydantic import AfterValidator, BaseModel, Field

from nlibuild.core.signature import OutputPath
from nlibuild.models.base import IN_PRESET, LangCode, Seed, _Config


class ScoreMode(StrEnum):
    """What a job trains and evaluates on (XNLI section 5; XTREME section 4). The modes
    marked per language make one job a target language (and seed)."""

    ZERO_SHOT = "zero-shot"  # train in the train language, evaluate every language as is
    # XTREME's translate-train-all ("translate-train multi-task": "the combined translated
    # training data of all languages jointly"): the train split in the train language plus
    # its machine translations into every evaluated language, one model for all of them.
    TRANSLATE_TRAIN_ALL = "translate-train-all"
    # XNLI's TRANSLATE TRAIN, per language: "the training data is translated into each
    # target language to provide data to train each classifier"; each model is evaluated
    # on its own language.
    TRANSLATE_TRAIN_EACH = "translate-train-each"
    # XNLI's TRANSLATE TEST: "a translation system is used at test time to translate input
    # sentences to the training language": each language's dev and test read through their
    # machine translation into the train language, by the train-language model.
    TRANSLATE_TEST = "translate-test"
    # The hypothesis alone (OCNLI Table 7), per language: trained on that language's own
    # train split (its text or human translation) and evaluated on it; none for a language
    # whose train split has no text in it.
    HYP_ONLY = "hyp-only"

    @classmethod
    def _missing_(cls, value: object) -> ScoreMode | None:
        """`translate-train`, the name before translate-train-each existed, in presets,
        scripts and job folders written then: translate-train-all."""
        return cls.TRANSLATE_TRAIN_ALL if value == RENAMED_TRANSLATE_TRAIN else None


RENAMED_TRANSLATE_TRAIN = "translate-train"
"""The former name of `translate-train-all` (schema 16 renames it in stored jobs)."""

PER_LANGUAGE_MODES = frozenset({ScoreMode.TRANSLATE_TRAIN_EACH, ScoreMode.HYP_ONLY})
"""Modes with one job a target language: its name says the language (but the train
language's hyp-only job, named as before per-language jobs existed)."""


class BaselineMode(StrEnum):
    """The CPU floors `score baselines` records beside the models."""

    MAJORITY = "majority"  # the train split's most frequent gold label
    HYPOTHESIS_ONLY_BOW = "hypothesis-only-bow"  # Poliak et al. 2018; OCNLI Table 7
    OVERLAP = "overlap"  # lexical overlap features (McCoy et al. 2019's heuristic)


class ScoreSchedule(StrEnum):
    CONSTANT = "constant"
    LINEAR = "linear"  # decays to 0 over training


class Launcher(StrEnum):
    TORCHRUN = "torchrun"  # run.sh: one job after another
    SLURM = "slurm"  # slurm.sh: an sbatch array, one task per job


ALL_LANGS = "all"
"""`--eval-langs all`: the corpus language and every language the store has translations into."""


class ScoreLanguages(_Config):
    """Which languages a job trains on and evaluates."""

    preset_section = "score"

    train_lang: Annotated[LangCode | None, IN_PRESET] = None  # None: the corpus language
    eval_langs: Annotated[tuple[LangCode, ...], IN_PRESET] = (ALL_LANGS,)


class ScoreTraining(_Config):
    """The fine-tuning settings every job of a `score train` or `score plan` shares."""

    preset_section = "score"

    seeds: Annotated[tuple[Seed, ...], IN_PRESET] = Field((1, 2, 3), min_length=1)
    # OCNLI section 5: "3 epochs, a learning rate of 2e-5, and a batch size of 32"; Keung et
    # al. 2020 section 3: "a constant learning rate of 2 x 10-5 with a batch size of 32 for
    # XNLI", a checkpoint "for every 2% of the training corpus processed".
    epochs: Annotated[float, IN_PRESET] = Field(3.0, gt=0)
    lr: Annotated[float, IN_PRESET] = Field(2e-5, gt=0)
    schedule: Annotated[ScoreSchedule, IN_PRESET] = ScoreSchedule.CONSTANT
    batch_size: Annotated[int, IN_PRESET] = Field(32, ge=1)
    max_length: Annotated[int, IN_PRESET] = Field(128, ge=8)
    eval_every: Annotated[float, IN_PRESET] = Field(0.02, gt=0, le=1)


class ScoreTrainConfig(_Config):
    """`score train`: fine-tune a local model on the store's train split, one job a seed."""

    preset_section = "score"

    model: Path
    mode: Annotated[ScoreMode, IN_PRESET] = ScoreMode.ZERO_SHOT
    langs: ScoreLanguages = ScoreLanguages()
    training: ScoreTraining = ScoreTraining()


_Item = TypeVar("_Item")


def _each_once(values: tuple[_Item, ...]) -> tuple[_Item, ...]:
    twice = next((value for n, value in enumerate(values) if value in values[:n]), None)
    if twice is not None:
        raise ValueError(f"{twice} is named twice; name each value of a sweep once")
    return values


LearningRate = Annotated[float, Field(gt=0)]
BatchSize = Annotated[int, Field(ge=1)]

_SLURM_TIME = re.compile(r"\d+(:\d+){0,2}|\d+-\d+(:\d+){0,2}|unlimited|infinite", re.IGNORECASE)
_SLURM_PARTITIONS = re.compile(r"[\w.-]+(,[\w.-]+)*", re.ASCII)


def _slurm_time(text: str) -> str:
    if not _SLURM_TIME.fullmatch(text):
        raise ValueError(
            f"{text!r} is not a Slurm time limit: give minutes, hours:minutes:seconds or "
            "days-hours[:minutes[:seconds]], e.g. 90, 02:00:00 or 1-12"
        )
    return text


def _slurm_partitions(text: str) -> str:
    if not _SLURM_PARTITIONS.fullmatch(text):
        raise ValueError(
            f"{text!r} is not a Slurm partition: give its name (letters, digits, _ . -), "
            "or several, comma-separated"
        )
    return text


def _command_line(text: str) -> str:
    if not text.strip() or "\0" in text:
        raise ValueError("give a shell command, e.g. 'source ~/venv/bin/activate'")
    return text


SlurmTime = Annotated[str, AfterValidator(_slurm_time)]
SlurmPartitions = Annotated[str, AfterValidator(_slurm_partitions)]
CommandLine = Annotated[str, AfterValidator(_command_line)]
Count = Annotated[int, Field(ge=1)]


class ScorePlanConfig(_Config):
    """`score plan`: the job matrix (models x modes x configurations x seeds) as folders
    and a script."""

    preset_section = "score"

    models: tuple[Path, ...] = Field(min_length=1)
    modes: Annotated[tuple[ScoreMode, ...], IN_PRESET] = (ScoreMode.ZERO_SHOT,)
    langs: ScoreLanguages = ScoreLanguages()
    training: ScoreTraining = ScoreTraining()
    # A sweep (XTREME section 4 picks the fine-tuning settings on English dev): a job for
    # every learning rate x batch size; empty, the training's `lr` or `batch_size` alone.
    lrs: Annotated[tuple[LearningRate, ...], AfterValidator(_each_once), IN_PRESET] = ()
    batch_sizes: Annotated[tuple[BatchSize, ...], AfterValidator(_each_once), IN_PRESET] = ()
    out: OutputPath
    # Model folders are written into the plan (models/NAME) instead of named by their
    # absolute path: a plan to copy to a machine that does not see this one's disks.
    copy_models: Annotated[bool, IN_PRESET] = False
    launcher: Annotated[Launcher, IN_PRESET] = Launcher.TORCHRUN
    gpus_per_job: Annotated[int, IN_PRESET] = Field(1, ge=1)
    # slurm.sh's sbatch settings (None: the cluster's defaults), and a shell command both
    # scripts run before the jobs, in the plan folder (activate an environment, load modules).
    partition: Annotated[SlurmPartitions | None, IN_PRESET] = None
    time: Annotated[SlurmTime | None, IN_PRESET] = None
    cpus_per_task: Annotated[Count | None, IN_PRESET] = None
    env_setup: Annotated[CommandLine | None, IN_PRESET] = None


class ScoreImportConfig(_Config):
    """`score import`: a plan folder's results into the store."""

    folder: Path


class ScoreBaselinesConfig(_Config):
    """`score baselines`: majority, hypothesis-only bag of words and lexical overlap."""

    preset_section = "score"

    langs: ScoreLanguages = ScoreLanguages()
    seed: Annotated[Seed, IN_PRESET] = 13


class ScoreTinyModelConfig(_Config):
    """`score tiny-model`: a random, untrained BERT-like classifier with a WordPiece tokenizer
    trained on the store's texts, for a smoke test of the scoring pipeline."""

    out: OutputPath
    seed: Seed = 0
    # Hidden size 32 learns the planted rule of `nlibuild.scoring.planted` on some seeds and
    # stalls on others; 64 (4 heads) learns it on every seed tried, at about twice the cost.
    hidden: int = Field(32, ge=16, multiple_of=16)


class ExportSelect(StrEnum):
    """`score export-model --select`: which checkpoint of a job to serve, by `score
    report`'s rules (`SelectRule`), less test-ceiling (a checkpoint chosen on test data)."""

    EN_DEV = "en-dev"  # the best dev accuracy in the training language
    TARGET_DEV = "target-dev"  # the best dev accuracy in --lang (Keung et al.'s oracle)
    LAST = "last"  # the final checkpoint


class ScoreExportModelConfig(_Config):
    """`score export-model`: a checkpoint of a finished job as a model folder to serve."""

    job: str = Field(min_length=1)  # the job's name (the newest run's job of that name)
    select: ExportSelect = ExportSelect.EN_DEV
    lang: LangCode | None = None  # target-dev's language; None: the corpus language
    run: int | None = None  # the score run the job is of; None: the newest with the name
    out: OutputPath


class ScoreExportModelResult(BaseModel):
    run_id: int
    signature: str
    out: str
    job: str
    job_run: int = Field(description="the score run the job is of")
    select: ExportSelect
    lang: str = Field(description="the language whose dev (or test) the rule read")
    checkpoint: int
    step: int
    epoch: float
    # "<lang>/<split>" -> accuracy at the exported checkpoint
    accuracy: dict[str, float]
    identity: str = Field(description="<job>@<step> sha256:<12 hex of the weights>")


class ScoreJobSummary(BaseModel):
    """One job as a score command reports it."""

    name: str
    mode: str
    seed: int
    train_rows: int
    eval_rows: int
    checkpoints: int = Field(description="checkpoints in the store")
    added: int = Field(0, description="checkpoints this run added")
    finished: bool
    # "<lang>/<split>" -> accuracy at the job's last stored checkpoint
    last_accuracy: dict[str, float] = Field(default_factory=dict)


class ScoreRowCounts(BaseModel):
    """What building a job's rows left out."""

    without_gold: int = Field(0, description="pairs in a split without a gold label")
    # language -> pairs of that language's evaluation left out for want of its text
    untranslated: dict[str, int] = Field(default_factory=dict)
    # mode -> the languages it has no job (or baseline) for: no train pair has text in
    # them ("n.a." in a table), e.g. hyp-only where only dev and test were translated
    not_available: dict[str, list[str]] = Field(default_factory=dict)


class ScoreResult(BaseModel):
    """What `score train`, `score import` and `score baselines` did."""

    run_id: int
    signature: str
    folder: str = Field("", description="where the jobs' folders are")
    jobs: list[ScoreJobSummary]
    left_out: ScoreRowCounts = ScoreRowCounts()
    not_started: list[str] = Field(default_factory=list, description="jobs with no results yet")
    # job name -> the Warning: line of a job `score import` found stopped before it finished
    # (no done.json, and no live process running it)
    stopped: dict[str, str] = Field(default_factory=dict)


class ScorePlanResult(BaseModel):
    run_id: int
    signature: str
    out: str
    jobs: list[str]
    configurations: int = Field(1, description="learning rate x batch size settings swept")
    script: str
    left_out: ScoreRowCounts
