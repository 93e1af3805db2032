"""What a command writes, and where, under generated values (issue 26):

- every output option (`--out`, `--plot`) given odd names, the store's own files under other
  spellings, links, existing folders and files: the command either writes inside the place
  named (and nowhere else: the store records the run) or prints one `Error:` line having
  written nothing, the store unchanged; never a traceback;
- language codes through `init --lang`, `import --lang` and a table's language column:
  taken only where `models.lang_code_problem` takes them, otherwise one `Error:` line and
  nothing written (no store made by `init`, the store unchanged by `import`).

`make test` runs a bounded, fixed set of examples; `make fuzz` many, random."""

from __future__ import annotations

import contextlib
import csv
import itertools
import os
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_MNLI, copy_store
from fuzz_checks import assert_one_error_line, examples, invoked, store_digest
from fuzz_inputs import lang_codes, output_paths
from hypothesis import given
from test_output_paths import OUTPUT_COMMANDS as ALL_OUTPUT_COMMANDS

import nlibuild
from nlibuild.models import lang_code_problem

EXAMPLES_PER_COMMAND = 10
LANG_EXAMPLES = 20

FUZZED = (
    "export --format mnli-jsonl",
    "export --format hf",
    "report",
    "schemas",
    "check",
    "stats --table lengths --plot",
    "translate export",
)
OUTPUT_COMMANDS = {name: ALL_OUTPUT_COMMANDS[name] for name in FUZZED}
"""The commands of tests/test_output_paths.py that need neither batches nor torch."""


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder` with its bytes (None for a folder, the target for a link),
    links not followed."""
    return {str(path): content(path) for path in sorted(folder.rglob("*"))}


def content(path: Path) -> bytes | None:
    if path.is_symlink():
        return os.fsencode(os.readlink(path))
    return None if path.is_dir() else path.read_bytes()


# --- output options -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("outputs") / "corpus.db"
    nlibuild.create(db).import_corpus(path=SAMPLE_MNLI, format="mnli")
    return db


class Place:
    """A folder for one example: the store, a link to it, an existing folder and file, and
    a link to a folder beside the place (outside it)."""

    def __init__(self, template: Path, root: Path) -> None:
        shutil.rmtree(root, ignore_errors=True)
        self.root = root
        self.work = root / "work"
        self.work.mkdir(parents=True)
        self.db = copy_store(template, self.work / "corpus.db")
        (self.work / "link-to-the-store.db").symlink_to(self.db)
        (self.work / "existing").mkdir()
        (self.work / "notes.txt").write_text("notes\n", encoding="utf-8")
        (root / "outside").mkdir()
        (self.work / "outside-link").symlink_to(root / "outside")


def changed_paths(
    before: dict[str, bytes | None], after: dict[str, bytes | None], db: Path
) -> list[str]:
    """The paths made, changed or removed, but the store's (its digest is compared)."""
    changed = {p for p in after.keys() | before.keys() if after.get(p) != before.get(p)}
    return sorted(p for p in changed if not p.startswith(str(db)))


def resolved(out: str) -> Path | None:
    """The place `out` names from the current folder, links followed; None for a name no
    file system could hold."""
    try:
        return Path(os.path.abspath(out)).resolve()
    except (ValueError, UnicodeEncodeError):
        return None


def inside(path: str, target: Path) -> bool:
    real = Path(path).resolve()
    return real == target or target in real.parents


@pytest.mark.parametrize("command", OUTPUT_COMMANDS)
def test_an_output_is_written_inside_the_place_named_or_refused_in_one_line(
    command: str, template: Path, tmp_path: Path
) -> None:
    numbers = itertools.count()

    @examples(EXAMPLES_PER_COMMAND)
    @given(out=output_paths)
    def property_holds(out: str) -> None:
        assert out == "/" or not out.startswith("/")  # nothing is written outside tmp_path
        place = Place(template, tmp_path / f"example-{next(numbers)}")
        store, before = store_digest(place.db), tree(place.root)
        with contextlib.chdir(place.work):
            result = invoked("--db", str(place.db), *OUTPUT_COMMANDS[command], out)
            target = resolved(out)
        changed = changed_paths(before, tree(place.root), place.db)
        if result.exit_code == 0:
            assert target is not None
            assert all(inside(p, target) for p in changed), (out, changed)
        else:
            assert_one_error_line(result)
            assert changed == [], out
            assert store_digest(place.db) == store, out

    property_holds()


@pytest.mark.parametrize(
    ("out", "says"),
    [
        ("x" * 300, "longer than 255 bytes"),
        ("a/\ud800", "encode"),
        ("notes.txt/inner", "is a file, not a folder"),
        ("notes.txt", "is a file, not a folder"),
    ],
)
def test_an_output_no_file_system_could_hold_is_one_error_line(
    template: Path, tmp_path: Path, out: str, says: str
) -> None:
    place = Place(template, tmp_path / "place")
    store, before = store_digest(place.db), tree(place.root)
    with contextlib.chdir(place.work):
        result = invoked("--db", str(place.db), "schemas", "--out", out)
    assert says in assert_one_error_line(result)
    assert changed_paths(before, tree(place.root), place.db) == []
    assert store_digest(place.db) == store


# --- language codes -------------------------------------------------------------------------


def test_init_takes_a_lang_only_if_it_is_a_code(tmp_path: Path) -> None:
    numbers = itertools.count()

    @examples(LANG_EXAMPLES)
    @given(code=lang_codes)
    def property_holds(code: str) -> None:
        folder = tmp_path / f"example-{next(numbers)}"
        folder.mkdir()
        result = invoked("--db", str(folder / "corpus.db"), "init", f"--lang={code}")
        if lang_code_problem(code) is None:
            assert result.exit_code == 0, result.output
        else:
            assert "language code" in assert_one_error_line(result)
            assert list(folder.iterdir()) == []

    property_holds()


@pytest.fixture(scope="module")
def empty_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("langs") / "corpus.db"
    nlibuild.create(db)
    return db


def language_table(path: Path, code: str) -> Path:
    with path.open("w", encoding="utf-8", newline="", errors="surrogatepass") as handle:
        writer = csv.writer(handle)
        writer.writerow(["premise", "hypothesis", "label", "language"])
        writer.writerow(["A man sleeps.", "A man rests.", "entailment", "en"])
        writer.writerow(["A dog runs.", "A cat sleeps.", "contradiction", code])
    return path


@pytest.mark.parametrize("where", ["import --lang", "a table's language column"])
def test_import_takes_a_language_only_if_it_is_a_code(
    where: str, empty_store: Path, tmp_path: Path
) -> None:
    numbers = itertools.count()

    @examples(LANG_EXAMPLES)
    @given(code=lang_codes)
    def property_holds(code: str) -> None:
        folder = tmp_path / f"example-{next(numbers)}"
        folder.mkdir()
        db = copy_store(empty_store, folder / "corpus.db")
        if where == "import --lang":
            args = ["import", str(SAMPLE_MNLI), "--format", "mnli", f"--lang={code}"]
        else:
            table = language_table(folder / "pairs.csv", code)
            args = ["import", str(table), "--format", "table", "--lang-column", "language"]
        before, files = store_digest(db), sorted(folder.iterdir())
        result = invoked("--db", str(db), *args)
        # A cell is read stripped, and an empty one means the store's language.
        taken = code.strip() == "" or lang_code_problem(code.strip()) is None
        if where == "import --lang":
            taken = lang_code_problem(code) is None
        if taken and result.exit_code == 0:
            return
        if lang_code_problem(code) is None and where == "import --lang":
            raise AssertionError(f"{code!r} refused: {result.output}")
        assert assert_one_error_line(result)
        assert store_digest(db) == before
        assert sorted(folder.iterdir()) == files

    property_holds()
