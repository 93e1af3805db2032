"""The Python API: a store as a `Corpus` object, one method per stage, for notebooks and
scripts.

    corpus = nlibuild.create("corpus.db", preset="mnli")
    corpus.import_corpus(path="dev.jsonl", format="mnli")
    corpus.aggregate_labels(min_agree=3)
    corpus.stats("agreement")            # a polars DataFrame

A stage's method is its command with `-` and spaces as `_` (`StageName.method`:
`elicit create` is `elicit_create`, `import` is `import_corpus`); it takes the fields of the
stage's settings model as keyword arguments and runs the stage through `invoke`, the path
every front end takes: the fields given, else the store's preset, else the model's
defaults; validated as the CLI validates them, with the CLI's `Error:` text as the
`NlibuildError`'s message; recorded as one run. It returns the stage's result model, and
issues each line the CLI prints as `Warning: ...` as a `StageWarning`.

A `Corpus` holds the store's path, not a connection: each call opens the store and closes it
when done, as each CLI command does. So a notebook holds no SQLite handle (nor its write
lock) between cells: the CLI, `nlibuild serve` or another notebook can use the store in the
meantime, and every call sees their latest runs. Opening costs a connection and the schema
check, a millisecond or two, against stages that take far longer. `close()` (or leaving a
`with nlibuild.open(path) as corpus:` block) ends the object's use: a later call is a
`StoreError`.

`init` is `nlibuild.create(path, ...)`, which returns the new store's `Corpus`; the
`check-repair` stage, which has no command of its own (`check --repair`), is
`check(repair=True)`.
"""

from __future__ import annotations

import os
import tempfile
import typing
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl
from pydantic import TypeAdapter, ValidationError

from nlibuild.core import registry
from nlibuild.core.registry import (
    AGGREGATE_LABELS,
    BIAS_HYPOTHESIS_ONLY,
    CHECK_REPAIR,
    ELICIT_CREATE,
    ELICIT_EXPORT,
    ELICIT_IMPORT,
    EXPORT,
    IMPORT,
    INGEST,
    INIT,
    RELABEL_CREATE,
    RELABEL_EXPORT,
    RELABEL_IMPORT,
    SAMPLE,
    SCORE_BASELINES,
    SCORE_EXPORT_MODEL,
    SCORE_IMPORT,
    SCORE_PLAN,
    SCORE_TRAIN,
    SPLIT,
    TRANSLATE_EXPORT,
    TRANSLATE_IMPORT,
    TRANSLATE_QA,
)
from nlibuild.core.stage import Stage, StageName
from nlibuild.errors import ConfigError, StoreError
from nlibuild.invoke import Outcome, invoke_at, option_problem
from nlibuild.labelling.labels import GOLD
from nlibuild.models import (
    AggregateResult,
    CheckResult,
    ElicitCreateResult,
    ElicitExportResult,
    ElicitImportResult,
    ExportFormat,
    ExportResult,
    HypothesisOnlyResult,
    ImportResult,
    IngestResult,
    RelabelCreateResult,
    RelabelExportResult,
    RelabelImportResult,
    RunRecord,
    SampleResult,
    ScoreExportModelResult,
    ScorePlanResult,
    ScoreResult,
    SplitResult,
    StoreSummary,
    TranslateExportResult,
    TranslateImportResult,
    TranslateQaResult,
)
from nlibuild.options import split_list
from nlibuild.queries.pairs import export_rows
from nlibuild.stats import (
    StatsOptions,
    StatsTable,
    json_records,
    refuse_other_options,
    stats_table,
)
from nlibuild.store import Store

if TYPE_CHECKING:
    from datasets import DatasetDict

ResultT = TypeVar("ResultT")

StorePath = str | os.PathLike[str]

HF_EXTRA = "install the hf extra: pip install 'nlibuild[hf]'"


class StageWarning(UserWarning):
    """A stage's `Warning:` line (the CLI prints it on stderr): a rule applied to votes it
    was not written for, say. The run was recorded all the same."""


def open(path: StorePath) -> Corpus:
    """The store at `path`, as a `Corpus`: a `StoreError` (the CLI's message) when there is
    no store there, or it is not one. An older store is migrated, as any command does."""
    corpus = Corpus(Path(path))
    with corpus._store():
        pass
    return corpus


