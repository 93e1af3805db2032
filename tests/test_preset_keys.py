"""Issue 25, item 2: every option that changes a result can be set in the preset, in the
section its command's settings name ([split], [translate], [bias], [score], [relabel]'s
label_order, [ingest]'s strict and strip), and a flag given still wins over the preset.

Each command is run through the CLI on a store whose preset sets its keys: the run's
settings (and so its signature) take the preset's values where no option was given, and
the option's where one was."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    DATA,
    PROJECT,
    SAMPLE_MNLI,
    assert_user_error,
    copy_store,
    ok,
    query,
    run_cli,
)
from test_relabel import all_tasks, assert_votes, authors_label, created, export, templates

from nlibuild.errors import ConfigError
from nlibuild.models import Protocol, ScoreTrainConfig, ScoreTraining, SplitConfig
from nlibuild.presets import parse_preset, preset_sections, section_keys, settings_from_preset

__all__ = ["created", "templates"]  # fixtures of test_relabel, used here by name

GERMAN = DATA / "translations" / "sample_mnli.de.tsv"

PRESET = """\
[split]
seed = 7
draw_from = "labelled"
group_by = "pair"
protocols = []

[translate]
kind = "mt"
worst = 2
metrics = ["CHRF"]

[bias]
resamples = 20
ci = 0.9
by = ["genre"]

[score]
seed = 5
seeds = [4]
epochs = 1.5
launcher = "slurm"
modes = ["hyp-only"]
eval_langs = ["en"]
"""
"""A preset of the new sections, each setting keys away from their defaults."""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 48 sample pairs in a store made with PRESET: split (by the preset's [split]) and
    translated into German, once with no --kind (the preset's mt) and once as human."""
    root = tmp_path_factory.mktemp("preset-keys")
    preset = root / "mine.toml"
    preset.write_text(PRESET, encoding="utf-8")
    db = root / "corpus.db"
    ok("--db", db, "init", "--preset", preset)
    ok("--db", db, "import", SAMPLE_MNLI, "--format", "mnli")
    ok("--db", db, "split", "--dev", 10, "--test", 10)
    ok("--db", db, "translate", "import", GERMAN, "--lang", "de", "--translator", "de01")
    ok("--db", db, "translate", "import", GERMAN, "--lang", "de", "--kind", "human")
    return db


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Path:
    return copy_store(template, tmp_path / "corpus.db")


def runs_of(db: Path, stage: str) -> list[tuple[dict[str, Any], str]]:
    """The settings and signature of each run of `stage`, oldest first."""
    rows = query(db, "SELECT config_json, signature FROM runs WHERE stage = ? ORDER BY id", stage)
    return [(json.loads(config), signature) for config, signature in rows]


def last_run(db: Path, stage: str) -> tuple[dict[str, Any], str]:
    return runs_of(db, stage)[-1]


# --- [split] -------------------------------------------------------------------------------


def test_split_draws_by_its_preset_keys_and_a_flag_wins(store: Path) -> None:
    (by_preset, preset_signature), *_ = runs_of(store, "split")
    assert (by_preset["seed"], by_preset["draw_from"], by_preset["group_by"]) == (
        7, "labelled", "pair",
    )  # fmt: skip
    assert "seed:7" in preset_signature

    ok("--db", store, "split", "--dev", 10, "--test", 10, "--replace", "--seed", 13,
       "--group-by", "premise")  # fmt: skip
    by_flags, flags_signature = last_run(store, "split")
    assert (by_flags["seed"], by_flags["draw_from"], by_flags["group_by"]) == (
        13, "labelled", "premise",
    )  # fmt: skip
    assert flags_signature != preset_signature


def test_split_reads_protocols_in_any_case() -> None:
    # The command upper-cases --protocol; the preset's protocols are read alike.
    preset = parse_preset('[split]\nprotocols = ["multi", "Single"]\n')
    cfg = settings_from_preset(SplitConfig, preset, "split", "mine.toml", dev=1, test=1)
    assert cfg.protocols == (Protocol.MULTI, Protocol.SINGLE)


# --- [translate] ---------------------------------------------------------------------------


def test_translate_import_and_export_take_the_preset_kind_and_a_flag_wins(
    store: Path, tmp_path: Path
) -> None:
    (no_kind, _), (human, _) = runs_of(store, "translate-import")
    assert (no_kind["kind"], human["kind"]) == ("mt", "human")
    assert query(store, "SELECT DISTINCT kind FROM translations ORDER BY kind") == [
        ("human",), ("mt",),
    ]  # fmt: skip

    ok("--db", store, "translate", "export", "--lang", "fr", "--out", tmp_path / "fr.tsv")
    assert last_run(store, "translate-export")[0]["kind"] == "mt"


