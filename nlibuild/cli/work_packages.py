"""What `elicit` and `relabel` share: the platform options (the worker map's old spelling
included) and the body of their `export`
commands (a work package of batches for an annotation platform)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from nlibuild.annotators import is_annotator_map
from nlibuild.cli.common import open_store, out, state_of, user_errors, warn_deprecated
from nlibuild.errors import ConfigError
from nlibuild.models import ElicitExportConfig, PlatformFormat, RelabelExportConfig
from nlibuild.options import choice, split_list, store_label_names
from nlibuild.render import counted
from nlibuild.store import Store

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
    config_type: type[ExportConfigT],
    run: Callable[[Store, ExportConfigT], Any],
    batches: list[str] | None,
    all_batches: bool,
    format: str,
    out_dir: Path,
    instructions: str,
) -> None:
    """The body of `elicit export` and `relabel export`: build the config, run the stage,
    print the closing line."""
    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            cfg = config_type(
                batches=split_list(batches),
                all=all_batches,
                format=choice(PlatformFormat, format, "--format"),
                out=out_dir,
                instruction_langs=split_list([instructions]),
                label_names=store_label_names(store),
            )
            result = run(store, cfg)
    out.print(
        f"Exported {counted(result.batches, 'batch')} ({counted(result.tasks, 'task')}) as "
        f"{cfg.format.value} to {cfg.out}: {', '.join(p.name for p in result.files)} "
        f"(run {result.run_id}, {result.signature})",
        markup=False,
    )
