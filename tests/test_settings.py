"""One settings model per stage: the command builds it from its flags, the store's preset
fills what no flag gave (`presets.settings_from_preset`), and every default lives once, in
the model, which is also where `--help` reads it from."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_user_error, new_store, ok, query, run_cli
from pydantic import BaseModel

from nlibuild import presets
from nlibuild.cli.relabel import stratify_option
from nlibuild.errors import ConfigError
from nlibuild.models import (
    AggregateConfig,
    AggregateMethod,
    ElicitCreateConfig,
    ElicitImportConfig,
    ExportConfig,
    ExportFormat,
    HypothesisOnlyConfig,
    ImportConfig,
    ImportFormat,
    IngestConfig,
    Label,
    LengthUnit,
    NoGoldPolicy,
    OnViolation,
    ParagraphMode,
    Protocol,
    RelabelCreateConfig,
    SampleConfig,
    ScoreBaselinesConfig,
    ScoreLanguages,
    ScorePlanConfig,
    SplitConfig,
    SplitGrouping,
    SplitSource,
    StratumKey,
    TranslateExportConfig,
    TranslateQaConfig,
    TranslationKind,
)
from nlibuild.options import label_order_option
from nlibuild.presets import parse_preset, settings_from_preset

PRESET = """
[sample]
min_len = 4
unit = "chars"

[export]
format = "hf-jsonl"
label_order = "n,e,c"

[elicit]
protocol = "multi"
batch_size = 20
max_per_writer = 0
on_violation = "reject"

[relabel]
stratify = "protocol,level"
validators = 3

