"""Every command's `--help` ends with examples, and every example runs on the sample data.

Issue 18: "Examples in every command's `--help` (checked by a test that runs each example on
the sample data), shell completion on". The examples are read from the rendered help, as a
user sees it, so a help text that loses its block (or a rewrapped line) fails here.

Issue 28: "8 of 49 `--help` examples fail when run in order (stores they use are never
created)". So no setup is run for them: every command's examples run in the order
`nlibuild --help` lists the commands (a group's help before its commands'), all in one fresh
folder holding a copy of the project's `data/`. Each store an example uses is made by an
earlier example: `corpus.db` (MNLI) by `nlibuild --help`'s first, `zh.db` (OCNLI),
`table.db` and `crowd.db` by `init`'s; a file or folder by an earlier example of the same or
an earlier help.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from conftest import DATA, PROJECT, SAMPLE_MNLI, run_cli
from typer.core import TyperGroup
from typer.testing import CliRunner

from nlibuild.cli import app
from nlibuild.core import registry

EXAMPLES_HEADING = "Examples:"
PROGRAM = "nlibuild"
MOST_EXAMPLES = 5
ZH_GENRES = ("gov", "news", "lit", "tv", "phone")
"""`ingest`'s help shows a store's whole pool: the five genres of the OCNLI sample."""

NEEDS_TORCH = {
    "score tiny-model",
    "score train",
    "score plan",
    "score import",
    "score export-model",
}
"""Commands whose examples build or train a model: the `score` extra (torch)."""

STORELESS_COMMANDS = (["schemas", "--out"],)
"""The first words of the examples that open no store."""

HAS_TORCH = importlib.util.find_spec("torch") is not None


def stages_declared() -> bool:
    """Whether every stage module declares its `Stage` (branches converting them are being
    merged; until then `run`'s example recipe cannot run)."""
    try:
        for info in registry.STAGES:
            registry.stage(info)
    except AttributeError:
        return False
    return True


def command_paths(group: TyperGroup, path: str = "") -> Iterator[str]:
    """Every command and group under `group`, as typed after `nlibuild`."""
    for name, command in group.commands.items():
        yield f"{path}{name}"
        if isinstance(command, TyperGroup):
            yield from command_paths(command, f"{path}{name} ")


ROOT = typer.main.get_command(app)
assert isinstance(ROOT, TyperGroup)
ALL_COMMANDS = [PROGRAM, *command_paths(ROOT)]


def help_text(path: str) -> str:
    words = [] if path == PROGRAM else path.split()
    result = CliRunner().invoke(app, [*words, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.stdout


def examples_of(help_output: str) -> list[str]:
    """The `nlibuild ...` command lines of the help's Examples block, in order; a line
    ending in ` \\` goes on on the next line, as in a shell."""
    lines = [line.strip() for line in help_output.splitlines()]
    assert EXAMPLES_HEADING in lines, help_output
    examples: list[str] = []
    continued = False
    for line in lines[lines.index(EXAMPLES_HEADING) + 1 :]:
        if line.endswith(":") and not continued:
            break  # the next section: Options:, Commands:
        if continued:
            examples[-1] += " " + line.removesuffix("\\").strip()
        elif line.startswith(f"{PROGRAM} "):
            examples.append(line.removesuffix("\\").strip())
        continued = line.endswith("\\")
    return examples


@pytest.mark.parametrize("path", ALL_COMMANDS)
def test_every_command_help_ends_with_examples_that_use_a_store_file(path: str) -> None:
    examples = examples_of(help_text(path))
    assert 1 <= len(examples) <= MOST_EXAMPLES, examples
    for example in examples:
        assert example.startswith(f"{PROGRAM} "), example
        words = shlex.split(example)
        if words[1:3] not in STORELESS_COMMANDS:
            assert words[1] == "--db", f"{example}: examples name their store with --db"


def examples_to_run(commands: list[str] = ALL_COMMANDS) -> Iterator[tuple[str, str]]:
    """(command path, example) for every example of every help of `commands`, in the order
    of the help tree; the commands this machine cannot run (`NEEDS_TORCH`, `run` before its
    stages are declared) are left out, with the examples of later helps that use what they
    make."""
    for path in commands:
        if path in NEEDS_TORCH and not HAS_TORCH:
            continue
        if path == "run" and not stages_declared():
            continue
        for example in examples_of(help_text(path)):
            yield path, example


def examples_before(path: str) -> list[str]:
    """The examples a user reading the helps in order has run before those of `path`."""
    return [example for _, example in examples_to_run(ALL_COMMANDS[: ALL_COMMANDS.index(path)])]


def test_every_example_of_every_help_runs_in_order_in_a_fresh_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NLIBUILD_DB", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    shutil.copytree(DATA, tmp_path / "data")
    shutil.copytree(PROJECT / "pipelines", tmp_path / "pipelines")
    monkeypatch.chdir(tmp_path)
    failed = []
    for path, example in examples_to_run():
        result = run_cli(*shlex.split(example)[1:])
        if result.exit_code != 0:
            failed.append(f"{path!r}: `{example}`: {result.stderr.strip()}")
    assert failed == [], "\n".join(failed)


def test_shell_completion_is_on_and_prints_a_bash_script(monkeypatch: pytest.MonkeyPatch) -> None:
    # typer detects the shell from the process tree (under make it is sh): say it is bash.
    monkeypatch.setattr("typer.completion._get_shell_name", lambda: "bash")
    result = CliRunner().invoke(app, ["--show-completion"], prog_name=PROGRAM)
    assert result.exit_code == 0, result.output
    assert "complete " in result.stdout and "_NLIBUILD_COMPLETE" in result.stdout


README_FIRST_SCREEN = "## Your own file, start to finish"


def readme_walkthrough() -> list[str]:
    """The `nlibuild` command lines of the README's walkthrough block, continuations joined
    and comments dropped."""
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(README_FIRST_SCREEN) :]
    start = section.index("```sh\n") + len("```sh\n")
    block = section[start : section.index("\n```", start)]
    commands: list[str] = []
    for line in block.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == [PROGRAM]:
            commands.append(shlex.join(words))
    return commands


def write_my_pairs(path: Path) -> None:
    """The sample corpus as the csv the README describes: one pair a row, the author's label
    and the validators' in label1..label5, empty where a pair has fewer votes."""
    header = ["pair_id", "premise", "hypothesis", "genre", *(f"label{i}" for i in range(1, 6))]
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        for line in SAMPLE_MNLI.read_text(encoding="utf-8").splitlines():
            pair = json.loads(line)
            votes = pair["annotator_labels"] + [""] * (5 - len(pair["annotator_labels"]))
            writer.writerow(
                [pair["pairID"], pair["sentence1"], pair["sentence2"], pair["genre"], *votes]
            )


def test_the_readme_first_screen_imports_aggregates_and_reports_a_users_csv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NLIBUILD_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    write_my_pairs(tmp_path / "my_pairs.csv")
    commands = readme_walkthrough()
    assert [shlex.split(c)[3] for c in commands] == [
        "init", "import", "aggregate-labels", "stats", "report",
    ]  # fmt: skip
    outputs = []
    for command in commands:
        result = run_cli(*shlex.split(command)[1:])
        assert result.exit_code == 0, f"`{command}`: {result.stderr}"
        outputs.append(result.stdout)
    assert "48 pairs" in outputs[1]
    assert "entailment 16, neutral 15, contradiction 14, - 3" in outputs[2]
    assert "Fleiss' kappa" in outputs[3]
    assert (tmp_path / "report.html").stat().st_size > 0
