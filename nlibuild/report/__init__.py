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
from typing import Any

from nlibuild.core.progress import progress
from nlibuild.errors import NlibuildError, NoRoomError
from nlibuild.models import PmiConfig, ReportConfig
from nlibuild.report import html as page
from nlibuild.stats import StatsOptions, stats_tables
from nlibuild.store import Store

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
        page.note(f"Language {summary.lang}; preset {summary.preset or '(none)'}; "
                  f"schema {summary.schema_version}."),
        page.table(["what", "count"], counts),
    ]  # fmt: skip
    for title, rows in (
        ("Pairs by language", summary.by_lang), ("Pairs by genre", summary.by_genre),
        (f"Gold labels ({summary.gold_method})", summary.by_gold_label),
        ("Author labels", summary.by_author_label), ("Pairs by protocol", summary.by_protocol),
    ):  # fmt: skip
        parts += [page.heading(title), page.table(["", "pairs"], [(r.key, r.count) for r in rows])]
    return "".join(parts)


def _provenance(store: Store, cfg: ReportConfig) -> str:
    runs = store.runs()
    if not runs:
        raise Unavailable("no run recorded yet; `nlibuild import` or `ingest` records the first")
    return page.note("Every run that wrote to the store, with the signature of its "
                     "settings (inputs by content hash).") + page.table(
        ["run", "stage", "status", "started", "finished", "counts", "signature"],
        [(run.id, run.stage, run.status, run.started_at, run.finished_at, run.counts,
          run.signature) for run in runs],
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
    return "".join([
        page.note(f"SNLI/OCNLI's agreement table, by protocol and level; {interval}."),
        page.figure(agreement_figure(rows), "Agreement by subset: 3+ of the labels agree, "
                    "and Fleiss' kappa (bars: the interval, where computed)."),
        page.model_table(rows),
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
    if not rows:
        raise Unavailable("no pairs; `import` or `elicit import` adds them")
    return "".join([
        page.note("XNLI Table 2: mean premise and hypothesis length per language."),
        page.model_table(rows),
        page.figure(lengths_figure(length_samples(store)),
                    "Length distributions per language (human translations included)."),
    ])  # fmt: skip


def _cues(store: Store, cfg: ReportConfig) -> str:
    from nlibuild.report.plots import cues_figure, pmi_figure

    pmi = _compute("pmi", store, PmiConfig(top=cfg.top, min_count=cfg.min_count, per_label=True))
    cues = _compute("cues", store, stats_tables()["cues"].settings(StatsOptions(), store))
    if not pmi.rows and not cues.rows:
        raise Unavailable("no pair has a gold label; `aggregate-labels` or `import` gives them")
    parts = [
        page.note(
            f"OCNLI Table 8: the top {cfg.top} hypothesis words per gold label by "
            f"PMI (words in {cfg.min_count}+ pairs; {pmi.units}); run {pmi.run_id}."
        )
    ]
    if pmi.rows:
        parts += [page.figure(pmi_figure(pmi), "Cue words: PMI of word and label."),
                  page.model_table(pmi.rows)]  # fmt: skip
    else:
        parts.append(page.unavailable(f"no word is in {cfg.min_count} pairs or more; "
                                      "lower it with `report --min-count`"))  # fmt: skip
    parts += [page.heading("Negators and overlap per label"),
              page.figure(cues_figure(cues), "Per gold label: hypotheses with a negator, "
                          "and over the overlap limit."), page.model_table(cues.rows)]  # fmt: skip
    return "".join(parts)


def _translation(store: Store, cfg: ReportConfig) -> str:
    rows = _compute("translation", store, None)
    if not rows:
        raise Unavailable("no translations; `translate export` and `translate import` add them")
    return page.note(
        "Units translated per language and kind, and the units each check of "
        "`translate import` flagged."
    ) + page.model_table(rows)


def _scores(store: Store, cfg: ReportConfig) -> str:
    from nlibuild.models import CartographyConfig, ScoreReportConfig
    from nlibuild.render import human_header
    from nlibuild.report.plots import cartography_figure, cartography_points
    from nlibuild.scores.cartography import run_modes
    from nlibuild.scores.score_report import score_report
    from nlibuild.scores.score_tables import report_tables
    from nlibuild.stats.cartography import mapped

    try:
        report = score_report(store, ScoreReportConfig())
    except NlibuildError as exc:
        raise Unavailable(str(exc)) from None
    parts = [page.note(f"Score run {report.run_id}, {report.jobs} jobs (`score report`).")]
    for table in report_tables(report):  # the command's tables, under the command's titles
        if table.rows:
            headers = [human_header(column) for column in table.columns]
            parts += [page.heading(table.title), page.table(headers, table.rows)]
    parts += [page.note(line) for line in report.notes]
    try:
        modes = run_modes(store, None)
    except NlibuildError as exc:
        return "".join([*parts, page.unavailable(f"cartography: {exc}")])
    if not modes:
        return "".join([*parts, page.unavailable("cartography: no training job finished")])
    # One data map per mode: a hypothesis-only model's dynamics say nothing of the others'.
    for mode in modes:
        heading = f"Dataset cartography (Swayamdipta et al. 2020), {mode}"
        try:
            result = _compute("cartography", store, CartographyConfig(mode=mode))
        except NlibuildError as exc:
            parts += [page.heading(heading), page.unavailable(f"cartography: {exc}")]
            continue
        caption = f"Data map of {mapped(result)}: {result.pairs} pairs."
        chart = cartography_figure(cartography_points(store, result))
        parts += [page.heading(heading), page.figure(chart, caption)]
    return "".join(parts)


SECTIONS: list[Section] = [
    ("summary", "Summary counts", _summary),
    ("agreement", "Agreement", _agreement),
    ("subsets", "Elicitation subsets", _subsets),
    ("lengths", "Lengths per language", _lengths),
    ("cues", "Cue words", _cues),
    ("translation", "Translation quality", _translation),
    ("scores", "Scores", _scores),
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
