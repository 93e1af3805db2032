"""Typed models at the edges: labels, enums, stage configs, results, interchange records.

Stage configs are frozen and forbid unknown fields, so a run's effective config can be
stored verbatim in the `runs` table and reproduced later. Interchange records describe
the files nlibuild reads and writes; `schemas/` is generated from them.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator

from nlibuild.core.signature import OutputPath


class Label(StrEnum):
    """The three NLI labels. Only these can ever be gold."""

    ENTAILMENT = "entailment"
    NEUTRAL = "neutral"
    CONTRADICTION = "contradiction"

    @property
    def initial(self) -> str:
        return self.value[0]


NO_GOLD = "-"
"""The gold label of a pair on which no label reached the required agreement."""

NLI_LABELS: tuple[str, ...] = tuple(label.value for label in Label)


class Level(StrEnum):
    """OCNLI's hypothesis levels: the 1st, 2nd and 3rd hypothesis a writer wrote for a label."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Protocol(StrEnum):
    """OCNLI's four elicitation protocols (OCNLI 3.2)."""

    SINGLE = "SINGLE"
    MULTI = "MULTI"
    MULTI_ENCOURAGE = "MULTI_ENCOURAGE"
    MULTI_CONSTRAINT = "MULTI_CONSTRAINT"


class ImportFormat(StrEnum):
    MNLI = "mnli"
    SNLI = "snli"
    OCNLI = "ocnli"
    XNLI = "xnli"
    JSONL = "jsonl"


class ExportFormat(StrEnum):
    MNLI_JSONL = "mnli-jsonl"
    OCNLI_JSON = "ocnli-json"
    XNLI_TSV = "xnli-tsv"
    XNLI_JSONL = "xnli-jsonl"
    HF_JSONL = "hf-jsonl"
    JSONL = "jsonl"


class NoGoldPolicy(StrEnum):
    """What an integer-label export does with pairs whose gold label is `-`."""

    MINUS_ONE = "minus-one"
    DROP = "drop"


class TableFormat(StrEnum):
    TABLE = "table"
    CSV = "csv"
    JSON = "json"
    MD = "md"
    LATEX = "latex"


DEFAULT_LABEL_ORDER: tuple[Label, Label, Label] = (
    Label.ENTAILMENT,
    Label.NEUTRAL,
    Label.CONTRADICTION,
)
"""GLUE, MNLI on the HF hub and XNLI number labels e=0, n=1, c=2; CLUE's OCNLI uses n,e,c."""


def parse_label_order(text: str) -> tuple[Label, Label, Label]:
    """Parse "e,n,c" (initials or full names, any case) into an ordered triple of labels."""
    by_name = {label.value: label for label in Label} | {label.initial: label for label in Label}
    parts = [part.strip().lower() for part in text.split(",") if part.strip()]
    labels = [by_name.get(part) for part in parts]
    if len(labels) != 3 or None in labels or len(set(labels)) != 3:
        raise ValueError(
            f"label order {text!r} must name entailment, neutral and contradiction once each, "
            "e.g. 'e,n,c' (GLUE/XNLI) or 'n,e,c' (CLUE's OCNLI)"
        )
    return (labels[0], labels[1], labels[2])  # type: ignore[return-value]


def format_label_order(order: tuple[Label, ...]) -> str:
    return ",".join(label.initial for label in order)