def create(path: StorePath, **settings: Any) -> Corpus:
    """`nlibuild init`: a new store at `path`, with the settings of `InitConfig` (`lang`,
    `preset`: a preset's name or a .toml path, `extra_labels`), as a `Corpus`."""
    db = Path(path)
    preset = settings.get("preset")
    if isinstance(preset, os.PathLike):  # a preset file given as a Path
        settings = {**settings, "preset": os.fspath(preset)}
    _invoke(registry.stage(INIT), db, settings)
    return Corpus(db)


class Corpus:
    """A store, by its path; one method per stage and the reading commands (see the module)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._closed = False

    def __repr__(self) -> str:
        state = ", closed" if self._closed else ""
        return f"Corpus({str(self.path)!r}{state})"

    def close(self) -> None:
        """End this object's use (it holds no connection between calls: nothing to free)."""
        self._closed = True

    def __enter__(self) -> Corpus:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _db(self) -> Path:
        if self._closed:
            raise StoreError(f"{self.path}: this Corpus is closed; nlibuild.open it again")
        return self.path

    @contextmanager
    def _store(self) -> Iterator[Store]:
        """The store, open for one call."""
        with Store.open(self._db()) as store:
            yield store

    def _run(
        self,
        name: StageName,
        result: type[ResultT],
        settings: Mapping[str, Any],
        stage: Stage[Any, Any] | None = None,
    ) -> ResultT:
        """Run the stage `name` (or `stage`, a variant of it: score train's resuming run)
        as the module says, and return its result, a `result`."""
        outcome = _invoke(stage or registry.stage(name), self._db(), settings)
        assert isinstance(outcome.result, result), (name.name, type(outcome.result))
        return outcome.result

    # --- the corpus ---------------------------------------------------------------------

    def import_corpus(self, **settings: Any) -> ImportResult:
        """`nlibuild import`: settings of `ImportConfig` (`path`, `format`, `genre`, ...)."""
        return self._run(IMPORT, ImportResult, settings)

    def export(self, **settings: Any) -> ExportResult:
        """`nlibuild export`: settings of `ExportConfig` (`format`, `out`, `label_order`, ...)."""
        return self._run(EXPORT, ExportResult, settings)

    def ingest(self, **settings: Any) -> IngestResult:
        """`nlibuild ingest`: settings of `IngestConfig` (`paths`, `genre`, ...)."""
        return self._run(INGEST, IngestResult, settings)

    def sample(self, **settings: Any) -> SampleResult:
        """`nlibuild sample`: settings of `SampleConfig` (`genres`, `n`, `seed`, ...);
        `--per-genre N` is `all_genres=True, n=N`."""
        return self._run(SAMPLE, SampleResult, settings)

    def aggregate_labels(self, **settings: Any) -> AggregateResult:
        """`nlibuild aggregate-labels`: settings of `AggregateConfig` (`min_agree`,
        `method`, ...)."""
        return self._run(AGGREGATE_LABELS, AggregateResult, settings)

    def split(self, **settings: Any) -> SplitResult:
        """`nlibuild split`: settings of `SplitConfig` (`dev`, `test`, `seed`, ...)."""
        return self._run(SPLIT, SplitResult, settings)

    def check(self, repair: bool = False) -> CheckResult:
        """`nlibuild check`: the hot path recomputed from the votes, every difference found
        (read-only); with `repair`, the `check-repair` run that rewrites the differing
        `pair_labels` rows (`check --repair`). The result's `advice` is what to do about the
        differences, the line the CLI prints as its `Error:` (None when every check agrees)."""
        if repair:
            return self._run(CHECK_REPAIR, CheckResult, {"repair": True})
        from nlibuild.stages.check import check

        with self._store() as store:
            return check(store)

    # --- elicitation and relabelling ------------------------------------------------------

    def elicit_create(self, **settings: Any) -> ElicitCreateResult:
        """`nlibuild elicit create`: settings of `ElicitCreateConfig`."""
        return self._run(ELICIT_CREATE, ElicitCreateResult, settings)

    def elicit_export(self, **settings: Any) -> ElicitExportResult:
        """`nlibuild elicit export`: settings of `ElicitExportConfig`."""
        return self._run(ELICIT_EXPORT, ElicitExportResult, settings)

    def elicit_import(self, **settings: Any) -> ElicitImportResult:
        """`nlibuild elicit import`: settings of `ElicitImportConfig`."""
        return self._run(ELICIT_IMPORT, ElicitImportResult, settings)

    def relabel_create(self, **settings: Any) -> RelabelCreateResult:
        """`nlibuild relabel create`: settings of `RelabelCreateConfig`."""
        return self._run(RELABEL_CREATE, RelabelCreateResult, settings)

    def relabel_export(self, **settings: Any) -> RelabelExportResult:
        """`nlibuild relabel export`: settings of `RelabelExportConfig`."""
        return self._run(RELABEL_EXPORT, RelabelExportResult, settings)

    def relabel_import(self, **settings: Any) -> RelabelImportResult:
        """`nlibuild relabel import`: settings of `RelabelImportConfig`."""
        return self._run(RELABEL_IMPORT, RelabelImportResult, settings)

    # --- translation, artifacts, scoring --------------------------------------------------

    def translate_export(self, **settings: Any) -> TranslateExportResult:
        """`nlibuild translate export`: settings of `TranslateExportConfig`."""
        return self._run(TRANSLATE_EXPORT, TranslateExportResult, settings)

    def translate_import(self, **settings: Any) -> TranslateImportResult:
        """`nlibuild translate import`: settings of `TranslateImportConfig`."""
        return self._run(TRANSLATE_IMPORT, TranslateImportResult, settings)

    def translate_qa(self, **settings: Any) -> TranslateQaResult:
        """`nlibuild translate qa`: settings of `TranslateQaConfig`."""
        return self._run(TRANSLATE_QA, TranslateQaResult, settings)

    def bias_hypothesis_only(self, **settings: Any) -> HypothesisOnlyResult:
        """`nlibuild bias hypothesis-only`: settings of `HypothesisOnlyConfig`."""
        return self._run(BIAS_HYPOTHESIS_ONLY, HypothesisOnlyResult, settings)

    def score_train(self, *, resume: bool = False, **settings: Any) -> ScoreResult:
        """`nlibuild score train` (needs the score extra): settings of `ScoreTrainConfig`;
        `resume=True` is `--resume`: the interrupted run with the same settings goes on."""
        from nlibuild.stages.score_train import RESUMING_STAGE

        return self._run(SCORE_TRAIN, ScoreResult, settings, RESUMING_STAGE if resume else None)

    def score_plan(self, **settings: Any) -> ScorePlanResult:
        """`nlibuild score plan`: settings of `ScorePlanConfig`."""
        return self._run(SCORE_PLAN, ScorePlanResult, settings)

    def score_import(self, **settings: Any) -> ScoreResult:
        """`nlibuild score import`: settings of `ScoreImportConfig`."""
        return self._run(SCORE_IMPORT, ScoreResult, settings)

    def score_baselines(self, **settings: Any) -> ScoreResult:
        """`nlibuild score baselines`: settings of `ScoreBaselinesConfig`."""
        return self._run(SCORE_BASELINES, ScoreResult, settings)

    def score_export_model(self, **settings: Any) -> ScoreExportModelResult:
        """`nlibuild score export-model`: settings of `ScoreExportModelConfig`."""
        return self._run(SCORE_EXPORT_MODEL, ScoreExportModelResult, settings)

    # --- reading ----------------------------------------------------------------------------

    def info(self) -> StoreSummary:
        """`nlibuild info`: counts by genre, language, label and protocol; runs."""
        from nlibuild.stages.info import summarise

        with self._store() as store:
            return summarise(store)

    def runs(self) -> list[RunRecord]:
        """`nlibuild runs`: the provenance log, oldest first."""
        with self._store() as store:
            return store.runs()

    def stats(self, table: str, **options: Any) -> pl.DataFrame:
        """`nlibuild stats --table TABLE`: the rows `--format json` prints, one a frame row,
        the table's facts (what its title says, e.g. `threshold`, `max_overlap`, `ci`) as
        their first columns. `options` are the fields of `StatsOptions` the table takes (`ci=0.95`,
        `by=("genre", "protocol")` or `by="genre,protocol"`), refused as `stats` refuses
        them."""
        chosen = stats_table(table)
        with self._store() as store:
            settings = _stats_settings(chosen, options, store)
            result = chosen.compute(store, settings)
        return pl.DataFrame(json_records(chosen, result, settings), infer_schema_length=None)

    def stats_note(self, table: str, **options: Any) -> str | None:
        """The line `stats --table TABLE` prints on stderr after `Note: ` with these
        `options` (as `stats` takes them): what the numbers rest on that the rows do not
        show, e.g. the majority rule that gave gold to pairs without a stored one
        (agreement, annotators). None for a table without a note."""
        chosen = stats_table(table)
        with self._store() as store:
            settings = _stats_settings(chosen, options, store)
        return chosen.note(settings) if chosen.note is not None else None

    def pairs(self) -> pl.DataFrame:
        """Every pair in import order: its premise and hypothesis, genre, language,
        protocol, level, gold (as exports and `info` read it: the majority, else the
        released gold; `-` where the votes agree on none, null where there is none), and
        its votes with whose they are (the author's first)."""
        text, texts = pl.String(), pl.List(pl.String())
        schema: dict[str, pl.DataType] = {
            "id": text, "premise_id": text, "premise": text, "genre": text,
            "hypothesis": text, "lang": text, "protocol": text, "level": text, "gold": text,
            "labels": texts, "annotators": texts,
        }  # fmt: skip
        with self._store() as store:
            rows = [
                tuple(getattr(row, name) for name in schema) for row in export_rows(store, GOLD)
            ]
        return pl.DataFrame(rows, schema=schema, orient="row")

    def to_hf(self, **settings: Any) -> DatasetDict:
        """The corpus as a `datasets.DatasetDict` (needs the hf extra): `export --format hf`
        into a temporary folder, loaded into memory with `datasets.load_dataset`. `settings`
        are `ExportConfig`'s but `format` and `out` (`label_order`, `no_gold`, `langs`,
        `split`, `license`); the export is recorded as a run, as every export is."""
        try:
            import datasets
        except ImportError:
            raise ConfigError(f"Corpus.to_hf() needs the datasets package; {HF_EXTRA}") from None
        taken = sorted({"format", "out"} & set(settings))
        if taken:
            raise ConfigError(
                f"Corpus.to_hf() sets {' and '.join(taken)} itself (hf, a temporary folder); "
                "to write a file, call Corpus.export(format=..., out=...)"
            )
        with tempfile.TemporaryDirectory(prefix="nlibuild-hf-") as temporary:
            folder = Path(temporary) / "hf"
            self._run(EXPORT, ExportResult, {**settings, "format": ExportFormat.HF, "out": folder})
            return datasets.load_dataset(
                str(folder), cache_dir=str(Path(temporary) / "cache"), keep_in_memory=True
            )


