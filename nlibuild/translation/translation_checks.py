"""Checks of imported translations, per unit (a premise `p:<id>` or a hypothesis `h:<id>`).

What went wrong in translated NLI data: untranslated or empty rows, text left in the Latin
script (OCNLI section 2 found that 11.6% of XNLI's Chinese dev pairs contain more than 10
Roman letters) or written in another script than the language's (writing_systems.py),
broken (far too short or long) sentences, and rows that lost their place.
Each check names a unit and says what it found; `translate import` stores them per language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nlibuild.text.lang import primary_language
from nlibuild.text.writing_systems import (
    LATIN,
    expected_scripts,
    main_script,
    mostly_outside,
    script_share,
)

if TYPE_CHECKING:
    import polars as pl

MAX_ROMAN_LETTERS = 10
"""OCNLI's flag: more than 10 Roman letters in a sentence of a non-Latin-script language."""

MAX_OTHER_SCRIPT_SHARE = 0.5
"""A translation most of whose letters are outside its language's scripts (romanised Urdu,
Greek in Latin letters, Swahili in a Burmese file) is in the wrong script."""

CHARS_PER_ENGLISH_CHAR: dict[str, float] = {"zh": 0.3, "ja": 0.4, "ko": 0.45}
"""Rough characters of a language per character of the same text in English (other
languages ~1): the length ratio band is scaled by it, so Chinese is not 'too short'."""

LENGTH_BAND = (0.4, 2.5)
"""The accepted ratio of translation to source length, after scaling by script."""

MIN_SOURCE_CHARS = 15
"""Shorter sources are not checked for length: a ratio of tiny numbers says little."""

CORPUS_CHECKS = ("same_as_premise", "duplicate")
"""The checks `corpus_checks` makes: they depend on other units, so each import redoes them."""


@dataclass(frozen=True)
class Check:
    unit_id: str
    check: str
    detail: str


def unit_checks(unit_id: str, source: str, source_lang: str, text: str, lang: str) -> list[Check]:
    """The checks of one translated unit (empty, untranslated, script, length)."""
    import polars as pl

    one = pl.DataFrame(
        {"unit": [unit_id], "source": [source], "source_lang": [source_lang], "text": [text]},
        schema=dict.fromkeys(("unit", "source", "source_lang", "text"), pl.String),
    )
    return unit_checks_of(one, lang)


def unit_checks_of(units: pl.DataFrame, lang: str) -> list[Check]:
    """The checks of translated units into `lang` (a frame of unit, source, source_lang
    and text), in unit order: `empty` (and nothing else then), `untranslated`,
    `roman_letters`, `script`, `length_ratio`. A language without an entry in
    writing_systems.EXPECTED_SCRIPTS gets no script checks (`translate import` says so).

    An XNLI-size import checks half a million units a language, so the cheap measures are
    taken column-wise (polars: characters that are not white space, Roman letters) and
    only the units they single out are looked at one by one (the text against its source,
    case-folded; letters as str.isalpha counts them)."""
    import polars as pl

    target = primary_language(lang)
    scripts = expected_scripts(target)
    non_latin = scripts is not None and LATIN not in scripts

    def chars(column: str) -> pl.Expr:  # counted, not copied without its spaces
        return pl.col(column).str.len_chars() - pl.col(column).str.count_matches(r"\s")

    source_scale = pl.col("source_lang").replace_strict(
        CHARS_PER_ENGLISH_CHAR, default=1.0, return_dtype=pl.Float64
    )
    scale = CHARS_PER_ENGLISH_CHAR.get(target, 1.0) / source_scale
    languages = units["source_lang"].unique().to_list()
    frame = units.with_columns(
        source_lang=pl.col("source_lang").replace_strict(
            {x: primary_language(x) for x in languages}, return_dtype=pl.String
        )
    )
    measured = frame.select(
        "unit",
        "source",
        "text",
        text_chars=chars("text"),
        source_chars=chars("source"),
        other_lang=pl.col("source_lang") != target,
        roman=pl.col("text").str.count_matches("[A-Za-z]") if non_latin else pl.lit(0),
        low=LENGTH_BAND[0] * scale,
        high=LENGTH_BAND[1] * scale,
        outside=_in_other_script(frame["text"].to_list(), scripts),
    ).with_columns(ratio=pl.col("text_chars") / pl.col("source_chars"))
    singled_out = measured.filter(
        (pl.col("text_chars") == 0)
        | (pl.col("other_lang") & (pl.col("text_chars") == pl.col("source_chars")))
        | (pl.col("roman") > 0)
        | pl.col("outside")
        | (
            (pl.col("source_chars") >= MIN_SOURCE_CHARS)
            & ((pl.col("ratio") < pl.col("low")) | (pl.col("ratio") > pl.col("high")))
        )
    )
    checks = []
    for row in singled_out.iter_rows(named=True):
        unit, text, source = row["unit"], row["text"], row["source"]
        if not row["text_chars"]:
            checks.append(Check(unit, "empty", "the translation is empty"))
            continue
        if row["other_lang"] and row["text_chars"] == row["source_chars"]:
            same = " ".join(text.split()).casefold() == " ".join(source.split()).casefold()
            if same and any(map(str.isalpha, source)):
                checks.append(Check(unit, "untranslated", "the translation is the source text"))
        roman = row["roman"]
        if roman > MAX_ROMAN_LETTERS:
            checks.append(Check(unit, "roman_letters", f"{roman} Roman letters (over 10)"))
        if row["outside"] and scripts is not None:
            checks.append(Check(unit, "script", _script_detail(text, target, scripts)))
        ratio, low, high = row["ratio"], row["low"], row["high"]
        if row["source_chars"] >= MIN_SOURCE_CHARS and not low <= ratio <= high:
            checks.append(
                Check(
                    unit,
                    "length_ratio",
                    f"{ratio:.2f} times the source's characters (expected {low:.2f}-{high:.2f})",
                )
            )
    return checks


