"""`stats --table translation`: per language and kind of translation, the units
translated and the units each check of `translate import` flagged."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console

from nlibuild.models import TableFormat, TranslationStatsRow
from nlibuild.render import render_table
from nlibuild.stats import StatsTable, no_settings
from nlibuild.store import Store


def compute_translation(store: Store, settings: None) -> list[TranslationStatsRow]:
    return translation_stats(store)


def translation_stats(store: Store) -> list[TranslationStatsRow]:
    """Per language and kind of translation: units translated and what each check found
    (`translate import`)."""
    checks: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for lang, kind, check, units in store.translation_check_counts():
        # Stores of nlibuild 0.1.0 call the script check by its old name.
        name = "script" if check == "latin_script" else check
        found = checks[(lang, kind)]
        found[name] = found.get(name, 0) + units
    rows = [
        TranslationStatsRow(lang=lang, kind=kind, translated=n, checks=checks.pop((lang, kind), {}))
        for lang, kind, n in store.translation_counts()
    ]
    rows += [
        TranslationStatsRow(lang=lang, kind=kind, translated=0, checks=found)
        for (lang, kind), found in sorted(checks.items())
    ]
    return rows


# One column per check `translate import` runs (translation_checks.py, and label_mismatch
# and misaligned in stages/translate.py); no module lists them all, so a new check must be
# added here.
_CHECKS = ("empty", "untranslated", "roman_letters", "script", "length_ratio",
           "same_as_premise", "duplicate", "label_mismatch", "misaligned")  # fmt: skip


def render_translation(
    rows: list[TranslationStatsRow], settings: None, fmt: TableFormat, out: Console
) -> None:
    """Per language and kind, the units translated and the units each check flagged."""
    render_table(
        out,
        "Translations and their checks (units)",
        ["lang", "kind", "translated", *_CHECKS],
        [(r.lang, r.kind, r.translated, *(r.checks.get(c, 0) for c in _CHECKS)) for r in rows],
        fmt,
    )


TABLE = StatsTable(
    name="translation",
    rank=50,
    help="per language and kind, the units translated and the units each check of "
    "`translate import` flagged.",
    options=frozenset(),
    settings=no_settings,
    compute=compute_translation,
    render=render_translation,
)
