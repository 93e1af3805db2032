"""The `nlibuild` command: parse options, build a frozen config, call one stage, render.

No SQL and no data frames here. User errors (`NlibuildError`) become one `Error:` line on
stderr and exit code 1; everything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from nlibuild._version import VERSION
from nlibuild.cli_artifacts import bias_app
from nlibuild.cli_common import (
    State,
    bytes_progress,
    choice,
    err,
    files_progress,
    first,
    format_option,
    label_order_option,
    open_store,
    out,
    preset_defaults,
    preset_of,
    split_list,
    state_of,
    user_errors,
)
from nlibuild.cli_elicit import elicit_app
from nlibuild.cli_relabel import relabel_app
from nlibuild.cli_translate import translate_app
from nlibuild.errors import ConfigError
from nlibuild.models import (
    DEFAULT_LABEL_ORDER,
    DEFAULT_MAX_OVERLAP,
    AgreementStat,
    AnnotatorStat,
    ArtifactGroup,
    ArtifactScope,
    CuesConfig,
    ExportConfig,
    ExportFormat,
    ImportConfig,
    ImportFormat,
    IngestConfig,
    InitConfig,
    LengthUnit,
    NoGoldPolicy,
    ParagraphMode,
    PmiConfig,
    PremiseStatsRow,
    SampleConfig,
    SourceFormat,
    SplitName,
    StoreSummary,
    SubsetRow,
    TableFormat,
    TranslationStatsRow,
    WordUnits,
)
from nlibuild.presets import load_preset_text, parse_preset, stage_defaults
from nlibuild.render import counted, render_table

app = typer.Typer(
    name="nlibuild",
    help="Build natural-language-inference corpora and check their quality, in one SQLite store.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

app.add_typer(elicit_app, name="elicit")
app.add_typer(translate_app, name="translate")
app.add_typer(relabel_app, name="relabel")
app.add_typer(bias_app, name="bias")


def _print_version(value: bool) -> None:
    if value:
        out.print(f"nlibuild {VERSION}", markup=False)
        raise typer.Exit(0)


@app.callback()
def _main(
    ctx: typer.Context,
    db: Annotated[
        Path,
        typer.Option("--db", envvar="NLIBUILD_DB", help="The store (default ./nlibuild.db)."),
    ] = Path("nlibuild.db"),
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version.", is_eager=True, callback=_print_version
        ),
    ] = False,
) -> None:
    """Build natural-language-inference corpora and check their quality, in one SQLite store."""
    ctx.obj = State(db=db)


@app.command()
def init(
    ctx: typer.Context,
    lang: Annotated[
        str | None, typer.Option(help="Corpus language (ISO 639-1); default from preset, else en.")
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option(help="Pipeline preset: ocnli, xnli, mnli, or a .toml path; sets defaults."),
    ] = None,
    extra_labels: Annotated[
        list[str] | None,
        typer.Option(
            "--extra-labels",
            help="Label values kept as votes but never gold (comma-separated), e.g. unrelated.",
        ),
    ] = None,
) -> None:
    """Create a new, empty store."""
    from nlibuild.stages.init import run

    with user_errors():
        preset_text = load_preset_text(preset) if preset else None
        corpus = stage_defaults(parse_preset(preset_text), "corpus") if preset_text else {}
        cfg = InitConfig(
            lang=lang or corpus.get("lang", "en"),
            preset=preset,
            extra_labels=split_list(extra_labels) or tuple(corpus.get("extra_labels", ())),
        )
        result = run(state_of(ctx).db, cfg, preset_text)
    extras = ",".join(cfg.extra_labels) or "none"
    out.print(
        f"Created store {result.path} (schema {result.schema_version}, lang {cfg.lang}, "
        f"preset {cfg.preset or 'none'}, extra labels {extras}; run {result.run_id}, "
        f"{result.signature})",
        markup=False,
    )


@app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The corpus file to load.")],
    format: Annotated[
        str | None,
        typer.Option("--format", help="mnli, snli, ocnli, xnli or jsonl (default: the preset's)."),
    ] = None,
    genre: Annotated[
        str | None, typer.Option(help="Genre for pairs whose file gives none.")
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(
            help="Language of the pairs (default: the store's); for XNLI files, "
            "which language holds the pairs (the others become translations)."
        ),
    ] = None,
    corpus: Annotated[
        str | None, typer.Option(help="Name used in anonymous annotator IDs (default: file stem).")
    ] = None,
    label_order: Annotated[
        str | None,
        typer.Option(help="Meaning of integer labels, e.g. e,n,c (GLUE/XNLI) or n,e,c (CLUE)."),
    ] = None,
    extra_labels: Annotated[
        list[str] | None,
        typer.Option("--extra-labels", help="Extra label values to accept as votes."),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(
            "--split",
            help="train, dev or test: the released split this file is (its new pairs go there).",
        ),
    ] = None,
) -> None:
    """Load an existing NLI corpus: premises, pairs, every label as a vote, the released gold."""
    from nlibuild.stages.import_corpus import run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            fmt = format or preset_defaults(store, "import").get("format")
            if fmt is None:
                raise ConfigError(
                    "choose the file's format with --format mnli|snli|ocnli|xnli|jsonl"
                )
            cfg = ImportConfig(
                path=file,
                format=choice(ImportFormat, fmt, "--format"),
                genre=genre,
                lang=lang,
                corpus=corpus,
                label_order=label_order_option(label_order, "--label-order"),
                extra_labels=split_list(extra_labels),
                split=choice(SplitName, split, "--split") if split else None,
            )
            with bytes_progress(file, f"import {file.name}") as progress:
                result = run(store, cfg, progress)
    out.print(
        f"Imported {file}: {counted(result.pairs_added, 'pair')}, "
        f"{counted(result.premises_added, 'premise')}, {counted(result.votes_added, 'vote')}, "
        f"{counted(result.translations_added, 'translation')} added; "
        f"{counted(result.pairs_unchanged, 'pair')} already present"
        + (
            f"; {counted(result.split_assigned, 'new pair')} put in {cfg.split.value}"
            if cfg.split
            else ""
        )
        + f" (run {result.run_id}, {result.signature})",
        markup=False,
    )


@app.command()
def export(
    ctx: typer.Context,
    out_path: Annotated[Path, typer.Option("--out", help="The file to write.")],
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="mnli-jsonl, ocnli-json, xnli-tsv, xnli-jsonl, hf-jsonl or jsonl "
            "(default: the preset's).",
        ),
    ] = None,
    label_order: Annotated[
        str | None,
        typer.Option(help="hf-jsonl integer order (default e,n,c; CLUE's OCNLI uses n,e,c)."),
    ] = None,
    no_gold: Annotated[
        str,
        typer.Option(help="hf-jsonl: pairs with gold '-' get label -1 (minus-one) or are dropped."),
    ] = NoGoldPolicy.MINUS_ONE.value,
    lang: Annotated[
        list[str] | None,
        typer.Option(
            "--lang", help="Only these languages (xnli-tsv/xnli-jsonl: also translations)."
        ),
    ] = None,
    split: Annotated[
        str | None, typer.Option(help="Only this split: train, dev or test (`nlibuild split`).")
    ] = None,
) -> None:
    """Write the corpus in a released format. xnli-tsv and xnli-jsonl are multilingual:
    rows keyed by (language, pairID), each translated language's premise and hypothesis with
    the source's labels, written only where both are translated."""
    from nlibuild.stages.export import run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            defaults = preset_defaults(store, "export")
            fmt = format or defaults.get("format")
            if fmt is None:
                raise ConfigError(
                    "choose the output format with --format "
                    + "|".join(f.value for f in ExportFormat)
                )
            order = label_order_option(label_order or defaults.get("label_order"), "--label-order")
            cfg = ExportConfig(
                format=choice(ExportFormat, fmt, "--format"),
                out=out_path,
                label_order=order or DEFAULT_LABEL_ORDER,
                no_gold=choice(NoGoldPolicy, no_gold, "--no-gold"),
                langs=split_list(lang),
                split=choice(SplitName, split, "--split") if split else None,
            )
            result = run(store, cfg)
    line = f"Exported {counted(result.rows, 'pair')} to {result.out} as {cfg.format.value}"
    if result.label_order is not None:
        fate = "dropped" if result.no_gold_policy is NoGoldPolicy.DROP else "written with label -1"
        line += (
            f"; labels {result.label_order} = 0,1,2 (written to {result.sidecar}); "
            f"{counted(result.no_gold_rows, 'pair')} without gold {fate}"
        )
    else:
        line += f"; {counted(result.no_gold_rows, 'pair')} without gold written as '-'"
    out.print(f"{line} (run {result.run_id}, {result.signature})", markup=False)


