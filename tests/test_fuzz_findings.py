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
