"""The `nlibuild` command: the root typer app, its global options and `main()`.

The commands are the rows of nlibuild/cli/commands.py, listed in that order by
`nlibuild --help` without importing them: a command's module (which parses options into a
stage's frozen config, calls the stage and renders; no SQL and no data frames) is imported
when that command runs. So this module, and what it imports, stays light: `--help` and
`--version` import no stage, store, model, polars or numpy (a test checks). User errors
(`NlibuildError`) become one `Error:` line on stderr and exit code 1; so does everything
else, a bug, in `main()`: named as an internal error, its traceback shown only with
$NLIBUILD_DEBUG set.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from nlibuild._version import VERSION
from nlibuild.cli.commands import LazyGroup

app = typer.Typer(
    name="nlibuild",
    help="Build natural-language-inference corpora and check their quality, in one SQLite store."
    "\n\nExamples:\n\n\b\n"
    "  nlibuild --db corpus.db init --preset mnli\n"
    "  nlibuild --db corpus.db import data/sample_mnli.jsonl --format mnli\n"
    "  nlibuild --db corpus.db report --out report.html\n",
    no_args_is_help=True,
    # Shell completion of commands and options (issue 18): `nlibuild --install-completion`
    # for the current shell, `--show-completion SHELL` to see the script first.
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=LazyGroup,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"nlibuild {VERSION}")
        raise typer.Exit(0)


@app.callback()
def _main(
    ctx: typer.Context,
    db: Annotated[
        Path,
        typer.Option("--db", envvar="NLIBUILD_DB", help="The store (default ./nlibuild.db)."),
    ] = Path("nlibuild.db"),
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version.", is_eager=True, callback=_print_version
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            envvar="NLIBUILD_QUIET",
            help="No progress bars on stderr (they are drawn only on a terminal anyway). "
            "Results and Error: lines are printed as always.",
        ),
    ] = False,
) -> None:
    """Build natural-language-inference corpora and check their quality, in one SQLite store."""
    # Imported here, where a command runs, not for --help and --version (rich's consoles).
    from nlibuild.cli.common import State
    from nlibuild.core.progress import set_quiet

    # Set for every command, so one invocation's --quiet does not outlive it in a process
    # that runs several (tests, a notebook).
    set_quiet(quiet)
    ctx.obj = State(db=db)


DEBUG_VARIABLE = "NLIBUILD_DEBUG"
"""Set (to anything) to see the traceback of an internal error instead of its one line."""


def main() -> None:
    """Entry point of the `nlibuild` script.

    A bug must not greet a user with a traceback: an exception no command turned into an
    `Error:` line becomes one line naming it, and exit code 1. Every stage runs in a
    transaction that an exception rolls back (a run row marked `failed` stays), hence the
    promise about the store. The catch is here and not on `app`, so that tests invoking
    `app` see the exception itself.
    """
    # Keep `--help` fast and quiet: heavy imports live inside the commands.
    os.environ.setdefault("POLARS_SKIP_CPU_CHECK", "1")
    try:
        app(prog_name="nlibuild")
    except Exception as exc:
        if os.environ.get(DEBUG_VARIABLE):
            raise
        from nlibuild.cli.common import err, error_line

        err.print(
            error_line(
                f"internal error ({type(exc).__name__}: {exc}); the store is unchanged "
                "unless a run says otherwise; please report this with the command"
            ),
            markup=False,
        )
        raise SystemExit(1) from None
