"""Quick start-up (issue 25, item 7): `nlibuild --help` lists the commands from a table
(nlibuild/cli/commands.py, the stage registry's words and help for the stages) and imports a
command's module only when that command runs, so that `--help` and `--version` load no
stage, store, model or data library. The listing must say what each command's own `--help`
says, hence one test per row."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from nlibuild.cli import app
from nlibuild.cli.commands import COMMANDS, Command, Group, LazyGroup, load, rows_under
from nlibuild.core.registry import STAGES

HEAVY = (
    "nlibuild.stages",
    "nlibuild.store",
    "nlibuild.models",
    "nlibuild.invoke",
    "polars",
    "numpy",
    "matplotlib",
    "pydantic",
)
"""What `--help` and `--version` must not import: each costs start-up time on every call."""


MODULES_HEADING = "-- modules --"

RUN_AND_LIST_MODULES = f"""
import runpy, sys
sys.argv[0] = "nlibuild"
try:
    runpy.run_module("nlibuild", run_name="__main__")
except SystemExit:
    pass
print({MODULES_HEADING!r}, *sorted(sys.modules), sep="\\n")
"""
"""`python -m nlibuild ARGS`, then the names of the modules it imported. (`-X importtime`
would miss the modules imported by `importlib.import_module`, as the command table's are.)"""


def imported_by(*args: str, env: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """What `nlibuild ARGS` prints on stdout, and the modules it imports, in a fresh
    interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST_MODULES, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    printed, modules = done.stdout.split(f"{MODULES_HEADING}\n")
    return printed, modules.split()


def is_under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_import_no_stage_store_model_or_data_library(args: list[str]) -> None:
    printed, modules = imported_by(*args)
    assert printed.startswith("Usage: nlibuild ") or printed == "nlibuild 0.1.0\n"
    assert [m for m in modules if any(is_under(m, heavy) for heavy in HEAVY)] == []
    assert [m for m in modules if is_under(m, "nlibuild.cli")] == [
        "nlibuild.cli",
        "nlibuild.cli.commands",
    ]


def test_a_commands_help_imports_its_module_and_no_other_commands() -> None:
    printed, modules = imported_by("init", "--help")
    assert printed.startswith("Usage: nlibuild init ")
    assert [m for m in modules if is_under(m, "nlibuild.cli")] == [
        "nlibuild.cli",
        "nlibuild.cli.commands",
        "nlibuild.cli.common",
        "nlibuild.cli.corpus",
    ]


def test_completing_a_command_name_imports_no_command_module() -> None:
    completion = {"_NLIBUILD_COMPLETE": "complete_bash", "COMP_WORDS": "nlibuild s"}
    printed, modules = imported_by(env={**completion, "COMP_CWORD": "1"})
    assert printed.split() == ["sample", "split", "stats", "schemas", "score", "serve"]
    assert [m for m in modules if is_under(m, "nlibuild.cli")] == [
        "nlibuild.cli",
        "nlibuild.cli.commands",
    ]


def command_at(words: tuple[str, ...]) -> Any:
    """The click command `nlibuild WORDS` runs, built as the app builds it."""
    command: Any = typer.main.get_command(app)
    for word in words:
        command = command.commands[word]
    return command


def first_paragraph(text: str) -> str:
    return " ".join(text.split("\n\n")[0].split())


@pytest.mark.parametrize("row", COMMANDS, ids=lambda row: " ".join(row.words))
def test_each_rows_help_is_the_first_paragraph_of_its_commands_help(row: Command | Group) -> None:
    command = command_at(row.words)
    assert command.name == row.words[-1]
    assert isinstance(command, LazyGroup) == isinstance(row, Group)
    assert first_paragraph(command.help) == first_paragraph(row.help)


def test_each_stage_with_a_command_is_a_row_with_the_registrys_words_and_help() -> None:
    rows = {row.words: row for row in COMMANDS}
    for stage in STAGES:
        if stage.command:
            assert rows[stage.command].help == stage.help, stage.name


def test_each_group_lists_exactly_what_its_app_registers_in_that_order() -> None:
    for row in COMMANDS:
        if isinstance(row, Group):
            registered = [info.name for info in load(row.app).registered_commands]
            assert list(rows_under(row.words)) == registered, row.words


def listed_commands(*words: str) -> list[str]:
    """The command names of `nlibuild WORDS --help`'s Commands section."""
    result = CliRunner().invoke(app, [*words, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    section = result.stdout.split("\nCommands:\n")[1]
    return [line.split()[0] for line in section.splitlines() if line.startswith("  ")]


def test_the_help_lists_the_rows_in_table_order() -> None:
    assert listed_commands() == [
        "init", "import", "export", "ingest", "sample", "aggregate-labels", "split", "stats",
        "info", "runs", "check", "report", "run", "schemas",
        "elicit", "translate", "relabel", "bias", "score", "serve",
    ]  # fmt: skip
    assert listed_commands("score") == [
        "train",
        "plan",
        "import",
        "baselines",
        "export-model",
        "tiny-model",
        "report",
    ]
    assert listed_commands("serve") == ["invite", "invites", "revoke"]


def test_a_mistyped_command_is_answered_with_the_nearest_names() -> None:
    result = CliRunner().invoke(app, ["elicit", "creat"])
    assert result.exit_code == 2
    assert "No such command 'creat'. Did you mean 'create'?" in result.output


def test_version_prints_the_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert (result.exit_code, result.stdout) == (0, "nlibuild 0.1.0\n")
