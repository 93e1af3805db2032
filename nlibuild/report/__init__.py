"""`nlibuild report`: the corpus's datasheet, one self-contained HTML page.

Gebru et al., "Datasheets for Datasets", ask a corpus to document its composition, its
collection process and its uses; this page is the part a store can say by itself:
composition (counts), collection (the provenance of every run), quality (agreement with
intervals, the elicitation subsets, lengths per language, the cue words of annotation
artifacts, translation checks) and, once scored, what models learn from it. Every number is
one of the `stats` tables' (`TABLE.compute`), so the page and `stats` never disagree; a
section whose data the store lacks says so and names the command that produces it.

The page has no script and loads nothing: CSS and the charts (SVG) are inline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nlibuild.core.progress import progress
from nlibuild.errors import NlibuildError, NoRoomError
from nlibuild.models import CuesResult, PmiConfig, ReportConfig, ScoreReport
from nlibuild.report import html as page
from nlibuild.report.tables import (
    agreement_columns,
    agreement_wide,
    gold_rows,
    informative_cue_rows,
    informative_groups,
)
from nlibuild.stats import StatsOptions, stats_tables
from nlibuild.store import Store

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Section = tuple[str, str, Callable[[Store, ReportConfig], str]]
"""(ID, title, the function that writes its body)"""


class Unavailable(Exception):
    """A section's data is not in the store; the message says why and what produces it."""


def _compute(name: str, store: Store, settings: Any) -> Any:
    return stats_tables()[name].compute(store, settings)


def _summary(store: Store, cfg: ReportConfig) -> str:
    from nlibuild.stages.info import summarise

    summary = summarise(store)
    counts = [
        ("premises", summary.premises), ("pairs", summary.pairs), ("votes", summary.votes),
        ("validated pairs (2+ votes)", summary.validated_pairs),
        ("translated units", summary.translations), ("runs", summary.runs),
    ]  # fmt: skip
    parts = [
        *(page.warning(words) for words in gold_warnings(store)),
        page.note(f"Language {summary.lang}; preset {summary.preset or '(none)'}; "
                  f"schema {summary.schema_version}."),
        page.table(["what", "count"], counts),
    ]  # fmt: skip
    counted_by = [
        ("Pairs by language", [(r.key, r.count) for r in summary.by_lang]),
        ("Pairs by genre", [(r.key, r.count) for r in summary.by_genre]),
        (f"Gold labels ({summary.gold_method})", gold_rows(summary.by_gold_label, summary.pairs)),
        ("Author labels", [(_label_cell(r.key), r.count) for r in summary.by_author_label]),
        ("Pairs by protocol", [(r.key, r.count) for r in summary.by_protocol]),
    ]
    for title, rows in counted_by:
        parts += [page.heading(title), page.table(["", "pairs"], rows)]
    return "".join(parts)


def _label_cell(key: str) -> object:
    from nlibuild.stages.info import NONE_KEY

    return key if key == NONE_KEY else page.Label(key)


def gold_warnings(store: Store) -> list[str]:
    """What `nlibuild check` finds wrong with the stored gold (stale: votes came after the
    aggregate-labels run that wrote it), as the page's warnings: every number that rests on
    gold is then out of date."""
    from collections import Counter

    from nlibuild.queries.pair_labels import (
        GOLD_DIFFERS,
        GOLD_MISSING,
        GOLD_STALE,
        pair_label_differences,
    )
    from nlibuild.render import counted

    found = Counter(kind for kind, _, _ in pair_label_differences(store))
    why = {GOLD_STALE: "is stale (votes came after the aggregate-labels run that wrote it)",
           GOLD_DIFFERS: "differs from the majority rule on its votes",
           GOLD_MISSING: "is missing (its row was restored after aggregate-labels)"}  # fmt: skip
    return [
        f"the gold label of {counted(found[kind], 'pair')} {reason}; `nlibuild check` lists "
        "them. Run `nlibuild aggregate-labels` and write the report again: the gold counts, "
        "agreement and cue words below rest on it."
        for kind, reason in why.items()
        if found[kind]
    ]


def _provenance(store: Store, cfg: ReportConfig) -> str:
    runs = store.runs()
    if not runs:
        raise Unavailable("no run recorded yet; `nlibuild import` or `ingest` records the first")
    return page.note("Every run that wrote to the store, with the signature of its "
                     "settings (inputs by content hash).") + page.table(
        ["run", "stage", "status", "started", "finished", "counts", "signature"],
        [(run.id, run.stage, run.status, page.Styled(run.started_at, "date"),
          page.Styled(run.finished_at, "date"), page.Styled(run.counts, "counts"),
          page.Styled(run.signature, "signature")) for run in runs],
    )  # fmt: skip


