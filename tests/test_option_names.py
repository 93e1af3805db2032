"""One name, one meaning, in every command (issue 18): `--annotators FILE|IDS` names people,
`--annotator-map FILE` maps a platform's workers to them, `--out` is a file for one output
and a folder for a package (its help says which), `--by` is a list, comma-separated or
repeated. The spellings of 0.1 (`elicit create --writers`, the imports' `--annotators
MAP.csv`) still work for one release, hidden from --help, each with one stderr line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.core
from conftest import DATA, fails, json_rows, ok_result, query, run_cli
from elicitation_data import annotator_map
from test_help_examples import ZH_GENRES
from test_relabel import created, exported_tasks, labelstudio_votes, templates

from nlibuild.cli import app
from nlibuild.cli.common import deprecation_line, removal_release

__all__ = ["created", "templates"]  # fixtures of test_relabel, used here by name

DEPRECATED = {
    ("elicit", "create", "--writers"),
    ("elicit", "import", "--annotators"),
    ("relabel", "import", "--annotators"),
}
"""The old spellings kept for one release: hidden options, each printing its line."""

WRITERS_LINE = "Deprecated: --writers is now --annotators; the old spelling goes in nlibuild 0.2"
MAP_LINE = (
    "Deprecated: --annotators FILE (the platform worker map) is now --annotator-map FILE "
    "(--annotators names annotators, FILE|IDS, in every command); the old spelling goes in "
    "nlibuild 0.2"
)


def commands() -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command of the app, by its path (`("elicit", "create")`)."""

    def walk(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
        if isinstance(command, typer.core.TyperGroup):
            for name, sub in command.commands.items():
                yield from walk(sub, (*path, name))
        else:
            yield path, command

    yield from walk(typer.main.get_command(app), ())


def options() -> Iterator[tuple[tuple[str, ...], Any]]:
    """(command path + option name, the option) for every option of every command."""
    for path, command in commands():
        for param in command.params:
            if isinstance(param, typer.core.TyperOption):
                for name in param.opts:
                    yield (*path, name), param


def test_the_walk_reaches_every_command_group() -> None:
    paths = {path for path, _ in commands()}
    assert {("stats",), ("elicit", "create"), ("relabel", "import"), ("score", "plan")} <= paths


def test_only_the_deprecated_spellings_are_hidden() -> None:
    hidden = {key for key, option in options() if option.hidden}
    assert hidden == DEPRECATED


def test_no_command_shows_writers() -> None:
    shown = [key for key, option in options() if key[-1] == "--writers" and not option.hidden]
    assert shown == []


def test_every_shown_annotators_option_takes_a_file_or_ids() -> None:
    found = {key: option for key, option in options() if key[-1] == "--annotators"}
    shown = {key: option for key, option in found.items() if not option.hidden}
    assert set(shown) == {
        ("elicit", "create", "--annotators"),
        ("relabel", "create", "--annotators"),
    }
    for key, option in shown.items():
        assert option.help.startswith("FILE|IDS"), key


def test_every_by_option_takes_a_list() -> None:
    by = {key: option for key, option in options() if key[-1] == "--by"}
    assert {("stats", "--by"), ("bias", "hypothesis-only", "--by")} <= set(by)
    for key, option in by.items():
        assert option.multiple, key
        assert "--by genre,protocol" in option.help, key  # and says a comma list works too


def test_every_out_option_says_file_or_folder() -> None:
    outs = {key: option for key, option in options() if key[-1] == "--out"}
    assert len(outs) >= 10
    for key, option in outs.items():
        assert "file" in option.help.lower() or "folder" in option.help.lower(), key


def test_a_deprecation_line_names_the_release_the_old_spelling_goes_in() -> None:
    assert removal_release("0.1.0") == "0.2"
    assert removal_release("1.9.3") == "1.10"
    assert deprecation_line("--writers", "--annotators") == WRITERS_LINE


# --- --by: a comma list is the repeated option; several groupings, one section each --------


@pytest.mark.parametrize("table", ["pmi", "cues"])
def test_several_groupings_are_sections_in_the_order_given(sample_db: Path, table: str) -> None:
    more = ("--min-count", 1) if table == "pmi" else ()
    comma = json_rows("--db", sample_db, "stats", "--table", table, "--by", "genre,level", *more)
    repeated = json_rows(
        "--db", sample_db, "stats", "--table", table, "--by", "genre", "--by", "level", *more
    )
    alone = json_rows("--db", sample_db, "stats", "--table", table, "--by", "genre", *more)

    assert [r["group_by"] for r in comma] == [r["group_by"] for r in repeated]
    sections = list(dict.fromkeys(r["group_by"] for r in comma))
    assert sections == ["all", "genre", "level"]
    # The genre section is what --by genre alone gives: a grouping does not cross the other.
    assert [r for r in comma if r["group_by"] != "level"] == alone


def test_a_terminal_table_names_the_grouping_of_each_section(sample_db: Path) -> None:
    shown = ok_result("--db", sample_db, "stats", "--table", "cues", "--by", "genre,level").stdout
    assert "genre: " in shown and "level: " in shown
    alone = ok_result("--db", sample_db, "stats", "--table", "cues", "--by", "genre").stdout
    assert "genre: " not in alone


def test_bias_takes_by_as_a_comma_list_or_repeated(sample_db: Path) -> None:
    args = ("--db", sample_db, "bias", "hypothesis-only", "--cross-validate", 2, "--resamples", 5)
    comma = json_rows(*args, "--by", "genre,level")
    repeated = json_rows(*args, "--by", "genre", "--by", "level")
    assert comma == repeated
    assert list(dict.fromkeys(r["group_by"] for r in comma)) == ["all", "genre", "level"]


# --- the old spellings, for one release --------------------------------------------------


def premise_store(db: Path) -> Path:
    """The demo's Chinese premises (`make demo`): 10 a genre, sampled with seed 13."""
    ok_result("--db", db, "init", "--preset", "ocnli")
    for genre in ZH_GENRES:
        ok_result("--db", db, "ingest", DATA / "sources" / "zh" / f"{genre}.txt", "--genre", genre)
    ok_result("--db", db, "sample", "--per-genre", 10, "--seed", 13)
    return db


CREATE = ("elicit", "create", "--protocol", "MULTI_CONSTRAINT", "--batch-size", 4,
          "--max-per-writer", 8)  # fmt: skip


@pytest.fixture(scope="module")
def batched(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's Chinese premises in batches of writers w01 and w02, by the new name."""
    db = premise_store(tmp_path_factory.mktemp("batched") / "corpus.db")
    ok_result("--db", db, *CREATE, "--annotators", "w01,w02")
    return db


def test_elicit_create_still_takes_writers_with_a_deprecation_line(
    batched: Path, tmp_path: Path
) -> None:
    db = premise_store(tmp_path / "corpus.db")
    result = ok_result("--db", db, *CREATE, "--writers", "w01,w02")
    assert result.stderr.splitlines() == [WRITERS_LINE]
    batches = "SELECT id, kind, protocol FROM batches ORDER BY id"
    assert query(db, batches) == query(batched, batches)
    assert result.stdout.splitlines()[-1].startswith("Created 4 batches of MULTI_CONSTRAINT")


def test_writers_and_annotators_together_are_refused(batched: Path) -> None:
    fails(
        batched, *CREATE, "--annotators", "w01", "--writers", "w02",
        says=("--writers is the old spelling of --annotators: give --annotators alone",),
    )  # fmt: skip


ANSWERS = DATA / "elicit" / "zh_e0001.labelstudio.json"
DEMO_MAP = DATA / "elicit" / "annotators.csv"


def test_elicit_import_takes_the_old_annotators_map_with_a_line_saying_what_changed(
    batched: Path, tmp_path: Path
) -> None:
    old = ok_result("--db", batched, "elicit", "import", ANSWERS, "--format", "labelstudio",
                    "--annotators", DEMO_MAP)  # fmt: skip
    assert old.stderr.splitlines() == [MAP_LINE]
    assert "Imported " in old.stdout
    assert query(batched, "SELECT count(*) FROM annotator_aliases")[0][0] == 2


def test_the_old_annotators_of_an_import_must_be_a_map(batched: Path, tmp_path: Path) -> None:
    ids = tmp_path / "writers.txt"
    ids.write_text("w01\nw02\n", encoding="utf-8")
    for value in ("w01,w02", ids):
        fails(batched, "elicit", "import", ANSWERS, "--format", "labelstudio",
              "--annotators", value,
              says=(f"--annotators {value}: `elicit import` takes no annotator IDs; its platform "
                    "worker map is now --annotator-map FILE",))  # fmt: skip
    both = ("--annotator-map", DEMO_MAP, "--annotators", DEMO_MAP)
    fails(batched, "elicit", "import", ANSWERS, "--format", "labelstudio", *both,
          says=("--annotators is the old spelling of --annotator-map",))  # fmt: skip


def test_relabel_import_takes_the_old_annotators_map_with_the_same_line(
    created: Path, tmp_path: Path
) -> None:
    out = tmp_path / "package"
    ok_result("--db", created, "relabel", "export", "--all", "--format", "labelstudio",
              "--out", out)  # fmt: skip
    tasks = exported_tasks(out, "labelstudio", "r0002")
    votes = labelstudio_votes(tmp_path / "project-12.json", tasks, 17)
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "17", "v02"))

    result = run_cli("--db", created, "relabel", "import", votes, "--format", "labelstudio",
                     "--annotators", users)  # fmt: skip

    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [MAP_LINE]
    assert query(created, "SELECT platform, platform_id FROM annotator_aliases") == [
        ("labelstudio", "17")
    ]
