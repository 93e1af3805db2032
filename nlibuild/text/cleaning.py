"""Stripping transcript markup from source text before it is split into sentences.

OCNLI (section 3.1) drew premises from telephone transcripts and removed their annotation
symbols first. A cleaning preset is a list of (regex, replacement) rules applied in order;
users add their own regexes with `--strip REGEX` (each match is deleted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nlibuild.errors import ConfigError

CALLHOME_RULES: tuple[tuple[str, str], ...] = (
    # Time stamps and speaker labels at the start of a turn: "12.34 15.01 A: ", "B：".
    (r"(?m)^[ \t]*(?:\d+(?:\.\d+)?[ \t]+\d+(?:\.\d+)?[ \t]+)?[A-Z]\d?[ \t]*[:：][ \t]*", ""),
    (r"\{[^{}\n]*\}", " "),  # non-speech events: {laugh}, {breath}, {cough}
    (r"\[[^\[\]\n]*\]", " "),  # background noise: [noise], [distortion]
    # Uncertain transcription: "((words))" keeps its best guess, "(( ))" goes.
    (r"\(\(\s*([^()\n]*?)\s*\)\)", r"\1"),
    (r"<[^<>\n]*>", " "),  # language switches and other tags: <English okay>
    (r"(?<!\w)%\w+", " "),  # fillers: %um, %uh, %嗯
    (r"(?<!\w)&(?=\w)", ""),  # proper-noun markers: &Beijing
)
"""Callhome conventions (LDC's CALLHOME transcripts, which OCNLI's telephone genre used)."""

CLEANING_PRESETS: dict[str, tuple[tuple[str, str], ...]] = {
    "none": (),
    "callhome": CALLHOME_RULES,
}


@dataclass(frozen=True)
class Cleaner:
    """Compiled cleaning rules; `clean(text)` applies them in order."""

    rules: tuple[tuple[re.Pattern[str], str], ...]

    @classmethod
    def build(cls, preset: str, extra_patterns: tuple[str, ...] = ()) -> Cleaner:
        if preset not in CLEANING_PRESETS:
            raise ConfigError(
                f"unknown cleaning preset {preset!r}; choose one of "
                f"{', '.join(sorted(CLEANING_PRESETS))}"
            )
        rules = [(_compile(p, "cleaning preset"), r) for p, r in CLEANING_PRESETS[preset]]
        rules += [(_compile(p, "--strip"), " ") for p in extra_patterns]
        return cls(tuple(rules))

    def clean(self, text: str) -> str:
        for pattern, replacement in self.rules:
            text = pattern.sub(replacement, text)
        return text


def _compile(pattern: str, origin: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ConfigError(
            f"{origin}: {pattern!r} is not a valid regular expression ({exc})"
        ) from None
