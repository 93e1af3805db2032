"""The tables of `nlibuild score report` (and of the report page's scores section), in two
layouts, from one `ScoreReport`:

- `long` (`report_tables`): one row a group x language (x rule), fractions with four
  decimals, every section, as scripts and spreadsheets read it;
- `paper` (`paper_tables`): the papers' own shape, ready to paste into a paper: models and
  modes as rows, languages as columns, percentages with one decimal (Keung et al. Tables 2
  and 5, XTREME's per-language tables with their average) and Table 3's shares with two.

Both are `NamedTable`s, so every format (terminal, md, latex, csv, `--out DIR`) renders them
the same way; `report_object` is `--format json`: every section in one object.

A sweep adds its configurations and the pick (`configuration_tables`, the paper layout's
`configurations_paper_table`, json's `picked_configurations`) after the accuracy table; a
report without a sweep has none of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from nlibuild.models import (
    INTERVAL_COVERS,
    TARGET_DEV_HEADER,
    ConfigurationChoice,
    ConfigurationRow,
    GapRow,
    ScoreReport,
)
from nlibuild.render import Cell, NamedTable

PERCENT = 100.0
"""The papers print accuracy in percent (Keung et al. "82.8", XTREME "65.4")."""


def report_tables(report: ScoreReport) -> list[NamedTable]:
    """One table a section, accuracy by checkpoint selection first (the main one); the
    columns are snake_case keys, which `render.HEADERS` shows as the papers' headers."""
    rule = report.select.value
    tables = [
        NamedTable("score-accuracy", "Test accuracy by checkpoint selection, mean over the "
         f"seeds; low, high: {report.ci:g} bootstrap interval over the {INTERVAL_COVERS}",
         ["group", "lang", "select", "accuracy", "low", "high", "seeds"],
         [(r.group, r.lang, r.select, r.accuracy, r.low, r.high, r.seeds)
          for r in report.accuracy]),
        *configuration_tables(report),
        NamedTable("score-gaps", "Keung et al. Table 5: test accuracy of the best run over the "
         "seeds, each run's checkpoint selected on En dev or on target dev (Keung's oracle), "
         "and the best test checkpoint of any run (test-ceiling, not Keung's)",
         _GAP_COLUMNS, _gap_cells(report.gaps)),
        NamedTable("score-gaps-mean", "Table 5's columns as means over the seeds",
         _GAP_COLUMNS, _gap_cells(report.gaps_mean)),
        NamedTable("score-spread", "Keung et al. Table 2: across the seeds, each at its best "
         "En-dev checkpoint: the training language's dev accuracy, the others' test accuracy",
         ["group", "lang", "split", "seeds", "min", "max", "spread"],
         [(r.group, r.lang, r.split, r.seeds, r.min, r.max, r.spread) for r in report.spread]),
        NamedTable("score-agreement", "Directional agreement with target test (Keung et al. "
         f"Table 3), over checkpoint pairs whose target test changed by "
         f"{report.min_change * PERCENT:g} points or more", ["group", "lang",
         "checkpoint_pairs", "sampled", "en_dev_agrees", "target_dev_agrees"],
         [(r.group, r.lang, r.pairs, r.sampled, r.en_dev, r.target_dev)
          for r in report.agreement]),
        NamedTable("score-transfer", f"Cross-lingual transfer gap (XTREME), {rule} selection",
         ["group", "select", "train_lang", "train_accuracy", "others_mean", "gap"],
         [(r.group, r.select, r.train_lang, r.train_accuracy, r.others_mean, r.gap)
          for r in report.transfer]),
        NamedTable("score-slices", f"Test accuracy per slice at the {rule} checkpoint (OCNLI "
         "Table 7 style)", ["group", "lang", "slice", "value", "accuracy", "rows"],
         [(r.group, r.lang, r.slice, r.value, r.accuracy, r.total) for r in report.slices]),
        NamedTable("score-baselines", "Baselines (score baselines): the floor",
         ["baseline", "lang", "accuracy", "rows"],
         [(r.baseline, r.lang, r.accuracy, r.total) for r in report.baselines]),
    ]  # fmt: skip
    return tables + _seed_tables(report)


_GAP_COLUMNS = ["group", "lang", "seeds", "en_dev", "target_dev", "target_dev_gain",
                "test_ceiling", "test_ceiling_gain"]  # fmt: skip


def _gap_cells(rows: Sequence[GapRow]) -> list[tuple[Cell, ...]]:
    return [(r.group, r.lang, r.seeds, r.en_dev, r.target_dev, r.target_dev_gain,
             r.test_ceiling, r.test_ceiling_gain) for r in rows]  # fmt: skip


