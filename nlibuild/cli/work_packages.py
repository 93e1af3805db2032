"""What `elicit` and `relabel` share: the platform options (the worker map's old spelling
included) and the body of their `export`
commands (a work package of batches for an annotation platform)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from nlibuild.cli.common import (
    print_outcome,
    state_of,
    user_errors,
    warn_deprecated,
)
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError
from nlibuild.invoke import invoke_at
from nlibuild.labelling.annotators import is_annotator_map
from nlibuild.models import ElicitExportConfig, PlatformFormat, RelabelExportConfig
from nlibuild.options import choice, split_list

ExportConfigT = TypeVar("ExportConfigT", ElicitExportConfig, RelabelExportConfig)

_FORMATS = "jsonl, csv, labelstudio or mturk"

PACKAGE_OUT_HELP = (
    "The folder to write the package to. Nothing reaches it unless the whole package was "
    "written; in an existing folder the package's own files are replaced and others kept."
)

PlatformOption = Annotated[str, typer.Option("--format", help=f"Platform: {_FORMATS}.")]
ImportPlatformOption = Annotated[
    str,
    typer.Option(
        "--format",
        help=f"Platform: {_FORMATS}; or table (any csv, tsv, jsonl, JSON array or parquet "
        "file, read by --columns).",
    ),
]
InstructionsOption = Annotated[
    str, typer.Option(help="Languages of the instructions to include (default en,zh).")
]
AnnotatorMapOption = Annotated[
    Path | None,
    typer.Option(
        "--annotator-map",
        help="FILE: a csv platform,platform_id,annotator mapping platform worker IDs to ours "
        "(needed once per platform: the store keeps it).",
    ),
]
OldAnnotatorMapOption = Annotated[
    str | None,
    typer.Option("--annotators", hidden=True, help="Deprecated spelling of --annotator-map."),
]


def annotator_map(new: Path | None, old: str | None, command: str) -> Path | None:
    """The worker map of an import: `--annotator-map FILE`, or for one release the old
    spelling `--annotators` when its value is such a map (with a deprecation line); any
    other value of `--annotators` there is an error that says where the map went."""
    if old is None:
        return new
    if new is not None:
        raise ConfigError("--annotators is the old spelling of --annotator-map: give one")
    if not is_annotator_map(old):
        raise ConfigError(
            f"--annotators {old}: `{command}` takes no annotator IDs; its platform worker map "
            "is now --annotator-map FILE (a csv with the header platform,platform_id,annotator)"
        )
    warn_deprecated(
        "--annotators FILE (the platform worker map)", "--annotator-map FILE",
        "--annotators names annotators, FILE|IDS, in every command",
    )  # fmt: skip
    return Path(old)


def export_package(
    ctx: typer.Context,
    stage: Stage[ExportConfigT, Any],
    batches: list[str] | None,
    all_batches: bool,
    format: str,
    out_dir: Path,
    instructions: str,
) -> None:
    """The body of `elicit export` and `relabel export`: the options as the stage's
    settings (the forms name the labels as the store's preset does), then its line."""
    with user_errors():
        outcome = invoke_at(
            stage,
            state_of(ctx).db,
            batches=split_list(batches),
            all=all_batches,
            format=choice(PlatformFormat, format, "--format"),
            out=out_dir,
            instruction_langs=split_list([instructions]),
        )
    print_outcome(outcome)