def _agreement(store: Store, cfg: ReportConfig) -> str:
    from nlibuild.report.plots import agreement_figure

    options = StatsOptions(by=("protocol", "level"), ci=cfg.ci, resamples=cfg.resamples,
                           seed=cfg.seed)  # fmt: skip
    table = stats_tables()["agreement"]
    settings = table.settings(options, store)
    rows = table.compute(store, settings)
    validated = [r for r in rows if r.statistic == "all labels agree" and r.group == "all"]
    if not validated or validated[0].denominator == 0:
        raise Unavailable(
            "no pair has two or more votes; `relabel import` adds validation "
            "votes (or import a corpus released with them)"
        )
    interval = (
        f"{cfg.ci:.0%} bootstrap intervals over pairs ({cfg.resamples} resamples)"
        if cfg.ci
        else "no intervals (give --ci 0.95 for bootstrap intervals)"
    )
    shown = [row for row in rows if row.group in informative_groups(rows)]
    return "".join([
        page.note(f"SNLI/OCNLI's agreement table, by protocol and level (a group holding "
                  f"every pair is left out: it is 'all' again); {interval}. Pairs and "
                  "validated pairs (2+ votes) are counts; shares give their count and "
                  "denominator."),
        page.figure(agreement_figure(shown), "Agreement by subset: 3+ of the labels agree, "
                    "and Fleiss' kappa (bars: the interval, where computed)."),
        page.table(agreement_columns(shown), agreement_wide(shown)),
        # The gold these rows compare with rests on a rule the table does not show.
        page.note(f"Note: {table.note(settings)}") if table.note else "",
    ])  # fmt: skip


def _subsets(store: Store, cfg: ReportConfig) -> str:
    table = stats_tables()["subsets"]
    rows = table.compute(store, table.settings(StatsOptions(), store))
    if not rows:
        raise Unavailable("no pairs; `elicit import` or `import` adds them")
    return page.note("OCNLI Table 3: per protocol, pairs and hypothesis lengths per level, "
                     "negators in contradictions, overlap with the premise.") + page.model_table(
        rows
    )  # fmt: skip


def _lengths(store: Store, cfg: ReportConfig) -> str:
    from nlibuild.report.plots import length_samples, lengths_figure

    rows = _compute("lengths", store, None)
    units = ", ".join(sorted({row.unit for row in rows}))
    if not rows:
        raise Unavailable("no pairs; `import` or `elicit import` adds them")
    return "".join([
        page.note("XNLI Table 2: mean premise and hypothesis length per language, in the "
                  f"unit of the column 'unit' ({units}); the histograms count the same unit."),
        page.model_table(rows),
        page.figure(lengths_figure(length_samples(store)),
                    f"Length distributions per language (human translations included), in "
                    f"{units}."),
    ])  # fmt: skip


SNLI_TRAIN_PAIRS = 550_152
"""The corpus Gururangan et al. (2018, section 3) set their add-100 smoothing on."""


def pmi_smoothing(pairs: int) -> float:
    """Add-k for the report's PMI: Gururangan et al.'s k = 100 on SNLI's 550,152 training
    pairs ("add-100 smoothing ... highlights word associations with higher counts"), scaled
    to this corpus's pairs, at least 1 (add-one). The same k on a corpus of a few hundred
    pairs drowns every count (PMI 0.00-0.03); scaled, it weighs the counts as it did there."""
    return min(100.0, max(1.0, 100.0 * pairs / SNLI_TRAIN_PAIRS))


def _cues(store: Store, cfg: ReportConfig) -> str:
    from nlibuild.report.plots import pmi_figure

    smoothing = cfg.smoothing if cfg.smoothing is not None else pmi_smoothing(store.count("pairs"))
    pmi = _compute("pmi", store, PmiConfig(top=cfg.top, min_count=cfg.min_count,
                                           smoothing=smoothing, per_label=True))  # fmt: skip
    cues = _compute("cues", store, stats_tables()["cues"].settings(StatsOptions(), store))
    if not pmi.rows and not cues.rows:
        raise Unavailable("no pair has a gold label; `aggregate-labels` or `import` gives them")
    how = ("given with --smoothing" if cfg.smoothing is not None else
           "Gururangan et al. 2018's add-100 scaled to this corpus's pairs (100 x pairs / "
           "550,152 SNLI training pairs, at least 1)")  # fmt: skip
    parts = [
        page.note(
            f"OCNLI Table 8: the top {cfg.top} hypothesis words per gold label by "
            f"PMI (words in {cfg.min_count}+ pairs; {pmi.units}); add-{smoothing:g} "
            f"smoothing of the counts, {how}; run {pmi.run_id}."
        )
    ]
    if pmi.rows:
        parts += [page.figure(pmi_figure(pmi), f"Cue words: PMI of word and label "
                              f"(add-{smoothing:g} smoothing)."),
                  page.model_table(pmi.rows)]  # fmt: skip
    else:
        parts.append(page.unavailable(f"no word is in {cfg.min_count} pairs or more; "
                                      "lower it with `report --min-count`"))  # fmt: skip
    return "".join([*parts, *_negators_and_overlap(cues)])