def _seed_tables(report: ScoreReport) -> list[NamedTable]:
    """The per-seed and per-checkpoint tables, when the report holds them (`--per-seed`,
    `--per-checkpoint`)."""
    tables = []
    if report.per_seed:
        tables.append(NamedTable(
            "score-per-seed", "Each seed: the checkpoint every rule picks per target "
            "language, and the accuracies there", ["group", "seed", "job", "lang", "select",
            "checkpoint", "en_dev_accuracy", "target_dev_accuracy", "test_accuracy"],
            [(r.group, r.seed, r.job, r.lang, r.select, r.checkpoint, r.en_dev_accuracy,
              r.target_dev_accuracy, r.test_accuracy) for r in report.per_seed]))  # fmt: skip
    if report.checkpoints:
        tables.append(NamedTable(
            "score-checkpoints", "Each seed: dev and test accuracy per language at every "
            "checkpoint (the training language's dev is En dev): the report page's "
            "accuracy-by-checkpoint chart", ["group", "seed", "job", "lang", "checkpoint",
            "step", "epoch", "dev_accuracy", "test_accuracy"],
            [(r.group, r.seed, r.job, r.lang, r.checkpoint, r.step, r.epoch, r.dev_accuracy,
              r.test_accuracy) for r in report.checkpoints]))  # fmt: skip
    return tables


def _picks(row: ConfigurationRow, report: ScoreReport) -> str:
    """What picked a configuration: `en-dev` (rank 1), `en-dev runner-up` (rank 2), and
    `target-dev de, fr`: the languages whose best mean target dev it has."""
    langs = [
        r.lang
        for r in report.configuration_target_dev
        if (r.group, r.target_dev_configuration) == (row.group, row.configuration)
    ]
    parts = {1: ["en-dev"], 2: ["en-dev runner-up"]}.get(row.rank or 0, [])
    return "; ".join(parts + ([f"target-dev {', '.join(langs)}"] if langs else []))


def configuration_tables(report: ScoreReport) -> list[NamedTable]:
    """A sweep's configurations with their mean En dev and what picked them, and per target
    language both picks with the test accuracy each gives; none without a sweep."""
    if not report.configurations:
        return []
    every = report.configuration is ConfigurationChoice.ALL
    shown = "the tables show every configuration" if every else "the tables show the pick's jobs"
    return [
        NamedTable("score-configurations", "The sweep's configurations: mean En dev over the "
         "seeds, each seed at its En-dev checkpoint; picked: the best mean En dev (XTREME "
         "tunes on English dev) and the runner-up, and where its mean target dev is the best "
         f"(Keung's oracle); {shown}",
         ["group", "configuration", "seeds", "mean_en_dev", "rank", "picked"],
         [(r.group, r.configuration, r.seeds, r.en_dev, r.rank, _picks(r, report))
          for r in report.configurations]),
        NamedTable("score-configuration-picks", "Per target language: the configuration "
         "picked on En dev and the one with the best mean target dev (Keung's oracle), and "
         "the mean test accuracy each gives, at each seed's En-dev resp. target-dev checkpoint",
         ["group", "lang", "en_dev_configuration", "en_dev_test", "target_dev_configuration",
          "mean_target_dev", "target_dev_test", "target_dev_gain"],
         [(r.group, r.lang, r.en_dev_configuration, r.en_dev_test, r.target_dev_configuration,
           r.target_dev, r.target_dev_test, r.target_dev_gain)
          for r in report.configuration_target_dev]),
    ]  # fmt: skip


# --- the paper layout ----------------------------------------------------------------------


def _training_langs(report: ScoreReport) -> dict[str, str]:
    """Each group's training language: the one whose dev split Table 2 reads."""
    return {r.group: r.lang for r in report.spread if r.split == "dev"}


def _training_lang(report: ScoreReport) -> str | None:
    """The training language of the report's first group."""
    return next(iter(_training_langs(report).values()), None)


def _ordered_langs(report: ScoreReport, langs: Iterable[str]) -> list[str]:
    """The training language first, then the others by code (the papers' order: En, then
    the targets)."""
    source = _training_lang(report)
    return sorted(set(langs), key=lambda lang: (lang != source, lang))


