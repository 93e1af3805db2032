"""What a stage is: its name in the provenance log, its settings model, its preset section,
its run function, and how its result reads.

Two halves, so that `nlibuild --help` and a recipe's plan need no stage module:

- `StageName` (`core/registry.py` lists every one): the name runs record (`aggregate-labels`),
  the command that reaches it (`("aggregate-labels",)`, `("elicit", "create")`), its one-line
  help, the module that declares its `Stage`, and the Python API's method name. Queries that
  look a stage's runs up name it through these constants, never a string of their own.
- `Stage`, declared by that module as `STAGE`: the settings model (pydantic, frozen), the
  preset section that fills it, the run function over an open store, and the summary line
  every front end prints (the CLI, the lead page, recipes and the Python API's `repr`).

Adding a stage is one module in `nlibuild/stages/` with a `STAGE`, and one `StageName` in the
registry; the CLI command, the recipe step and the `Corpus` method follow from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel

    from nlibuild.render import NamedTable
    from nlibuild.store import Store

# The bound is a string so that the registry, which `nlibuild --help` reads, imports no
# pydantic: the stage modules that fill it in import their models anyway.
SettingsT = TypeVar("SettingsT", bound="BaseModel")
ResultT = TypeVar("ResultT")


@dataclass(frozen=True)
class StageName:
    """A stage as the registry lists it, without importing its module."""

    name: str
    """The stage's name in `runs` and in a recipe's `stage = "..."`."""
    command: tuple[str, ...]
    """The CLI words that reach it (`("relabel", "import")`); empty for a stage that only
    another command runs (`check --repair`'s `check-repair`)."""
    help: str
    """One line, as `nlibuild --help` lists the command."""
    module: str
    """The module that declares the stage's `Stage`."""
    attribute: str = "STAGE"
    """Its name in that module (a module that declares several names each its own)."""

    @property
    def method(self) -> str:
        """The `Corpus` method of the Python API: the command with `-` and spaces as `_`
        (`import` is `import_corpus`, a Python keyword otherwise)."""
        words = "_".join(self.command or (self.name,)).replace("-", "_")
        return "import_corpus" if words == "import" else words


def no_warnings(_result: object) -> Sequence[str]:
    return ()


def no_tables(_settings: object, _result: object) -> Sequence[NamedTable]:
    return ()


@dataclass(frozen=True)
class StoreFacts:
    """What a stage's defaults may read of its store, known before the store is opened for
    the run, or before it exists (a recipe's new store): its parsed preset, how errors name
    that preset, and the corpus language."""

    preset: Mapping[str, Any]
    origin: str
    lang: str


Defaults = Callable[[StoreFacts, Mapping[str, Any]], dict[str, Any]]
"""A stage's own defaults: the fields given (None: not given) with those the store decides
filled in (ingest: the store's language, the preset's `[ingest.genres.GENRE]`)."""


@dataclass(frozen=True)
class Stage(Generic[SettingsT, ResultT]):
    """One stage of the pipeline, as its module declares it (`STAGE = Stage(...)`)."""

    info: StageName
    settings: type[SettingsT]
    run: Callable[[Store, SettingsT], ResultT]
    summary: Callable[[SettingsT, ResultT], str]
    """The line every front end prints once the run is done: what it did, then
    `(run N, signature)`."""
    tables: Callable[[SettingsT, ResultT], Sequence[NamedTable]] = field(default=no_tables)
    """The tables a person reads above the summary line (the checks per rule of an
    elicitation import, say), as `render.NamedTable`s: the CLI draws them, recipes too."""
    warnings: Callable[[ResultT], Sequence[str]] = field(default=no_warnings)
    """Lines the CLI prints on stderr as `Warning: ...` (a rule applied to votes it was not
    written for, say)."""
    defaults: Defaults | None = None
    """Fields the store decides where none was given, applied before the preset's section
    (`invoke.settings_for`), so every front end gets them."""
    creates: Callable[[Path, SettingsT], ResultT] | None = None
    """For `init` alone: the run over a new store's path instead of an open store."""

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def section(self) -> str | None:
        """The preset section whose keys fill the settings (`[aggregate]`), if any: the
        settings model's own `preset_section`, so that it is declared once."""
        section = getattr(self.settings, "preset_section", None)
        return section if isinstance(section, str) else None