def _negators_and_overlap(cues: CuesResult) -> list[str]:
    """The cue table's chart and rows; the languages without a negator lexicon named (their
    negator column is empty, not 0%), and the unit overlap was counted in."""
    from nlibuild.report.plots import cues_figure

    units = ", ".join(sorted({row.overlap_unit for row in cues.rows})) or "words"
    parts = [page.heading("Negators and overlap per label")]
    if cues.unchecked_langs:
        langs = ", ".join(cues.unchecked_langs)
        missing = f"No negator lexicon for {langs}: negators are not counted there."
        parts.append(page.note(f"{missing} (`stats --table cues --negators FILE` adds one.)"))
    caption = (f"Per gold label: hypotheses over the overlap limit, overlap counted in "
               f"{units}" + (" and with a negator." if _has_negators(cues) else "."))  # fmt: skip
    shown = informative_cue_rows(cues.rows)
    if len(shown) < len(cues.rows):
        parts.append(page.note("A group holding every pair (of its language) is left out: "
                               "it is 'all' again."))  # fmt: skip
    return [*parts, page.figure(cues_figure(cues), caption), page.model_table(shown)]


def _has_negators(cues: CuesResult) -> bool:
    return any(row.negated is not None for row in cues.rows)


def _translation(store: Store, cfg: ReportConfig) -> str:
    rows = _compute("translation", store, None)
    if not rows:
        raise Unavailable("no translations; `translate export` and `translate import` add them")
    return page.note(
        "Units translated per language and kind, and the units each check of "
        "`translate import` flagged."
    ) + page.model_table(rows)


def _scores(store: Store, cfg: ReportConfig) -> str:
    from nlibuild.models import ScoreReportConfig
    from nlibuild.scores.score_report import score_report

    try:
        # Per seed and per checkpoint: the chart's numbers (the command gives them as tables).
        report = score_report(store, ScoreReportConfig(per_seed=True, per_checkpoint=True))
    except NlibuildError as exc:
        raise Unavailable(str(exc)) from None
    parts = [page.note(f"Score run {report.run_id}, {report.jobs} jobs (`score report`).")]
    parts += _score_tables(report)
    parts += [page.note(line) for line in report.notes]
    parts += _checkpoint_charts(report)
    return "".join([*parts, *_cartography(store)])


CHARTED_TABLES = ("score-per-seed", "score-checkpoints")
"""`score report`'s tables the page draws rather than prints: the accuracy-by-checkpoint
chart's lines and marks (a row a seed x language x checkpoint is no table to read)."""


def _score_tables(report: ScoreReport) -> list[str]:
    """The command's tables, under the command's titles."""
    from nlibuild.render import human_header
    from nlibuild.scores.score_tables import report_tables

    parts = []
    for table in report_tables(report):
        if table.rows and table.name not in CHARTED_TABLES:
            headers = [human_header(column) for column in table.columns]
            # "Scores: ": the corpus sections above have an agreement and gaps of their own.
            parts += [page.heading(f"Scores: {table.title}"), page.table(headers, table.rows)]
    return parts


def checkpoint_figures(report: ScoreReport) -> list[tuple[str, Figure]]:
    """Per model group, its accuracy-by-checkpoint chart (score_plots.py), drawn from the
    report's per-checkpoint rows and marked at its per-seed picks."""
    from nlibuild.report.score_plots import checkpoint_figure

    groups = dict.fromkeys(row.group for row in report.checkpoints)
    return [(group, checkpoint_figure([row for row in report.checkpoints if row.group == group],
                                      [pick for pick in report.per_seed if pick.group == group]))
            for group in groups]  # fmt: skip