class _Config(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @classmethod
    def from_preset(
        cls, preset: dict[str, Any], section: str, origin: str, /, **flags: Any
    ) -> Self:
        """The settings from the flags given (None: not given), else the preset's `[section]`
        values (`origin` names the preset in errors), else this model's defaults. A preset
        key no setting takes, or a value the model refuses, is a one-line `ConfigError`."""
        # presets.py imports this module: its section models check values as we take them.
        from nlibuild.presets import settings_from_preset

        return settings_from_preset(cls, preset, section, origin, flags)


class InitConfig(_Config):
    """`nlibuild init`: the corpus language, the preset and the extra labels of the store."""

    lang: str = "en"
    preset: str | None = None
    extra_labels: tuple[str, ...] = ()


class SplitName(StrEnum):
    """The splits a pair can be in (`nlibuild split`, or `import --split`)."""

    TRAIN = "train"
    DEV = "dev"
    TEST = "test"


class ImportConfig(_Config):
    """`nlibuild import`: where a released corpus comes from and how to read it."""

    path: Path
    format: ImportFormat
    genre: str | None = None
    lang: str | None = None
    corpus: str | None = Field(
        default=None, description="name for anonymous annotator IDs; defaults to the file stem"
    )
    label_order: tuple[Label, Label, Label] | None = None
    extra_labels: tuple[str, ...] = ()
    split: SplitName | None = Field(
        default=None, description="the split the file's new pairs belong to (a released split)"
    )

    @field_validator("extra_labels")
    @classmethod
    def _no_nli_labels_as_extra(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        clash = [v for v in value if v in NLI_LABELS or v == NO_GOLD]
        if clash:
            raise ValueError(f"{', '.join(clash)} cannot be declared as extra labels")
        return value


class ExportConfig(_Config):
    """`nlibuild export`: which format, where, and how integer labels are written."""

    format: ExportFormat
    out: OutputPath
    label_order: tuple[Label, Label, Label] = DEFAULT_LABEL_ORDER
    no_gold: NoGoldPolicy = NoGoldPolicy.MINUS_ONE
    langs: tuple[str, ...] = ()
    split: SplitName | None = None


class SourceFormat(StrEnum):
    """How `nlibuild ingest` reads a source text file."""

    TXT = "txt"
    JSONL = "jsonl"
    TSV = "tsv"
    CONLLU = "conllu"


class ParagraphMode(StrEnum):
    """txt: paragraphs end at a blank line, or every line is one (transcripts)."""

    BLANK = "blank"
    LINE = "line"


class LengthUnit(StrEnum):
    """The unit of sentence lengths: the language's own (`auto`), characters or tokens."""

    AUTO = "auto"
    CHARS = "chars"
    TOKENS = "tokens"


GENRE_PATTERN = r"^[^\W_][\w.\-]*$"
"""Genres become part of premise IDs (`gov_0001`): letters, digits, `_`, `.` and `-`."""


class IngestConfig(_Config):
    """`nlibuild ingest`: source texts of one genre (or genres named by the records)."""

    paths: tuple[Path, ...]
    format: SourceFormat
    genre: str | None = Field(default=None, pattern=GENRE_PATTERN)
    lang: str
    field: str = "text"
    genre_field: str | None = None
    genre_from: str | None = Field(
        default=None, description="conllu: regex over sent_id / newdoc id; group 1 is the genre"
    )
    genre_map: tuple[tuple[str, str], ...] = ()
    paragraph: ParagraphMode = ParagraphMode.BLANK
    clean: str = "none"
    strip: tuple[str, ...] = ()
    known_genres: tuple[str, ...] = ()
    strict: bool = False


class IngestResult(BaseModel):
    run_id: int
    signature: str
    files: int
    texts: int
    sentences: int
    empty_after_cleaning: int
    duplicates: int
    added: int
    by_genre: dict[str, int]
    warnings: list[str]


class SampleConfig(_Config):
    """`nlibuild sample`: how many premises per genre, of which lengths, from which seed."""

    genres: tuple[str, ...] = ()
    n: int = Field(default=250, ge=1)
    all_genres: bool = False
    min_len: int = Field(default=8, ge=0)
    max_len: int = Field(default=50, ge=1)
    unit: LengthUnit = LengthUnit.AUTO
    lang: str | None = None
    seed: int = 13
    exclude: tuple[Path, ...] = ()
    balance_bins: int | None = Field(default=None, ge=1)


class SampledGenre(BaseModel):
    genre: str
    sampled: int
    qualifying: int | None = Field(description="counted only with --balance-lengths")
    first_id: str | None
    last_id: str | None


class SampleResult(BaseModel):
    run_id: int
    signature: str
    genres: list[SampledGenre]
    excluded_texts: int


class PremiseStatsRow(BaseModel):
    """One genre (and language) of the sentence pool, for `stats --table premises`."""

    genre: str
    lang: str
    unit: str
    pool: int
    qualifying: int
    sampled: int
    mean: float | None
    min: int | None
    max: int | None
    histogram: list[int]
    histogram_edges: list[int]
    sampled_mean: float | None


class RunRecord(BaseModel):
    """One row of the provenance log."""

    id: int
    stage: str
    config: dict[str, Any]
    signature: str
    started_at: datetime
    finished_at: datetime | None
    status: str
    """running, ok, failed or interrupted (a run whose process died while running)."""
    counts: dict[str, int]
    version: str
    command: str | None = None
    host: str | None = None
    pid: int | None = None
    error: str | None = None
    steps: list[str] = []


class ImportResult(BaseModel):
    run_id: int
    signature: str
    lines: int
    premises_added: int
    pairs_added: int
    pairs_unchanged: int
    votes_added: int
    translations_added: int
    split_assigned: int = Field(default=0, description="new pairs put in --split")


class ExportResult(BaseModel):
    run_id: int
    signature: str
    out: Path
    rows: int
    no_gold_rows: int
    no_gold_policy: NoGoldPolicy | None = None
    label_order: str | None = None
    sidecar: Path | None = None


class CountRow(BaseModel):
    key: str
    count: int


class StoreSummary(BaseModel):
    """What `nlibuild info` shows."""

    path: Path
    schema_version: int
    lang: str
    preset: str | None
    extra_labels: list[str]
    premises: int
    pairs: int
    votes: int
    validated_pairs: int
    translations: int
    batches: int = 0
    open_assignments: int = 0
    violations: int = 0
    by_genre: list[CountRow]
    by_lang: list[CountRow]
    gold_method: str
    by_gold_label: list[CountRow]
    by_author_label: list[CountRow]
    by_protocol: list[CountRow]
    by_level: list[CountRow]
    runs: int


# --- interchange records: the files nlibuild reads and writes (schemas/ is generated) ---


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")


class MnliRecord(_Record):
    """One line of an MNLI/SNLI jsonl release. Unknown keys (parses, captionID) are kept.

    `annotator_ids` is an nlibuild extension: platform-independent annotator IDs parallel to
    `annotator_labels`; without it, annotators get stable anonymous per-corpus IDs.
    """

    annotator_labels: list[str] = Field(
        default_factory=list, description="individual labels; element 0 is the author's"
    )
    annotator_ids: list[str] | None = None
    genre: str | None = None
    gold_label: str = Field(description="released gold label, '-' when no 3-of-5 majority")
    pairID: str
    promptID: str | int | None = None
    captionID: str | None = None
    sentence1: str = Field(min_length=1)
    sentence2: str = Field(min_length=1)


class OcnliRecord(_Record):
    """One line of an OCNLI json file (JSON lines despite the extension)."""

    level: str | None = None
    sentence1: str = Field(min_length=1)
    sentence2: str = Field(min_length=1)
    label: str = Field(description="gold label, '-' when none")
    label0: str | None = Field(default=None, description="the author's label")
    label1: str | None = None
    label2: str | None = None
    label3: str | None = None
    label4: str | None = None
    genre: str | None = None
    prem_id: str | None = None
    id: int | str | None = None


class XnliRow(_Record):
    """One row of an XNLI-style tab-separated file (header required, no quoting).

    Also read: XNLI-MT's `premise`/`hypo`, myXNLI's `sentence1_<lang>` columns, integer labels.
    """

    language: str | None = None
    gold_label: str
    sentence1: str
    sentence2: str
    promptID: str | None = None
    pairID: str | None = None
    genre: str | None = None
    label1: str | None = None
    label2: str | None = None
    label3: str | None = None
    label4: str | None = None
    label5: str | None = None


class HfRecord(BaseModel):
    """One line of an hf-jsonl export; integer labels follow the order in the sidecar file."""

    id: str
    premise: str
    hypothesis: str
    label: int = Field(description="index into label_names, -1 for no gold label")
    genre: str | None = None
    lang: str


class HfLabelInfo(BaseModel):
    """The sidecar `<out>.labels.json` written beside an hf-jsonl export."""

    label_names: list[str]
    label_order: str
    no_gold: NoGoldPolicy
    rows: int
    no_gold_rows: int


class PairRecord(BaseModel):
    """nlibuild's own jsonl: one pair with its premise, votes and provenance."""

    model_config = ConfigDict(extra="forbid")

    pair_id: str | None = None
    premise_id: str | None = None
    premise: str = Field(min_length=1)
    hypothesis: str = Field(min_length=1)
    genre: str | None = None
    lang: str | None = None
    level: Level | None = None
    protocol: Protocol | None = None
    labels: list[str] = Field(default_factory=list, description="votes; element 0 is the author's")
    annotators: list[str] | None = Field(
        default=None, description="annotator IDs parallel to labels"
    )
    gold_label: str | None = None


# --- elicitation ------------------------------------------------------------------------

ANNOTATOR_ID_PATTERN = r"^[A-Za-z0-9][\w.@\-]*$"


DEFAULT_MAX_OVERLAP = 0.70
"""OCNLI 3.2: "no hypothesis should overlap more than 70% with the premise"."""


class PlatformFormat(StrEnum):
    """How a work package goes out to writers and their answers come back."""

    JSONL = "jsonl"
    CSV = "csv"
    LABELSTUDIO = "labelstudio"
    MTURK = "mturk"


class OnViolation(StrEnum):
    """What an answer import does with a pair that breaks a rule of its protocol."""

    FLAG = "flag"  # keep it, with the violation stored beside it
    REJECT = "reject"  # keep only the violation


class ElicitCreateConfig(_Config):
    """`nlibuild elicit create`: batches of unassigned premises, one writer each."""

    protocol: Protocol
    writers: tuple[str, ...] = Field(min_length=1)
    batch_size: int = Field(default=50, ge=1)
    max_per_writer: int | None = Field(default=None, ge=1, description="premises, over all runs")
    genres: tuple[str, ...] = ()
    lang: str | None = None
    seed: int = 13

    @field_validator("max_per_writer", mode="before")
    @classmethod
    def _zero_is_no_cap(cls, value: object) -> object:
        # `--max-per-writer 0` and a preset's `max_per_writer = 0` both mean no cap.
        return None if value == 0 else value

    @field_validator("writers")
    @classmethod
    def _writer_ids(cls, writers: tuple[str, ...]) -> tuple[str, ...]:
        import re

        for writer in writers:
            if not re.match(ANNOTATOR_ID_PATTERN, writer):
                raise ValueError(
                    f"writer ID {writer!r}: use letters, digits and . _ - @ (e.g. w01)"
                )
        if len(set(writers)) != len(writers):
            raise ValueError("a writer is named twice")
        return writers


class CreatedBatch(BaseModel):
    id: str
    writer: str
    premises: int
    genres: dict[str, int]


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
    instruction_langs: tuple[str, ...] = ("en", "zh")


class ElicitExportResult(BaseModel):
    run_id: int
    signature: str
    batches: int
    tasks: int
    files: list[Path]


class ElicitImportConfig(_Config):
    """`nlibuild elicit import`: writers' answers, checked and turned into pairs."""

    path: Path
    format: PlatformFormat
    annotators: Path | None = Field(default=None, description="platform ID -> annotator map")
    on_violation: OnViolation = OnViolation.FLAG
    max_overlap: float = Field(default=DEFAULT_MAX_OVERLAP, gt=0, le=1)
    negators: tuple[Path, ...] = ()
    batch: str | None = Field(default=None, description="for files without a batch column")
    writer: str | None = Field(default=None, description="for files without a writer column")
    label_order: tuple[Label, Label, Label] | None = None


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
    unchanged: int
    unusable: int
    pairs_added: int
    pairs_rejected: int
    violations_added: int
    rules: list[RuleCount]
    writers: list[WriterReport]
    warnings: list[str]


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
    over_overlap_limit: float | None = Field(description="share of pairs")


# --- aggregation and agreement ----------------------------------------------------------


class AggregateMethod(StrEnum):
    MAJORITY = "majority"
    DAWID_SKENE = "dawid-skene"


class AggregateConfig(_Config):
    """`nlibuild aggregate-labels`: gold labels from the votes."""

    min_agree: int = Field(default=3, ge=1)
    method: AggregateMethod = AggregateMethod.MAJORITY
    max_iterations: int = Field(default=100, ge=1, description="dawid-skene")
    tolerance: float = Field(default=1e-6, gt=0, description="dawid-skene")


class AggregateResult(BaseModel):
    run_id: int
    signature: str
    method: str
    pairs: int
    by_label: dict[str, int] = Field(description="majority gold per label, '-' included")
    validated: int
    unvalidated: int = Field(description="pairs with the author's vote only")
    released_disagreements: int | None = Field(
        description="pairs whose released gold differs from the majority"
    )
    dawid_skene_disagreements: int | None = None
    iterations: int | None = None


class CheckConfig(_Config):
    """`nlibuild check`: with `repair`, rewrite `pair_labels` counts from the votes."""

    repair: bool = False


class CheckFinding(BaseModel):
    """One check of `nlibuild check`: how many pairs it found, and the first few."""

    check: str = Field(description="counts, missing, extra, gold-stale or gold-differs")
    description: str
    pairs: int
    first_pair_ids: list[str] = Field(description="public pair IDs, in key order")


class CheckResult(BaseModel):
    """What `nlibuild check` found (after the repair, with --repair)."""

    pairs_checked: int = Field(description="pairs with votes or a pair_labels row")
    findings: list[CheckFinding] = Field(description="every check, those that found none too")
    repaired: list[CheckFinding] | None = Field(
        default=None, description="with --repair: the pair_labels differences it rewrote"
    )
    run_id: int | None = None
    signature: str | None = None

    @property
    def differences(self) -> int:
        return sum(f.pairs for f in self.findings)


class AgreementStat(BaseModel):
    """One statistic of `stats --table agreement` for one group of pairs."""

    statistic: str
    group: str
    value: float | None
    numerator: float | None
    denominator: int
    low: float | None = None
    high: float | None = None


class AnnotatorStat(BaseModel):
    """One annotator of `stats --table annotators`."""

    annotator: str
    votes: int
    authored: int
    validated: int
    agree_with_gold: float | None = Field(description="leave-one-out, over validated pairs")
    agree_pairs: int
    author_gold: float | None = Field(description="share of authored pairs whose gold = label")
    author_pairs: int
    violations: int
    reliability: float | None = None
    flagged: bool = False


# --- relabelling ------------------------------------------------------------------------


class StratumKey(StrEnum):
    """What `relabel create --stratify` can draw evenly over; `label` is the author's."""

    PROTOCOL = "protocol"
    LEVEL = "level"
    GENRE = "genre"
    LANG = "lang"
    LABEL = "label"


def _annotator_ids(ids: tuple[str, ...]) -> tuple[str, ...]:
    import re

    for annotator in ids:
        if not re.match(ANNOTATOR_ID_PATTERN, annotator):
            raise ValueError(
                f"annotator ID {annotator!r}: use letters, digits and . _ - @ (e.g. v01)"
            )
    if len(set(ids)) != len(ids):
        raise ValueError("an annotator is named twice")
    return ids


class RelabelCreateConfig(_Config):
    """`nlibuild relabel create`: a seeded share of each stratum's pairs, each pair to
    `validators` annotators who did not write it, in batches of one annotator each."""

    annotators: tuple[str, ...] = Field(min_length=1)
    fraction: float = Field(default=0.15, gt=0, le=1, description="of each stratum's pairs")
    validators: int = Field(default=4, ge=1, description="annotators per pair, the author not")
    protocol: Protocol | None = None
    stratify: tuple[StratumKey, ...] = (StratumKey.PROTOCOL, StratumKey.LEVEL, StratumKey.GENRE)
    batch_size: int = Field(default=50, ge=1)
    seed: int = 13

    _check_annotators = field_validator("annotators")(_annotator_ids)


class RelabelStratum(BaseModel):
    """One stratum: its values, the pairs waiting in it and how many were picked."""

    values: dict[str, str | None]
    candidates: int
    picked: int


class CreatedRelabelBatch(BaseModel):
    id: str
    annotator: str
    lang: str
    pairs: int


class RelabelCreateResult(BaseModel):
    run_id: int
    signature: str
    candidates: int = Field(description="pairs not yet relabelled")
    picked: int
    assignments: int
    strata: list[RelabelStratum]
    batches: list[CreatedRelabelBatch]


class RelabelExportConfig(ElicitExportConfig):
    """`nlibuild relabel export`: the work package of relabelling batches for one platform."""


class RelabelExportResult(ElicitExportResult):
    """What `relabel export` wrote: batches, tasks (one per pair and batch) and files."""


class RelabelImportConfig(_Config):
    """`nlibuild relabel import`: validators' labels, checked and stored as votes."""

    path: Path
    format: PlatformFormat
    annotators: Path | None = Field(default=None, description="platform ID -> annotator map")
    label_order: tuple[Label, Label, Label] | None = None


class VoterReport(BaseModel):
    """One annotator's votes in a relabel import."""

    annotator: str
    votes: int
    added: int
    unchanged: int
    author_votes: int = Field(description="refused: the annotator wrote the pair")
    unassigned: int = Field(description="not written: the pair was not assigned to them")


class RelabelImportResult(BaseModel):
    run_id: int
    signature: str
    votes: int
    dropped: dict[str, int] = Field(description="platform answers not read, by reason")
    added: int
    unchanged: int
    author_votes: int
    unassigned: int
    violations_added: int
    annotators: list[VoterReport]


class RelabelTask(BaseModel):
    """One pair to label (jsonl export; the `data` of a Label Studio task; a row of the
    MTurk input CSV). Our IDs travel inside; the author and their label never do."""

    batch: str
    annotator: str
    lang: str
    pair_id: str
    genre: str | None
    premise: str
    hypothesis: str


class RelabelVote(BaseModel):
    """One validator's label for one pair (jsonl import). `label` is a label name, its
    initial, a declared extra label, or an integer read with `--label-order`."""

    model_config = ConfigDict(extra="ignore")

    batch: str | None = None
    annotator: str | None = None
    pair_id: str = Field(min_length=1)
    label: str | int | None = None


# --- translation --------------------------------------------------------------------------


class TranslationKind(StrEnum):
    HUMAN = "human"
    MT = "mt"


class UnitFormat(StrEnum):
    """Files of translation units: tab-separated (unquoted), csv, or JSON lines."""

    TSV = "tsv"
    CSV = "csv"
    JSONL = "jsonl"


class TranslationUnit(BaseModel):
    """One unit of `translate export` (and what `translate import` reads back): a premise
    `p:<premise id>` or a hypothesis `h:<pair id>`, its source text, and the translation."""

    unit_id: str
    source_lang: str
    source: str
    lang: str
    text: str = ""


class TranslateExportConfig(_Config):
    """`nlibuild translate export`: the units to translate into one language."""

    lang: str
    kind: TranslationKind = TranslationKind.HUMAN
    format: UnitFormat = UnitFormat.TSV
    out: OutputPath
    missing_only: bool = False


class TranslateExportResult(BaseModel):
    run_id: int
    signature: str
    premises: int
    hypotheses: int
    out: Path


class TranslateImportConfig(_Config):
    """`nlibuild translate import`: translations by unit ID, checked."""

    path: Path
    lang: str
    kind: TranslationKind = TranslationKind.HUMAN
    format: UnitFormat
    translator: str | None = None
    partial: bool = False
    align: str = Field(default="id", pattern="^(id|rows)$")
    reference: Path | None = Field(default=None, description="the source rows, with --align rows")


class TranslateImportResult(BaseModel):
    run_id: int
    signature: str
    rows: int
    added: int
    unchanged: int
    empty: int
    missing: int = Field(description="units of the store without a translation after it")
    extra: int = Field(description="rows for units the store does not hold (skipped)")
    checks: dict[str, int]
    label_mismatches: int = Field(default=0, description="--align rows: label column vs source")


class TranslationStatsRow(BaseModel):
    """One language and kind of `stats --table translation`."""

    lang: str
    kind: str
    translated: int
    checks: dict[str, int]


class LengthStatsRow(BaseModel):
    """One language of `stats --table lengths` (XNLI Table 2): mean lengths in the
    language's unit (tokens, or characters for zh/ja/ko/th/my)."""

    lang: str
    kind: str = Field(description="source (the pairs), or human / mt translations")
    unit: str
    premises: int
    premise_mean: float | None
    hypotheses: int
    hypothesis_mean: float | None


class TranslateQaConfig(_Config):
    """`nlibuild translate qa`: machine translation scored against human translation."""

    lang: str
    hyp: TranslationKind = TranslationKind.MT
    ref: TranslationKind = TranslationKind.HUMAN
    worst: int = Field(default=10, ge=0)


class WorstSegment(BaseModel):
    unit_id: str
    chrf: float
    hypothesis: str
    reference: str


class TranslateQaResult(BaseModel):
    run_id: int
    signature: str
    segments: int
    tokenizer: str = Field(description="BLEU's tokenizer for this language, and why")
    bleu: float
    bleu_signature: str
    chrf: float
    chrf_signature: str
    ter: float
    ter_signature: str
    worst: list[WorstSegment]


class SplitSource(StrEnum):
    """The pairs dev and test are drawn from."""

    VALIDATED = "validated"  # a validator's vote and a gold label (OCNLI 3.4)
    LABELLED = "labelled"  # any gold label, e.g. a corpus imported without relabelling


class SplitGrouping(StrEnum):
    """What stays together in one split."""

    PREMISE = "premise"  # all pairs of a premise: no premise leaks into dev/test
    PAIR = "pair"  # each pair on its own (premises may then be shared; the check says so)


class SplitConfig(_Config):
    """`nlibuild split`: dev and test from validated pairs, the rest train (OCNLI 3.4)."""

    dev: int = Field(ge=0)
    test: int = Field(ge=0)
    protocols: tuple[Protocol, ...] = ()
    balance_level: bool = False
    seed: int = 13
    draw_from: SplitSource = SplitSource.VALIDATED
    group_by: SplitGrouping = SplitGrouping.PREMISE


class SplitResult(BaseModel):
    run_id: int
    signature: str
    counts: dict[str, int] = Field(description="pairs per split")
    levels: dict[str, dict[str, int]] = Field(description="dev and test pairs per level")
    held_out: int = Field(description="pairs of dev/test premises that are not validated")
    shared_premises: list[str] = Field(description="premises in several splits (a leak)")


# --- annotation artifacts (issue 7): PMI cues, cue profiles, hypothesis-only baselines ---


class ArtifactGroup(StrEnum):
    """What artifact tables are broken down by."""

    PROTOCOL = "protocol"
    LEVEL = "level"
    GENRE = "genre"
    AUTHOR = "author"


class WordUnits(StrEnum):
    """The units PMI counts: words (jieba's for Chinese), or letters and digits one by one."""

    WORDS = "words"
    CHARS = "chars"


class ArtifactScope(_Config):
    """Which pairs an artifact table reads, and in which language."""

    splits: tuple[str, ...] = Field(default=(), description="only pairs of these splits")
    lang: str | None = Field(
        default=None, description="read the human translations into this language"
    )


class PmiConfig(_Config):
    """`nlibuild stats --table pmi`: OCNLI Table 8, (word, label) pairs ranked by PMI."""

    by: ArtifactGroup | None = None
    top: int = Field(default=3, ge=1)
    smoothing: float = Field(default=100.0, ge=0, description="add-k (Gururangan et al. 2018)")
    min_count: int = Field(default=20, ge=1)
    units: WordUnits | None = Field(default=None, description="default: the language's")
    per_label: bool = Field(default=False, description="the top words of each label")
    scope: ArtifactScope = ArtifactScope()


class PmiRow(BaseModel):
    """One (word, label) pair of one group, with the counts behind its PMI."""

    group_by: str
    group: str
    pairs: int = Field(description="pairs of the group with a gold label")
    rank: int
    word: str
    label: str
    pmi: float
    count: int = Field(description="pairs of the group with the word and the label")
    word_count: int = Field(description="pairs of the group with the word")


class PmiResult(BaseModel):
    run_id: int
    signature: str
    units: str = Field(description="what a word is here, e.g. 'words (jieba)'")
    pairs: int
    without_gold: int = Field(description="pairs left out: gold '-' or no label at all")
    untranslated: int = Field(description="pairs left out: no translation into --lang")
    rows: list[PmiRow]


class CuesConfig(_Config):
    """`nlibuild stats --table cues`: negators, overlap and length per label and group."""

    by: ArtifactGroup = ArtifactGroup.PROTOCOL
    max_overlap: float = Field(default=DEFAULT_MAX_OVERLAP, gt=0, le=1)
    negator_files: tuple[Path, ...] = ()
    scope: ArtifactScope = ArtifactScope()


OVERLAP_BINS: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
"""Edges of the overlap histogram of `stats --table cues` (the last bin includes 1.0)."""


class CueRow(BaseModel):
    """One label of one group: how its hypotheses were written."""

    group_by: str
    group: str
    label: str
    pairs: int
    negated: float | None = Field(description="share of hypotheses with a negator")
    mean_overlap: float | None = Field(description="mean share of units found in the premise")
    overlap_bins: list[float] = Field(description="shares of pairs per OVERLAP_BINS bin")
    over_limit: float | None = Field(description="share overlapping the premise over the limit")
    mean_length: float | None
    unit: str


class CuesResult(BaseModel):
    run_id: int
    signature: str
    pairs: int
    without_gold: int
    untranslated: int
    unchecked_langs: list[str] = Field(description="languages without a negator lexicon")
    rows: list[CueRow]


class HypothesisOnlyConfig(_Config):
    """`nlibuild bias hypothesis-only`: a classifier that never sees the other sentence."""

    train: str = "train"
    eval: tuple[str, ...] = ("dev", "test")
    by: tuple[ArtifactGroup, ...] = ()
    premise_only: bool = False
    cross_validate: int | None = Field(default=None, ge=2)
    seed: int = 13
    ci: float = Field(default=0.95, gt=0, lt=1)
    resamples: int = Field(default=1000, ge=1)
    lang: str | None = None


class HypothesisOnlyRow(BaseModel):
    """Accuracy on one evaluation split (or the cross-validation folds) and group."""

    eval: str
    group_by: str
    group: str
    pairs: int
    accuracy: float
    low: float = Field(description="bootstrap interval, lower end")
    high: float
    majority_label: str = Field(description="the training data's most frequent label")
    majority_accuracy: float


class HypothesisOnlyResult(BaseModel):
    run_id: int
    signature: str
    side: str = Field(description="hypothesis or premise: the sentence the model saw")
    train_pairs: int
    features: int
    rows: list[HypothesisOnlyRow]
