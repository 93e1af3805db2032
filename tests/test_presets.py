"""Presets: every section and key is checked against what its commands read, at
`init --preset` and whenever a store's stored preset is read, with one error line that
names the preset, the section and the key."""

from __future__ import annotations

import importlib
import json
import sqlite3
from pathlib import Path
from typing import Annotated

import pytest
from conftest import DATA, assert_user_error, new_store, ok, query, run_cli
from pydantic import BaseModel, ValidationError, field_validator

from nlibuild import models
from nlibuild.core.registry import AGGREGATE_LABELS, STAGES, stage
from nlibuild.errors import ConfigError
from nlibuild.models import (
    IN_PRESET,
    AggregateConfig,
    ElicitCreateConfig,
    ElicitImportConfig,
    ExportConfig,
    HypothesisOnlyConfig,
    ImportConfig,
    IngestConfig,
    InitConfig,
    PresetKey,
    RelabelCreateConfig,
    RelabelImportConfig,
    SampleConfig,
    ScoreBaselinesConfig,
    ScoreLanguages,
    ScorePlanConfig,
    ScoreTrainConfig,
    ScoreTraining,
    ServeConfig,
    SplitConfig,
    TranslateExportConfig,
    TranslateImportConfig,
    TranslateQaConfig,
    WorkbenchConfig,
    _Config,
)
from nlibuild.presets import (
    KEYS_COMMANDS_READ,
    elicit_instructions,
    instruction_languages,
    load_preset_text,
    marked_fields,
    parse_preset,
    preset_names,
    preset_sections,
    relabel_instruction_languages,
    relabel_instructions_text,
    section_model,
    stage_defaults,
)