def _genre_map(values: list[str] | None) -> tuple[tuple[str, str], ...]:
    pairs = []
    for item in split_list(values):
        source, sep, target = item.partition("=")
        if not sep or not source or not target:
            raise ConfigError(f"--genre-map {item!r}: write it as FOUND=GENRE, e.g. n=news")
        pairs.append((source, target))
    return tuple(pairs)


@app.command()
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
        str, typer.Option(help="jsonl field / tsv column that holds the text.")
    ] = "text",
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
        typer.Option(help="txt: paragraphs end at a blank line (blank) or every line (line)."),
    ] = None,
    clean: Annotated[
        str | None, typer.Option(help="Markup cleaning preset: none or callhome.")
    ] = None,
    strip: Annotated[
        list[str] | None,
        typer.Option("--strip", help="Also delete what this regex matches (repeatable)."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="A genre not in the preset is an error.")
    ] = False,
) -> None:
    """Read source texts into the sentence pool: split, clean, measure, deduplicate."""
    from nlibuild.stages.ingest import format_of, run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            preset = preset_of(store)
            defaults = stage_defaults(preset, "ingest")
            per_genre = defaults.get("genres", {}).get(genre, {}) if genre else {}
            fmt = choice(SourceFormat, format, "--format") if format else format_of(paths[0])
            cfg = IngestConfig(
                paths=tuple(paths),
                format=fmt,
                genre=genre,
                lang=lang or store.meta().get("lang", "en"),
                field=field,
                genre_field=genre_field,
                genre_from=genre_from,
                genre_map=_genre_map(genre_map),
                paragraph=choice(
                    ParagraphMode,
                    paragraph or per_genre.get("paragraph") or defaults.get("paragraph", "blank"),
                    "--paragraph",
                ),
                clean=clean or per_genre.get("clean") or defaults.get("clean", "none"),
                strip=_split_regexes(strip),
                known_genres=tuple(stage_defaults(preset, "corpus").get("genres", ())),
                strict=strict,
            )
            with files_progress(paths, "ingest") as progress:
                result = run(store, cfg, progress)
    for warning in result.warnings:
        err.print(f"Warning: {warning}", markup=False)
    genres = ", ".join(f"{g} {n}" for g, n in result.by_genre.items())
    out.print(
        f"Ingested {counted(result.files, 'file')}: {counted(result.texts, 'text')}, "
        f"{counted(result.sentences, 'sentence')} ({genres}); "
        f"{result.empty_after_cleaning} empty after cleaning, "
        f"{counted(result.duplicates, 'duplicate')}; {result.added} added to the pool "
        f"(run {result.run_id}, {result.signature})",
        markup=False,
    )


