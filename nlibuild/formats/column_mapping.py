"""`--columns KEY=COLUMN,...` against a file's header: the one check that every reader told
its columns (`import --format table`, `translate import`) makes, so that a mapping naming a
column the file lacks, or one column for two keys, is refused the same way everywhere.

`KEY=-` says the file has no column for KEY: not even the column of KEY's own name is taken
(`id=-`: a file whose `id` column is no pair ID, whose pairs then get IDs from their content
as a file without IDs does; `content_ids`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from nlibuild.errors import InputError

NO_COLUMN = "-"
"""`--columns KEY=-`: the file has no column for KEY (see the module's docstring)."""


def shown_columns(header: Sequence[str]) -> str:
    """A header as an error line lists it: the first 12 names."""
    return ", ".join(header[:12]) + (", ..." if len(header) > 12 else "")


def resolve_columns(
    path: Path,
    header: Sequence[str],
    line: int | None,
    asked: Mapping[str, tuple[str, ...]],
    defaults: Mapping[str, Sequence[str]],
    required: Sequence[str],
) -> dict[str, tuple[str, ...]]:
    """The column(s) of each key of `defaults`: as `asked`, else the first of the key's
    default names the header has; none for a key asked as `-`. A column asked for that the
    file lacks, a required key left without a column, or a column given to two keys is an
    `InputError` at `line`."""
    mapping: dict[str, tuple[str, ...]] = {}
    for key, candidates in defaults.items():
        if asked.get(key) == (NO_COLUMN,):
            continue
        if key in asked:
            missing = [name for name in asked[key] if name not in header]
            if missing:
                raise InputError(
                    path,
                    f"--columns {key}={missing[0]}: the file has no column {missing[0]!r} "
                    f"(columns: {shown_columns(header)}); name one of those",
                    line,
                )
            mapping[key] = asked[key]
        else:
            found = next((name for name in candidates if name in header), None)
            if found is not None:
                mapping[key] = (found,)
    for key in required:
        if key not in mapping:
            raise InputError(
                path,
                f"no {key} column: name it with --columns {key}=COLUMN "
                f"(columns: {shown_columns(header)})",
                line,
            )
    owners: dict[str, str] = {}
    for key, names in mapping.items():
        for name in names:
            if name in owners:
                raise InputError(
                    path,
                    f"--columns gives column {name!r} to both {owners[name]} and {key}; "
                    "a column holds one thing",
                    line,
                )
            owners[name] = key
    return mapping


_LABEL_LIKE = re.compile(
    r"^(gold|gold_label|author|author_label|labels?\d*|votes?\d*|annotator_labels|"
    r"\w+_labels|label_\d+|vote_\d+)$",
    re.IGNORECASE,
)
"""Column names that usually hold labels: SNLI's `annotator_labels`, OCNLI's `label0`..,
KLUE's `author` and `label2`..`label5`, LiveNLI's `label1`.., a `votes` list."""

_KEY_OF_NAME = {
    "gold": "label",
    "gold_label": "label",
    "author": "author",
    "author_label": "author",
}
"""The `--columns` key a label-like column is most likely for; `votes` for the others."""


def unmapped_label_hint(columns: Sequence[str]) -> str | None:
    """What to say when a table import stored no vote while some of `columns` (those no
    key took) look like labels: their names and the `--columns` items that would map them;
    None when none looks like labels (issue 28: KLUE imported 0 votes without a word)."""
    found = [column for column in columns if _LABEL_LIKE.match(column)]
    if not found:
        return None
    by_key: dict[str, list[str]] = {}
    for column in found:
        by_key.setdefault(_KEY_OF_NAME.get(column.lower(), "votes"), []).append(column)
    # votes last: in --columns the items after votes= are more of its columns
    items = [f"{key}={names[0]}" for key, names in by_key.items() if key != "votes"]
    if "votes" in by_key:
        items.append("votes=" + ",".join(by_key["votes"]))
    return (
        f"no vote was stored, but column(s) {', '.join(found)} look like labels and no "
        f"--columns key reads them; to read them, add {','.join(items)} to --columns "
        "(votes: the validators' labels, one column each; author: the author's label; "
        "label: the released gold)"
    )
