"""The sentence pool's commands: `ingest` (source texts into the pool) and `sample`
(premises drawn from it)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli.common import print_outcome, state_of, user_errors
from nlibuild.errors import ConfigError
from nlibuild.invoke import invoke_at
from nlibuild.models import IngestConfig, LengthUnit, ParagraphMode, SampleConfig, SourceFormat
from nlibuild.options import choice, default_text, split_list


def _genre_map(values: list[str] | None) -> tuple[tuple[str, str], ...]:
    pairs = []
    for item in split_list(values):
        source, sep, target = item.partition("=")
        if not sep or not source or not target:
            raise ConfigError(f"--genre-map {item!r}: write it as FOUND=GENRE, e.g. n=news")
        pairs.append((source, target))
    return tuple(pairs)


def ingest(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Source text files.")],
    genre: Annotated[
        str | None, typer.Option(help="Genre of these texts (e.g. gov, news, fiction).")
    ] = None,
    lang: Annotated[str | None, typer.Option(help="Their language (default: the store's).")] = None,
    format: Annotated[
        str | None,
        typer.Option("--format", help="txt, jsonl, tsv or conllu (default: from the suffix)."),
    ] = None,
    field: Annotated[
        str | None,
        typer.Option(
            help="jsonl field / tsv column that holds the text "
            f"(default {default_text(IngestConfig, 'field')})."
        ),
    ] = None,
    genre_field: Annotated[
        str | None, typer.Option(help="jsonl field / tsv column that holds each text's genre.")
    ] = None,
    genre_from: Annotated[
        str | None,
        typer.Option(
            help="conllu: regex over '# sent_id' then '# newdoc id'; its group 1 is the genre."
        ),
    ] = None,
    genre_map: Annotated[
        list[str] | None,
        typer.Option("--genre-map", help="Rename found genres: FOUND=GENRE, e.g. n=news,w=wiki."),
    ] = None,
    paragraph: Annotated[
        str | None,
        typer.Option(
            help="txt: paragraphs end at a blank line (blank) or every line (line) "
            f"(default {default_text(IngestConfig, 'paragraph')})."
        ),
    ] = None,
    clean: Annotated[
        str | None,
        typer.Option(
            help="Markup cleaning preset: none (sentences stored as the source writes "
            "them) or callhome (markup stripped, the rest normalised) "
            f"(default {default_text(IngestConfig, 'clean')})."
        ),
    ] = None,
    strip: Annotated[
        list[str] | None,
        typer.Option("--strip", help="Also delete what this regex matches (repeatable)."),
    ] = None,
    strict: Annotated[
        bool | None, typer.Option("--strict", help="A genre not in the preset is an error.")
    ] = None,
) -> None:
    """Read source texts into the sentence pool: split, clean, measure, deduplicate.

    Examples:

    \b
      nlibuild --db zh.db ingest data/sources/zh/gov.txt --genre gov
      nlibuild --db zh.db ingest data/sources/zh/news.txt --genre news
      nlibuild --db zh.db ingest data/sources/zh/lit.txt --genre lit
      nlibuild --db zh.db ingest data/sources/zh/tv.txt --genre tv
      nlibuild --db zh.db ingest data/sources/zh/phone.txt --genre phone
    """
    from nlibuild.stages.ingest import STAGE

    with user_errors():
        fields = {
            "paths": tuple(paths),
            "format": choice(SourceFormat, format, "--format") if format else None,
            "genre": genre,
            "lang": lang,
            "field": field,
            "genre_field": genre_field,
            "genre_from": genre_from,
            "genre_map": _genre_map(genre_map),
            "paragraph": choice(ParagraphMode, paragraph, "--paragraph") if paragraph else None,
            "clean": clean,
            "strip": _split_regexes(strip),
            "strict": strict,
        }
        outcome = invoke_at(STAGE, state_of(ctx).db, **fields)
    print_outcome(outcome)


def _split_regexes(values: list[str] | None) -> tuple[str, ...] | None:
    # Regexes may hold commas, so --strip is repeated rather than comma-separated. Not
    # given (None): the preset's [ingest] strip, if any.
    return None if values is None else tuple(value for value in values if value)


def sample(
    ctx: typer.Context,
    genre: Annotated[
        list[str] | None,
        typer.Option("--genre", help="Genre to sample (repeatable, or comma-separated)."),
    ] = None,
    n: Annotated[
        int | None,
        typer.Option(
            "--n", help=f"Premises per genre (default {default_text(SampleConfig, 'n')})."
        ),
    ] = None,
    per_genre: Annotated[
        int | None, typer.Option(help="Sample every genre of the pool, this many each.")
    ] = None,
    min_len: Annotated[
        int | None,
        typer.Option(
            help=f"Shortest length kept (default {default_text(SampleConfig, 'min_len')})."
        ),
    ] = None,
    max_len: Annotated[
        int | None,
        typer.Option(
            help=f"Longest length kept (default {default_text(SampleConfig, 'max_len')})."
        ),
    ] = None,
    unit: Annotated[
        str | None,
        typer.Option(
            help="Length unit: auto (chars for zh/ja/ko/th/my, else tokens), chars or tokens "
            f"(default {default_text(SampleConfig, 'unit')})."
        ),
    ] = None,
    lang: Annotated[str | None, typer.Option(help="Only sentences of this language.")] = None,
    seed: Annotated[
        int | None,
        typer.Option(help=f"Random seed (default {default_text(SampleConfig, 'seed')})."),
    ] = None,
    exclude: Annotated[
        list[Path] | None,
        typer.Option(
            "--exclude",
            help="A released corpus (jsonl/tsv/conllu/txt) whose sentences are never sampled.",
        ),
    ] = None,
    balance_lengths: Annotated[
        int | None,
        typer.Option(help="Draw evenly from this many equal-width length bins."),
    ] = None,
) -> None:
    """Move sentences from the pool into the premises, per genre, by length, seeded.

    Examples:

    \b
      nlibuild --db zh.db sample --per-genre 10 --seed 13
      nlibuild --db zh.db stats --table premises
    """
    from nlibuild.stages.sample import STAGE

    with user_errors():
        if per_genre is not None and n is not None:
            raise ConfigError("give --n with --genre, or --per-genre alone, not both")
        every_genre = per_genre is not None
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            # --per-genre samples every genre of the pool, whatever genres the preset names.
            genres=() if every_genre else split_list(genre) or None,
            all_genres=every_genre,
            n=per_genre if every_genre else n,
            min_len=min_len,
            max_len=max_len,
            unit=choice(LengthUnit, unit, "--unit") if unit else None,
            lang=lang,
            seed=seed,
            exclude=tuple(exclude or ()),
            balance_bins=balance_lengths,
        )
    print_outcome(outcome)
