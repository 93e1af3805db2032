"""The Python API (nlibuild/api.py): `nlibuild.open`/`create` give a `Corpus`, one method
per stage, taking the stage's settings as keyword arguments and going the CLI's one path
(`invoke`): the same defaults and preset, the same refusals in the same words, the run
recorded, the stage's result model returned. `stats` gives the rows of `stats --format json`
as a polars frame.

The stages declare their `Stage` one by one (issue 25); a test of a stage that has not yet
is skipped, naming it, and runs once it has."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import (
    PROJECT,
    SAMPLE_MNLI,
    assert_user_error,
    copy_store,
    json_object,
    json_rows,
    new_store,
    ok,
    ok_result,
    query,
    read_jsonl,
    refused,
    run_cli,
    table_counts,
)
from polars.testing import assert_frame_equal
from pydantic import BaseModel

import nlibuild
from nlibuild.api import Corpus, StageWarning
from nlibuild.core.registry import (
    INIT,
    STAGES,
)
from nlibuild.core.stage import StageName
from nlibuild.errors import ConfigError, NlibuildError, StoreError
from nlibuild.models import AggregateResult, CheckResult


def cli_error(*args: Any) -> str:
    """The message of the CLI's one `Error:` line for `nlibuild ARGS...`."""
    return assert_user_error(run_cli(*args)).removeprefix("Error: ")


def last_run(corpus: Corpus) -> tuple[str, str]:
    run = corpus.runs()[-1]
    return run.stage, run.signature


COMMANDS = [info for info in STAGES if info.command and info is not INIT]
"""Every stage a user runs on a store: `init` is `nlibuild.create`."""


# --- one method per stage ---------------------------------------------------------------


def test_every_stage_with_a_command_has_its_corpus_method() -> None:
    for info in COMMANDS:
        method = getattr(Corpus, info.method, None)
        assert callable(method), f"Corpus has no {info.method} for `{' '.join(info.command)}`"
        returned = typing.get_type_hints(method)["return"]
        assert issubclass(returned, BaseModel), (info.method, returned)
    assert callable(nlibuild.create)  # init
    assert typing.get_type_hints(Corpus.check)["return"] is CheckResult  # check-repair


@pytest.mark.parametrize("info", COMMANDS, ids=lambda info: info.method)
def test_each_method_runs_its_own_stage(info: StageName, sample_db: Path) -> None:
    with pytest.raises(ConfigError, match=rf"^{info.name}: no setting no_such_setting \("):
        getattr(nlibuild.open(sample_db), info.method)(no_such_setting=1)