def _split_regexes(values: list[str] | None) -> tuple[str, ...]:
    # Regexes may hold commas, so --strip is repeated rather than comma-separated.
    return tuple(value for value in values or [] if value)


@app.command()
def sample(
    ctx: typer.Context,
    genre: Annotated[
        list[str] | None,
        typer.Option("--genre", help="Genre to sample (repeatable, or comma-separated)."),
    ] = None,
    n: Annotated[int | None, typer.Option("--n", help="Premises per genre (default 250).")] = None,
    per_genre: Annotated[
        int | None, typer.Option(help="Sample every genre of the pool, this many each.")
    ] = None,
    min_len: Annotated[int | None, typer.Option(help="Shortest length kept (default 8).")] = None,
    max_len: Annotated[int | None, typer.Option(help="Longest length kept (default 50).")] = None,
    unit: Annotated[
        str | None,
        typer.Option(
            help="Length unit: auto (chars for zh/ja/ko/th/my, else tokens), chars or tokens."
        ),
    ] = None,
    lang: Annotated[str | None, typer.Option(help="Only sentences of this language.")] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed (default 13).")] = None,
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
    """Move sentences from the pool into the premises, per genre, by length, seeded."""
    from nlibuild.stages.sample import run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            defaults = preset_defaults(store, "sample")
            if per_genre is not None and n is not None:
                raise ConfigError("give --n with --genre, or --per-genre alone, not both")
            cfg = SampleConfig(
                genres=split_list(genre),
                all_genres=per_genre is not None,
                n=per_genre or n or defaults.get("n", 250),
                min_len=first(min_len, defaults.get("min_len"), 8),
                max_len=first(max_len, defaults.get("max_len"), 50),
                unit=choice(LengthUnit, unit or defaults.get("unit", "auto"), "--unit"),
                lang=lang,
                seed=first(seed, defaults.get("seed"), 13),
                exclude=tuple(exclude or ()),
                balance_bins=balance_lengths,
            )
            if not cfg.genres and not cfg.all_genres and defaults.get("genres"):
                cfg = cfg.model_copy(update={"genres": tuple(defaults["genres"])})
            result = run(store, cfg)
    parts = [
        f"{g.genre} {g.sampled} ({g.first_id}..{g.last_id}"
        + (f" of {g.qualifying} qualifying)" if g.qualifying is not None else ")")
        for g in result.genres
    ]
    total = sum(g.sampled for g in result.genres)
    out.print(
        f"Sampled {counted(total, 'premise')}: {'; '.join(parts)} "
        f"(run {result.run_id}, {result.signature})",
        markup=False,
    )


@app.command("aggregate-labels")
def aggregate_labels(
    ctx: typer.Context,
    min_agree: Annotated[
        int | None, typer.Option(help="Votes an NLI label needs to be gold (default 3 of 5).")
    ] = None,
    method: Annotated[
        str,
        typer.Option(
            help="majority, or dawid-skene as well (stored beside it; majority stays gold)."
        ),
    ] = "majority",
) -> None:
    """Gold labels from the votes: the NLI label with at least 3 of the votes and more than
    any other, else '-'. Extra labels count as votes but are never gold; a pair with only
    its author's vote keeps it (unvalidated). Ties give '-', whatever the vote order."""
    from nlibuild.models import AggregateConfig, AggregateMethod
    from nlibuild.stages.aggregate import run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            defaults = preset_defaults(store, "aggregate")
            cfg = AggregateConfig(
                min_agree=first(min_agree, defaults.get("min_agree"), 3),
                method=choice(AggregateMethod, method, "--method"),
            )
            result = run(store, cfg)
    labels = ", ".join(f"{label} {n}" for label, n in result.by_label.items())
    extra = ""
    if result.released_disagreements is not None:
        extra += f"; {result.released_disagreements} differ from the released gold"
    if result.dawid_skene_disagreements is not None:
        extra += (
            f"; Dawid-Skene ({result.iterations} iterations) disagrees with the majority on "
            f"{counted(result.dawid_skene_disagreements, 'pair')}"
        )
    out.print(
        f"Aggregated {counted(result.pairs, 'pair')} by majority (at least {cfg.min_agree}): "
        f"{labels}; {result.validated} validated, {result.unvalidated} unvalidated (author "
        f"only){extra} (run {result.run_id}, {result.signature})",
        markup=False,
    )


@app.command()
def split(
    ctx: typer.Context,
    dev: Annotated[int, typer.Option(help="Pairs in dev.")],
    test: Annotated[int, typer.Option(help="Pairs in test.")],
    protocol: Annotated[
        list[str] | None,
        typer.Option("--protocol", help="Draw dev/test only from pairs of these protocols."),
    ] = None,
    balance: Annotated[
        str | None, typer.Option(help="level: as many easy, medium and hard pairs in dev/test.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 13,
    draw_from: Annotated[
        str,
        typer.Option(
            "--from",
            help="validated: dev/test from relabelled pairs with a gold label (OCNLI); "
            "labelled: from any pair with a gold label.",
        ),
    ] = "validated",
    group_by: Annotated[
        str,
        typer.Option(
            "--group-by",
            help="premise: all pairs of a premise in one split; pair: each pair on its own "
            "(premises may then leak across splits, and the closing line says so).",
        ),
    ] = "premise",
) -> None:
    """Dev and test from relabelled pairs with a gold label (OCNLI 3.4), the rest train;
    all pairs of a premise stay in one split, and the closing line says whether any
    premise is shared across splits."""
    from nlibuild.models import Protocol, SplitConfig, SplitGrouping, SplitSource
    from nlibuild.stages.split import run

    with user_errors():
        if balance not in (None, "level"):
            raise ConfigError(f"--balance {balance!r}: only 'level' is supported")
        store = open_store(state_of(ctx))
        with store:
            cfg = SplitConfig(
                dev=dev,
                test=test,
                protocols=tuple(
                    choice(Protocol, p.upper(), "--protocol") for p in split_list(protocol)
                ),
                balance_level=balance == "level",
                seed=seed,
                draw_from=choice(SplitSource, draw_from, "--from"),
                group_by=choice(SplitGrouping, group_by, "--group-by"),
            )
            result = run(store, cfg)
    levels = "; ".join(
        f"{name} by level: " + ", ".join(f"{k} {n}" for k, n in counts.items())
        for name, counts in result.levels.items()
        if counts
    )
    leak = (
        f"{len(result.shared_premises)} premises in several splits: "
        + ", ".join(result.shared_premises[:5])
        if result.shared_premises
        else "no premise is shared across splits"
    )
    out.print(
        f"Split: train {result.counts['train']}, dev {result.counts['dev']}, test "
        f"{result.counts['test']} ({levels}); {result.held_out} unvalidated pairs of dev/test "
        f"premises held out; {leak} (run {result.run_id}, {result.signature})",
        markup=False,
    )


STATS_TABLES = (
    "premises",
    "subsets",
    "agreement",
    "annotators",
    "translation",
    "lengths",
    "pmi",
    "cues",
)


@app.command()
def stats(
    ctx: typer.Context,
    table: Annotated[
        str,
        typer.Option(
            "--table",
            help="Which table: premises, subsets, agreement, annotators, translation, lengths, "
            "pmi or cues.",
        ),
    ],
    min_len: Annotated[
        int | None, typer.Option(help="premises: shortest qualifying length (default 8).")
    ] = None,
    max_len: Annotated[
        int | None, typer.Option(help="premises: longest qualifying length (default 50).")
    ] = None,
    unit: Annotated[
        str | None, typer.Option(help="premises: length unit, auto, chars or tokens.")
    ] = None,
    max_overlap: Annotated[
        float | None, typer.Option(help="subsets: the overlap limit (default 0.70, OCNLI 3.2).")
    ] = None,
    negators: Annotated[
        list[Path] | None,
        typer.Option("--negators", help="subsets: more negators (resources/negators/ format)."),
    ] = None,
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="agreement: also per protocol, level, genre and/or lang; pmi: one of "
            "protocol, level, genre, author; cues: one of those (default protocol).",
        ),
    ] = None,
    include_extra: Annotated[
        bool,
        typer.Option(help="agreement: extra labels are categories of kappa and alpha too."),
    ] = False,
    ci: Annotated[
        float | None, typer.Option(help="agreement: bootstrap interval at this level, e.g. 0.95.")
    ] = None,
    resamples: Annotated[int, typer.Option(help="agreement: bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option(help="agreement: bootstrap seed.")] = 13,
    threshold: Annotated[
        float, typer.Option(help="annotators: flag agreement with gold under this.")
    ] = 0.7,
    sort: Annotated[
        str, typer.Option(help="annotators: sort by this column (default agree_with_gold).")
    ] = "agree_with_gold",
    top: Annotated[int, typer.Option(help="pmi: (word, label) pairs per group.")] = 3,
    smoothing: Annotated[
        float, typer.Option(help="pmi: add-k smoothing of the counts (Gururangan et al. 2018).")
    ] = 100.0,
    min_count: Annotated[
        int, typer.Option(help="pmi: rank only words in at least this many pairs of a group.")
    ] = 20,
    units: Annotated[
        str | None,
        typer.Option(help="pmi: words (jieba for Chinese) or chars (default: the language's)."),
    ] = None,
    per_label: Annotated[
        bool, typer.Option("--per-label", help="pmi: the top words of each label.")
    ] = False,
    split: Annotated[
        list[str] | None,
        typer.Option("--split", help="pmi, cues: only pairs of these splits (e.g. train)."),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(help="pmi, cues: read the human translations into this language."),
    ] = None,
    format: Annotated[str, format_option()] = TableFormat.TABLE.value,
) -> None:
    """Tables about the corpus.

    premises: per genre, the pool, qualifying and sampled sentences, and the pool's lengths
    (mean, min, max, histogram).

    subsets: OCNLI's Table 3: per protocol, pairs and mean hypothesis length (characters
    for zh/ja/ko/th/my, else tokens) in total and per level (easy/medium/hard = the 1st/2nd/
    3rd hypothesis per premise and label); the share of contradictions (author's label)
    with a negator, and of pairs whose hypothesis overlaps its premise over the limit.

    agreement: SNLI/OCNLI's agreement table; validated = pairs with 2+ votes. Denominators:
    pairs relabelled / pairs with votes; all, 4+, 3+ labels agree / validated pairs;
    individual label = gold / votes of validated pairs with a gold label; individual label
    = author's label / validators' votes (the author's own left out); gold = author's,
    gold != author's, no gold / validated pairs; extra labels / votes of validated pairs;
    Fleiss' kappa and Krippendorff's alpha (nominal level, stated: the krippendorff
    package's default is interval) over validated pairs, extra labels left out unless
    --include-extra. Gold is the stored majority (aggregate-labels), else the same rule.

    lengths: XNLI's Table 2: per language (the pairs' own and every translation), the mean
    premise and hypothesis length in tokens, or characters for zh/ja/ko/th/my.

    translation: per language and kind, the units translated and the units each check of
    `translate import` flagged.

    annotators: per annotator, votes (as author, as validator), agreement with gold
    leaving their own vote out, for authors the share of their pairs whose gold is their
    label, elicitation violations, the Dawid-Skene reliability when computed.

    pmi: OCNLI's Table 8: for all pairs and per --by group, the top (word, label) pairs
    by PMI between a hypothesis word and the gold label, with counts "pairs with the word
    and the label / pairs with the word". Add-k smoothing (k = --smoothing) of the
    word-by-label table as in Gururangan et al. (2018); natural log. Words are case-folded
    Unicode word runs (Chinese: jieba; Japanese, Thai, Burmese: characters).

    cues: per group (--by, default protocol) and gold label: the share of hypotheses with
    a negator (the elicitation lexicons), the mean overlap with the premise and its
    histogram, the share over the overlap limit, and the mean length.

    The gold label of pmi and cues is the majority (aggregate-labels), else the corpus's
    released label, else the author's; pairs with '-' are left out."""
    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        if table not in STATS_TABLES:
            raise ConfigError(f"--table {table!r} is not one of: {', '.join(STATS_TABLES)}")
        store = open_store(state_of(ctx))
        with store:
            if table == "subsets":
                from nlibuild.stages.stats import subset_stats

                limit = first(
                    max_overlap,
                    preset_defaults(store, "elicit").get("max_overlap"),
                    DEFAULT_MAX_OVERLAP,
                )
                subsets = subset_stats(store, limit, tuple(negators or ()))
            elif table == "agreement":
                from nlibuild.stages.stats import agreement_stats

                if ci is not None and not 0 < ci < 1:
                    raise ConfigError(f"--ci {ci}: give a level between 0 and 1, e.g. 0.95")
                agreement = agreement_stats(
                    store, split_list(by), include_extra, ci, resamples, seed
                )
            elif table == "pmi":
                from nlibuild.cli_artifacts import artifact_group
                from nlibuild.stages.artifacts import pmi_table

                scope = ArtifactScope(splits=split_list(split), lang=lang)
                pmi = pmi_table(
                    store,
                    PmiConfig(
                        by=artifact_group(by), top=top, smoothing=smoothing,
                        min_count=min_count, per_label=per_label,
                        units=choice(WordUnits, units, "--units") if units else None,
                        scope=scope,
                    ),
                )  # fmt: skip
            elif table == "cues":
                from nlibuild.cli_artifacts import artifact_group
                from nlibuild.stages.artifacts import cue_table

                limit = first(
                    max_overlap,
                    preset_defaults(store, "elicit").get("max_overlap"),
                    DEFAULT_MAX_OVERLAP,
                )
                cues = cue_table(
                    store,
                    CuesConfig(
                        by=artifact_group(by) or ArtifactGroup.PROTOCOL, max_overlap=limit,
                        negator_files=tuple(negators or ()),
                        scope=ArtifactScope(splits=split_list(split), lang=lang),
                    ),
                )  # fmt: skip
            elif table == "lengths":
                from nlibuild.stages.stats import length_stats

                lengths = length_stats(store)
            elif table == "translation":
                from nlibuild.stages.stats import translation_stats

                translation = translation_stats(store)
            elif table == "annotators":
                from nlibuild.stages.stats import annotator_stats

                if sort not in AnnotatorStat.model_fields:
                    fields = ", ".join(AnnotatorStat.model_fields)
                    raise ConfigError(f"--sort {sort!r} is not one of: {fields}")
                annotators = annotator_stats(store, threshold)
            else:
                from nlibuild.stages.stats import premise_stats

                defaults = preset_defaults(store, "sample")
                premises = premise_stats(
                    store,
                    first(min_len, defaults.get("min_len"), 8),
                    first(max_len, defaults.get("max_len"), 50),
                    choice(LengthUnit, unit or defaults.get("unit", "auto"), "--unit"),
                )
    if table == "pmi":
        from nlibuild.cli_artifacts import render_pmi

        render_pmi(pmi, fmt, lang)
    elif table == "cues":
        from nlibuild.cli_artifacts import render_cues

        render_cues(cues, fmt, limit, lang)
    elif table == "subsets":
        _render_subsets(subsets, fmt, limit)
    elif table == "agreement":
        _render_agreement(agreement, fmt, ci)
    elif table == "annotators":
        _render_annotators(annotators, fmt, sort, threshold)
    elif table == "translation":
        _render_translation(translation, fmt)
    elif table == "lengths":
        if fmt is TableFormat.JSON:
            out.print("[" + ",".join(r.model_dump_json() for r in lengths) + "]", markup=False)
        else:
            render_table(
                out,
                "Mean lengths (XNLI Table 2): premises and hypotheses",
                ["lang", "kind", "unit", "premises", "premise mean", "hypotheses",
                 "hypothesis mean"],
                [(r.lang, r.kind, r.unit, r.premises, r.premise_mean, r.hypotheses,
                  r.hypothesis_mean) for r in lengths],
                fmt,
                decimals=1,
            )  # fmt: skip
    else:
        _render_premises(premises, fmt)


def _render_agreement(rows: list[AgreementStat], fmt: TableFormat, ci: float | None) -> None:
    """Statistics down, groups across (all first); machines get one row per value."""
    if fmt in (TableFormat.JSON, TableFormat.CSV):
        columns = list(AgreementStat.model_fields)
        if fmt is TableFormat.JSON:
            out.print("[" + ",".join(r.model_dump_json() for r in rows) + "]", markup=False)
        else:
            render_table(out, "", columns, [tuple(getattr(r, c) for c in columns) for r in rows],
                         fmt)  # fmt: skip
        return
    groups = list(dict.fromkeys(r.group for r in rows))
    cells: dict[tuple[str, str], str] = {}
    for r in rows:
        if r.value is None:
            text = "n.a."
        elif r.statistic in ("Fleiss' kappa", "Krippendorff's alpha (nominal)"):
            text = f"{r.value:.3f}"
        else:
            text = f"{r.value:.1%}"
        if r.low is not None and r.high is not None:
            scale = 1 if "kappa" in r.statistic or "alpha" in r.statistic else 100
            text += f" [{r.low * scale:.3g}, {r.high * scale:.3g}]"
        cells[(r.statistic, r.group)] = text
    statistics = list(dict.fromkeys(r.statistic for r in rows))
    counts = {r.group: r.denominator for r in rows if r.statistic == "all labels agree"}
    title = "Agreement over validated pairs" + (f" ({ci:.0%} bootstrap intervals)" if ci else "")
    render_table(
        out,
        title,
        ["statistic", *(f"{g} ({counts.get(g, 0)})" for g in groups)],
        [(name, *(cells.get((name, g), "") for g in groups)) for name in statistics],
        fmt,
    )


_CHECKS = ("empty", "untranslated", "roman_letters", "latin_script", "length_ratio",
           "same_as_premise", "duplicate", "label_mismatch")  # fmt: skip


def _render_translation(rows: list[TranslationStatsRow], fmt: TableFormat) -> None:
    """Per language and kind, the units translated and the units each check flagged."""
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in rows) + "]", markup=False)
        return
    render_table(
        out,
        "Translations and their checks (units)",
        ["lang", "kind", "translated", *_CHECKS],
        [(r.lang, r.kind, r.translated, *(r.checks.get(c, 0) for c in _CHECKS)) for r in rows],
        fmt,
    )


def _render_annotators(
    rows: list[AnnotatorStat], fmt: TableFormat, sort: str, threshold: float
) -> None:
    columns = list(AnnotatorStat.model_fields)
    ordered = sorted(rows, key=lambda r: (getattr(r, sort) is None, getattr(r, sort)))
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in ordered) + "]", markup=False)
        return
    title = f"Annotators (flagged: agreement with gold under {threshold:.0%})"
    render_table(out, title, columns, [tuple(getattr(r, c) for c in columns) for r in ordered],
                 fmt, decimals=3)  # fmt: skip


