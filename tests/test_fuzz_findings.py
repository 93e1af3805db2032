"""What the fuzz suite (tests/test_fuzz_readers.py) found, one regression test each, with the
smallest failing input hypothesis gave. The promise each guards: one `Error:` line naming
the file and line (or ID), exit 1, the store as it was (README.md, "Safety")."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fails


@pytest.mark.parametrize(
    ("command", "option"),
    [(("elicit", "create", "--protocol", "SINGLE"), "--writers"),
     (("relabel", "create", "--fraction", "0.5"), "--annotators")],
)  # fmt: skip
@pytest.mark.parametrize(
    ("ids", "says"),
    [(b"\x00\nw02\n", ("line 1", "ID '\\x00'", "use letters, digits")),
     (b"w01\nw02\nw01\n", ("line 3", "ID 'w01' is named twice (line 1 too)"))],
)  # fmt: skip
def test_a_bad_id_in_an_id_list_file_names_the_file_and_line(
    sample_db: Path,
    tmp_path: Path,
    command: tuple[str, ...],
    option: str,
    ids: bytes,
    says: tuple[str, ...],
) -> None:
    # Found: the line named only the option ("option writers: Value error, writer ID
    # '\x00' ..."), not the file the ID came from.
    listed = tmp_path / "people.txt"
    listed.write_bytes(ids)
    fails(sample_db, *command, option, listed, says=(f"{listed}, {says[0]}", *says[1:]))


@pytest.mark.parametrize(
    ("name", "content", "options", "line"),
    [("texts.jsonl",
      '{"text": "It rained.", "genre": "news"}\n{"text": "It snowed.", "genre": "\\u001b[31m"}\n',
      ("--field", "text", "--genre-field", "genre"), 2),
     ("texts.tsv", "text\tgenre\nIt rained.\tnews\nIt snowed.\tnews letters\n",
      ("--genre-field", "genre"), 3)],
)  # fmt: skip
def test_a_genre_from_a_file_that_cannot_be_in_an_id_names_the_file_and_line(
    db: Path, tmp_path: Path, name: str, content: str, options: tuple[str, ...], line: int
) -> None:
    # Found: "Error: genre '\x1b[31mred' cannot be part of premise IDs; ..." named neither
    # the file nor the line the genre came from.
    texts = tmp_path / name
    texts.write_text(content, encoding="utf-8")
    fails(db, "ingest", texts, *options,
          says=(f"{texts}, line {line}", "cannot be part of premise IDs", "--genre-map"))  # fmt: skip
