"""`stats --table NAME`: the command over the table registry (nlibuild/stats/). It takes
the union of every table's options, refuses those the chosen table does not read, then
lets the table build its settings, compute its rows and render them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli.common import (
    err,
    format_option,
    open_store,
    refuse_outputs,
    state_of,
    user_errors,
)
from nlibuild.cli.common import out as stdout
from nlibuild.core.progress import step
from nlibuild.models import (
    CartographyConfig,
    ElicitImportConfig,
    PmiConfig,
    SampleConfig,
    TableFormat,
)
from nlibuild.options import choice, default_text, split_list
from nlibuild.report.plots import refuse_unplotted, table_figure, write_png
from nlibuild.stats import (
    StatsOptions,
    json_records,
    json_rows_text,
    refuse_other_options,
    stats_table,
    stats_tables,
)

# The command's own options, which every table takes (--plot refuses a table it cannot draw).
_COMMON_OPTIONS = {"table", "format", "plot"}


def _table_names(separator: str, last: str | None = None) -> str:
    names = list(stats_tables())
    if last is None or len(names) < 2:
        return separator.join(names)
    return separator.join(names[:-1]) + last + names[-1]


def stats_help() -> str:
    """The command's --help: one paragraph per table, in listing order."""
    tables = "\n\n".join(f"{t.name}: {t.help}" for t in stats_tables().values())
    return f"Tables about the corpus.\n\n{tables}\n\n{_STATS_EXAMPLES}"


_STATS_EXAMPLES = (
    "Examples:\n\n\b\n"
    "  nlibuild --db corpus.db stats --table agreement --ci 0.95\n"
    "  nlibuild --db corpus.db stats --table lengths --format md\n"
    "  nlibuild --db corpus.db stats --table agreement --by genre --plot agreement.png\n"
)