def _in_other_script(texts: list[str | None], scripts: tuple[str, ...] | None) -> pl.Series:
    """Per text, whether most of its letters are outside `scripts` (all False when the
    language's scripts are unknown). Script membership is Unicode's, through the regex
    package, so this is one scan a unit in Python rather than a polars expression."""
    import polars as pl

    if scripts is None:
        return pl.Series([False] * len(texts), dtype=pl.Boolean)
    return pl.Series(
        [mostly_outside(t or "", scripts, MAX_OTHER_SCRIPT_SHARE) for t in texts],
        dtype=pl.Boolean,
    )


def _script_detail(text: str, lang: str, scripts: tuple[str, ...]) -> str:
    share = script_share(text, scripts)
    main = main_script(text)
    mostly = f"; mostly {main}" if main and main not in scripts else ""
    return (
        f"{share.outside_share:.0%} of the letters are outside the {'/'.join(scripts)} "
        f"script of {lang}{mostly}"
    )


def corpus_checks(
    translations: Mapping[str, str], sources: Mapping[str, str], premise_of: Mapping[str, str]
) -> list[Check]:
    """`corpus_checks_of` on mappings: unit -> translation, unit -> source text, and
    hypothesis unit -> its premise unit."""
    import polars as pl

    def frame(mapping: Mapping[str, str], value: str) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "unit": pl.Series(list(mapping), dtype=pl.String),
                value: pl.Series(list(mapping.values()), dtype=pl.String),
            }
        )

    return corpus_checks_of(
        frame(translations, "text"), frame(sources, "source"), frame(premise_of, "premise")
    )


def corpus_checks_of(
    translations: pl.DataFrame, sources: pl.DataFrame, premise_of: pl.DataFrame
) -> list[Check]:
    """Checks across units of one language: a hypothesis translated exactly like its
    premise (when the sources differ), and one translation given to different sources
    (texts compared with their white space normalised). Frames: (unit, text), (unit,
    source), (unit, premise). Joined and grouped column-wise: every import redoes them
    over all of the language's translations."""
    import polars as pl

    def plain(column: str) -> pl.Expr:
        return pl.col(column).str.replace_all(r"\s+", " ").str.strip_chars()

    units = (
        translations.select("unit", "text")
        .with_columns(text=plain("text"))
        .join(sources.select("unit", "source"), on="unit", how="left")
        .with_columns(pl.col("source").fill_null(""))
    )
    same_as_premise = (
        units.join(premise_of.select("unit", "premise"), on="unit")
        .join(
            units.select(
                pl.col("unit").alias("premise"),
                pl.col("text").alias("premise_text"),
                pl.col("source").alias("premise_source"),
            ),
            on="premise",
        )
        .filter(
            (pl.col("text") == pl.col("premise_text"))
            & (pl.col("source") != pl.col("premise_source"))
        )
        .select("unit", "premise")
    )
    found = [
        Check(unit, "same_as_premise", f"translated exactly like its premise {premise}")
        for unit, premise in same_as_premise.iter_rows()
    ]
    shared = (
        # Only texts given to more than one unit need their sources compared.
        units.filter((pl.col("text") != "") & pl.col("text").is_duplicated())
        .with_columns(source=plain("source"))
        .group_by("text")
        .agg(pl.col("unit").sort(), pl.col("source").n_unique().alias("sources"))
        .filter((pl.col("unit").list.len() > 1) & (pl.col("sources") > 1))
    )
    for group in shared["unit"].to_list():
        for unit_id in group:
            others = ", ".join(u for u in group if u != unit_id)[:200]
            found.append(Check(unit_id, "duplicate", f"the same translation as {others}"))
    return found
