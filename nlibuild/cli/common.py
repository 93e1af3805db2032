"""What every command module of the CLI shares: consoles, the store option, error
handling, deprecation lines, progress bars and the --format option. (Parsing option values is
nlibuild/options.py, shared with the `stats` tables.) No SQL here either."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from nlibuild._version import VERSION
from nlibuild.errors import ConfigError, NlibuildError

# The store, the models (pydantic) and rich's progress bars are imported where they are
# used, so that importing this module costs little: the root's callback imports it for
# every command, and a command's own module imports what it needs anyway.
if TYPE_CHECKING:
    from nlibuild.invoke import Outcome
    from nlibuild.store import Store

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


_ESCAPED = {
    code: repr(chr(code))[1:-1]
    for code in (*range(0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029, *range(0xD800, 0xE000))
    if code != 0x09
}
"""Characters an `Error:` line shows escaped (`\\n`, `\\x85`): line breaks of any kind,
other control characters and lone surrogates, all of which come in from bad files (a key,
a value quoted back); printed raw they would break the line in two, steer the terminal, or
fail to encode."""


def error_line(message: str) -> str:
    """`Error: MESSAGE` as exactly one printable line."""
    return f"Error: {message}".translate(_ESCAPED)


@dataclass
class State:
    db: Path


def state_of(ctx: typer.Context) -> State:
    state = ctx.obj
    assert isinstance(state, State)
    return state


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn domain errors into one `Error:` line and exit code 1."""
    from pydantic import ValidationError

    from nlibuild.invoke import option_problem

    try:
        yield
    except NlibuildError as exc:
        err.print(error_line(str(exc)), markup=False)
        raise typer.Exit(1) from None
    except ValidationError as exc:
        err.print(error_line(str(option_problem(exc))), markup=False)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        err.print("Error: interrupted; the store is unchanged", markup=False)
        raise typer.Exit(130) from None


def open_store(state: State) -> Store:
    from nlibuild.store import Store

    return Store.open(state.db)


def refuse_outputs(ctx: typer.Context, **outputs: Path | None) -> None:
    """The output options of a command (`out=`, `plot=`; None: not given), each refused
    before any work when it is the store of `--db` or one of its files, or names no file or
    folder of its own: the one check every output goes through (nlibuild/core/outputs.py)."""
    from nlibuild.core.outputs import refuse_output

    for name, path in outputs.items():
        if path is not None:
            refuse_output(state_of(ctx).db, f"--{name.replace('_', '-')}", path)


def print_outcome(outcome: Outcome[Any, Any]) -> None:
    """A stage's lines as every command prints them: its tables (`Stage.tables`), each
    warning on stderr as `Warning: ...`, then the stage's summary on stdout (the lead page
    and recipes show the same line)."""
    from nlibuild.models import TableFormat
    from nlibuild.render import render_tables

    if outcome.tables:
        render_tables(out, err, outcome.tables, TableFormat.TABLE)
    for warning in outcome.warnings:
        err.print(f"Warning: {warning}", markup=False)
    out.print(outcome.summary, markup=False)


def format_option() -> Any:
    return typer.Option("--format", help="table (on a terminal), csv, json, md or latex.")


def table_folder_option() -> Any:
    """`--out DIR` of a command that shows several tables: each written to its own file."""
    return typer.Option(
        "--out",
        help="A folder to write each table to as its own file (<table>.csv, .json, .md or "
        ".tex; with --format csv, json, md or latex).",
    )


def removal_release(version: str = VERSION) -> str:
    """The release an old spelling goes in: the next minor one (0.1.0 -> 0.2)."""
    major, minor = version.split(".")[:2]
    return f"{major}.{int(minor) + 1}"


def deprecation_line(old: str, new: str, changed: str = "") -> str:
    """The one wording of every deprecated spelling: `Deprecated: --writers is now
    --annotators; the old spelling goes in nlibuild 0.2`, with what else changed in
    brackets after the new name when the meaning moved too."""
    more = f" ({changed})" if changed else ""
    goes = f"the old spelling goes in nlibuild {removal_release()}"
    return f"Deprecated: {old} is now {new}{more}; {goes}"


def warn_deprecated(old: str, new: str, changed: str = "") -> None:
    """Say on stderr, once a command, that an old spelling was used (stdout stays the
    result, so a pipe or a `--format csv` file is not broken by the line)."""
    err.print(deprecation_line(old, new, changed), markup=False)


def renamed_option(new: str, new_value: Any, old: str, old_value: Any) -> Any:
    """The value of an option given by its new name or (deprecated, hidden) its old one;
    both at once is a `ConfigError`, as the two could disagree."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise ConfigError(f"{old} is the old spelling of {new}: give {new} alone")
    warn_deprecated(old, new)
    return old_value


TableLabelsOption = Annotated[
    str | None,
    typer.Option(
        "--labels",
        help="--format table: what the label values mean, e.g. "
        "0=entailment,1=neutral,2=contradiction (- for no label).",
    ),
]
"""`--labels` of the imports that read any table file (`import`, `relabel import`)."""