def preset_error(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_preset(text, "bad.toml")
    return str(caught.value)


# --- what ships ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mnli", "ocnli", "xnli"])
def test_every_shipped_preset_is_valid(name: str) -> None:
    assert name in preset_names()
    preset = parse_preset(load_preset_text(name), name)
    assert stage_defaults(preset, "import")["format"] == name


def test_instructions_ship_in_english_and_chinese() -> None:
    assert instruction_languages() == ["en", "zh"]
    assert relabel_instruction_languages() == ["en", "zh"]
    assert elicit_instructions("SINGLE", "en").startswith("# nlibuild elicitation: SINGLE (en)")
    assert relabel_instructions_text("zh").strip()


def test_missing_instructions_name_the_languages_there_are() -> None:
    with pytest.raises(ConfigError, match=r"no instructions for SINGLE in 'fr'; .* en, zh"):
        elicit_instructions("SINGLE", "fr")
    with pytest.raises(ConfigError, match=r"no relabelling instructions in 'fr'; .* en, zh"):
        relabel_instructions_text("fr")


SECTION_READERS: list[tuple[str, list[type[BaseModel]], set[str]]] = [
    # The commands read [corpus] genres, the [ingest.genres.NAME] tables and
    # `import --columns @NAME`'s [import.tables.NAME] themselves.
    ("corpus", [InitConfig], {"genres"}),
    ("ingest", [IngestConfig], {"genres"}),
    ("sample", [SampleConfig], set()),
    ("import", [ImportConfig], {"tables"}),
    ("export", [ExportConfig], set()),
    ("elicit", [ElicitCreateConfig, ElicitImportConfig], set()),
    ("relabel", [RelabelCreateConfig, RelabelImportConfig], set()),
    ("aggregate", [AggregateConfig], set()),
    ("split", [SplitConfig], set()),
    ("translate", [TranslateExportConfig, TranslateImportConfig, TranslateQaConfig], set()),
    ("bias", [HypothesisOnlyConfig], set()),
    # score train's and plan's languages and fine-tuning settings are groups of their
    # own, whose keys the section holds flat.
    (
        "score",
        [
            ScoreTrainConfig,
            ScorePlanConfig,
            ScoreBaselinesConfig,
            ScoreLanguages,
            ScoreTraining,
        ],
        set(),
    ),
]
"""Each section, the settings models that read it, and the keys only a command reads."""


@pytest.mark.parametrize(("section", "settings", "preset_only"), SECTION_READERS)
def test_preset_keys_are_named_as_the_stage_settings_they_default(
    section: str, settings: list[type[BaseModel]], preset_only: set[str]
) -> None:
    fields = {name for model in settings for name in model.model_fields}
    keys = set(section_model(section).model_fields) - preset_only
    assert keys <= fields, keys - fields


# --- each section is built from the settings fields marked IN_PRESET -----------------------

MARKED: list[type[_Config]] = [
    InitConfig, IngestConfig, SampleConfig, ImportConfig, ExportConfig, ElicitCreateConfig,
    ElicitImportConfig, RelabelCreateConfig, RelabelImportConfig, AggregateConfig, ServeConfig,
    WorkbenchConfig, SplitConfig, TranslateExportConfig, TranslateImportConfig,
    TranslateQaConfig, HypothesisOnlyConfig, ScoreTrainConfig, ScorePlanConfig,
    ScoreBaselinesConfig, ScoreLanguages, ScoreTraining,
]  # fmt: skip
"""The settings models that name a preset section. Once every stage module declares its
`STAGE`, this is `[stage(info).settings for info in STAGES]` with a `preset_section`."""


def marked(settings: type[BaseModel]) -> set[str]:
    return {
        name
        for name, info in settings.model_fields.items()
        if any(isinstance(item, PresetKey) for item in info.metadata)
    }


@pytest.mark.parametrize("settings", MARKED, ids=lambda model: model.__name__)
def test_a_settings_models_section_lists_exactly_the_fields_marked_in_its_models(
    settings: type[_Config],
) -> None:
    section = settings.preset_section
    assert section in preset_sections()
    sharing = [model for model in MARKED if model.preset_section == section]
    keys = set(section_model(section).model_fields) - KEYS_COMMANDS_READ.get(section, set())
    assert keys == set().union(*(marked(model) for model in sharing))
    assert marked(settings) <= keys


@pytest.mark.parametrize("settings", MARKED, ids=lambda model: model.__name__)
def test_a_settings_default_written_in_its_section_is_taken_unchanged(
    settings: type[_Config],
) -> None:
    section = section_model(str(settings.preset_section))
    for name in marked(settings) - {n for n, f in settings.model_fields.items() if f.is_required()}:
        default = settings.model_fields[name].default
        checked = section.model_validate({name: default})
        assert getattr(checked, name) == default, name


def test_every_settings_model_with_marked_fields_is_listed_here() -> None:
    found = [
        model
        for name in models.__all__
        if isinstance(model := getattr(models, name), type) and issubclass(model, _Config)
    ]
    assert {model for model in found if marked(model)} == set(MARKED)
    assert all(model.preset_section is None for model in found if model not in MARKED)


def test_a_converted_stage_reads_the_section_its_settings_name() -> None:
    # Stage modules declare their `Stage` as they are converted (aggregate-labels first).
    modules = [importlib.import_module(info.module) for info in STAGES]
    converted = [
        stage(info) for info, module in zip(STAGES, modules, strict=True)
        if hasattr(module, info.attribute)
    ]  # fmt: skip
    assert AGGREGATE_LABELS.name in {each.name for each in converted}
    for each in converted:
        assert each.section == getattr(each.settings, "preset_section", None), each.name


def test_a_mark_whose_check_a_preset_would_skip_is_a_mistake_in_the_model() -> None:
    class Capped(_Config):
        preset_section = "elicit"
        cap: Annotated[int, IN_PRESET] = 1

        @field_validator("cap")
        @classmethod
        def _positive(cls, value: int) -> int:
            return value

    with pytest.raises(TypeError, match="cap: a preset key's checks belong in its annotation"):
        marked_fields(Capped)


def test_a_marked_key_is_checked_as_its_setting_and_typed_as_toml_is() -> None:
    elicit = section_model("elicit")
    assert elicit.model_validate({"max_per_writer": 0}).model_dump()["max_per_writer"] is None
    with pytest.raises(ValidationError):
        elicit.model_validate({"seed": 2**32})  # a seed, as every stage's settings take it
    with pytest.raises(ValidationError):
        elicit.model_validate({"batch_size": 5.0})  # an integer setting takes no float
    assert section_model("elicit").model_validate({"max_overlap": 1}).model_dump() == {
        **{name: None for name in elicit.model_fields},
        "max_overlap": 1,
    }
    assert preset_error('[aggregate]\nmethod = "dawid"\n').startswith(
        "bad.toml: [aggregate] method: input should be 'majority' or 'dawid-skene' (got 'dawid')"
    )
    assert preset_error('[workbench]\nblocking_rules = ["overlapp"]\n').startswith(
        "bad.toml: [workbench] blocking_rules: 'overlapp' is not a rule; choose among"
    )
    assert preset_error('[sample]\ngenres = ["gov", "tv news"]\n').startswith(
        "bad.toml: [sample] genres, item 2: a genre is"
    )


def test_a_preset_choosing_dawid_skene_makes_aggregate_labels_run_it(tmp_path: Path) -> None:
    preset = tmp_path / "mine.toml"
    preset.write_text('[aggregate]\nmethod = "dawid-skene"\nmax_iterations = 7\n', "utf-8")
    db = new_store(tmp_path / "c.db", "--preset", str(preset))
    ok("--db", db, "import", DATA / "sample_mnli.jsonl", "--format", "mnli")
    assert "Dawid-Skene (" in ok("--db", db, "aggregate-labels")
    (config,) = query(db, "SELECT config_json FROM runs WHERE stage = 'aggregate-labels'")[0]
    assert json.loads(config)["method"] == "dawid-skene"
    assert json.loads(config)["max_iterations"] == 7
    majority = ok("--db", db, "aggregate-labels", "--method", "majority")
    assert "Dawid-Skene" not in majority  # the flag wins over the preset


# --- unknown sections and keys ------------------------------------------------------------


def test_a_misspelt_key_is_refused_with_the_key_it_was_meant_to_be() -> None:
    assert preset_error("[sample]\nmin_lenght = 8\n") == (
        "bad.toml: [sample] min_lenght: unknown key; did you mean min_len? "
        "(known: balance_bins, genres, max_len, min_len, n, seed, unit)"
    )


def test_an_unknown_section_is_refused_with_the_sections_there_are() -> None:
    assert preset_error("[smaple]\nn = 250\n") == (
        "bad.toml: [smaple]: unknown section; did you mean [sample]? (known: [aggregate], "
        "[bias], [corpus], [elicit], [export], [import], [ingest], [labels], [relabel], "
        "[sample], [score], [serve], [split], [translate], [workbench])"
    )


def test_a_key_outside_every_section_is_refused() -> None:
    message = preset_error('lang = "zh"\n')
    assert message.startswith("bad.toml: lang: a key outside every section; move it into one")


def test_a_misspelt_key_of_a_genre_table_names_the_whole_table() -> None:
    message = preset_error('[ingest.genres.phone]\nclen = "callhome"\n')
    assert message == (
        "bad.toml: [ingest.genres.phone] clen: unknown key; did you mean clean? "
        "(known: clean, paragraph)"
    )


def test_a_key_no_setting_takes_is_unknown_and_the_known_keys_are_named() -> None:
    assert preset_error('[aggregate]\nmethods = "dawid-skene"\n') == (
        "bad.toml: [aggregate] methods: unknown key; did you mean method? "
        "(known: max_iterations, method, min_agree, tolerance, votes_per_pair)"
    )
    # `relabel create --pairs` is a choice of one run, not a setting a preset holds.
    assert preset_error("[relabel]\npairs = 'chosen.txt'\n").startswith(
        "bad.toml: [relabel] pairs: unknown key"
    )


# --- wrong values -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[sample]\nmin_len = "8"\n',
            "[sample] min_len: input should be a valid integer (got '8')",
        ),
        ("[sample]\nmin_len = true\n", "[sample] min_len: input should be a valid integer"),
        ("[elicit]\nbatch_size = 0\n", "[elicit] batch_size: input should be greater than"),
        ("[relabel]\nfraction = 1.5\n", "[relabel] fraction: input should be less than"),
        ('[export]\nformat = "mnli-json"\n', "[export] format: input should be 'mnli-jsonl'"),
        ('[export]\nlabel_order = "e,n"\n', "[export] label_order: label order 'e,n' must"),
        ('[ingest]\nclean = "callhom"\n', "[ingest] clean: choose one of callhome, none"),
        ('[relabel]\nstratify = "levl"\n', "[relabel] stratify: give a comma-separated list"),
        ('[corpus]\nextra_labels = "unrelated"\n', "[corpus] extra_labels: should be an array"),
        ('[corpus]\ngenres = ["gov", "tv news"]\n', "[corpus] genres, item 2: a genre is"),
        ("sample = 3\n", "[sample]: should be a table"),
    ],
)
def test_a_value_of_the_wrong_kind_names_section_and_key(text: str, expected: str) -> None:
    assert preset_error(text).startswith(f"bad.toml: {expected}")


