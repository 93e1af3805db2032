"""The store and released corpora: init, import, export, `info`, the provenance log, and
the interchange records of the corpus files nlibuild reads and writes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from nlibuild.core.signature import OutputPath
from nlibuild.models.base import (
    DEFAULT_LABEL_ORDER,
    IN_PRESET,
    NLI_LABELS,
    NO_GOLD,
    Label,
    LangCode,
    Level,
    PresetKey,
    Protocol,
    _Config,
    label_order_text,
)


class ImportFormat(StrEnum):
    MNLI = "mnli"
    SNLI = "snli"
    OCNLI = "ocnli"
    XNLI = "xnli"
    JSONL = "jsonl"
    TABLE = "table"


class ExportFormat(StrEnum):
    MNLI_JSONL = "mnli-jsonl"
    OCNLI_JSON = "ocnli-json"
    XNLI_TSV = "xnli-tsv"
    XNLI_JSONL = "xnli-jsonl"
    HF_JSONL = "hf-jsonl"
    HF = "hf"
    JSONL = "jsonl"


class NoGoldPolicy(StrEnum):
    """What an integer-label export does with pairs whose gold label is `-`."""

    MINUS_ONE = "minus-one"
    DROP = "drop"


class InitConfig(_Config):
    """`nlibuild init`: the corpus language, the preset and the extra labels of the store."""

    preset_section = "corpus"

    lang: Annotated[LangCode, IN_PRESET] = "en"
    preset: str | None = None
    extra_labels: Annotated[tuple[str, ...], IN_PRESET] = ()


class SplitName(StrEnum):
    """The splits a pair can be in (`nlibuild split`, or `import --split`)."""

    TRAIN = "train"
    DEV = "dev"
    TEST = "test"


TABLE_COLUMN_KEYS = (
    "id", "premise_id", "premise", "hypothesis", "label", "votes", "author", "genre", "lang",
    "vote", "annotator",
)  # fmt: skip
"""What `--columns` of `import --format table` can name. Only `votes` may take several
columns (one vote each, in order); every other key takes one. `author` is taken only when
named (a file's `author` column often holds a person, not a label): see `NO_AUTHOR`.
`vote` makes the file one vote a row (LiveNLI): the rows sharing an `id` are one pair's
votes, by `annotator`'s worker when named (`formats/vote_rows.py`); both only when named."""

NO_AUTHOR = "-"
"""`--columns author=-`: the file has no author's label, every vote is a validator's
(LiveNLI's and ChaosNLI's crowd labels). Without an `author` key the first vote is the
author's, as SNLI's and MNLI's `annotator_labels[0]` is the writer's label (Bowman et al.
2015, 2.2); with `author=COLUMN` that column holds it and every `votes` column is a
validator's."""


def check_table_columns(
    columns: Mapping[str, tuple[str, ...]], keys: Sequence[str] = TABLE_COLUMN_KEYS
) -> None:
    """A ValueError for the first key of a table mapping that is not one of `keys`, names
    no column, or names several where one is taken."""
    for key, names in columns.items():
        if key not in keys:
            raise ValueError(f"no key {key!r}; the keys are {', '.join(keys)}")
        if not names or not all(name.strip() for name in names):
            raise ValueError(f"{key} names no column; write {key}=COLUMN")
        if len(names) > 1 and key != "votes":
            raise ValueError(
                f"{key} takes one column, found {','.join(names)}; only votes takes several"
            )
    _check_vote_a_row(columns)


def _check_vote_a_row(columns: Mapping[str, tuple[str, ...]]) -> None:
    """A ValueError for keys that cannot go with one vote a row (`vote`) or without it."""
    if "vote" not in columns:
        if "annotator" in columns:
            raise ValueError(
                "annotator names who gave each row's vote: give the vote's column too, "
                "annotator=COLUMN,vote=COLUMN"
            )
        return
    if "votes" in columns:
        raise ValueError(
            "vote reads one vote a row, votes several a row: name one of them "
            "(a list column such as mnli_labels is kept on the pair when not read)"
        )
    if columns.get("author", (NO_AUTHOR,)) != (NO_AUTHOR,):
        raise ValueError("with vote (one vote a row) every vote is a validator's: leave author out")


class ImportConfig(_Config):
    """`nlibuild import`: where a released corpus comes from and how to read it."""

    preset_section = "import"

    path: Path
    format: Annotated[ImportFormat, IN_PRESET]
    genre: str | None = None
    lang: LangCode | None = None
    corpus: str | None = Field(
        default=None, description="name for anonymous annotator IDs; defaults to the file stem"
    )
    label_order: Annotated[tuple[Label, Label, Label] | None, PresetKey(reads=label_order_text)] = (
        Field(default=None, description="what the file's integer labels stand for")
    )
    extra_labels: tuple[str, ...] = ()
    split: SplitName | None = Field(
        default=None, description="the split the file's new pairs belong to (a released split)"
    )
    columns: dict[str, tuple[str, ...]] = Field(
        default_factory=dict,
        description="--format table: the file's column for each of TABLE_COLUMN_KEYS",
    )
    label_values: dict[str, str] = Field(
        default_factory=dict,
        description="--format table: the label each of the file's label values stands for",
    )

    @field_validator("columns")
    @classmethod
    def _known_column_keys(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        check_table_columns(value)
        return value

    @model_validator(mode="after")
    def _mapping_only_for_tables(self) -> ImportConfig:
        if (self.columns or self.label_values) and self.format is not ImportFormat.TABLE:
            raise ValueError(
                f"--columns and --labels are for --format table, not {self.format.value}"
            )
        return self

    @field_validator("label_values")
    @classmethod
    def _label_values_name_labels(cls, value: dict[str, str]) -> dict[str, str]:
        empty = [key for key, label in value.items() if not key.strip() or not label.strip()]
        if empty:
            raise ValueError("--labels needs VALUE=LABEL items, e.g. 0=entailment,1=neutral")
        return value

    @field_validator("extra_labels")
    @classmethod
    def _no_nli_labels_as_extra(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        clash = [v for v in value if v in NLI_LABELS or v == NO_GOLD]
        if clash:
            raise ValueError(f"{', '.join(clash)} cannot be declared as extra labels")
        return value


UNKNOWN_LICENSE = "unknown"
"""The Hub's word for a dataset card whose license nobody stated."""


class ExportConfig(_Config):
    """`nlibuild export`: which format, where, and how integer labels are written."""

    preset_section = "export"

    format: Annotated[ExportFormat, IN_PRESET]
    out: OutputPath
    label_order: Annotated[tuple[Label, Label, Label], PresetKey(reads=label_order_text)] = (
        DEFAULT_LABEL_ORDER
    )
    no_gold: Annotated[NoGoldPolicy, IN_PRESET] = NoGoldPolicy.MINUS_ONE
    langs: tuple[LangCode, ...] = ()
    split: SplitName | None = None
    license: Annotated[str | None, IN_PRESET] = Field(
        default=None,
        description="hf: the dataset card's license, as the Hub names them (cc-by-sa-4.0); "
        f"unset, the card says {UNKNOWN_LICENSE!r}",
    )


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
    warnings: tuple[str, ...] = Field(
        default=(),
        description="lines printed as `Warning: ...`: what the reader read otherwise than "
        "the file has it, label columns left unread",
    )


class ExportResult(BaseModel):
    run_id: int
    signature: str
    out: Path
    rows: int
    no_gold_rows: int
    no_gold_policy: NoGoldPolicy | None = None
    label_order: str | None = None
    lang: str | None = Field(
        default=None, description="the one language of a one-language format's --lang"
    )
    translated_rows: int = Field(
        default=0, description="pairs written from their human translation into --lang"
    )
    untranslated_pairs: int = Field(
        default=0, description="pairs of other languages left out: no translation into --lang"
    )
    sidecar: Path | None = None
    pairs: int = Field(default=0, description="distinct pairs among the rows written")
    languages: tuple[str, ...] = Field(
        default=(),
        description="the languages of the rows written, when a row is a pair in a language",
    )
    split_rows: dict[str, int] = Field(
        default_factory=dict, description="hf: rows per data file's split (train, validation, test)"
    )
    unsplit_pairs: int = Field(
        default=0, description="hf: pairs left out as the store's splits do not hold them"
    )
    formula_cells: int = Field(
        default=0,
        description="xnli-tsv: cells a spreadsheet would run as formulas (written as stored)",
    )
    license: str | None = None


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


# --- interchange records: the corpus files nlibuild reads and writes (schemas/ is generated) ---


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