def _render_subsets(rows: list[SubsetRow], fmt: TableFormat, limit: float) -> None:
    """As in OCNLI Table 3, cells `pairs / mean length` for people; csv and json get one
    column per number."""
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in rows) + "]", markup=False)
        return
    shares = ["c with negator", f"over {limit:.0%} overlap"]
    if fmt is TableFormat.CSV:
        fields = [f for f in SubsetRow.model_fields if f not in {"protocol", "lang", "unit"}]
        render_table(
            out, "", ["protocol", "lang", "unit", *fields],
            [(r.protocol, r.lang, r.unit, *(getattr(r, f) for f in fields)) for r in rows],
            fmt,
        )  # fmt: skip
        return

    def cell(pairs: int, mean: float | None) -> str:
        return "n.a." if not pairs else f"{pairs:,} / {mean:.1f}"

    def percent(share: float | None) -> str:
        return "" if share is None else f"{share:.1%}"

    render_table(
        out,
        "Subsets (OCNLI Table 3): pairs / mean hypothesis length",
        ["protocol", "lang", "unit", "total", "easy", "medium", "hard", *shares],
        [
            (r.protocol, r.lang, r.unit, cell(r.pairs, r.mean_length),
             cell(r.easy, r.easy_mean_length), cell(r.medium, r.medium_mean_length),
             cell(r.hard, r.hard_mean_length), percent(r.negated_contradictions),
             percent(r.over_overlap_limit))
            for r in rows
        ],
        fmt,
    )  # fmt: skip