def stats(
    ctx: typer.Context,
    table: Annotated[
        str,
        typer.Option(
            "--table",
            help=f"Which table: {_table_names(', ', ' or ')}.",
        ),
    ],
    min_len: Annotated[
        int | None,
        typer.Option(
            help="premises: shortest qualifying length "
            f"(default {default_text(SampleConfig, 'min_len')})."
        ),
    ] = None,
    max_len: Annotated[
        int | None,
        typer.Option(
            help="premises: longest qualifying length "
            f"(default {default_text(SampleConfig, 'max_len')})."
        ),
    ] = None,
    unit: Annotated[
        str | None,
        typer.Option(
            help="premises: length unit, auto, chars or tokens "
            f"(default {default_text(SampleConfig, 'unit')})."
        ),
    ] = None,
    max_overlap: Annotated[
        float | None,
        typer.Option(
            help="subsets, cues: the overlap limit "
            f"(default {default_text(ElicitImportConfig, 'max_overlap')}; OCNLI 3.2)."
        ),
    ] = None,
    overlap_measure: Annotated[
        str | None,
        typer.Option(
            help="subsets, cues: the overlap share, of the hypothesis, the premise or both "
            f"(default {default_text(ElicitImportConfig, 'overlap_measure')}; OCNLI 3.2)."
        ),
    ] = None,
    negators: Annotated[
        list[Path] | None,
        typer.Option("--negators", help="subsets: more negators (resources/negators/ format)."),
    ] = None,
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="A list (--by genre,protocol or --by genre --by protocol), one section per "
            "grouping after all pairs: agreement: protocol, level, genre, lang; pmi, cues: "
            "protocol, level, genre, author (cues: default protocol).",
        ),
    ] = None,
    include_extra: Annotated[
        bool,
        typer.Option(help="agreement: extra labels are categories of kappa and alpha too."),
    ] = False,
    ci: Annotated[
        float | None, typer.Option(help="agreement: bootstrap interval at this level, e.g. 0.95.")
    ] = None,
    resamples: Annotated[int, typer.Option(help="agreement: bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option(help="agreement: bootstrap seed.")] = 13,
    threshold: Annotated[
        float, typer.Option(help="annotators: flag agreement with gold under this.")
    ] = 0.7,
    sort: Annotated[
        str, typer.Option(help="annotators: sort by this column (default agree_with_gold).")
    ] = "agree_with_gold",
    top: Annotated[
        int | None,
        typer.Option(
            help="pmi: (word, label) pairs per group "
            f"(default {default_text(PmiConfig, 'top')}); cartography: pairs per list "
            f"(default {default_text(CartographyConfig, 'top')})."
        ),
    ] = None,
    smoothing: Annotated[
        float, typer.Option(help="pmi: add-k smoothing of the counts (Gururangan et al. 2018).")
    ] = 100.0,
    min_count: Annotated[
        int, typer.Option(help="pmi: rank only words in at least this many pairs of a group.")
    ] = 20,
    units: Annotated[
        str | None,
        typer.Option(help="pmi: words (jieba for Chinese) or chars (default: the language's)."),
    ] = None,
    per_label: Annotated[
        bool, typer.Option("--per-label", help="pmi: the top words of each label.")
    ] = False,
    split: Annotated[
        list[str] | None,
        typer.Option("--split", help="pmi, cues: only pairs of these splits (e.g. train)."),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(help="pmi, cues: read the human translations into this language."),
    ] = None,
    run: Annotated[
        int | None, typer.Option(help="cartography: the score run (default: the newest).")
    ] = None,
    job: Annotated[
        str | None, typer.Option(help="cartography: map this job of the run alone (its name).")
    ] = None,
    mode: Annotated[
        str | None,
        typer.Option(help="cartography: map this mode's jobs of the run, seeds averaged."),
    ] = None,
    regions: Annotated[
        str | None,
        typer.Option(
            help="cartography: overlapping (the paper's top-33% subsets, the default) or "
            "exclusive (each pair in one region)."
        ),
    ] = None,
    round: Annotated[
        int | None,
        typer.Option("--round", help="model-loop: this adversarial round alone (1, 2, ...)."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="cartography: the file to write the listed pair IDs to, one a line; "
            "model-loop: the fooled pairs waiting for validators, likewise.",
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="agreement, lengths, pmi, cues, cartography: also draw the table as a PNG "
            "chart to this file.",
        ),
    ] = None,
    format: Annotated[str, format_option()] = TableFormat.TABLE.value,
) -> None:
    """Tables about the corpus (the help is `stats_help()`, one paragraph per table)."""
    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        chosen = stats_table(table)
        refuse_other_options(chosen, _given_options(ctx), common=("--format",))
        options = StatsOptions(
            min_len=min_len, max_len=max_len, unit=unit, max_overlap=max_overlap,
            overlap_measure=overlap_measure, negators=tuple(negators or ()), by=split_list(by),
            include_extra=include_extra,
            ci=ci, resamples=resamples, seed=seed, threshold=threshold, sort=sort, top=top,
            smoothing=smoothing, min_count=min_count, units=units, per_label=per_label,
            split=split_list(split), lang=lang, run=run, job=job, mode=mode, regions=regions,
            round=round, out=out,
        )  # fmt: skip
        if plot is not None:
            refuse_unplotted(chosen.name)
        refuse_outputs(ctx, out=out, plot=plot)
        store = open_store(state_of(ctx))
        with store:
            settings = chosen.settings(options, store)
            with step(f"stats --table {chosen.name}", "table computed"):
                result = chosen.compute(store, settings)
            glyphs = None
            if plot is not None:  # in the fonts of the store's language (Korean forms for ko)
                chart = table_figure(chosen.name, store, result)
                glyphs = write_png(chart, plot, store.meta().get("lang"))
    if fmt is TableFormat.JSON:
        stdout.print(json_rows_text(json_records(chosen, result, settings)), markup=False)
    else:
        chosen.render(result, settings, fmt, stdout)
    if chosen.note is not None:
        err.print(f"Note: {chosen.note(settings)}", markup=False)
    if glyphs is not None:  # characters the PNG draws as boxes: one line, not one a glyph
        err.print(f"Warning: {glyphs}", markup=False)


def _given_options(ctx: typer.Context) -> list[str]:
    """The options the user gave, other than those every table takes."""
    return [
        param.name
        for param in ctx.command.params
        if param.name and param.name not in _COMMON_OPTIONS and _given(ctx, param.name)
    ]


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether the user gave the option (rather than typer filling in its default)."""
    source = ctx.get_parameter_source(name)
    # By name: typer vendors its own click, whose ParameterSource is not public.
    return source is not None and source.name in {"COMMANDLINE", "ENVIRONMENT"}
