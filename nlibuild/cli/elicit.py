"""`nlibuild elicit create|export|import`: hypothesis elicitation, as a typer group."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli.common import (
    print_outcome,
    renamed_option,
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
from nlibuild.invoke import invoke_at
from nlibuild.labelling.annotator_ids import read_annotator_ids
from nlibuild.models import (
    ElicitCreateConfig,
    ElicitImportConfig,
    OnViolation,
    OverlapMeasure,
    PlatformFormat,
    Protocol,
    Severity,
)
from nlibuild.options import (
    choice,
    default_text,
    label_order_option,
    platform_columns_option,
    split_list,
)

elicit_app = typer.Typer(
    help="Hypothesis elicitation: batches of premises out to writers, their answers back in."
    "\n\nExamples:\n\n\b\n"
    "  nlibuild --db zh.db elicit create --protocol MULTI_CONSTRAINT --annotators w01,w02 \\\n"
    "      --batch-size 4 --max-per-writer 8\n"
    "  nlibuild --db zh.db elicit export --all --format labelstudio --out elicit-zh\n",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_PROTOCOLS = ", ".join(p.value for p in Protocol)


@elicit_app.command("create")
def create(
    ctx: typer.Context,
    protocol: Annotated[
        str | None, typer.Option(help=f"Elicitation protocol: {_PROTOCOLS} (OCNLI 3.2).")
    ] = None,
    annotators: Annotated[
        str | None,
        typer.Option(
            help="FILE|IDS: the writers, a file with one ID per line or a comma-separated list."
        ),
    ] = None,
    writers: Annotated[
        str | None,
        typer.Option(hidden=True, help="Deprecated spelling of --annotators."),
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option(
            help=f"Premises per batch (default {default_text(ElicitCreateConfig, 'batch_size')})."
        ),
    ] = None,
    max_per_writer: Annotated[
        int | None,
        typer.Option(
            help="Most premises one writer gets, over all batches (default, or 0: no cap)."
        ),
    ] = None,
    genre: Annotated[
        list[str] | None, typer.Option("--genre", help="Only premises of these genres.")
    ] = None,
    lang: Annotated[str | None, typer.Option(help="Only premises of this language.")] = None,
    seed: Annotated[
        int | None,
        typer.Option(help=f"Random seed (default {default_text(ElicitCreateConfig, 'seed')})."),
    ] = None,
    premises: Annotated[
        Path | None,
        typer.Option(help="A file of chosen premise IDs, one per line, batched instead of all."),
    ] = None,
    round_number: Annotated[
        int | None,
        typer.Option(
            "--round",
            help="The adversarial round (1, 2, ...) the batches belong to: their pairs are "
            "counted per round by `stats --table model-loop` and split apart by "
            "`split --by-round` (ANLI's R1, R2, R3).",
        ),
    ] = None,
) -> None:
    """Group unassigned premises into batches, one writer each, genres spread, load balanced.

    Examples:

    \b
      nlibuild --db zh.db elicit create --protocol MULTI_CONSTRAINT --annotators w01,w02 \\
          --batch-size 4 --max-per-writer 8
    """
    from nlibuild.stages.elicit_create import STAGE

    with user_errors():
        annotators = renamed_option("--annotators", annotators, "--writers", writers)
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            protocol=choice(Protocol, protocol.upper(), "--protocol") if protocol else None,
            annotators=read_annotator_ids(annotators) if annotators is not None else None,
            batch_size=batch_size,
            max_per_writer=max_per_writer,
            genres=split_list(genre),
            lang=lang,
            seed=seed,
            premises=premises,
            round=round_number,
        )
    print_outcome(outcome)


@elicit_app.command("export")
def export(
    ctx: typer.Context,
    batches: Annotated[
        list[str] | None, typer.Argument(help="Batch IDs (e0001 ...); or --all.")
    ] = None,
    all_batches: Annotated[bool, typer.Option("--all", help="Every elicitation batch.")] = False,
    format: PlatformOption = "jsonl",
    out_dir: Annotated[Path, typer.Option("--out", help=PACKAGE_OUT_HELP)] = (Path("elicit-out")),
    instructions: InstructionsOption = "en,zh",
) -> None:
    """Write the work package: task files with our IDs, instructions, the platform's form.

    Examples:

    \b
      nlibuild --db zh.db elicit export e0001 --format labelstudio --out elicit-zh
      nlibuild --db zh.db elicit export --all --format csv --out elicit-csv
    """
    from nlibuild.stages.elicit_export import STAGE

    export_package(ctx, STAGE, batches, all_batches, format, out_dir, instructions)


@elicit_app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The answers file.")],
    format: ImportPlatformOption = "jsonl",
    annotator_map_file: AnnotatorMapOption = None,
    old_annotator_map: OldAnnotatorMapOption = None,
    on_violation: Annotated[
        str | None,
        typer.Option(
            help="A pair that breaks a rule is kept and flagged (flag) or not (reject) "
            f"(default {default_text(ElicitImportConfig, 'on_violation')}).",
        ),
    ] = None,
    max_overlap: Annotated[
        float | None,
        typer.Option(
            help="Largest overlap share of a hypothesis with its premise "
            f"(default {default_text(ElicitImportConfig, 'max_overlap')}).",
        ),
    ] = None,
    overlap_measure: Annotated[
        str | None,
        typer.Option(
            help="The overlap share: of the hypothesis's units found in the premise "
            "(hypothesis), of the premise's found in the hypothesis (premise), or the smaller "
            f"(both) (default {default_text(ElicitImportConfig, 'overlap_measure')}).",
        ),
    ] = None,
    overlap_severity: Annotated[
        str | None,
        typer.Option(
            help="An overlap over the limit is an error or a warning "
            f"(default {default_text(ElicitImportConfig, 'overlap_severity')}).",
        ),
    ] = None,
    negator_in_entailment: Annotated[
        bool | None,
        typer.Option(
            "--negator-in-entailment/--no-negator-in-entailment",
            help="Warn of an entailment that holds a negator (default: off, or the "
            "preset's [elicit] negator_in_entailment).",
        ),
    ] = None,
    negators: Annotated[
        list[Path] | None,
        typer.Option("--negators", help="More negators (the format of resources/negators/)."),
    ] = None,
    batch: Annotated[
        str | None, typer.Option(help="The batch, for a file without a batch column.")
    ] = None,
    writer: Annotated[
        str | None, typer.Option(help="The writer, for a file without a writer column.")
    ] = None,
    label_order: Annotated[
        str | None, typer.Option(help="Meaning of integer labels in a long csv, e.g. e,n,c.")
    ] = None,
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns",
            help="--format table: which column holds what, e.g. worker=annotator_id,"
            "entailment_1=hyp_e (keys: batch, premise_id, premise, worker, unusable, "
            "entailment_1 .. contradiction_9, or entailment, neutral, contradiction for a "
            "list); a key not given takes the column the csv and jsonl formats use.",
        ),
    ] = None,
) -> None:
    """Read writers' answers, check them against their batch and protocol, add the pairs.

    Examples:

    \b
      nlibuild --db zh.db elicit import data/elicit/zh_e0001.labelstudio.json --format \\
          labelstudio --annotator-map data/elicit/annotators.csv
    """
    from nlibuild.stages.elicit_import import STAGE

    with user_errors():
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            path=file,
            format=choice(PlatformFormat, format, "--format"),
            annotator_map=annotator_map(annotator_map_file, old_annotator_map, "elicit import"),
            on_violation=(
                choice(OnViolation, on_violation, "--on-violation") if on_violation else None
            ),
            max_overlap=max_overlap,
            overlap_measure=(
                choice(OverlapMeasure, overlap_measure, "--overlap-measure")
                if overlap_measure
                else None
            ),
            overlap_severity=(
                choice(Severity, overlap_severity, "--overlap-severity")
                if overlap_severity
                else None
            ),
            negator_in_entailment=negator_in_entailment,
            negators=tuple(negators or ()),
            batch=batch,
            writer=writer,
            label_order=label_order_option(label_order, "--label-order"),
            columns=platform_columns_option(columns),
        )
    print_outcome(outcome)
