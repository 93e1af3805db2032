"""Presets: every section and key is checked against what its commands read, at
`init --preset` and whenever a store's stored preset is read, with one error line that
names the preset, the section and the key."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_user_error, run_cli
from pydantic import BaseModel

from nlibuild.errors import ConfigError
from nlibuild.models import (
    AggregateConfig,
    ElicitCreateConfig,
    ElicitImportConfig,
    ExportConfig,
    ImportConfig,
    IngestConfig,
    InitConfig,
    RelabelCreateConfig,
    SampleConfig,
)
from nlibuild.presets import (
    AggregatePreset,
    CorpusPreset,
    ElicitPreset,
    ExportPreset,
    ImportPreset,
    IngestPreset,
    RelabelPreset,
    SamplePreset,
    elicit_instructions,
    instruction_languages,
    load_preset_text,
    parse_preset,
    preset_names,
    relabel_instruction_languages,
    relabel_instructions_text,
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


@pytest.mark.parametrize(
    ("section", "settings", "preset_only"),
    [
        # The commands read [corpus] genres, the [ingest.genres.NAME] tables and
        # `import --columns @NAME`'s [import.tables.NAME] themselves.
        (CorpusPreset, [InitConfig], {"genres"}),
        (IngestPreset, [IngestConfig], {"genres"}),
        (SamplePreset, [SampleConfig], set()),
        (ImportPreset, [ImportConfig], {"tables"}),
        (ExportPreset, [ExportConfig], set()),
        (ElicitPreset, [ElicitCreateConfig, ElicitImportConfig], set()),
        (RelabelPreset, [RelabelCreateConfig], set()),
        (AggregatePreset, [AggregateConfig], set()),
    ],
)
def test_preset_keys_are_named_as_the_stage_settings_they_default(
    section: type[BaseModel], settings: list[type[BaseModel]], preset_only: set[str]
) -> None:
    fields = {name for model in settings for name in model.model_fields}
    keys = set(section.model_fields) - preset_only
    assert keys <= fields, keys - fields


# --- unknown sections and keys ------------------------------------------------------------


def test_a_misspelt_key_is_refused_with_the_key_it_was_meant_to_be() -> None:
    assert preset_error("[sample]\nmin_lenght = 8\n") == (
        "bad.toml: [sample] min_lenght: unknown key; did you mean min_len? "
        "(known: genres, max_len, min_len, n, seed, unit)"
    )


def test_an_unknown_section_is_refused_with_the_sections_there_are() -> None:
    assert preset_error("[smaple]\nn = 250\n") == (
        "bad.toml: [smaple]: unknown section; did you mean [sample]? (known: [aggregate], "
        "[corpus], [elicit], [export], [import], [ingest], [labels], [relabel], [sample], "
        "[serve], [workbench])"
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


def test_a_command_line_setting_that_no_preset_section_reads_is_unknown() -> None:
    # `aggregate-labels --method` is chosen per run, so the preset cannot set it.
    message = preset_error('[aggregate]\nmethod = "dawid-skene"\n')
    assert message.startswith("bad.toml: [aggregate] method: unknown key")


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