[aggregate]
min_agree = 2
"""


@pytest.fixture
def preset() -> dict[str, Any]:
    return parse_preset(PRESET, "mine.toml")


# --- flag, then preset, then the model's default ------------------------------------------


def test_sample_takes_the_flag_then_the_preset_then_its_default(preset: dict[str, Any]) -> None:
    cfg = settings_from_preset(
        SampleConfig, preset, "sample", "mine.toml", min_len=None, max_len=None
    )
    assert (cfg.min_len, cfg.unit, cfg.max_len) == (4, LengthUnit.CHARS, 50)
    flagged = settings_from_preset(
        SampleConfig, preset, "sample", "mine.toml", min_len=6, unit=None
    )
    assert (flagged.min_len, flagged.unit) == (6, LengthUnit.CHARS)


def test_elicit_create_reads_the_protocol_in_any_case_and_0_as_no_cap(
    preset: dict[str, Any],
) -> None:
    cfg = settings_from_preset(
        ElicitCreateConfig, preset, "elicit", "mine.toml", annotators=("w01",)
    )
    assert cfg.protocol is Protocol.MULTI
    assert (cfg.batch_size, cfg.max_per_writer, cfg.seed) == (20, None, 13)
    flagged = settings_from_preset(ElicitCreateConfig,
        preset, "elicit", "mine.toml", annotators=("w01",), protocol=Protocol.SINGLE,
        batch_size=5, max_per_writer=8,
    )  # fmt: skip
    assert (flagged.protocol, flagged.batch_size, flagged.max_per_writer) == (
        Protocol.SINGLE, 5, 8,
    )  # fmt: skip


def test_the_two_elicit_commands_share_their_section(preset: dict[str, Any]) -> None:
    # [elicit] on_violation is `elicit import`'s; `elicit create` passes over it.
    cfg = settings_from_preset(
        ElicitImportConfig,
        preset,
        "elicit",
        "mine.toml",
        path=Path("a.jsonl"),
        format="jsonl",
        max_overlap=None,
    )
    assert (cfg.on_violation, cfg.max_overlap) == (OnViolation.REJECT, 0.70)


def test_relabel_reads_stratify_as_the_option_takes_it(preset: dict[str, Any]) -> None:
    cfg = settings_from_preset(
        RelabelCreateConfig, preset, "relabel", "mine.toml", annotators=("v01",)
    )
    assert cfg.stratify == (StratumKey.PROTOCOL, StratumKey.LEVEL)
    assert (cfg.validators, cfg.fraction) == (3, 0.15)
    one_stratum = settings_from_preset(
        RelabelCreateConfig, preset, "relabel", "mine.toml", annotators=("v01",), stratify=()
    )
    assert one_stratum.stratify == ()  # an empty flag is given, not left out


def test_export_reads_the_label_order_as_the_option_takes_it(preset: dict[str, Any]) -> None:
    cfg = settings_from_preset(ExportConfig, preset, "export", "mine.toml", out=Path("x.jsonl"))
    assert cfg.format is ExportFormat.HF_JSONL
    assert cfg.label_order == (Label.NEUTRAL, Label.ENTAILMENT, Label.CONTRADICTION)
    assert cfg.no_gold is NoGoldPolicy.MINUS_ONE


def test_without_a_preset_every_default_is_the_models() -> None:
    assert settings_from_preset(AggregateConfig, {}, "aggregate", "none") == AggregateConfig()
    assert settings_from_preset(SampleConfig, {}, "sample", "none", seed=None) == SampleConfig()
    cfg = settings_from_preset(
        ImportConfig, {"import": {"format": "ocnli"}}, "import", "p", path=Path("a")
    )
    assert cfg.format is ImportFormat.OCNLI


def test_the_store_preset_fills_what_no_flag_gave(tmp_path: Path) -> None:
    preset = tmp_path / "mine.toml"
    preset.write_text(PRESET, encoding="utf-8")
    db = new_store(tmp_path / "c.db", "--preset", str(preset))
    ok("--db", db, "import", Path(__file__).parent.parent / "data" / "sample_mnli.jsonl",
       "--format", "mnli")  # fmt: skip
    out = tmp_path / "out.jsonl"
    assert "labels n,e,c = 0,1,2" in ok("--db", db, "export", "--out", out)
    flagged = ok("--db", db, "export", "--out", out, "--label-order", "e,n,c")
    assert "labels e,n,c = 0,1,2" in flagged
    assert "by majority (at least 2)" in ok("--db", db, "aggregate-labels")
    assert "by majority (at least 3)" in ok("--db", db, "aggregate-labels", "--min-agree", "3")


def test_a_genre_table_of_the_preset_lies_over_its_ingest_section(tmp_path: Path) -> None:
    db = new_store(tmp_path / "c.db", "--preset", "ocnli")
    sources = Path(__file__).parent.parent / "data" / "sources" / "zh"
    ok("--db", db, "ingest", sources / "phone.txt", "--genre", "phone")
    ok("--db", db, "ingest", sources / "news.txt", "--genre", "news", "--clean", "callhome")
    configs = [
        json.loads(config)
        for (config,) in query(
            db, "SELECT config_json FROM runs WHERE stage = 'ingest' ORDER BY id"
        )
    ]
    assert [(c["clean"], c["paragraph"]) for c in configs] == [
        ("callhome", "line"),  # [ingest.genres.phone]
        ("callhome", "blank"),  # the flag, then [ingest]
    ]


# --- errors name where the value came from -------------------------------------------------


def test_a_misspelt_key_names_the_preset_file_section_and_key() -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from_preset(SampleConfig, {"sample": {"min_lenght": 8}}, "sample", "mine.toml")
    assert str(caught.value).startswith(
        "mine.toml: [sample] min_lenght: unknown key; did you mean min_len?"
    )


def test_a_section_key_no_setting_takes_names_file_section_and_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Were `elicit import` no longer to read [elicit], its keys would be nobody's.
    monkeypatch.setitem(presets.SECTION_SETTINGS, "elicit", (ElicitCreateConfig,))
    preset = {"elicit": {"batch_size": 10, "on_violation": "reject"}}
    with pytest.raises(ConfigError) as caught:
        settings_from_preset(ElicitCreateConfig, preset, "elicit", "mine.toml", annotators=("w01",))
    assert str(caught.value).startswith(
        "mine.toml: [elicit] on_violation: no setting of ElicitCreateConfig takes this key"
    )


def test_keys_the_commands_read_themselves_are_not_unknown() -> None:
    preset = {"ingest": {"clean": "none", "genres": {"phone": {"paragraph": "line"}}}}
    cfg = presets.preset_settings(IngestConfig, preset, "ingest", "mine.toml")
    assert cfg == {"clean": "none"}


@pytest.mark.parametrize("section", presets.preset_sections())
def test_every_key_a_section_allows_fills_a_setting_or_a_command(section: str) -> None:
    keys = set(presets.section_keys(section))
    fields = set().union(*(model.model_fields for model in presets.SECTION_SETTINGS[section]))
    read_by_commands = presets.KEYS_COMMANDS_READ.get(section, frozenset())
    assert keys - fields - read_by_commands == set()


def test_a_flag_the_model_refuses_names_the_option() -> None:
    with pytest.raises(ConfigError, match=r"^option batch_size: Input should be greater"):
        settings_from_preset(
            ElicitCreateConfig, {}, "elicit", "p",
            annotators=("w01",), batch_size=0, protocol=Protocol.SINGLE,
        )  # fmt: skip


def test_a_setting_neither_flag_nor_preset_gives_names_both_places() -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from_preset(ElicitCreateConfig, {}, "elicit", "p", annotators=("w01",))
    assert str(caught.value) == (
        "give --protocol (SINGLE, MULTI, MULTI_ENCOURAGE, MULTI_CONSTRAINT), "
        "or set [elicit] protocol in the preset"
    )


def test_a_missing_format_through_the_command_line(db: Path, tmp_path: Path) -> None:
    result = run_cli("--db", db, "export", "--out", tmp_path / "x.jsonl")
    assert_user_error(result, "give --format (mnli-jsonl, ", "or set [export] format")


def test_a_flag_name_the_model_lacks_is_a_mistake_in_the_command() -> None:
    with pytest.raises(TypeError, match="no field min_length"):
        settings_from_preset(SampleConfig, {}, "sample", "p", min_length=3)


# --- --help shows the model's defaults -----------------------------------------------------


def _int(text: str) -> int:
    return int(text)


def _float(text: str) -> float:
    return float(text)


HELP_DEFAULTS: list[tuple[tuple[str, ...], str, type[BaseModel], str, Callable[[str], Any]]] = [
    (("ingest",), "--field", IngestConfig, "field", str),
    (("ingest",), "--paragraph", IngestConfig, "paragraph", ParagraphMode),
    (("ingest",), "--clean", IngestConfig, "clean", str),
    (("sample",), "--n", SampleConfig, "n", _int),
    (("sample",), "--min-len", SampleConfig, "min_len", _int),
    (("sample",), "--max-len", SampleConfig, "max_len", _int),
    (("sample",), "--unit", SampleConfig, "unit", LengthUnit),
    (("sample",), "--seed", SampleConfig, "seed", _int),
    (("elicit", "create"), "--batch-size", ElicitCreateConfig, "batch_size", _int),
    (("elicit", "create"), "--seed", ElicitCreateConfig, "seed", _int),
    (("elicit", "import"), "--on-violation", ElicitImportConfig, "on_violation", OnViolation),
    (("elicit", "import"), "--max-overlap", ElicitImportConfig, "max_overlap", _float),
    (("relabel", "create"), "--fraction", RelabelCreateConfig, "fraction", _float),
    (("relabel", "create"), "--validators", RelabelCreateConfig, "validators", _int),
    (("relabel", "create"), "--stratify", RelabelCreateConfig, "stratify", stratify_option),
    (("relabel", "create"), "--batch-size", RelabelCreateConfig, "batch_size", _int),
    (("relabel", "create"), "--seed", RelabelCreateConfig, "seed", _int),
    (("aggregate-labels",), "--min-agree", AggregateConfig, "min_agree", _int),
    (("aggregate-labels",), "--method", AggregateConfig, "method", AggregateMethod),
    (("export",), "--label-order", ExportConfig, "label_order",
     lambda text: label_order_option(text, "--label-order")),
    (("export",), "--no-gold", ExportConfig, "no_gold", NoGoldPolicy),
    (("stats",), "--min-len", SampleConfig, "min_len", _int),
    (("stats",), "--max-len", SampleConfig, "max_len", _int),
    (("stats",), "--unit", SampleConfig, "unit", LengthUnit),
    (("stats",), "--max-overlap", ElicitImportConfig, "max_overlap", _float),
    (("split",), "--seed", SplitConfig, "seed", _int),
    (("split",), "--from", SplitConfig, "draw_from", SplitSource),
    (("split",), "--group-by", SplitConfig, "group_by", SplitGrouping),
    (("translate", "export"), "--kind", TranslateExportConfig, "kind", TranslationKind),
    (("translate", "qa"), "--hyp", TranslateQaConfig, "hyp", TranslationKind),
    (("translate", "qa"), "--ref", TranslateQaConfig, "ref", TranslationKind),
    (("translate", "qa"), "--worst", TranslateQaConfig, "worst", _int),
    (("bias", "hypothesis-only"), "--seed", HypothesisOnlyConfig, "seed", _int),
    (("bias", "hypothesis-only"), "--ci", HypothesisOnlyConfig, "ci", _float),
    (("bias", "hypothesis-only"), "--resamples", HypothesisOnlyConfig, "resamples", _int),
    (("score", "plan"), "--launcher", ScorePlanConfig, "launcher", str),
    (("score", "plan"), "--gpus-per-job", ScorePlanConfig, "gpus_per_job", _int),
    (("score", "baselines"), "--seed", ScoreBaselinesConfig, "seed", _int),
    (("score", "baselines"), "--eval-langs", ScoreLanguages, "eval_langs",
     lambda text: (text,)),
]  # fmt: skip
"""Command, option, settings model, field, and how the option reads its text."""


@pytest.mark.parametrize(
    ("command", "option", "settings", "field", "read"),
    HELP_DEFAULTS,
    ids=[f"{' '.join(case[0])} {case[1]}" for case in HELP_DEFAULTS],
)
def test_help_shows_the_models_default(
    command: tuple[str, ...],
    option: str,
    settings: type[BaseModel],
    field: str,
    read: Callable[[str], Any],
) -> None:
    help_text = " ".join(ok(*command, "--help").split())  # unwrap the help's lines
    entry = re.search(rf"{option} <\w+> (.*?)(?= --[a-z]|$)", help_text)
    assert entry, help_text
    shown = re.search(r"\(default ([^\s);]+)", entry.group(1))
    assert shown, entry.group(1)
    assert read(shown.group(1)) == settings.model_fields[field].default