def test_only_the_first_problem_is_spelt_out_and_the_rest_counted() -> None:
    message = preset_error("[elicit]\nbatch_size = 0\nmax_overlap = 2\n[smaple]\n")
    assert message.endswith("(and 2 more problems)")
    assert "\n" not in message


def test_values_are_read_as_the_options_take_them() -> None:
    # The commands upper-case --protocol and accept `none` for --stratify; a max_overlap of
    # 1 is a TOML integer but a valid share.
    text = '[elicit]\nprotocol = "multi"\nmax_overlap = 1\n[relabel]\nstratify = "none"\n'
    preset = parse_preset(text)
    assert stage_defaults(preset, "elicit")["protocol"] == "multi"


def test_invalid_toml_names_the_file() -> None:
    assert preset_error("[sample\n").startswith("bad.toml: not valid TOML")


# --- through the command line -------------------------------------------------------------


def test_init_with_a_misspelt_preset_file_fails_and_creates_no_store(tmp_path: Path) -> None:
    preset = tmp_path / "mine.toml"
    preset.write_text('[corpus]\nlang = "zh"\n\n[sample]\nmin_lenght = 8\n', encoding="utf-8")
    db = tmp_path / "c.db"
    result = run_cli("--db", db, "init", "--preset", preset)
    line = assert_user_error(result, str(preset), "[sample] min_lenght", "did you mean min_len?")
    assert line.startswith(f"Error: {preset}: ")
    assert not db.exists()