def accuracy_paper_table(report: ScoreReport, notes: list[str]) -> NamedTable:
    """XTREME's per-language shape: a row a model group (mean over seeds under `--select`)
    and a row a baseline, a column a language, and `avg`. XTREME's per-language results
    tables (its appendix; Table 2 has the "Avg" over tasks) end each model's row with the
    unweighted mean over all the task's languages, English included; the mean without
    English is another figure, the transfer gap's ("the average of all languages excluding
    English", Figure 1), which `score-transfer` gives. A row missing a language of the
    table gets no avg, as an average over fewer languages is not the same figure."""
    rule = report.select.value
    cells: dict[str, dict[str, float]] = {}
    for row in report.accuracy:
        if row.select == rule:
            cells.setdefault(row.group, {})[row.lang] = row.accuracy * PERCENT
    for baseline in report.baselines:
        cells.setdefault(baseline.baseline, {})[baseline.lang] = baseline.accuracy * PERCENT
    langs = _ordered_langs(report, (lang for row in cells.values() for lang in row))
    rows: list[tuple[Cell, ...]] = []
    for model, found in cells.items():
        average = sum(found.values()) / len(found) if len(found) == len(langs) else None
        if average is None:
            missing = ", ".join(lang for lang in langs if lang not in found)
            notes.append(f"paper layout: {model} has no test accuracy in {missing}: no avg")
        rows.append((model, *(found.get(lang) for lang in langs), average))
    title = (f"Test accuracy (%), {rule} selection, mean over the seeds; avg: the mean over "
             "all languages (XTREME)")  # fmt: skip
    return NamedTable("score-paper-accuracy", title, ["model", *langs, "avg"], rows, decimals=1)


Grid = dict[tuple[str, str], dict[str, float | None]]
"""(model, row label) -> column -> value: a paper table's body, rows in insertion order."""


def _grid_rows(grid: Grid, columns: Sequence[str], scale: float) -> list[tuple[Cell, ...]]:
    """The rows of `grid`, a cell a column (empty where the row has no value), times `scale`."""
    rows: list[tuple[Cell, ...]] = []
    for (model, label), values in grid.items():
        cells = [values.get(column) for column in columns]
        rows.append((model, label, *(None if c is None else c * scale for c in cells)))
    return rows


def spread_paper_table(report: ScoreReport) -> NamedTable:
    """Keung et al. Table 2's shape: per group the rows max, min and max - min (their "∆"),
    a column a language; the training language's column is its dev accuracy, named
    `<lang>_dev` (the paper's "Dev En"), the others' their test accuracy."""
    grid: Grid = {}
    for r in report.spread:
        column = f"{r.lang}_dev" if r.split == "dev" else r.lang
        for label, value in (("max", r.max), ("min", r.min), ("max - min", r.spread)):
            grid.setdefault((r.group, label), {})[column] = value
    langs = _ordered_langs(report, (r.lang for r in report.spread))
    dev = {r.lang for r in report.spread if r.split == "dev"}
    test = {r.lang for r in report.spread if r.split == "test"}
    columns = [c for lang in langs for c in ([f"{lang}_dev"] if lang in dev else [])
               + ([lang] if lang in test else [])]  # fmt: skip
    title = ("Keung et al. Table 2: accuracy (%) across the seeds, each at its best En-dev "
             "checkpoint (the training language: dev; the others: test)")  # fmt: skip
    rows = _grid_rows(grid, columns, PERCENT)
    return NamedTable("score-paper-spread", title, ["model", "statistic", *columns], rows, 1)


def gaps_paper_table(report: ScoreReport) -> NamedTable:
    """Keung et al. Table 5's shape: per group the rows "Target dev (oracle)" and "Best En
    dev" (each the best run over the seeds) and their difference, a column a target
    language."""
    grid: Grid = {}
    for r in report.gaps:
        for label, value in ((TARGET_DEV_HEADER, r.target_dev), ("best en-dev", r.en_dev),
                             ("difference", r.target_dev_gain)):  # fmt: skip
            grid.setdefault((r.group, label), {})[r.lang] = value
    langs = _ordered_langs(report, (r.lang for r in report.gaps))
    title = ("Keung et al. Table 5: accuracy (%) of the best run over the seeds, checkpoints "
             "selected on target dev (Keung's oracle) or on En dev")  # fmt: skip
    rows = _grid_rows(grid, langs, PERCENT)
    return NamedTable("score-paper-gaps", title, ["model", "selection", *langs], rows, 1)