def _render_premises(rows: list[PremiseStatsRow], fmt: TableFormat) -> None:
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in rows) + "]", markup=False)
        return
    columns = ["genre", "lang", "unit", "pool", "qualifying", "sampled", "mean", "min", "max",
               "histogram", "sampled mean"]  # fmt: skip
    render_table(
        out,
        "Premises and the sentence pool",
        columns,
        [
            (
                r.genre,
                r.lang,
                r.unit,
                r.pool,
                r.qualifying,
                r.sampled,
                r.mean,
                r.min,
                r.max,
                _histogram_cell(r, fmt),
                r.sampled_mean,
            )
            for r in rows
        ],
        fmt,
        decimals=1,
    )


_BARS = " ▁▂▃▄▅▆▇█"


def _histogram_cell(row: PremiseStatsRow, fmt: TableFormat) -> str:
    """A sparkline on a terminal; bin edges and counts for machines."""
    if fmt is not TableFormat.TABLE:
        edges = row.histogram_edges
        return " ".join(
            f"{edges[i]}-{edges[i + 1] - 1}:{count}" for i, count in enumerate(row.histogram)
        )
    top = max(row.histogram) or 1
    bars = "".join(_BARS[-(-8 * count // top)] for count in row.histogram)
    return f"{row.histogram_edges[0]} {bars} {row.histogram_edges[-1] - 1}"


@app.command()
def info(
    ctx: typer.Context,
    format: Annotated[str, format_option()] = TableFormat.TABLE.value,
) -> None:
    """Counts of the store: pairs by genre, language, label and protocol; validated pairs; runs."""
    from nlibuild.stages.info import summarise

    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        store = open_store(state_of(ctx))
        with store:
            summary = summarise(store)
    _render_summary(summary, fmt)


def _render_summary(summary: StoreSummary, fmt: TableFormat) -> None:
    if fmt is TableFormat.JSON:
        out.print(summary.model_dump_json(), markup=False)
        return
    totals: list[tuple[str, str | int]] = [
        ("store", str(summary.path)),
        ("schema version", summary.schema_version),
        ("language", summary.lang),
        ("preset", summary.preset or "none"),
        ("extra labels", ",".join(summary.extra_labels) or "none"),
        ("premises", summary.premises),
        ("pairs", summary.pairs),
        ("validated pairs", summary.validated_pairs),
        ("votes", summary.votes),
        ("translations", summary.translations),
        ("batches", summary.batches),
        ("open batch items", summary.open_assignments),
        ("violations", summary.violations),
        ("runs", summary.runs),
    ]
    groups = [
        ("genre", summary.by_genre),
        ("language", summary.by_lang),
        (f"gold label ({summary.gold_method})", summary.by_gold_label),
        ("author label", summary.by_author_label),
        ("protocol", summary.by_protocol),
        ("level", summary.by_level),
    ]
    if fmt is not TableFormat.TABLE:
        # Machines get one table: section, item, value.
        rows: list[tuple[str, str, str | int]] = [("store", k, v) for k, v in totals]
        rows += [(f"pairs by {name}", r.key, r.count) for name, group in groups for r in group]
        render_table(out, "Store", ["section", "item", "value"], rows, fmt)
        return
    render_table(out, "Store", ["item", "value"], totals, fmt)
    for name, group in groups:
        render_table(
            out, f"Pairs by {name}", [name, "pairs"], [(r.key, r.count) for r in group], fmt
        )


@app.command()
def runs(
    ctx: typer.Context,
    format: Annotated[str, format_option()] = TableFormat.TABLE.value,
) -> None:
    """The provenance log: every stage run with its config, signature, times and counts."""
    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        store = open_store(state_of(ctx))
        with store:
            records = store.runs()
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in records) + "]", markup=False)
        return
    rows = [
        (
            r.id,
            r.stage,
            r.status,
            r.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            f"{(r.finished_at - r.started_at).total_seconds():.2f}" if r.finished_at else "",
            ", ".join(f"{k.replace('_added', '')} {v}" for k, v in r.counts.items() if v),
            r.signature,
        )
        for r in records
    ]
    columns = ["run", "stage", "status", "started (UTC)", "seconds", "counts", "signature"]
    render_table(out, "Runs", columns, rows, fmt)


@app.command()
def schemas(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the schemas to.")] = Path(
        "schemas"
    ),
) -> None:
    """Write the JSON Schema of every interchange file (generated from the models)."""
    from nlibuild.schemas import write_schemas

    written = write_schemas(out_dir)
    out.print(f"Wrote {len(written)} schemas to {out_dir}", markup=False)


def main() -> None:
    """Entry point of the `nlibuild` script."""
    # Keep `--help` fast and quiet: heavy imports live inside the commands.
    os.environ.setdefault("POLARS_SKIP_CPU_CHECK", "1")
    app(prog_name="nlibuild")
