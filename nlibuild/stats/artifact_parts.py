"""What the two annotation-artifact tables, pmi and cues, share: the --by group, which
rows start a group, and the closing line's account of the pairs left out."""

from __future__ import annotations

from nlibuild.errors import ConfigError
from nlibuild.models import ArtifactGroup
from nlibuild.options import choice
from nlibuild.render import counted


def artifact_group(chosen: tuple[str, ...], option: str = "--by") -> ArtifactGroup | None:
    """One of protocol, level, genre, author (or none)."""
    if len(chosen) > 1:
        raise ConfigError(
            f"{option} {','.join(chosen)}: give one of protocol, level, genre, author"
        )
    return choice(ArtifactGroup, chosen[0], option) if chosen else None


def group_starts(groups: list[str]) -> list[bool]:
    """Whether each row starts its group (the group is printed once, as in OCNLI Table 8)."""
    return [i == 0 or group != groups[i - 1] for i, group in enumerate(groups)]


def left_out(without_gold: int, untranslated: int, lang: str | None) -> str:
    parts = [f"{counted(without_gold, 'pair')} without a gold label left out"]
    if lang:
        parts.append(f"{counted(untranslated, 'pair')} without a {lang} translation left out")
    return "; ".join(parts)
