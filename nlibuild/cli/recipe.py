"""`run`: a recipe's steps in order on one store, or (`--dry-run`) the plan of what it would
do (`nlibuild/recipes.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nlibuild.cli.common import err, out, print_outcome, state_of, user_errors
from nlibuild.errors import ConfigError
from nlibuild.models import TableFormat
from nlibuild.options import choice
from nlibuild.render import render_table

if TYPE_CHECKING:
    from nlibuild.recipes import PlannedStep

WAITING_EXIT_CODE = 3
"""`run`'s exit code when a step waits for an input file (annotators' answers not back):
not a failure, and told apart from one (1) by scripts and make."""

PLAN_COLUMNS = ("step", "stage", "action", "why")


def print_plan(title: str, planned: list[PlannedStep], fmt: TableFormat) -> None:
    """The plan as aligned lines on a terminal (a table would wrap its reasons), else as
    the table `fmt` names: json, one object a step."""
    rows = [(step.number, step.stage, step.action.value, step.why) for step in planned]
    if fmt is not TableFormat.TABLE:
        render_table(out, title, PLAN_COLUMNS, rows, fmt)
        return
    out.print(f"{title}:", markup=False)
    width = max(len(step.stage) for step in planned)
    for number, stage, action, why in rows:
        out.print(f"  step {number:<3} {stage:<{width}}  {action:<4}  {why}", markup=False)


def run_recipe(
    ctx: typer.Context,
    recipe: Annotated[
        Path,
        typer.Argument(
            help="The recipe: a TOML file of [recipe] (name, and preset or lang) and [[step]] "
            "tables (stage = NAME and its settings; paths relative to the recipe)."
        ),
    ],
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print what each step would do (run, skip, wait) and why; write nothing.",
        ),
    ] = False,
    format: Annotated[
        str | None,
        typer.Option(
            "--format", help="--dry-run's plan: table (on a terminal), csv, json, md or latex."
        ),
    ] = None,
) -> None:
    """Run a recipe's steps (pipelines/*.toml) in order on the store, skipping those that
    already ran ok with the same settings and input files.

    Once one step runs, every later one runs. A step
    whose input file is not there yet (answers not back), or the file its wait_for names
    (people's work in the workbench done), stops the run, naming it, with exit code 3; run
    the recipe again once it is there. A store that does not exist yet is
    created first, with the recipe's preset or lang.

    Examples:

    \b
      nlibuild --db demo.db run pipelines/mnli-en.toml --dry-run
      nlibuild --db demo.db run pipelines/mnli-en.toml
      nlibuild --db demo.db run pipelines/mnli-en.toml --dry-run --format json
    """
    from nlibuild import recipes

    db = state_of(ctx).db
    with user_errors():
        if format is not None and not dry_run:
            raise ConfigError("--format is the plan's: give it with --dry-run")
        fmt = choice(TableFormat, format, "--format") if format else TableFormat.TABLE
        parsed = recipes.read_recipe(recipe)
        if dry_run:
            print_plan(f"Recipe {parsed.name} on {db}", recipes.plan(parsed, db), fmt)
            return
        for event in recipes.run(parsed, db):
            if isinstance(event, recipes.StepRan):
                print_outcome(event.outcome)
            elif event.action is recipes.Action.SKIP:
                out.print(
                    f"Skipped step {event.number} ({event.stage}): ran ok as run {event.ran_as}",
                    markup=False,
                )
            else:
                err.print(
                    f"Waiting at step {event.number} ({event.stage}): {event.why}; run the "
                    "recipe again once it does",
                    markup=False,
                )
                raise typer.Exit(WAITING_EXIT_CODE)