def test_translate_qa_scores_by_its_preset_keys_and_a_flag_wins(store: Path) -> None:
    ok("--db", store, "translate", "qa", "--lang", "de")
    by_preset, preset_signature = last_run(store, "translate-qa")
    assert (by_preset["worst"], by_preset["metrics"]) == (2, ["chrf"])
    assert "|worst:2|metrics:chrf|" in preset_signature  # BLEU, a default, left out

    ok("--db", store, "translate", "qa", "--lang", "de", "--worst", 1, "--metrics", "bleu")
    by_flags, flags_signature = last_run(store, "translate-qa")
    assert (by_flags["worst"], by_flags["metrics"]) == (1, ["bleu"])
    assert "|worst:1|metrics:bleu|" in flags_signature


# --- [bias] --------------------------------------------------------------------------------


def test_hypothesis_only_takes_its_preset_keys_and_a_flag_wins(store: Path) -> None:
    rows = json.loads(ok("--db", store, "bias", "hypothesis-only", "--format", "json"))
    by_preset, preset_signature = last_run(store, "bias-hypothesis-only")
    assert (by_preset["resamples"], by_preset["ci"], by_preset["by"]) == (20, 0.9, ["genre"])
    assert "genre" in {row["group_by"] for row in rows}

    shown = ok("--db", store, "bias", "hypothesis-only", "--ci", 0.8)
    by_flags, flags_signature = last_run(store, "bias-hypothesis-only")
    assert (by_flags["resamples"], by_flags["ci"]) == (20, 0.8)
    assert "(80% bootstrap interval)" in shown  # the title says the level the run used
    assert flags_signature != preset_signature


# --- [score] -------------------------------------------------------------------------------


def test_score_plan_takes_its_preset_keys_and_a_flag_wins_key_by_key(
    store: Path, tmp_path: Path
) -> None:
    model = tmp_path / "tiny-bert"
    model.mkdir()
    ok("--db", store, "score", "plan", "--models", model, "--out", tmp_path / "by-preset")
    plan = json.loads((tmp_path / "by-preset" / "plan.json").read_text(encoding="utf-8"))
    assert [job["folder"] for job in plan["jobs"]] == ["tiny-bert-hyp-only-s4"]
    assert (tmp_path / "by-preset" / "slurm.sh").is_file()
    by_preset, preset_signature = last_run(store, "score-plan")
    assert by_preset["training"]["epochs"] == 1.5
    assert by_preset["langs"]["eval_langs"] == ["en"]

    ok("--db", store, "score", "plan", "--models", model, "--out", tmp_path / "by-flags",
       "--epochs", 2, "--launcher", "torchrun")  # fmt: skip
    assert (tmp_path / "by-flags" / "run.sh").is_file()
    by_flags, flags_signature = last_run(store, "score-plan")
    # A flag of the training settings replaces its own key, not the preset's others.
    assert (by_flags["training"]["epochs"], by_flags["training"]["seeds"]) == (2.0, [4])
    assert flags_signature != preset_signature


def test_score_baselines_take_the_preset_seed_and_a_flag_wins(store: Path) -> None:
    ok("--db", store, "score", "baselines")
    by_preset, preset_signature = last_run(store, "score-baselines")
    assert (by_preset["seed"], by_preset["langs"]["eval_langs"]) == (5, ["en"])

    ok("--db", store, "score", "baselines", "--seed", 6, "--eval-langs", "all")
    by_flags, flags_signature = last_run(store, "score-baselines")
    assert (by_flags["seed"], by_flags["langs"]["eval_langs"]) == (6, ["all"])
    assert flags_signature != preset_signature


def test_a_group_of_settings_is_filled_from_its_sections_keys_under_the_flags() -> None:
    preset = parse_preset("[score]\nseeds = [4]\nepochs = 1.5\nseed = 5\n")
    cfg = settings_from_preset(
        ScoreTrainConfig, preset, "score", "mine.toml",
        model=Path("m"), training=ScoreTraining(lr=1e-4),
    )  # fmt: skip
    assert (cfg.training.seeds, cfg.training.epochs, cfg.training.lr) == ((4,), 1.5, 1e-4)
    # `seed` is score baselines' key: not unknown to score train, and not taken by it.
    assert "seed" not in cfg.model_dump()


# --- [ingest] strict and strip ----------------------------------------------------------------

INGEST_PRESET = """\
[corpus]
genres = ["gov"]

[ingest]
strict = true
strip = ["\\\\s*\\\\(\\\\d+\\\\)"]
"""
"""Only the genre gov, an error otherwise, and footnote marks like ` (12)` cut out."""


def test_ingest_is_strict_and_strips_as_its_preset_says_and_a_flag_wins(
    tmp_path: Path,
) -> None:
    preset = tmp_path / "mine.toml"
    preset.write_text(INGEST_PRESET, encoding="utf-8")
    db = tmp_path / "corpus.db"
    ok("--db", db, "init", "--preset", preset)
    text = tmp_path / "report.txt"
    text.write_text("The report (12) was read aloud to the whole assembly.\n", "utf-8")

    assert_user_error(
        run_cli("--db", db, "ingest", text, "--genre", "news"),
        "genre 'news' is not among the preset's genres (gov)",
    )
    ok("--db", db, "ingest", text, "--genre", "gov")
    assert query(db, "SELECT text FROM sentences") == [
        ("The report was read aloud to the whole assembly.",)
    ]
    strip, signature = last_run(db, "ingest")
    assert strip["strip"] == [r"\s*\(\d+\)"]

    ok("--db", db, "ingest", text, "--genre", "gov", "--strip", "aloud ")
    texts = {row[0] for row in query(db, "SELECT text FROM sentences")}
    assert "The report (12) was read to the whole assembly." in texts
    assert last_run(db, "ingest")[1] != signature


