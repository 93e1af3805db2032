"""Pipeline presets: TOML files whose values become every stage's defaults, and the
instructions that go out with work packages.

Both ship inside the package (nlibuild/resources/presets/NAME.toml and
nlibuild/resources/instructions/) and are read through importlib.resources, so an
installed wheel finds them wherever it lives, and no reader depends on a source checkout.

`nlibuild init --preset ocnli` copies the preset's text into the store, so a store keeps
working (and keeps its defaults) wherever it is moved. Flags always override a preset.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from nlibuild.errors import ConfigError

RESOURCES: Traversable = files("nlibuild") / "resources"
"""The package's data folder (presets, instructions, negators, abbreviations)."""

PRESETS = RESOURCES / "presets"
INSTRUCTIONS = RESOURCES / "instructions"


def _stems(folder: Traversable, suffix: str) -> list[str]:
    # Traversable has no glob(): filter the folder's entries by name instead.
    return sorted(
        entry.name.removesuffix(suffix)
        for entry in folder.iterdir()
        if entry.name.endswith(suffix) and entry.is_file()
    )


def preset_names() -> list[str]:
    """The presets that ship with nlibuild (mnli, ocnli, xnli)."""
    return _stems(PRESETS, ".toml")


def load_preset_text(name_or_path: str) -> str:
    """The TOML text of a named preset (one of `preset_names()`) or of a preset file path;
    a `ConfigError` when it is not valid TOML or not a valid preset."""
    if Path(name_or_path).suffix == ".toml":
        path = Path(name_or_path)
        origin = str(path)
        text = path.read_text(encoding="utf-8") if path.is_file() else None
    else:
        resource = PRESETS / f"{name_or_path}.toml"
        origin = f"preset {name_or_path}"
        text = resource.read_text(encoding="utf-8") if resource.is_file() else None
    if text is None:
        raise ConfigError(
            f"unknown preset {name_or_path!r}; choose one of {', '.join(preset_names())} "
            "or give the path of a .toml file"
        )
    parse_preset(text, origin)
    return text


def parse_preset(text: str, origin: str = "preset") -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: not valid TOML ({exc}); fix the preset file") from exc


def stage_defaults(preset: dict[str, Any], stage: str) -> dict[str, Any]:
    """The `[stage]` table of a parsed preset (empty when the preset has none)."""
    section = preset.get(stage, {})
    return section if isinstance(section, dict) else {}


def instruction_languages() -> list[str]:
    """Languages the elicitation instructions are written in (en, zh)."""
    stems = _stems(INSTRUCTIONS / "elicit", ".md")
    return sorted(stem.removeprefix("common.") for stem in stems if stem.startswith("common."))


def elicit_instructions(protocol: str, lang: str) -> str:
    """The writers' instructions for a protocol: its own part, then the rules all share
    (resources/instructions/elicit/<PROTOCOL>.<lang>.md and common.<lang>.md)."""
    folder = INSTRUCTIONS / "elicit"
    names = [f"{protocol}.{lang}.md", f"common.{lang}.md"]
    missing = [name for name in names if not (folder / name).is_file()]
    if missing:
        raise ConfigError(
            f"nlibuild/resources/instructions/elicit/{missing[0]}: no instructions for "
            f"{protocol} in {lang!r}; choose one of {', '.join(instruction_languages())}"
        )
    title = f"# nlibuild elicitation: {protocol} ({lang})\n\n"
    texts = [(folder / name).read_text(encoding="utf-8").strip() for name in names]
    return title + "\n\n".join(texts) + "\n"


def relabel_instruction_languages() -> list[str]:
    """Languages the relabelling instructions are written in (en, zh)."""
    return _stems(INSTRUCTIONS / "relabel", ".md")


def relabel_instructions_text(lang: str) -> str:
    """The validators' instructions in `lang` (resources/instructions/relabel/<lang>.md),
    without the store's label list, which `relabel export` appends."""
    resource = INSTRUCTIONS / "relabel" / f"{lang}.md"
    if not resource.is_file():
        raise ConfigError(
            f"nlibuild/resources/instructions/relabel/{lang}.md: no relabelling instructions "
            f"in {lang!r}; choose one of {', '.join(relabel_instruction_languages())} "
            "with --instructions"
        )
    return resource.read_text(encoding="utf-8")
