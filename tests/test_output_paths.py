"""Every output option of every command (`--out`, `--plot`) goes through one check
(nlibuild/core/outputs.py): the store, its `-wal`, `-shm` and `-journal` files, a link to the
store, and a path that names no file or folder of its own (`.`, `/`, an empty value) are each
refused with one `Error:` line, exit 1, the store unchanged and nothing written anywhere.
(Issue 26: `stats --plot STORE.db` wrote a PNG over the store and exited 0; `schemas --out
STORE-journal` made a folder that kept SQLite from opening the store; `export --format hf
--out ''` wrote its package into the current folder.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLE_MNLI, assert_user_error, run_cli

import nlibuild

STORE_NAME = "corpus.db"
LINK_NAME = "link-to-the-store.db"
HARD_LINK_NAME = "the-store-by-another-name.db"

OUTPUT_COMMANDS = {
    "export --format mnli-jsonl": ["export", "--format", "mnli-jsonl", "--out"],
    "export --format hf": ["export", "--format", "hf", "--out"],
    "report": ["report", "--out"],
    "schemas": ["schemas", "--out"],
    "check": ["check", "--format", "csv", "--out"],
    "stats --table cartography --out": ["stats", "--table", "cartography", "--out"],
    **{
        f"stats --table {table} --plot": ["stats", "--table", table, "--plot"]
        for table in ("agreement", "lengths", "pmi", "cues", "cartography")
    },
    "translate export": ["translate", "export", "--lang", "de", "--out"],
    "translate qa": ["translate", "qa", "--lang", "de", "--format", "csv", "--out"],
    "elicit export": ["elicit", "export", "--all", "--out"],
    "relabel export": ["relabel", "export", "--all", "--out"],
    "score plan": ["score", "plan", "--models", "no-such-model", "--out"],
    "score tiny-model": ["score", "tiny-model", "--out"],
    "score export-model": ["score", "export-model", "no-such-job", "--out"],
    "score report": ["score", "report", "--format", "csv", "--out"],
}
"""Each command that writes files, as its words up to the output option, whose value the
test appends: every `--out` and `--plot` the CLI has."""

ONTO_THE_STORE = {
    "the store": STORE_NAME,
    "its write-ahead log": f"{STORE_NAME}-wal",
    "its shared-memory index": f"{STORE_NAME}-shm",
    "its rollback journal": f"{STORE_NAME}-journal",
    "a link to it": LINK_NAME,
    "a hard link to it": HARD_LINK_NAME,
}
NO_NAME_OF_ITS_OWN = {
    "the current folder": (".", "the current folder (an empty value names it too)"),
    "an empty value": ("", "the current folder (an empty value names it too)"),
    "the root folder": ("/", "the root folder"),
    "a parent folder": ("..", "a parent folder"),
}


@pytest.fixture(scope="module")
def store_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a store of the 48 sample pairs, a symbolic and a hard link to it;
    shared by the module's tests, as none of them may change it."""
    folder = tmp_path_factory.mktemp("outputs")
    corpus = nlibuild.create(folder / STORE_NAME)
    corpus.import_corpus(path=SAMPLE_MNLI, format="mnli")
    (folder / LINK_NAME).symlink_to(folder / STORE_NAME)
    (folder / HARD_LINK_NAME).hardlink_to(folder / STORE_NAME)
    return folder


def _tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder` with its bytes (None for a folder), links not followed."""
    return {
        str(path.relative_to(folder)): None
        if path.is_dir() and not path.is_symlink()
        else path.read_bytes()
        for path in sorted(folder.rglob("*"))
    }


def _refused_with_nothing_written(
    store_folder: Path, work: Path, command: list[str], target: str, *says: str
) -> str:
    """`nlibuild --db STORE COMMAND... TARGET` run in the empty folder `work`: one `Error:`
    line holding `says`, the store's folder and `work` as they were, nothing new in /."""
    before, root_before = _tree(store_folder), sorted(Path("/").iterdir())
    line = assert_user_error(run_cli("--db", store_folder / STORE_NAME, *command, target), *says)
    assert _tree(store_folder) == before
    assert list(work.iterdir()) == []
    assert sorted(Path("/").iterdir()) == root_before
    return line


@pytest.mark.parametrize("target", ONTO_THE_STORE.values(), ids=ONTO_THE_STORE)
@pytest.mark.parametrize("command", OUTPUT_COMMANDS.values(), ids=OUTPUT_COMMANDS)
def test_an_output_onto_the_store_or_its_files_is_refused(
    store_folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    target: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    option = command[-1]
    _refused_with_nothing_written(
        store_folder,
        tmp_path,
        command,
        str(store_folder / target),
        f"{option} {store_folder / target}: that is the store",
        "would destroy the corpus",
    )


@pytest.mark.parametrize("target", NO_NAME_OF_ITS_OWN.values(), ids=NO_NAME_OF_ITS_OWN)
@pytest.mark.parametrize("command", OUTPUT_COMMANDS.values(), ids=OUTPUT_COMMANDS)
def test_an_output_that_names_no_file_or_folder_of_its_own_is_refused(
    store_folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    target: tuple[str, str],
) -> None:
    monkeypatch.chdir(tmp_path)
    value, named = target
    option = command[-1]
    _refused_with_nothing_written(
        store_folder,
        tmp_path,
        command,
        value,
        f"that names {named}, not a file or folder to write",
        f"give a path that ends in a name of its own, e.g. {option} results/NAME",
    )


def test_a_store_named_by_a_relative_path_is_refused_under_any_spelling_of_it(
    store_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(store_folder)
    before = _tree(store_folder)
    link_from_above = f"../{store_folder.name}/{LINK_NAME}"
    for spelling in (f"./{STORE_NAME}", f"sub/../{STORE_NAME}-journal", link_from_above):
        assert_user_error(
            run_cli("--db", STORE_NAME, "stats", "--table", "agreement", "--plot", spelling),
            f"--plot {Path(spelling)}: that is the store {STORE_NAME}",
        )
    assert _tree(store_folder) == before


def test_the_schemas_are_refused_the_default_store_when_no_db_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NLIBUILD_DB", raising=False)
    assert_user_error(run_cli("schemas", "--out", "nlibuild.db-journal"), "that is the store")
    assert list(tmp_path.iterdir()) == []


def test_a_plot_beside_the_store_is_still_drawn(
    store_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check refuses only the store's own names: `corpus.db.png` is another file."""
    monkeypatch.chdir(tmp_path)
    plot = tmp_path / f"{STORE_NAME}.png"
    result = run_cli(
        "--db", store_folder / STORE_NAME, "stats", "--table", "lengths", "--plot", plot
    )
    assert result.exit_code == 0, result.stderr
    assert plot.read_bytes().startswith(b"\x89PNG")
