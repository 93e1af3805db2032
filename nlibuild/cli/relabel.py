"""`nlibuild relabel create|export|import`: pairs out to more annotators, their labels back."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli.common import (
    TableLabelsOption,
    print_outcome,
    state_of,
    user_errors,
)
from nlibuild.cli.work_packages import (
    PACKAGE_OUT_HELP,
    AnnotatorMapOption,
    ImportPlatformOption,
    InstructionsOption,
    OldAnnotatorMapOption,
    PlatformOption,
    annotator_map,
    export_package,
)
from nlibuild.errors import ConfigError
from nlibuild.invoke import invoke_at
from nlibuild.labelling.annotator_ids import read_annotator_ids
from nlibuild.models import (
    PlatformFormat,
    Protocol,
    RelabelCreateConfig,
    StratumKey,
)
from nlibuild.options import (
    choice,
    default_text,
    label_order_option,
    platform_columns_option,
    split_list,
    value_mapping_option,
)

relabel_app = typer.Typer(
    help="Relabelling: pairs out to more annotators (never the author), their labels back."
    "\n\nExamples:\n\n\b\n"
    "  nlibuild --db zh.db relabel create --fraction 0.5 --annotators w01,v01,v02,v03,v04\n"
    "  nlibuild --db zh.db relabel export --all --format csv --out relabel-csv\n",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_PROTOCOLS = ", ".join(p.value for p in Protocol)
_KEYS = ", ".join(k.value for k in StratumKey)


def stratify_option(value: str) -> tuple[StratumKey, ...]:
    """`protocol,level,genre` -> stratum keys; `none` (or nothing) for one stratum."""
    names = split_list([value])
    if names in {(), ("none",)}:
        return ()
    return tuple(choice(StratumKey, name.lower(), "--stratify") for name in names)


@relabel_app.command("create")
def create(
    ctx: typer.Context,
    annotators: Annotated[
        str | None,
        typer.Option(
            help="FILE|IDS: the validators, a file with one ID per line or a comma-separated list."
        ),
    ] = None,
    fraction: Annotated[
        float | None,
        typer.Option(
            help="Share of each stratum's waiting pairs to relabel "
            f"(default {default_text(RelabelCreateConfig, 'fraction')})."
        ),
    ] = None,
    validators: Annotated[
        int | None,
        typer.Option(
            help="Annotators per pair, never its author "
            f"(default {default_text(RelabelCreateConfig, 'validators')})."
        ),
    ] = None,
    protocol: Annotated[
        str | None, typer.Option(help=f"Only pairs of this protocol: {_PROTOCOLS}.")
    ] = None,
    stratify: Annotated[
        str | None,
        typer.Option(
            help=f"Draw evenly over: {_KEYS}, or none "
            f"(default {default_text(RelabelCreateConfig, 'stratify')})."
        ),
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option(
            help=f"Pairs per batch (default {default_text(RelabelCreateConfig, 'batch_size')})."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help=f"Random seed (default {default_text(RelabelCreateConfig, 'seed')})."),
    ] = None,
    pairs: Annotated[
        Path | None,
        typer.Option(
            help="Relabel exactly the pair IDs of this file (one a line, # comments), e.g. "
            "what `stats --table cartography --out` wrote, instead of a share of each stratum."
        ),
    ] = None,
) -> None:
    """Pick pairs not yet relabelled, stratum by stratum (or the pairs --pairs lists), and
    batch them out to validators.

    Examples:

    \b
      nlibuild --db zh.db relabel create --fraction 0.5 --annotators w01,v01,v02,v03,v04
    """
    from nlibuild.stages.relabel_create import STAGE

    with user_errors():
        drawing = {"--fraction": fraction, "--protocol": protocol, "--stratify": stratify}
        if pairs is not None and (given := [k for k, v in drawing.items() if v is not None]):
            raise ConfigError(
                f"{given[0]} draws a share of the pairs, and --pairs names them: "
                "give one or the other"
            )
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            annotators=read_annotator_ids(annotators) if annotators is not None else None,
            fraction=fraction,
            validators=validators,
            protocol=choice(Protocol, protocol.upper(), "--protocol") if protocol else None,
            stratify=stratify_option(stratify) if stratify is not None else None,
            batch_size=batch_size,
            seed=seed,
            pairs=pairs,
        )
    print_outcome(outcome)


@relabel_app.command("export")
def export(
    ctx: typer.Context,
    batches: Annotated[
        list[str] | None, typer.Argument(help="Batch IDs (r0001 ...); or --all.")
    ] = None,
    all_batches: Annotated[bool, typer.Option("--all", help="Every relabelling batch.")] = False,
    format: PlatformOption = "jsonl",
    out_dir: Annotated[Path, typer.Option("--out", help=PACKAGE_OUT_HELP)] = (Path("relabel-out")),
    instructions: InstructionsOption = "en,zh",
) -> None:
    """Write the work package: one task per pair with our IDs, instructions, the form.

    Examples:

    \b
      nlibuild --db zh.db relabel export --all --format labelstudio --out relabel-zh
    """
    from nlibuild.stages.relabel_export import STAGE

    export_package(ctx, STAGE, batches, all_batches, format, out_dir, instructions)


@relabel_app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The labels file.")],
    format: ImportPlatformOption = "jsonl",
    annotator_map_file: AnnotatorMapOption = None,
    old_annotator_map: OldAnnotatorMapOption = None,
    label_order: Annotated[
        str | None, typer.Option(help="Meaning of integer labels, e.g. e,n,c.")
    ] = None,
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns",
            help="--format table: which column holds what, e.g. pair_id=id,worker=rater,"
            "label=answer (keys: batch, pair_id, worker, label); a key not given takes the "
            "column the csv and jsonl formats use.",
        ),
    ] = None,
    labels: TableLabelsOption = None,
) -> None:
    """Read validators' labels, check them against their batches, add them as votes.

    Examples:

    \b
      nlibuild --db zh.db relabel import data/relabel/zh_votes.jsonl
      nlibuild --db zh.db aggregate-labels
    """
    from nlibuild.stages.relabel_import import STAGE

    with user_errors():
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            path=file,
            format=choice(PlatformFormat, format, "--format"),
            annotator_map=annotator_map(annotator_map_file, old_annotator_map, "relabel import"),
            label_order=label_order_option(label_order, "--label-order"),
            columns=platform_columns_option(columns),
            label_values=value_mapping_option(labels, "--labels"),
        )
    print_outcome(outcome)