def test_init_with_a_wrong_value_type_fails_and_creates_no_store(tmp_path: Path) -> None:
    preset = tmp_path / "mine.toml"
    preset.write_text('[aggregate]\nmin_agree = "three"\n', encoding="utf-8")
    db = tmp_path / "c.db"
    result = run_cli("--db", db, "init", "--preset", preset)
    assert_user_error(
        result, str(preset), "[aggregate] min_agree", "a count of votes (3) or a share"
    )
    assert not db.exists()


def test_a_valid_preset_file_sets_the_defaults(tmp_path: Path) -> None:
    preset = tmp_path / "mine.toml"
    preset.write_text('[corpus]\nlang = "de"\n\n[elicit]\nprotocol = "single"\n', "utf-8")
    result = run_cli("--db", tmp_path / "c.db", "init", "--preset", preset)
    assert result.exit_code == 0, result.stderr
    assert f"lang de, preset {preset}," in result.stdout


def test_a_stored_preset_is_checked_when_a_command_reads_it(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    assert run_cli("--db", db, "init", "--preset", "mnli").exit_code == 0
    # A preset stored by hand (or by a version that read other keys) is not trusted either.
    with sqlite3.connect(db) as conn:
        (text,) = conn.execute("SELECT value FROM meta WHERE key = 'preset_toml'").fetchone()
        text = text.replace("min_agree = 3", "min_agre = 3")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'preset_toml'", (text,))
    conn.close()
    result = run_cli("--db", db, "aggregate-labels")
    assert_user_error(
        result, "the store's preset mnli: [aggregate] min_agre: unknown key", "min_agree"
    )
