"""Reproducibility signature of a run, derived from its settings model (after sacrebleu).

`stage:import|path:3f2a9c1b0d4e|format:mnli|lang:en|version:0.1.0`: every field of the
stage's settings, in the model's order, so that two runs with the same signature on the same
inputs produce the same store content. Signatures used to be written by hand per stage and
drifted from the settings (an option added to a stage but not to its signature); deriving
them from the model makes that impossible.

How a value is written:
- an input file is written as the first 12 hex digits of its SHA-256, so the signature names
  the content, not where the file happened to lie; an output (a field typed `OutputPath`) by
  its name, since where an output goes does not change what is written;
- enums by their value, labels by their initial (`e,n,c`), sequences joined by `,`, pairs
  as `key=value`, booleans as `yes`/`no`;
- an unset field (None, an empty sequence) is left out: it carries no setting.
"""

from __future__ import annotations

import functools
import hashlib
from enum import Enum
from pathlib import Path
from typing import Annotated, get_args

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from nlibuild._version import VERSION


class _Output:
    """Marks a path field as an output: signed by its name, never read."""

    def __repr__(self) -> str:
        return "OUTPUT"


OUTPUT = _Output()
OutputPath = Annotated[Path, OUTPUT]
"""A settings field that names a file or folder a stage writes."""

_CHUNK = 1 << 20


@functools.lru_cache(maxsize=256)
def _digest(path: Path, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, read once per size and modification time."""
    stat = path.stat()
    return _digest(path.resolve(), stat.st_size, stat.st_mtime_ns)


def _render(value: object, output: bool) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Path):
        if output or not value.is_file():
            return value.name if output else str(value)
        return file_sha256(value)[:12]
    if isinstance(value, Enum):
        initial = getattr(value, "initial", None)
        return str(initial) if isinstance(initial, str) else str(value.value)
    if isinstance(value, (tuple, list)):
        items = [
            "=".join(str(_render(part, output)) for part in item)
            if isinstance(item, (tuple, list))
            else _render(item, output)
            for item in value
        ]
        return ",".join(item for item in items if item is not None) or None
    if isinstance(value, dict):
        if not value:
            return None
        return ",".join(f"{k}={_render(v, output)}" for k, v in sorted(value.items()))
    return str(value)


def _marks_output(annotation: object) -> bool:
    return any(arg is OUTPUT or _marks_output(arg) for arg in get_args(annotation))


def is_output(field: FieldInfo) -> bool:
    """Whether a settings field is typed `OutputPath`: alone (pydantic moves the marker into
    the field's metadata) or optional (`OutputPath | None`, where it stays in the type)."""
    return any(marker is OUTPUT for marker in field.metadata) or _marks_output(field.annotation)


def _settings_parts(settings: BaseModel) -> list[str]:
    parts = []
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        if isinstance(value, BaseModel):  # a group of settings shared by stages
            parts += _settings_parts(value)
            continue
        output = is_output(field)
        rendered = _render(value, output)
        if rendered is not None:
            parts.append(f"{name.replace('_', '-')}:{rendered}")
    return parts


def settings_signature(stage: str, settings: BaseModel, version: str = VERSION) -> str:
    """`stage:NAME|field:value|...|version:V` over every field of `settings`."""
    return "|".join([f"stage:{stage}", *_settings_parts(settings), f"version:{version}"])


def input_paths(settings: BaseModel) -> list[Path]:
    """The files and folders a stage's settings name as inputs (path fields not typed
    `OutputPath`, alone or in a sequence), in the model's order: what a recipe waits for."""
    paths: list[Path] = []
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        if isinstance(value, BaseModel):
            paths += input_paths(value)
        elif not is_output(field):
            values = value if isinstance(value, (tuple, list)) else (value,)
            paths += [item for item in values if isinstance(item, Path)]
    return paths
