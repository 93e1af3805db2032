"""Translation: units out and back, checks, MT quality, translation and length statistics."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from nlibuild.core.signature import OutputPath
from nlibuild.models.base import IN_PRESET, LangCode, PresetKey, _Config, lower_case_items


class TranslationKind(StrEnum):
    HUMAN = "human"
    MT = "mt"


class UnitFormat(StrEnum):
    """Files of translation units: tab-separated (unquoted), csv, JSON lines, one JSON array
    of objects, or parquet (the kinds `formats/table_rows.py` reads)."""

    TSV = "tsv"
    CSV = "csv"
    JSONL = "jsonl"
    JSON = "json"
    PARQUET = "parquet"


class TranslationUnit(BaseModel):
    """One unit of `translate export` (and what `translate import` reads back): a premise
    `p:<premise id>` or a hypothesis `h:<pair id>`, its source text, and the translation."""

    unit_id: str
    source_lang: str
    source: str
    lang: str
    text: str = ""


SOURCE_LANG_HELP = (
    "what is translated: the units' human translations into this language instead of the "
    "pairs' own texts (translate-test's machine translation of each language's test into "
    "the training language; XNLI section 5.1, XTREME section 3.2); machine translations only"
)


def refuse_human_from_translation(kind: TranslationKind, source: str | None) -> None:
    """A machine translation may be of another translation (translate-test's); a human
    translation is always of the pair's own text, which every reader of them assumes."""
    if source is not None and kind is not TranslationKind.MT:
        raise ValueError(
            "--source-lang is for machine translations of translations (translate-test): "
            "add --kind mt"
        )


class TranslateExportConfig(_Config):
    """`nlibuild translate export`: the units to translate into one language."""

    preset_section = "translate"

    lang: LangCode
    kind: Annotated[TranslationKind, IN_PRESET] = TranslationKind.HUMAN
    format: UnitFormat = UnitFormat.TSV
    out: OutputPath
    missing_only: bool = False
    source_lang: LangCode | None = Field(default=None, description=SOURCE_LANG_HELP)

    @model_validator(mode="after")
    def _source_lang_of_machine_translation(self) -> TranslateExportConfig:
        refuse_human_from_translation(self.kind, self.source_lang)
        return self


class TranslateExportResult(BaseModel):
    run_id: int
    signature: str
    premises: int
    hypotheses: int
    out: Path


UNIT_COLUMN_KEYS = ("unit_id", "text", "lang")
"""What `translate import --columns` can name in a file of units (`--align id`)."""
ROW_COLUMN_KEYS = ("premise", "hypothesis", "label", "pair_id")
"""What `translate import --columns` can name in a file of pairs (`--align rows`); `pair_id`
is the column compared with the reference's `pairID`."""


class TranslateImportConfig(_Config):
    """`nlibuild translate import`: translations by unit ID, checked."""

    preset_section = "translate"

    path: Path
    lang: LangCode
    kind: Annotated[TranslationKind, IN_PRESET] = TranslationKind.HUMAN
    format: UnitFormat
    translator: str | None = None
    partial: bool = False
    align: str = Field(default="id", pattern="^(id|rows)$")
    reference: Path | None = Field(default=None, description="the source rows, with --align rows")
    force: bool = Field(
        default=False,
        description="import although a sample is identified as another language, or (--align "
        "rows) rows whose evidence says they do not line up",
    )
    columns: dict[str, str] = Field(
        default_factory=dict,
        description="the file's column for each of UNIT_COLUMN_KEYS (--align id) or "
        "ROW_COLUMN_KEYS (--align rows)",
    )
    lang_column: str | None = Field(
        default=None,
        description="a file holding several languages: the column naming each row's; only "
        "the rows of `lang` are read",
    )
    label_values: dict[str, str] = Field(
        default_factory=dict,
        description="--align rows: the label each of the file's label values stands for "
        "(- for none), before the labels are compared with the reference's",
    )
    source_lang: LangCode | None = Field(default=None, description=SOURCE_LANG_HELP)

    @model_validator(mode="after")
    def _source_lang_of_machine_translation(self) -> TranslateImportConfig:
        refuse_human_from_translation(self.kind, self.source_lang)
        if self.source_lang is not None and self.align != "id":
            raise ValueError(
                "--source-lang needs --align id: write the units with `translate export "
                "--kind mt --source-lang`, which names each unit"
            )
        return self

    @model_validator(mode="after")
    def _column_keys_of_the_alignment(self) -> TranslateImportConfig:
        keys = UNIT_COLUMN_KEYS if self.align == "id" else ROW_COLUMN_KEYS
        for key, column in self.columns.items():
            if key not in keys:
                raise ValueError(
                    f"--columns: no key {key!r} with --align {self.align}; "
                    f"the keys are {', '.join(keys)}"
                )
            if not column.strip():
                raise ValueError(f"--columns: {key} names no column; write {key}=COLUMN")
        if self.label_values and self.align != "rows":
            raise ValueError("--labels is for --align rows, whose files carry labels")
        if self.lang_column is not None and "lang" in self.columns:
            raise ValueError(
                "--lang-column and --columns lang= both name a language column; give one"
            )
        return self


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
    disagreements: dict[str, int] = Field(
        default_factory=dict,
        description="--align rows --force: rows disagreeing with their source row, by evidence",
    )
    notes: list[str] = Field(
        default_factory=list, description="what was identified, and checks not made and why"
    )


class TranslationStatsRow(BaseModel):
    """One language and kind of `stats --table translation`."""

    lang: str
    kind: str
    translated: int
    checks: dict[str, int]


class LengthStatsRow(BaseModel):
    """One language of `stats --table lengths` (XNLI Table 2): mean lengths in the
    language's unit as the papers count it (`length_units.paper_unit`)."""

    lang: str
    kind: str = Field(description="source (the pairs), or human / mt translations")
    unit: str
    premises: int
    premise_mean: float | None
    hypotheses: int
    hypothesis_mean: float | None


class QaMetric(StrEnum):
    """A corpus score of `translate qa`, as sacrebleu computes it."""

    BLEU = "bleu"
    CHRF = "chrf"
    TER = "ter"


class TranslateQaConfig(_Config):
    """`nlibuild translate qa`: machine translation scored against human translation."""

    preset_section = "translate"

    lang: LangCode
    hyp: Annotated[TranslationKind, IN_PRESET] = TranslationKind.MT
    ref: Annotated[TranslationKind, IN_PRESET] = TranslationKind.HUMAN
    worst: Annotated[int, IN_PRESET] = Field(default=10, ge=0)
    # XTREME checked its translated test sets with BLEU and chrF; TER costs most of the
    # time (its edit distance per segment), so it is computed only when asked for.
    metrics: Annotated[tuple[QaMetric, ...], PresetKey(reads=lower_case_items)] = Field(
        default=(QaMetric.BLEU, QaMetric.CHRF), min_length=1
    )


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
    bleu: float | None = Field(description="None when not among --metrics")
    bleu_signature: str | None
    chrf: float | None
    chrf_signature: str | None
    ter: float | None
    ter_signature: str | None
    worst: list[WorstSegment]
