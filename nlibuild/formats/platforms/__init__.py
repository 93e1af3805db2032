"""Annotation platforms, one module each, and `PLATFORMS`, the registry the elicit and
relabel stages look them up in (see `base.Platform` for what a platform provides).

Work goes out as one task file per batch, with our IDs inside every task, plus the
writers' instructions and, where the platform has one, the form they fill in; answers
and votes come back in the platform's own export. The forms' fields are the same on
every platform (`fields`).
"""

from __future__ import annotations

from collections.abc import Mapping

from nlibuild.errors import ConfigError
from nlibuild.formats.platforms import csv, jsonl, labelstudio, mturk, table
from nlibuild.formats.platforms.base import Platform
from nlibuild.models import PlatformFormat

PLATFORMS: Mapping[PlatformFormat, Platform] = {
    PlatformFormat.JSONL: jsonl.PLATFORM,
    PlatformFormat.CSV: csv.PLATFORM,
    PlatformFormat.LABELSTUDIO: labelstudio.PLATFORM,
    PlatformFormat.MTURK: mturk.PLATFORM,
    PlatformFormat.TABLE: table.PLATFORM,
}
"""The platform behind each `--format` of the elicit and relabel export and import."""


def platform_for(fmt: PlatformFormat) -> Platform:
    """The registered platform `fmt` names, or a ConfigError."""
    found = PLATFORMS.get(fmt)
    if found is None:
        raise ConfigError(f"no platform {fmt!s}; nlibuild knows {', '.join(sorted(PLATFORMS))}")
    return found


def import_platform(
    fmt: PlatformFormat, columns: Mapping[str, str], label_values: Mapping[str, str]
) -> Platform:
    """The platform an import reads its file with: `--format table` told its columns and
    label values, any other the registered one."""
    if fmt is PlatformFormat.TABLE:
        return table.table_platform(columns, label_values)
    return platform_for(fmt)
