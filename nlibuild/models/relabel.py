"""Relabelling: validation batches, their work packages and the validators' votes."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from nlibuild.models.base import (
    ANNOTATOR_ID_PATTERN,
    IN_PRESET,
    VOTE_COLUMN_KEYS,
    Label,
    PlatformFormat,
    PresetKey,
    Protocol,
    Seed,
    _Config,
    check_platform_columns,
    label_order_text,
    upper_case,
)
from nlibuild.models.elicit import ElicitExportConfig, ElicitExportResult


class StratumKey(StrEnum):
    """What `relabel create --stratify` can draw evenly over; `label` is the author's."""

    PROTOCOL = "protocol"
    LEVEL = "level"
    GENRE = "genre"
    LANG = "lang"
    LABEL = "label"


def stratify_text(value: object) -> object:
    """`stratify = "protocol,level"`, as --stratify takes it, into stratum keys; "none" (or
    nothing) for one stratum."""
    if not isinstance(value, str):
        return value
    names = [name.strip().lower() for name in value.split(",") if name.strip()]
    if names in ([], ["none"]):
        return ()
    known = [key.value for key in StratumKey]
    if any(name not in known for name in names):
        raise ValueError(f"give a comma-separated list of {', '.join(known)}, or none")
    return tuple(names)


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
    """`nlibuild relabel create`: a seeded share of each stratum's pairs (or the pairs a
    `pairs` file lists), each pair to `validators` annotators who did not write it, in
    batches of one annotator each."""

    preset_section = "relabel"

    # No validators is refused below in the command's words, not as a missing field.
    annotators: tuple[str, ...] = ()
    fraction: Annotated[float, IN_PRESET] = Field(
        default=0.15, gt=0, le=1, description="of each stratum's pairs"
    )
    validators: Annotated[int, IN_PRESET] = Field(
        default=4, ge=1, description="annotators per pair, the author not"
    )
    protocol: Annotated[Protocol | None, PresetKey(reads=upper_case)] = None
    stratify: Annotated[tuple[StratumKey, ...], PresetKey(reads=stratify_text)] = (
        StratumKey.PROTOCOL,
        StratumKey.LEVEL,
        StratumKey.GENRE,
    )
    batch_size: Annotated[int, IN_PRESET] = Field(default=50, ge=1)
    seed: Annotated[Seed, IN_PRESET] = 13
    pairs: Path | None = Field(
        default=None,
        description="relabel exactly the pair IDs of this file (e.g. `stats --table "
        "cartography --out`) instead of a share of each stratum",
    )

    _check_annotators = field_validator("annotators")(_annotator_ids)

    @model_validator(mode="after")
    def _some_validators(self) -> RelabelCreateConfig:
        if not self.annotators:
            raise ValueError(
                "name the validators with --annotators: a file, or IDs like v01,v02,v03,v04"
            )
        return self


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

    preset_section = "relabel"

    path: Path
    format: PlatformFormat
    annotator_map: Path | None = Field(default=None, description="platform ID -> annotator map")
    label_order: Annotated[tuple[Label, Label, Label] | None, PresetKey(reads=label_order_text)] = (
        Field(default=None, description="what integer labels stand for")
    )
    label_names: tuple[tuple[str, str], ...] = Field(
        default=(), description="(label, the name people see): a name typed back is its label"
    )
    columns: dict[str, str] = Field(
        default_factory=dict,
        description="--format table: the file's column for each of VOTE_COLUMN_KEYS",
    )
    label_values: dict[str, str] = Field(
        default_factory=dict,
        description="--format table: the label each of the file's label values stands for",
    )

    @model_validator(mode="after")
    def _columns_for_tables(self) -> RelabelImportConfig:
        check_platform_columns(self.format, self.columns, VOTE_COLUMN_KEYS, hypotheses=False)
        if self.label_values and self.format is not PlatformFormat.TABLE:
            raise ValueError(f"--labels is for --format table, not {self.format.value}")
        return self

    source: str | None = Field(
        default=None,
        description="where votes that come from no file came from: `workbench` (the run's "
        "settings and signature say so)",
    )


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
