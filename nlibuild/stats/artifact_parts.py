"""What the two annotation-artifact tables, pmi and cues, share: the --by groupings, which
rows start a group and how a group is named. (The closing line, the pairs counted and left
out, is the stages' summary: stages/artifacts.py `table_summary`.)"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from nlibuild.models import ArtifactGroup
from nlibuild.options import choice


def artifact_groups(chosen: tuple[str, ...], option: str = "--by") -> tuple[ArtifactGroup, ...]:
    """Groupings among protocol, level, genre, author, each once, in the order given. Several
    are several sections of the table, one per grouping after the section of all pairs, as
    `stats --table agreement --by` and `bias hypothesis-only --by` read a list: a user who
    asks for genre and protocol gets each breakdown, not the (often sparse) cross of both."""
    groups = tuple(dict.fromkeys(choice(ArtifactGroup, name, option) for name in chosen))
    return groups


def group_starts(groups: Sequence[Hashable]) -> list[bool]:
    """Whether each row starts its group (the group is printed once, as in OCNLI Table 8)."""
    return [i == 0 or group != groups[i - 1] for i, group in enumerate(groups)]


def group_name(group_by: str, group: str, groupings: int) -> str:
    """A group as the people's formats show it: its value, and with several groupings also
    which one it belongs to (`genre: news`), as two groupings may share a value."""
    return f"{group_by}: {group}" if groupings > 1 and group_by != "all" else group
