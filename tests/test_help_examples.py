"""Every command's `--help` ends with examples, and every example runs on the sample data.

Issue 18: "Examples in every command's `--help` (checked by a test that runs each example on
the sample data), shell completion on". The examples are read from the rendered help, as a
user sees it, so a help text that loses its block (or a rewrapped line) fails here. Each
command's examples run in order, in a fresh folder holding a copy of the project's `data/`,
after the setup that command needs (`SETUP_OF`): a store made by the commands a user would
have run before it.
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

ZH_GENRES = ("gov", "news", "lit", "tv", "phone")

# Setups: the command lines (without `nlibuild`) a command's examples assume were run before.
MNLI_STORE = (
    "--db corpus.db init --preset mnli",
    "--db corpus.db import data/sample_mnli.jsonl --format mnli",
)
MNLI_GERMAN = (
    *MNLI_STORE,
    "--db corpus.db translate import data/translations/sample_mnli.de.tsv --lang de "
    "--translator de01",
)
MNLI_SPLIT = (
    *MNLI_GERMAN,
    "--db corpus.db split --dev 10 --test 10 --from labelled --group-by pair",
)
ZH_STORE = ("--db corpus.db init --preset ocnli",)
ZH_POOL = (
    *ZH_STORE,
    *(f"--db corpus.db ingest data/sources/zh/{genre}.txt --genre {genre}" for genre in ZH_GENRES),
)
ZH_PREMISES = (*ZH_POOL, "--db corpus.db sample --per-genre 10 --seed 13")
ZH_BATCHES = (
    *ZH_PREMISES,
    "--db corpus.db elicit create --protocol MULTI_CONSTRAINT --annotators w01,w02 "
    "--batch-size 4 --max-per-writer 8",
)
ZH_PAIRS = (
    *ZH_BATCHES,
    "--db corpus.db elicit import data/elicit/zh_e0001.labelstudio.json --format labelstudio "
    "--annotator-map data/elicit/annotators.csv",
)
ZH_RELABEL = (
    *ZH_PAIRS,
    "--db corpus.db relabel create --fraction 0.5 --annotators w01,v01,v02,v03,v04",
)

SETUP_OF: dict[str, tuple[str, ...]] = {
    "nlibuild": (),
    "init": (),
    "schemas": (),
    "run": (),
    "import": (
        "--db corpus.db init --preset mnli",
        "--db table.db init --lang en",
        "--db crowd.db init --lang en",
    ),
    "export": MNLI_STORE,
    "info": MNLI_STORE,
    "runs": MNLI_STORE,
    "check": MNLI_STORE,
    "aggregate-labels": MNLI_STORE,
    "split": MNLI_STORE,
    "stats": MNLI_STORE,
    "report": MNLI_STORE,
    "ingest": ZH_STORE,
    "sample": ZH_POOL,
    "elicit": ZH_PREMISES,
    "elicit create": ZH_PREMISES,
    "elicit export": ZH_BATCHES,
    "elicit import": ZH_BATCHES,
    "relabel": ZH_PAIRS,
    "relabel create": ZH_PAIRS,
    "relabel export": ZH_RELABEL,
    "relabel import": ZH_RELABEL,
    "translate": MNLI_STORE,
    "translate export": MNLI_GERMAN,
    "translate import": MNLI_STORE,
    "translate qa": MNLI_GERMAN,
    "bias": MNLI_SPLIT,
    "bias hypothesis-only": MNLI_SPLIT,
    "score": MNLI_SPLIT,
    "score baselines": MNLI_SPLIT,
    "score report": MNLI_SPLIT,
    "score tiny-model": MNLI_SPLIT,
    "score train": MNLI_SPLIT,
    "score plan": MNLI_SPLIT,
    "score import": MNLI_SPLIT,
    "score export-model": MNLI_SPLIT,
    "serve": ZH_BATCHES,
    "serve invite": ZH_BATCHES,
    "serve invites": ZH_BATCHES,
    "serve revoke": (*ZH_BATCHES, "--db corpus.db serve invite --annotator w01"),
}
"""Command path (as typed after `nlibuild`) -> the setup its examples assume."""

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


def test_the_setup_table_names_every_command_of_the_app() -> None:
    assert sorted(SETUP_OF) == sorted(ALL_COMMANDS)


@pytest.mark.parametrize("path", ALL_COMMANDS)
def test_every_command_help_ends_with_examples_that_use_a_store_file(path: str) -> None:
    examples = examples_of(help_text(path))
    assert 1 <= len(examples) <= 3, examples
    for example in examples:
        assert example.startswith(f"{PROGRAM} "), example
        words = shlex.split(example)
        if words[1:3] not in STORELESS_COMMANDS:
            assert words[1] == "--db", f"{example}: examples name their store with --db"


@pytest.mark.parametrize("path", ALL_COMMANDS)
def test_every_example_runs_on_the_sample_data(
    path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if path in NEEDS_TORCH and not HAS_TORCH:
        pytest.skip("the score extra (torch) is not installed: `make test` installs it")
    monkeypatch.delenv("NLIBUILD_DB", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    if path == "run" and not stages_declared():
        pytest.skip("the stages of `run`'s example recipe do not declare their Stage yet")
    shutil.copytree(DATA, tmp_path / "data")
    shutil.copytree(PROJECT / "pipelines", tmp_path / "pipelines")
    monkeypatch.chdir(tmp_path)
    for line in SETUP_OF[path]:
        result = run_cli(*shlex.split(line))
        assert result.exit_code == 0, f"setup `{line}`: {result.stderr}"
    for example in examples_of(help_text(path)):
        result = run_cli(*shlex.split(example)[1:])
        assert result.exit_code == 0, f"`{example}`: {result.stderr}"


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