def agreement_paper_table(report: ScoreReport) -> NamedTable:
    """Keung et al. Table 3's shape: per group the rows "en dev" (their "English") and
    "target dev" (their "Target"), a column a language, shares with two decimals; the
    training language's target-dev cell is empty ("–" in the paper: there it is En dev)."""
    source = _training_langs(report)
    grid: Grid = {}
    for r in report.agreement:
        grid.setdefault((r.group, "en dev"), {})[r.lang] = r.en_dev
        target = None if r.lang == source.get(r.group) else r.target_dev
        grid.setdefault((r.group, "target dev"), {})[r.lang] = target
    langs = _ordered_langs(report, (r.lang for r in report.agreement))
    title = ("Keung et al. Table 3: how often dev accuracy moved the way target test did, "
             "over pairs of checkpoints whose target test accuracy changed by "
             f"{report.min_change * PERCENT:g} points or more")  # fmt: skip
    rows = _grid_rows(grid, langs, 1.0)
    return NamedTable("score-paper-agreement", title, ["model", "dev", *langs], rows, 2)


def configurations_paper_table(report: ScoreReport) -> list[NamedTable]:
    """A sweep's configurations as rows, in percent: the mean En dev the pick is made on
    (the `<lang>_dev` column of the training language), each target's mean target dev, and
    what picked it; none without a sweep."""
    if not report.configurations:
        return []
    sources = {r.train_lang for r in report.configurations}
    targets = _ordered_langs(report, (lang for r in report.configurations for lang in r.target_dev))
    columns = [f"{lang}_dev" for lang in sorted(sources)] + [f"{lang}_dev" for lang in targets]
    rows: list[tuple[Cell, ...]] = []
    for r in report.configurations:
        values: dict[str, float | None] = {f"{lang}_dev": v for lang, v in r.target_dev.items()}
        values[f"{r.train_lang}_dev"] = r.en_dev
        cells = [None if (v := values.get(c)) is None else v * PERCENT for c in columns]
        rows.append((r.group, r.configuration, r.seeds, *cells, _picks(r, report)))
    title = ("The sweep's configurations: mean dev accuracy (%) over the seeds, the training "
             "language's at each seed's En-dev checkpoint (what XTREME tunes on), the targets' "
             "at each seed's target-dev checkpoint (Keung's oracle)")  # fmt: skip
    header = ["model", "configuration", "seeds", *columns, "picked"]
    return [NamedTable("score-paper-configurations", title, header, rows, decimals=1)]


def paper_tables(report: ScoreReport) -> tuple[list[NamedTable], list[str]]:
    """The paper layout's tables (the per-seed and per-checkpoint tables after them when
    asked) and what they left out."""
    notes: list[str] = []
    tables = [accuracy_paper_table(report, notes), *configurations_paper_table(report),
              spread_paper_table(report), gaps_paper_table(report),
              agreement_paper_table(report)]  # fmt: skip
    return tables + _seed_tables(report), notes


# --- json ----------------------------------------------------------------------------------


def section_key(table: NamedTable) -> str:
    """A table's key in the json object: its name without `score-`, in snake_case."""
    return table.name.removeprefix("score-").replace("-", "_")


def report_object(
    report: ScoreReport, tables: Sequence[NamedTable], notes: Sequence[str]
) -> dict[str, object]:
    """`--format json`: every section in one object, each a list of records keyed as the
    csv columns; the interval's level and scope beside them when a table shows it."""
    found: dict[str, object] = {"run_id": report.run_id, "jobs": report.jobs,
                                "select": report.select.value}  # fmt: skip
    if any(table.name == "score-accuracy" for table in tables):
        found["interval"] = {"level": report.ci, "resamples": report.resamples,
                             "covers": INTERVAL_COVERS}  # fmt: skip
    if report.configurations:
        found["configuration"] = report.configuration.value
        found["picked_configurations"] = picked_configurations(report)
    for table in tables:
        found[section_key(table)] = [dict(zip(table.columns, row, strict=True))
                                     for row in table.rows]  # fmt: skip
    found["notes"] = list(notes)
    return found


def picked_configurations(report: ScoreReport) -> list[dict[str, object]]:
    """Per swept model and mode, the configuration picked on En dev and the runner-up, each
    with its settings, its mean En dev and seeds (None where there is none)."""

    def described(row: ConfigurationRow | None) -> dict[str, object] | None:
        if row is None:
            return None
        return {"configuration": row.configuration, "settings": row.settings,
                "mean_en_dev": row.en_dev, "seeds": row.seeds}  # fmt: skip

    groups = dict.fromkeys(r.group for r in report.configurations)
    by_rank = {(r.group, r.rank): r for r in report.configurations if r.rank in (1, 2)}
    return [{"group": group, "picked": described(by_rank.get((group, 1))),
             "runner_up": described(by_rank.get((group, 2)))} for group in groups]  # fmt: skip
