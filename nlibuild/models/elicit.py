"""Eliciting hypotheses: batches for writers, work packages, answers, subset statistics."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from nlibuild.core.signature import OutputPath
from nlibuild.models.base import (
    ANNOTATOR_ID_PATTERN,
    ANSWER_COLUMN_KEYS,
    DEFAULT_MAX_OVERLAP,
    DEFAULT_OVERLAP_MEASURE,
    DEFAULT_OVERLAP_UNITS,
    IN_PRESET,
    Label,
    LangCode,
    OverlapMeasure,
    OverlapUnits,
    PlatformFormat,
    PresetKey,
    Protocol,
    Seed,
    _Config,
    check_platform_columns,
    label_order_text,
    upper_case,
)


class Rule(StrEnum):
    """What the checks look for. Each finding names one of these."""

    OVERLAP = "overlap"  # shares more than the limit of its units with the premise
    NEGATOR = "negator"  # MULTI_CONSTRAINT: a second negated contradiction for a premise
    NEGATED_ENTAILMENT = "negated_entailment"  # optional: an entailment holding a negator
    COPY = "copy"  # the hypothesis is the premise
    DUPLICATE = "duplicate"  # the same hypothesis twice for one premise
    MISSING_LABEL = "missing_label"  # no hypothesis at all for a label
    TOO_FEW = "too_few"  # MULTI: fewer than three for a label (OCNLI allowed it)
    TOO_MANY = "too_many"  # more hypotheses for a label than the protocol asks for
    EMPTY = "empty"  # an empty field before a filled one (the levels shift up)
    UNUSABLE_WITH_ANSWERS = "unusable_with_answers"  # marked `x` and answered anyway
    NOT_IN_BATCH = "not_in_batch"  # an answer for a premise the batch does not hold
    OTHER_WRITER = "other_writer"  # an answer by someone the batch was not given to


class OnViolation(StrEnum):
    """What an answer import does with a pair that breaks a rule of its protocol."""

    FLAG = "flag"  # keep it, with the violation stored beside it
    REJECT = "reject"  # keep only the violation


class Severity(StrEnum):
    """How much a finding of the answer checks weighs."""

    ERROR = "error"  # breaks a rule of the protocol: rejected under --on-violation reject
    WARNING = "warning"  # worth a look, never a reason to drop a pair


DEFAULT_OVERLAP_SEVERITY = Severity.ERROR
"""OCNLI 3.2 states the overlap limit as a rule of every protocol ("in all our instructions,
we made explicit to the annotators that no hypothesis should overlap more than 70%")."""


def _zero_is_no_cap(value: object) -> object:
    # `--max-per-writer 0` and a preset's `max_per_writer = 0` both mean no cap.
    return None if value == 0 and not isinstance(value, bool) else value


class ElicitCreateConfig(_Config):
    """`nlibuild elicit create`: batches of unassigned premises, one writer each."""

    preset_section = "elicit"

    protocol: Annotated[Protocol, PresetKey(reads=upper_case)]
    # No writers is refused below in the command's words, not as a missing field.
    annotators: tuple[str, ...] = Field(default=(), description="the writers")
    batch_size: Annotated[int, IN_PRESET] = Field(default=50, ge=1)
    max_per_writer: Annotated[int | None, BeforeValidator(_zero_is_no_cap), IN_PRESET] = Field(
        default=None, ge=1, description="premises, over all runs; 0: no cap"
    )
    genres: tuple[str, ...] = ()
    lang: LangCode | None = None
    seed: Annotated[Seed, IN_PRESET] = 13
    premises: Path | None = Field(
        default=None, description="a file of chosen premise IDs, one per line, drawn instead"
    )
    # ANLI's rounds (Nie et al. 2020): the batches' pairs are written against the round's
    # model, and `split --by-round` keeps each round's dev and test apart.
    round: int | None = Field(
        default=None, ge=1, description="the adversarial round the batches belong to"
    )

    @field_validator("annotators")
    @classmethod
    def _writer_ids(cls, annotators: tuple[str, ...]) -> tuple[str, ...]:
        import re

        for writer in annotators:
            if not re.match(ANNOTATOR_ID_PATTERN, writer):
                raise ValueError(
                    f"writer ID {writer!r}: use letters, digits and . _ - @ (e.g. w01)"
                )
        if len(set(annotators)) != len(annotators):
            raise ValueError("a writer is named twice")
        return annotators

    @model_validator(mode="after")
    def _some_writers(self) -> ElicitCreateConfig:
        if not self.annotators:
            raise ValueError("name the writers with --annotators: a file, or IDs like w01,w02")
        return self


class CreatedBatch(BaseModel):
    id: str
    writer: str
    premises: int
    genres: dict[str, int]
    round: int | None = None


class ElicitCreateResult(BaseModel):
    run_id: int
    signature: str
    batches: list[CreatedBatch]
    unassigned: int = Field(description="premises left out: every writer reached the cap")


class ElicitExportConfig(_Config):
    """`nlibuild elicit export`: the work package of some batches for one platform."""

    batches: tuple[str, ...] = ()
    all: bool = False
    format: PlatformFormat
    out: OutputPath
    instruction_langs: tuple[LangCode, ...] = ("en", "zh")
    label_names: tuple[tuple[str, str], ...] = Field(
        default=(), description="(label, the name people see): [labels.names], or the language's"
    )


class ElicitExportResult(BaseModel):
    run_id: int
    signature: str
    batches: int
    tasks: int
    files: list[Path]


class ElicitImportConfig(_Config):
    """`nlibuild elicit import`: writers' answers, checked and turned into pairs."""

    preset_section = "elicit"

    path: Path
    format: PlatformFormat
    annotator_map: Path | None = Field(default=None, description="platform ID -> annotator map")
    on_violation: Annotated[OnViolation, IN_PRESET] = OnViolation.FLAG
    max_overlap: Annotated[float, IN_PRESET] = Field(default=DEFAULT_MAX_OVERLAP, gt=0, le=1)
    overlap_measure: Annotated[OverlapMeasure, IN_PRESET] = DEFAULT_OVERLAP_MEASURE
    overlap_severity: Annotated[Severity, IN_PRESET] = DEFAULT_OVERLAP_SEVERITY
    overlap_units: Annotated[OverlapUnits, IN_PRESET] = Field(
        default=DEFAULT_OVERLAP_UNITS,
        description="what Chinese overlap counts: characters (as OCNLI) or jieba's words; "
        "Korean counts words either way (as the corpus tables), other languages words, or "
        "characters without a segmenter (ja, th, my)",
    )
    negator_in_entailment: Annotated[bool, IN_PRESET] = Field(
        default=False,
        description="warn of an entailment that holds a negator (negators cue contradictions: "
        "OCNLI 5; a protocol may want them out of entailments too)",
    )
    negators: tuple[Path, ...] = ()
    batch: str | None = Field(default=None, description="for files without a batch column")
    writer: str | None = Field(default=None, description="for files without a writer column")
    label_order: Annotated[tuple[Label, Label, Label] | None, PresetKey(reads=label_order_text)] = (
        Field(default=None, description="what integer labels in a long csv stand for")
    )
    label_names: tuple[tuple[str, str], ...] = Field(
        default=(),
        description="(label, the name people see): a hypothesis field or label named by it "
        "is its label's",
    )
    columns: dict[str, str] = Field(
        default_factory=dict,
        description="--format table: the file's column for each of ANSWER_COLUMN_KEYS and "
        "the hypotheses (entailment_1, ... or entailment, ...)",
    )

    @model_validator(mode="after")
    def _columns_for_tables(self) -> ElicitImportConfig:
        check_platform_columns(self.format, self.columns, ANSWER_COLUMN_KEYS, hypotheses=True)
        return self

    source: str | None = Field(
        default=None,
        description="where answers that come from no file came from: `workbench` (the run's "
        "settings and signature say so)",
    )


class RuleCount(BaseModel):
    rule: str
    severity: str
    found: int
    pairs_kept: int
    pairs_rejected: int


class WriterReport(BaseModel):
    writer: str
    answers: int
    unusable: int
    pairs_added: int
    pairs_rejected: int
    errors: int
    warnings: int
    contradictions: int
    negated_contradictions: int


class ElicitImportResult(BaseModel):
    run_id: int
    signature: str
    answers: int
    dropped: dict[str, int] = Field(description="platform answers not read, by reason")
    left_open: int = Field(
        description="empty submissions (nothing written, not marked x): no answer, so their "
        "premises stay open"
    )
    unchanged: int
    unusable: int
    pairs_added: int
    pairs_rejected: int
    answers_refused: int = Field(
        default=0,
        description="answers refused whole: their premise not in their batch, or the batch "
        "another writer's (violations not_in_batch, other_writer)",
    )
    violations_added: int
    rules: list[RuleCount]
    writers: list[WriterReport]
    warnings: list[str]


class ElicitReopenConfig(_Config):
    """A lead reopens a premise its writer answered (or marked unusable), so that the writer
    can answer it again (issue 26): the answer's pairs leave the corpus and are kept, with
    the answer, in `reopened_answers`."""

    batch: str = Field(description="the elicitation batch")
    premise: str = Field(description="the answered premise of that batch")


class ElicitReopenResult(BaseModel):
    """A premise reopened, by the run that reopened it."""

    run_id: int
    signature: str
    writer: str
    former_status: str = Field(description="`answered`, or `unusable` (marked x)")
    pairs_removed: int
    violations_removed: int


class ElicitTask(BaseModel):
    """One task of a work package (jsonl export; the `data` of a Label Studio task; a
    row of the MTurk input CSV): our IDs travel inside every task."""

    batch: str
    writer: str
    protocol: Protocol
    lang: str
    premise_id: str
    genre: str | None
    premise: str
    hypotheses_per_label: int


class ElicitAnswer(BaseModel):
    """One writer's answer for one premise (jsonl import): the hypotheses per label in the
    order written (the 1st, 2nd, 3rd are easy, medium, hard), or `unusable` for `x`."""

    model_config = ConfigDict(extra="ignore")

    batch: str | None = None
    writer: str | None = None
    premise_id: str | None = None
    premise: str | None = Field(default=None, description="used when premise_id is absent")
    unusable: bool = False
    entailment: list[str] = Field(default_factory=list)
    neutral: list[str] = Field(default_factory=list)
    contradiction: list[str] = Field(default_factory=list)


class SubsetRow(BaseModel):
    """One protocol of `stats --table subsets` (OCNLI Table 3)."""

    protocol: str
    lang: str
    unit: str
    pairs: int
    mean_length: float | None
    easy: int
    easy_mean_length: float | None
    medium: int
    medium_mean_length: float | None
    hard: int
    hard_mean_length: float | None
    contradictions: int
    negated_contradictions: float | None = Field(description="share of contradictions")
    overlap_measure: OverlapMeasure = Field(description="the share the overlap columns are of")
    overlap_quartiles: tuple[float, float, float] | None = Field(
        description="the pairs' overlap share at the 25th, 50th and 75th percentile"
    )
    overlap_bins: list[float] = Field(description="shares of pairs per OVERLAP_BINS bin")
    over_overlap_limit: float | None = Field(description="share of pairs")
    overlap_unit: str = Field(description="what overlap counts in the language: words or chars")