# --- [relabel] label_order --------------------------------------------------------------------


def with_stored_preset(db: Path, text: str) -> Path:
    """The store at `db` holding `text` as its preset, as `init --preset` stores one."""
    parse_preset(text)
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.executemany(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            [("preset", "mine.toml"), ("preset_toml", text)],
        )
    return db


def test_relabel_import_reads_integer_labels_by_the_preset_order_and_a_flag_wins(
    created: Path, tmp_path: Path
) -> None:
    tasks = all_tasks(export(created, "jsonl", tmp_path / "package"))
    clue = ["neutral", "entailment", "contradiction"]  # CLUE's OCNLI numbering: n,e,c
    records = [
        {"batch": t["batch"], "annotator": t["annotator"], "pair_id": t["pair_id"],
         "label": clue.index(authors_label(t))}
        for t in tasks
    ]  # fmt: skip
    votes = tmp_path / "votes.jsonl"
    votes.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    other = copy_store(created, tmp_path / "other" / "corpus.db")
    for db in (created, other):
        with_stored_preset(db, '[relabel]\nlabel_order = "n,e,c"\n')

    ok("--db", created, "relabel", "import", votes)
    assert_votes(created, tasks)
    assert last_run(created, "relabel-import")[0]["label_order"] == ["neutral", "entailment",
                                                                      "contradiction"]  # fmt: skip

    ok("--db", other, "relabel", "import", votes, "--label-order", "e,n,c")
    glue = ["entailment", "neutral", "contradiction"]
    assert_votes(other, tasks, lambda t: glue[clue.index(authors_label(t))])


# --- unknown keys and values of the wrong kind ------------------------------------------------


@pytest.mark.parametrize(
    ("section", "key", "meant"),
    [
        ("split", "sed", "seed"),
        ("translate", "wrost", "worst"),
        ("bias", "resample", "resamples"),
        ("score", "epoch", "epochs"),
        ("relabel", "label_ordr", "label_order"),
        ("ingest", "stric", "strict"),
    ],
)
def test_an_unknown_key_of_a_new_section_is_refused_with_the_keys_there_are(
    section: str, key: str, meant: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_preset(f"[{section}]\n{key} = 1\n", "bad.toml")
    known = ", ".join(sorted(section_keys(section)))
    assert str(caught.value) == (
        f"bad.toml: [{section}] {key}: unknown key; did you mean {meant}? (known: {known})"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[split]\nseed = "7"\n', "[split] seed: input should be a valid integer (got '7')"),
        ('[split]\nbalance_level = "yes"\n', "[split] balance_level: input should be a valid"),
        ('[split]\ngroup_by = "genre"\n', "[split] group_by: input should be 'premise' or"),
        ("[split]\ndev = 10\n", "[split] dev: unknown key"),  # the sizes stay options
        ('[translate]\nmetrics = ["blue"]\n', "[translate] metrics, item 1: input should be"),
        ("[translate]\nmetrics = []\n", "[translate] metrics: tuple should have at least 1"),
        ("[bias]\nci = 1.5\n", "[bias] ci: input should be less than 1"),
        ('[score]\nepochs = "3"\n', "[score] epochs: input should be a valid number"),
        ("[score]\nseeds = []\n", "[score] seeds: tuple should have at least 1"),
        ('[ingest]\nstrip = ["(unclosed"]\n', "[ingest] strip: '(unclosed' is not a valid"),
        ('[relabel]\nlabel_order = "e,n"\n', "[relabel] label_order: label order 'e,n' must"),
    ],
)
def test_a_new_key_is_checked_as_its_setting_and_typed_as_toml_is(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_preset(text, "bad.toml")
    assert str(caught.value).startswith(f"bad.toml: {expected}")


# --- the README lists the schema ------------------------------------------------------------


def readme_preset_table() -> dict[str, list[str]]:
    """The `| section | keys | ... |` table of README.md's Presets section: each section
    and the keys its second column names, in order."""
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    table = text.split("### Presets", 1)[1].split("\n| section | keys |", 1)[1]
    rows = table.split("\n\n", 1)[0].splitlines()[2:]  # below the header and its rule
    listed: dict[str, list[str]] = {}
    for row in rows:
        section, keys = (cell.strip() for cell in row.strip("|").split("|")[:2])
        listed[section.strip("`[]")] = re.findall(r"`([^`]+)`", keys)
    return listed


def test_the_readme_lists_every_section_and_key_the_schema_has() -> None:
    assert readme_preset_table() == {
        section: section_keys(section) for section in preset_sections()
    }
