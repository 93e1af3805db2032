"""Which of our annotators a platform's worker ID stands for.

A platform (Label Studio, MTurk, ...) names its workers by its own IDs; a store names
annotators by stable IDs of its own (`w017`), so that votes and pairs stay comparable
across platforms and anonymised releases. The mapping comes from a map file given once
(`--annotator-map FILE`) and is stored as aliases, so later imports of the same platform need
no map. Elicitation and relabelling imports both resolve workers this way.
"""

from __future__ import annotations

import csv
from pathlib import Path

from nlibuild.errors import ConflictError, InputError
from nlibuild.formats.input_files import read_utf8_text
from nlibuild.formats.tabular import csv_records
from nlibuild.queries.annotators import platform_aliases
from nlibuild.store import Store


def is_annotator_map(value: str) -> bool:
    """Whether `value` names a map file: a regular file whose first line is a map's header
    (it names platform_id and annotator). Only such a value is taken as a map under the
    imports' old spelling `--annotators`, which elsewhere names annotators (FILE|IDS)."""
    path = Path(value)
    if not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as handle:
            first = handle.readline(4096)
    except OSError:
        return False
    header = {cell.strip() for cell in first.replace("\t", ",").split(",")}
    return {"platform_id", "annotator"} <= header


def read_annotator_map(path: Path, platform: str) -> dict[str, str]:
    """platform ID -> annotator ID from a csv/tsv with a header: `platform,platform_id,
    annotator` (rows of other platforms are skipped) or just `platform_id,annotator`."""
    text = read_utf8_text(path, "annotator map")
    delimiter = "\t" if "\t" in text.split("\n", 1)[0] else ","
    rows = list(csv_records(path, csv.reader(text.splitlines(), delimiter=delimiter)))
    header = [h.strip() for h in rows[0]] if rows else []
    if not {"platform_id", "annotator"} <= set(header):
        raise InputError(
            path, "the header must name platform_id and annotator (and optionally platform)", 1
        )
    mapping: dict[str, str] = {}
    for number, values in enumerate(rows[1:], 2):
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            raise InputError(
                path, f"{len(values)} columns where the header has {len(header)}", number
            )
        row = {h: v.strip() for h, v in zip(header, values, strict=True)}
        if row.get("platform", platform) != platform:
            continue
        if not row["platform_id"] or not row["annotator"]:
            raise InputError(path, "platform_id and annotator must both be filled", number)
        earlier = mapping.get(row["platform_id"])
        if earlier is not None and earlier != row["annotator"]:
            raise InputError(
                path,
                f"{platform} ID {row['platform_id']!r} is mapped to both {earlier} and "
                f"{row['annotator']}; keep one",
                number,
            )
        mapping[row["platform_id"]] = row["annotator"]
    return mapping


def platform_annotators(store: Store, platform: str, map_path: Path | None) -> dict[str, str]:
    """platform ID -> annotator ID: the aliases stored for `platform`, with the map file
    `map_path` (see `read_annotator_map`) added to them and stored. A map that contradicts a
    stored alias is an error."""
    stored = platform_aliases(store, platform)
    given = read_annotator_map(map_path, platform) if map_path else {}
    clash = sorted(p for p, ours in given.items() if stored.get(p, ours) != ours)
    if clash:
        raise ConflictError(
            f"{map_path}: {platform} ID {clash[0]!r} is mapped to {given[clash[0]]}, but "
            f"the store maps it to {stored[clash[0]]}; fix the map"
        )
    if given:
        pks = store.ensure_annotators(given.values())
        store.add_aliases(platform, {p: pks[ours] for p, ours in given.items()})
    return stored | given
