"""Pipeline presets: TOML files in pipelines/ whose values become every stage's defaults.

`nlibuild init --preset ocnli` copies the preset's text into the store, so a store keeps
working (and keeps its defaults) wherever it is moved. Flags always override a preset.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from nlibuild.errors import ConfigError

PRESET_DIR = Path(__file__).resolve().parent.parent / "pipelines"


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.toml"))


def load_preset_text(name_or_path: str) -> str:
    """The TOML text of a named preset (pipelines/NAME.toml) or of a preset file path."""
    candidate = Path(name_or_path)
    path = candidate if candidate.suffix == ".toml" else PRESET_DIR / f"{name_or_path}.toml"
    if not path.is_file():
        raise ConfigError(
            f"unknown preset {name_or_path!r}; choose one of {', '.join(preset_names())} "
            "or give the path of a .toml file"
        )
    text = path.read_text(encoding="utf-8")
    parse_preset(text, str(path))
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


INSTRUCTIONS_DIR = PRESET_DIR / "instructions"


def instruction_languages() -> list[str]:
    """Languages the elicitation instructions are written in (en, zh)."""
    return sorted(
        {p.suffixes[-2].lstrip(".") for p in (INSTRUCTIONS_DIR / "elicit").glob("common.*.md")}
    )


def elicit_instructions(protocol: str, lang: str) -> str:
    """The writers' instructions for a protocol: its own part, then the rules all share
    (pipelines/instructions/elicit/<PROTOCOL>.<lang>.md and common.<lang>.md)."""
    folder = INSTRUCTIONS_DIR / "elicit"
    parts = [folder / f"{protocol}.{lang}.md", folder / f"common.{lang}.md"]
    missing = [p for p in parts if not p.is_file()]
    if missing:
        raise ConfigError(
            f"{missing[0]}: no instructions for {protocol} in {lang!r}; write that file or "
            f"choose one of {', '.join(instruction_languages())}"
        )
    title = f"# nlibuild elicitation: {protocol} ({lang})\n\n"
    return title + "\n\n".join(p.read_text(encoding="utf-8").strip() for p in parts) + "\n"
