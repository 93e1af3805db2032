"""`nlibuild score ...`: baseline scoring (issue 17). This branch holds only `report`;
the training side adds its commands here."""

from __future__ import annotations

import typer

from nlibuild.cli import score_report

score_app = typer.Typer(
    help="Baseline scoring: train and evaluate models on the corpus, and report the scores.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

score_report.register(score_app)