def _checkpoint_charts(report: ScoreReport) -> list[str]:
    from nlibuild.report.score_plots import progress_unit

    if not report.checkpoints:
        return []
    unit = progress_unit(report.checkpoints)
    caption = (f"Each seed's dev (the language's own; the training language's is En dev) and "
               f"test accuracy at every checkpoint, a thin line a seed, over {unit}s; marked "
               "on the test line, each seed's checkpoint picked on En dev (circle) and on "
               "target dev (triangle, Keung's oracle). The numbers: `score report "
               "--per-checkpoint --per-seed`.")  # fmt: skip
    parts = []
    for group, chart in checkpoint_figures(report):
        parts += [page.heading(f"Scores: accuracy at every checkpoint, {group}"),
                  page.figure(chart, caption)]  # fmt: skip
    return parts


def _cartography(store: Store) -> list[str]:
    """One data map per mode: a hypothesis-only model's dynamics say nothing of the others'."""
    from nlibuild.models import CartographyConfig
    from nlibuild.report.plots import cartography_figure, cartography_points
    from nlibuild.scores.cartography import run_modes
    from nlibuild.stats.cartography import mapped

    try:
        modes = run_modes(store, None)
    except NlibuildError as exc:
        return [page.unavailable(f"cartography: {exc}")]
    if not modes:
        return [page.unavailable("cartography: no training job finished")]
    parts = []
    for mode in modes:
        heading = f"Scores: dataset cartography (Swayamdipta et al. 2020), {mode}"
        try:
            result = _compute("cartography", store, CartographyConfig(mode=mode))
        except NlibuildError as exc:
            parts += [page.heading(heading), page.unavailable(f"cartography: {exc}")]
            continue
        caption = f"Data map of {mapped(result)}: {result.pairs} pairs."
        chart = cartography_figure(cartography_points(store, result))
        parts += [page.heading(heading), page.figure(chart, caption)]
    return parts


def _model_loop(store: Store, cfg: ReportConfig) -> str:
    """ANLI's round table (`stats --table model-loop`), with the reasons a round's accuracy
    is missing and the table's note."""
    from nlibuild.render import human_header
    from nlibuild.stats.model_loop import COLUMNS, model_loop_cells, notes

    table = stats_tables()["model-loop"]
    settings = table.settings(StatsOptions(), store)
    result = table.compute(store, settings)  # no pair written with a model: Not available
    return "".join([
        page.note("The model in the writers' loop (ANLI, Nie et al. 2020): per round, the "
                  "model its pairs were written against and that model's accuracy on the "
                  "earlier rounds' test pairs, then per protocol and writer."),
        page.table([human_header(column) for column in COLUMNS],
                   [model_loop_cells(row) for row in result.rows]),
        *(page.note(line) for line in notes(result, settings)),
        page.note(f"Note: {table.note(settings)}") if table.note else "",
    ])  # fmt: skip


SECTIONS: list[Section] = [
    ("summary", "Summary counts", _summary),
    ("agreement", "Agreement", _agreement),
    ("subsets", "Elicitation subsets", _subsets),
    ("lengths", "Lengths per language", _lengths),
    ("cues", "Cue words", _cues),
    ("translation", "Translation quality", _translation),
    ("scores", "Scores", _scores),
    ("model-loop", "Model in the loop", _model_loop),
    # Last: the runs the report itself recorded (the cue tables) are part of the log.
    ("provenance", "Provenance", _provenance),
]


def report_html(store: Store, cfg: ReportConfig) -> str:
    """The page, every section in order; a section without data says why."""
    bodies = []
    with progress(f"report {store.path.name}", len(SECTIONS), "sections written") as advance:
        for key, title, write in SECTIONS:
            try:
                body = write(store, cfg)
            except NoRoomError:
                raise  # a table's run found the disk full: no section is worth the page then
            except (Unavailable, NlibuildError) as missing:
                # A store read-only to this user cannot record the cue tables' runs: that
                # section says so, the others are still worth the page.
                body = page.unavailable(str(missing))
            bodies.append((key, title, body))
            advance(1)
    name = store.path.name
    return page.page(f"Datasheet of {name}", store.meta().get("lang", "en"), bodies)


def write_report(store: Store, cfg: ReportConfig) -> int:
    """Write the page to `cfg.out` (atomically); its size in bytes."""
    from nlibuild.core.outputs import refuse_outputs_onto_store
    from nlibuild.formats.tabular import write_text

    refuse_outputs_onto_store(store.path, cfg)
    text = report_html(store, cfg)
    write_text(cfg.out, text)
    return len(text.encode("utf-8"))
