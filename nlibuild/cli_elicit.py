"""`nlibuild elicit create|export|import`: hypothesis elicitation, as a typer group."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from nlibuild.cli_common import (
    choice,
    first,
    label_order_option,
    open_store,
    out,
    preset_defaults,
    split_list,
    state_of,
    user_errors,
)
from nlibuild.errors import ConfigError, InputError
from nlibuild.models import (
    DEFAULT_MAX_OVERLAP,
    ElicitCreateConfig,
    ElicitExportConfig,
    ElicitImportConfig,
    ElicitImportResult,
    OnViolation,
    PlatformFormat,
    Protocol,
    RelabelExportConfig,
    TableFormat,
)
from nlibuild.render import counted, render_table
from nlibuild.store import Store

ExportConfigT = TypeVar("ExportConfigT", ElicitExportConfig, RelabelExportConfig)

elicit_app = typer.Typer(
    help="Hypothesis elicitation: batches of premises out to writers, their answers back in.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_PROTOCOLS = ", ".join(p.value for p in Protocol)
_FORMATS = "jsonl, csv, labelstudio or mturk"

# Options that `elicit` and `relabel` (cli_relabel.py) share.
PlatformOption = Annotated[str, typer.Option("--format", help=f"Platform: {_FORMATS}.")]
InstructionsOption = Annotated[
    str, typer.Option(help="Languages of the instructions to include (default en,zh).")
]
AnnotatorMapOption = Annotated[
    Path | None,
    typer.Option(help="csv: platform,platform_id,annotator: platform worker IDs to ours."),
]


def read_writer_ids(value: str) -> tuple[str, ...]:
    """Writer IDs from a file (one per line, or the first column of a csv; `#` comments
    and an `id`/`writer` header are skipped) or from a comma-separated list."""
    path = Path(value)
    if not path.is_file():
        return split_list([value])
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read the writers file ({exc})") from None
    ids = []
    for line in lines:
        cell = line.split("#", 1)[0].replace("\t", ",").split(",", 1)[0].strip()
        if cell and cell.lower() not in {"id", "writer", "annotator"}:
            ids.append(cell)
    if not ids:
        raise InputError(path, "no writer IDs in this file; write one per line")
    return tuple(ids)


@elicit_app.command("create")
def create(
    ctx: typer.Context,
    protocol: Annotated[
        str | None, typer.Option(help=f"Elicitation protocol: {_PROTOCOLS} (OCNLI 3.2).")
    ] = None,
    writers: Annotated[
        str | None,
        typer.Option(help="Writer IDs: a file with one per line, or a comma-separated list."),
    ] = None,
    batch_size: Annotated[int | None, typer.Option(help="Premises per batch (default 50).")] = None,
    max_per_writer: Annotated[
        int | None,
        typer.Option(help="Most premises one writer gets, over all batches (default: no cap)."),
    ] = None,
    genre: Annotated[
        list[str] | None, typer.Option("--genre", help="Only premises of these genres.")
    ] = None,
    lang: Annotated[str | None, typer.Option(help="Only premises of this language.")] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed (default 13).")] = None,
) -> None:
    """Group unassigned premises into batches, one writer each, genres spread, load balanced."""
    from nlibuild.stages.elicit_create import run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            defaults = preset_defaults(store, "elicit")
            chosen = protocol or defaults.get("protocol")
            if chosen is None:
                raise ConfigError(f"choose the protocol with --protocol: {_PROTOCOLS}")
            if writers is None:
                raise ConfigError("name the writers with --writers: a file, or IDs like w01,w02")
            cfg = ElicitCreateConfig(
                protocol=choice(Protocol, chosen.upper(), "--protocol"),
                writers=read_writer_ids(writers),
                batch_size=first(batch_size, defaults.get("batch_size"), 50),
                max_per_writer=first(max_per_writer, defaults.get("max_per_writer"), 0) or None,
                genres=split_list(genre),
                lang=lang,
                seed=first(seed, defaults.get("seed"), 13),
            )
            result = run(store, cfg)
    for batch in result.batches:
        genres = ", ".join(f"{g} {n}" for g, n in batch.genres.items())
        out.print(f"{batch.id}  {batch.writer}  {batch.premises} premises ({genres})", markup=False)
    left = f"; {result.unassigned} left unassigned (every writer is at the cap)"
    out.print(
        f"Created {counted(len(result.batches), 'batch')} of {cfg.protocol.value} for "
        f"{counted(len({b.writer for b in result.batches}), 'writer')}: "
        f"{counted(sum(b.premises for b in result.batches), 'premise')}"
        f"{left if result.unassigned else ''} (run {result.run_id}, {result.signature})",
        markup=False,
    )


@elicit_app.command("export")
def export(
    ctx: typer.Context,
    batches: Annotated[
        list[str] | None, typer.Argument(help="Batch IDs (e0001 ...); or --all.")
    ] = None,
    all_batches: Annotated[bool, typer.Option("--all", help="Every elicitation batch.")] = False,
    format: PlatformOption = "jsonl",
    out_dir: Annotated[Path, typer.Option("--out", help="The folder to write the package to.")] = (
        Path("elicit-out")
    ),
    instructions: InstructionsOption = "en,zh",
) -> None:
    """Write the work package: task files with our IDs, instructions, the platform's form."""
    from nlibuild.stages.elicit_export import run

    export_package(ctx, ElicitExportConfig, run, batches, all_batches, format, out_dir,
                   instructions)  # fmt: skip


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
            )
            result = run(store, cfg)
    out.print(
        f"Exported {counted(result.batches, 'batch')} ({counted(result.tasks, 'task')}) as "
        f"{cfg.format.value} to {cfg.out}: {', '.join(p.name for p in result.files)} "
        f"(run {result.run_id}, {result.signature})",
        markup=False,
    )