def _invoke(stage: Stage[Any, Any], db: Path, settings: Mapping[str, Any]) -> Outcome[Any, Any]:
    """`invoke_at` of `stage`, its warnings issued as `StageWarning`s."""
    try:
        outcome = invoke_at(stage, db, **settings)
    except ValidationError as exc:  # a model a stage builds of its own: as the CLI words it
        raise option_problem(exc) from None
    for line in outcome.warnings:
        warnings.warn(line, StageWarning, stacklevel=4)
    return outcome


def _stats_settings(chosen: StatsTable[Any, Any], options: Mapping[str, Any], store: Store) -> Any:
    """The table's settings from keyword options, refused as `stats` refuses them."""
    refuse_other_options(chosen, options)
    return chosen.settings(_stats_options(options), store)


def _stats_options(options: Mapping[str, Any]) -> StatsOptions:
    """`StatsOptions` from keyword arguments: a list option given as text is split at
    commas as `stats` splits it (`by="genre,protocol"`), one path given alone is a list of
    one; types checked as the model checks its settings (`option ci: ...`)."""
    known = {f.name: f for f in fields(StatsOptions)}
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ConfigError(
            f"stats: no option {', '.join(unknown)} (its options: {', '.join(known)})"
        )
    hints = typing.get_type_hints(StatsOptions)
    given = dict(options)
    for name, value in options.items():
        if hints[name] == tuple[str, ...] and isinstance(value, str):
            given[name] = split_list([value])
        elif hints[name] == tuple[str, ...] and isinstance(value, list | tuple):
            given[name] = split_list([str(item) for item in value])
        elif hints[name] == tuple[Path, ...] and isinstance(value, str | os.PathLike):
            given[name] = (value,)
    try:
        return TypeAdapter(StatsOptions).validate_python(given)
    except ValidationError as exc:
        raise option_problem(exc) from None
