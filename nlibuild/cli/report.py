"""`nlibuild report --out FILE.html`: the corpus's datasheet, one self-contained page
(nlibuild/report/ writes it)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli.common import open_store, out, refuse_outputs, state_of, user_errors
from nlibuild.errors import OutputError
from nlibuild.models import ReportConfig
from nlibuild.options import default_text


def report(
    ctx: typer.Context,
    out_path: Annotated[
        Path, typer.Option("--out", help="The file to write: one HTML page, e.g. report.html.")
    ],
    ci: Annotated[
        float | None,
        typer.Option(
            help="Agreement: bootstrap intervals at this level, e.g. 0.95 (default none)."
        ),
    ] = None,
    resamples: Annotated[
        int | None,
        typer.Option(
            help="Agreement: bootstrap resamples "
            f"(default {default_text(ReportConfig, 'resamples')})."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help=f"Agreement: bootstrap seed (default {default_text(ReportConfig, 'seed')})."
        ),
    ] = None,
    top: Annotated[
        int | None,
        typer.Option(
            help=f"Cue words: top words per label (default {default_text(ReportConfig, 'top')})."
        ),
    ] = None,
    min_count: Annotated[
        int | None,
        typer.Option(
            help="Cue words: rank only words in this many pairs or more "
            f"(default {default_text(ReportConfig, 'min_count')})."
        ),
    ] = None,
    smoothing: Annotated[
        float | None,
        typer.Option(
            help="Cue words: add-k smoothing of PMI (default: Gururangan et al.'s add-100 "
            "scaled to the corpus's size, at least 1)."
        ),
    ] = None,
) -> None:
    """Write the corpus's datasheet (Gebru et al.) as one self-contained HTML page: counts,
    provenance of every run, agreement, subsets, lengths per language, cue words,
    translation quality and scores, with charts.

    Example: nlibuild --db corpus.db report --out report.html --ci 0.95


    Examples:

    \b
      nlibuild --db corpus.db report --out report.html
      nlibuild --db corpus.db report --out report.html --ci 0.95 --min-count 2
    """
    from nlibuild.report import write_report

    with user_errors():
        refuse_outputs(ctx, out=out_path)
        if out_path.is_dir():  # before the work: the page's tables record runs of their own
            raise OutputError(
                f"{out_path}: cannot write it (a folder is there); choose another --out, "
                f"e.g. --out {out_path / 'report.html'}"
            )
        given = {"ci": ci, "resamples": resamples, "seed": seed, "top": top,
                 "min_count": min_count, "smoothing": smoothing}  # fmt: skip
        cfg = ReportConfig(out=out_path, **{k: v for k, v in given.items() if v is not None})
        store = open_store(state_of(ctx))
        with store:
            size = write_report(store, cfg)
    out.print(f"Wrote the report to {out_path} ({size / 1024:.0f} KiB).", markup=False)