@elicit_app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The answers file.")],
    format: PlatformOption = "jsonl",
    annotators: AnnotatorMapOption = None,
    on_violation: Annotated[
        str | None,
        typer.Option(help="A pair that breaks a rule is kept and flagged (flag) or not (reject)."),
    ] = None,
    max_overlap: Annotated[
        float | None,
        typer.Option(help="Largest share of a hypothesis's units found in its premise (0.70)."),
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
) -> None:
    """Read writers' answers, check them against their batch and protocol, add the pairs."""
    from nlibuild.stages.elicit_import import run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            defaults = preset_defaults(store, "elicit")
            cfg = ElicitImportConfig(
                path=file,
                format=choice(PlatformFormat, format, "--format"),
                annotators=annotators,
                on_violation=choice(
                    OnViolation,
                    first(on_violation, defaults.get("on_violation"), "flag"),
                    "--on-violation",
                ),
                max_overlap=first(max_overlap, defaults.get("max_overlap"), DEFAULT_MAX_OVERLAP),
                negators=tuple(negators or ()),
                batch=batch,
                writer=writer,
                label_order=label_order_option(label_order, "--label-order"),
            )
            result = run(store, cfg)
    render_import_report(result)


def render_import_report(result: ElicitImportResult) -> None:
    """Per rule and per writer, then the one closing line."""
    for warning in result.warnings:
        out.print(f"Warning: {warning}", markup=False)
    if result.rules:
        render_table(
            out,
            "Checks",
            ["rule", "severity", "found", "pairs kept", "pairs rejected"],
            [(r.rule, r.severity, r.found, r.pairs_kept, r.pairs_rejected) for r in result.rules],
            TableFormat.TABLE,
        )
    if result.writers:
        render_table(
            out,
            "Writers",
            ["writer", "answers", "x", "pairs added", "rejected", "errors", "warnings",
             "contradictions", "with negator"],
            [
                (w.writer, w.answers, w.unusable, w.pairs_added, w.pairs_rejected, w.errors,
                 w.warnings, w.contradictions, w.negated_contradictions)
                for w in result.writers
            ],
            TableFormat.TABLE,
        )  # fmt: skip
    dropped = "".join(f", {n} {why}" for why, n in sorted(result.dropped.items()))
    out.print(
        f"Imported {counted(result.answers, 'answer')}{dropped}: "
        f"{counted(result.pairs_added, 'pair')} added, {result.pairs_rejected} rejected, "
        f"{result.unusable} marked x, {result.unchanged} already imported; "
        f"{counted(result.violations_added, 'violation')} stored "
        f"(run {result.run_id}, {result.signature})",
        markup=False,
    )