def test_the_names_load_lazily_and_the_old_ones_still_work() -> None:
    code = (
        "import sys, nlibuild\n"
        "assert 'nlibuild.api' not in sys.modules and 'polars' not in sys.modules\n"
        "assert nlibuild.open.__module__ == 'nlibuild.api'\n"
        "assert nlibuild.Corpus is sys.modules['nlibuild.api'].Corpus\n"
        "assert callable(nlibuild.create) and callable(nlibuild.import_corpus)\n"
        "assert nlibuild.Store and nlibuild.summarise\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PROJECT)


# --- aggregate-labels through the API, as the CLI runs it -------------------------------


def test_a_stage_gives_its_result_model_and_records_the_run_the_cli_records(
    sample_db: Path, tmp_path: Path
) -> None:
    by_cli = copy_store(sample_db, tmp_path / "cli.db")
    result = nlibuild.open(sample_db).aggregate_labels(method="dawid-skene")
    ok("--db", by_cli, "aggregate-labels", "--method", "dawid-skene")
    assert isinstance(result, AggregateResult)
    assert result.pairs == 48 and sum(result.by_label.values()) == 48
    corpus, cli = nlibuild.open(sample_db), nlibuild.open(by_cli)
    assert corpus.runs()[-1].id == result.run_id
    assert last_run(corpus) == last_run(cli)  # the same settings, so the same signature
    assert_frame_equal(corpus.pairs(), cli.pairs())


def test_the_store_preset_fills_the_settings_not_given(tmp_path: Path) -> None:
    preset = tmp_path / "two_of_five.toml"
    preset.write_text("[aggregate]\nmin_agree = 2\nvotes_per_pair = 5\n", encoding="utf-8")
    db = new_store(tmp_path / "corpus.db", "--preset", str(preset))
    ok("--db", db, "import", SAMPLE_MNLI, "--format", "mnli")
    corpus = nlibuild.open(db)
    corpus.aggregate_labels()
    assert corpus.runs()[-1].config["min_agree"] == 2
    corpus.aggregate_labels(min_agree=4)  # a setting given wins over the preset
    assert corpus.runs()[-1].config["min_agree"] == 4


@pytest.mark.parametrize(
    ("settings", "options"),
    [
        ({"min_agree": 0}, ["--min-agree", "0"]),
        ({"min_agree": 1.5}, ["--min-agree", "1.5"]),
        ({"method": "bogus"}, ["--method", "bogus"]),
    ],
)
def test_bad_settings_are_refused_in_the_cli_words_and_change_nothing(
    sample_db: Path, settings: dict[str, Any], options: list[str]
) -> None:
    before = table_counts(sample_db)
    runs = len(nlibuild.open(sample_db).runs())
    with pytest.raises(NlibuildError) as refused:
        nlibuild.open(sample_db).aggregate_labels(**settings)
    assert str(refused.value) == cli_error("--db", sample_db, "aggregate-labels", *options)
    assert table_counts(sample_db) == before
    assert len(nlibuild.open(sample_db).runs()) == runs


@pytest.mark.parametrize(
    ("method", "settings", "command"),
    [
        ("bias_hypothesis_only", {"ci": 1.5}, ["bias", "hypothesis-only", "--ci", "1.5"]),
        ("bias_hypothesis_only", {"ci": 0}, ["bias", "hypothesis-only", "--ci", "0"]),
        ("bias_hypothesis_only", {"cross_validate": 1},
         ["bias", "hypothesis-only", "--cross-validate", "1"]),
        ("elicit_create", {"protocol": "SINGLE"}, ["elicit", "create", "--protocol", "SINGLE"]),
        ("elicit_create", {"protocol": "SINGLE", "annotators": ()},
         ["elicit", "create", "--protocol", "SINGLE", "--annotators", ","]),
        ("relabel_create", {}, ["relabel", "create"]),
        ("relabel_create", {"annotators": ()}, ["relabel", "create", "--annotators", ","]),
    ],
)  # fmt: skip
def test_a_check_the_command_made_is_the_settings_models_in_its_words(
    sample_db: Path, method: str, settings: dict[str, Any], command: list[str]
) -> None:
    """Every front end meets the command's checks of a value: the Python API (and so a
    recipe, the same `invoke`) refuses it with the CLI's very message."""
    message = cli_error("--db", sample_db, *command)
    assert refused(sample_db, lambda corpus: getattr(corpus, method)(**settings)) == message


def test_a_text_a_fields_reader_refuses_is_the_clis_error_not_a_crash(
    sample_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    export = {"format": "hf-jsonl", "out": out, "label_order": "x,y"}
    command = ["export", "--format", "hf-jsonl", "--out", out, "--label-order", "x,y"]
    message = cli_error("--db", sample_db, *command)
    assert refused(sample_db, lambda corpus: corpus.export(**export)) == message
    text = tmp_path / "gov.txt"
    text.write_text("A sentence of the source.\n", encoding="utf-8")
    ingest = {"paths": (text,), "genre": "gov", "clean": "nope"}
    message = cli_error("--db", sample_db, "ingest", text, "--genre", "gov", "--clean", "nope")
    assert message == "--clean: choose one of callhome, none"
    assert refused(sample_db, lambda corpus: corpus.ingest(**ingest)) == message
    # relabel create reads --stratify with its own parser; the API's text, with the
    # preset's reader, in the reader's words.
    stratify = {"annotators": ("v01",), "stratify": "colour"}
    refused(sample_db, lambda corpus: corpus.relabel_create(**stratify), "--stratify: give ")


def test_a_presets_level_out_of_range_is_still_named_by_its_key(tmp_path: Path) -> None:
    # The command's words name an option: a preset's value is refused at init, by its key.
    preset = tmp_path / "wide.toml"
    preset.write_text("[bias]\nci = 1.5\n", encoding="utf-8")
    message = cli_error("--db", tmp_path / "corpus.db", "init", "--preset", preset)
    assert message == f"{preset}: [bias] ci: input should be less than 1 (got 1.5)"


def test_an_unknown_setting_names_the_stage_and_its_settings(sample_db: Path) -> None:
    with pytest.raises(ConfigError) as refused:
        nlibuild.open(sample_db).aggregate_labels(min_agre=3)
    assert str(refused.value) == (
        "aggregate-labels: no setting min_agre (its settings: min_agree, votes_per_pair, "
        "method, max_iterations, tolerance)"
    )


def test_the_cli_warning_lines_are_stage_warnings(sample_db: Path, tmp_path: Path) -> None:
    by_cli = copy_store(sample_db, tmp_path / "cli.db")
    with pytest.warns(StageWarning) as caught:
        nlibuild.open(sample_db).aggregate_labels(min_agree=9)
    stderr = ok_result("--db", by_cli, "aggregate-labels", "--min-agree", "9").stderr
    assert [f"Warning: {w.message}" for w in caught] == stderr.splitlines()
    assert caught[0].filename == __file__  # pointed at the caller's line


# --- reading ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "options", "flags"),
    [
        ("agreement", {}, []),
        ("agreement", {"by": "genre", "ci": 0.9, "resamples": 40}, ["--by", "genre", "--ci",
                                                                     "0.9", "--resamples", "40"]),
        ("annotators", {"sort": "votes"}, ["--sort", "votes"]),
        ("subsets", {}, []),
        ("lengths", {}, []),
        ("pmi", {"min_count": 2, "top": 5}, ["--min-count", "2", "--top", "5"]),
        ("cues", {"by": ("genre",)}, ["--by", "genre"]),
    ],
)  # fmt: skip
def test_stats_is_the_json_table_as_a_polars_frame(
    sample_db: Path, table: str, options: dict[str, Any], flags: list[str]
) -> None:
    nlibuild.open(sample_db).aggregate_labels()
    frame = nlibuild.open(sample_db).stats(table, **options)
    rows = json_rows("--db", sample_db, "stats", "--table", table, *flags)
    assert frame.height == len(rows) > 0
    assert_frame_equal(frame, pl.DataFrame(rows, infer_schema_length=None))


def test_a_table_without_rows_is_an_empty_frame(sample_db: Path) -> None:
    assert json_rows("--db", sample_db, "stats", "--table", "translation") == []
    assert nlibuild.open(sample_db).stats("translation").is_empty()


def test_stats_refuses_what_the_cli_refuses(sample_db: Path) -> None:
    corpus = nlibuild.open(sample_db)
    with pytest.raises(ConfigError) as unknown:
        corpus.stats("votes")
    assert str(unknown.value) == cli_error("--db", sample_db, "stats", "--table", "votes")
    with pytest.raises(ConfigError) as other:
        corpus.stats("agreement", top=3)
    # The CLI lists --format among the table's options; the API takes no format.
    cli = cli_error("--db", sample_db, "stats", "--table", "agreement", "--top", "3")
    assert str(other.value) == cli.replace(", --format)", ")")
    with pytest.raises(ConfigError, match=r"^option ci: Input should be a valid number"):
        corpus.stats("agreement", ci="high")
    with pytest.raises(ConfigError, match=r"^stats: no option colour \(its options: min_len, "):
        corpus.stats("agreement", colour="red")


def test_info_and_runs_are_the_cli_json(sample_db: Path) -> None:
    corpus = nlibuild.open(sample_db)
    corpus.aggregate_labels()
    assert corpus.info().model_dump(mode="json") == json_object("--db", sample_db, "info")
    runs = [run.model_dump(mode="json") for run in corpus.runs()]
    assert runs == json_rows("--db", sample_db, "runs")
    assert [run["stage"] for run in runs] == ["init", "import", "aggregate-labels"]


def test_pairs_is_the_corpus_with_its_votes_and_gold(sample_db: Path, tmp_path: Path) -> None:
    corpus = nlibuild.open(sample_db)
    corpus.aggregate_labels()
    pairs = corpus.pairs()
    exported = tmp_path / "sample.jsonl"
    ok("--db", sample_db, "export", "--format", "mnli-jsonl", "--out", exported)
    records = read_jsonl(exported)
    assert pairs["id"].to_list() == [r["pairID"] for r in records]
    assert pairs["hypothesis"].to_list() == [r["sentence2"] for r in records]
    assert pairs["gold"].to_list() == [r["gold_label"] for r in records]
    assert pairs["labels"].to_list() == [r["annotator_labels"] for r in records]
    counts = dict(pairs.group_by("gold").len().iter_rows())
    assert counts == {row.key: row.count for row in corpus.info().by_gold_label}


def test_check_reads_and_repair_waits_for_its_stage(sample_db: Path) -> None:
    result = nlibuild.open(sample_db).check()
    assert result.pairs_checked == 48 and result.differences == 0
    assert result.run_id is None  # a reading: nothing recorded
    assert [run.stage for run in nlibuild.open(sample_db).runs()] == ["init", "import"]


def test_check_repair_is_a_recorded_run(sample_db: Path) -> None:
    result = nlibuild.open(sample_db).check(repair=True)
    assert result.differences == 0 and result.repaired is not None
    assert nlibuild.open(sample_db).runs()[-1].stage == "check-repair"


def test_check_gives_the_advice_the_cli_prints_as_its_error_line(sample_db: Path) -> None:
    corpus = nlibuild.open(sample_db)
    assert corpus.check().advice is None  # every check agrees: the CLI exits 0
    query(sample_db, "UPDATE pair_labels SET n_neutral = n_neutral + 1 WHERE pair_pk = 3")
    advice = corpus.check().advice
    assert advice == "pair_labels differs from the votes for 1 pair: run `nlibuild check --repair`"
    checked = run_cli("--db", sample_db, "check")  # the report on stdout, then the line
    assert (checked.exit_code, checked.stderr) == (1, f"Error: {advice}\n")
    # The repair's own result asks for no second repair.
    assert corpus.check(repair=True).advice is None


@pytest.mark.parametrize(
    ("table", "options", "flags"),
    [
        ("agreement", {}, []),
        ("agreement", {"by": "genre"}, ["--by", "genre"]),
        ("annotators", {"threshold": 0.5}, ["--threshold", "0.5"]),
        ("lengths", {}, []),
    ],
)  # fmt: skip
def test_stats_note_is_the_note_line_stats_prints(
    sample_db: Path, table: str, options: dict[str, Any], flags: list[str]
) -> None:
    stderr = ok_result("--db", sample_db, "stats", "--table", table, *flags).stderr
    note = nlibuild.open(sample_db).stats_note(table, **options)
    assert stderr.splitlines() == ([f"Note: {note}"] if note is not None else [])
    assert (note is None) == (table == "lengths")


def test_stats_note_refuses_what_stats_refuses(sample_db: Path) -> None:
    corpus = nlibuild.open(sample_db)
    with pytest.raises(ConfigError) as other:
        corpus.stats_note("agreement", top=3)
    cli = cli_error("--db", sample_db, "stats", "--table", "agreement", "--top", "3")
    assert str(other.value) == cli.replace(", --format)", ")")


# --- opening, closing, creating ---------------------------------------------------------


def test_opening_a_missing_store_is_the_cli_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    with pytest.raises(StoreError) as refused:
        nlibuild.open(missing)
    assert str(refused.value) == cli_error("--db", missing, "info")
    assert not missing.exists()
    text = tmp_path / "notes.txt"
    text.write_text("not a store\n", encoding="utf-8")
    with pytest.raises(StoreError) as not_a_store:
        nlibuild.open(text)
    assert str(not_a_store.value) == cli_error("--db", text, "info")


def test_a_closed_corpus_refuses_every_call(sample_db: Path) -> None:
    with nlibuild.open(sample_db) as corpus:
        assert corpus.info().pairs == 48
    assert repr(corpus) == f"Corpus({str(sample_db)!r}, closed)"
    with pytest.raises(StoreError, match="this Corpus is closed"):
        corpus.info()
    with pytest.raises(StoreError, match="this Corpus is closed"):
        corpus.aggregate_labels()


def test_to_hf_without_datasets_says_what_to_install(
    sample_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # `import datasets` fails
    with pytest.raises(ConfigError, match=r"pip install 'nlibuild\[hf\]'$"):
        nlibuild.open(sample_db).to_hf()
    assert [run.stage for run in nlibuild.open(sample_db).runs()] == ["init", "import"]


@pytest.mark.parametrize(
    ("settings", "flags", "lang", "preset"),
    [
        ({"preset": "mnli"}, ["--preset", "mnli"], "en", "mnli"),
        ({"preset": "ocnli"}, ["--preset", "ocnli"], "zh", "ocnli"),
        ({"lang": "de", "extra_labels": ("unrelated",)},
         ["--lang", "de", "--extra-labels", "unrelated"], "de", None),
    ],
)  # fmt: skip
def test_create_is_init(
    tmp_path: Path, settings: dict[str, Any], flags: list[str], lang: str, preset: str | None
) -> None:
    corpus = nlibuild.create(tmp_path / "api.db", **settings)
    cli = nlibuild.open(new_store(tmp_path / "cli.db", *flags))
    summary = corpus.info()
    assert (summary.lang, summary.preset, summary.pairs) == (lang, preset, 0)
    assert summary.extra_labels == cli.info().extra_labels
    assert corpus.runs()[0].signature == cli.runs()[0].signature


def test_create_refuses_what_init_refuses(tmp_path: Path) -> None:
    with pytest.raises(NlibuildError) as refused:
        nlibuild.create(tmp_path / "api.db", preset="no-such-preset")
    assert str(refused.value) == cli_error(
        "--db", tmp_path / "cli.db", "init", "--preset", "no-such-preset"
    )
    assert not (tmp_path / "api.db").exists()


# --- the other stages, once they declare their Stage ------------------------------------


def test_import_corpus_loads_what_the_cli_loads(db: Path, sample_db: Path) -> None:
    fresh = db.with_name("api.db")
    new_store(fresh)
    corpus = nlibuild.open(fresh)
    result = corpus.import_corpus(path=SAMPLE_MNLI, format="mnli")
    assert (result.pairs_added, result.premises_added) == (48, 16)
    assert_frame_equal(corpus.pairs(), nlibuild.open(sample_db).pairs())
    assert last_run(corpus) == last_run(nlibuild.open(sample_db))


def test_export_writes_the_file_the_cli_writes(sample_db: Path, tmp_path: Path) -> None:
    ours, theirs = tmp_path / "api.jsonl", tmp_path / "cli.jsonl"
    result = nlibuild.open(sample_db).export(format="mnli-jsonl", out=ours)
    ok("--db", sample_db, "export", "--format", "mnli-jsonl", "--out", theirs)
    assert result.pairs == 48
    assert ours.read_bytes() == theirs.read_bytes()


def test_split_takes_its_settings_as_keywords(sample_db: Path) -> None:
    corpus = nlibuild.open(sample_db)
    result = corpus.split(dev=8, test=8, draw_from="labelled", seed=1)
    assert (
        sum(result.counts.values()) + result.held_out == 48
    )  # held out: a premise's pairs kept whole
    assert result.counts["dev"] == result.counts["test"] == 8


def test_to_hf_is_the_hf_export_loaded(sample_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    pytest.importorskip("datasets", reason="the hf extra (or dev) installs `datasets`")
    corpus = nlibuild.open(sample_db)
    corpus.aggregate_labels()
    dataset = corpus.to_hf()
    assert list(dataset) == ["train"]
    train = dataset["train"]
    assert train.num_rows == 48
    assert train.features["label"].names == ["entailment", "neutral", "contradiction"]
    assert train["id"] == corpus.pairs()["id"].to_list()
    assert corpus.runs()[-1].stage == "export"
    with pytest.raises(ConfigError, match=r"to_hf\(\) sets format itself"):
        corpus.to_hf(format="jsonl")


def test_a_preset_file_may_be_given_as_a_path(tmp_path: Path) -> None:
    preset = tmp_path / "mine.toml"
    preset.write_text('[corpus]\nlang = "de"\n', encoding="utf-8")
    corpus = nlibuild.create(tmp_path / "de.db", preset=preset)
    assert corpus.info().lang == "de"


def test_score_train_takes_resume_as_the_command_takes_resume(sample_db: Path) -> None:
    """`resume=True` runs the resuming variant of the stage; without a model folder both
    are refused the same way, before anything is recorded."""
    corpus = nlibuild.open(sample_db)
    for resume in (False, True):
        with pytest.raises(NlibuildError, match="no-such-model"):
            corpus.score_train(model="no-such-model", resume=resume)
