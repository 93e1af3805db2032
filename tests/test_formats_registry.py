"""The format registries: every `--format` the CLI offers has a format behind it, a format
asked for a direction it lacks says so, and each platform has the parts its work needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlibuild.errors import ConfigError
from nlibuild.formats.corpora import CORPUS_FORMATS, corpus_format_for
from nlibuild.formats.corpora.base import ReadSettings, WriteSettings
from nlibuild.formats.platforms import PLATFORMS, platform_for
from nlibuild.models import (
    DEFAULT_LABEL_ORDER,
    ExportFormat,
    ImportFormat,
    NoGoldPolicy,
    PlatformFormat,
)


def test_every_import_format_reads_and_every_export_format_writes() -> None:
    for import_format in ImportFormat:
        assert corpus_format_for(import_format).reader is not None, import_format
    for export_format in ExportFormat:
        assert corpus_format_for(export_format).writer is not None, export_format
    assert set(CORPUS_FORMATS) == {*ImportFormat, *ExportFormat}


def test_a_missing_direction_or_an_unknown_format_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="hf-jsonl is an export format only"):
        corpus_format_for(ExportFormat.HF_JSONL).read(tmp_path / "x.jsonl", ReadSettings())
    settings = WriteSettings(DEFAULT_LABEL_ORDER, NoGoldPolicy.MINUS_ONE, (), set, dict)
    with pytest.raises(ConfigError, match="snli is an import format only"):
        corpus_format_for(ImportFormat.SNLI).write(iter(()), tmp_path / "x.jsonl", settings)
    with pytest.raises(ConfigError, match="no corpus format conll"):
        corpus_format_for("conll")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="no platform prolific"):
        platform_for("prolific")  # type: ignore[arg-type]


def test_only_the_platforms_with_forms_name_their_workers() -> None:
    assert set(PLATFORMS) == set(PlatformFormat)
    with_forms = {PlatformFormat.LABELSTUDIO, PlatformFormat.MTURK}
    for fmt, platform in PLATFORMS.items():
        assert platform.names_workers is (fmt in with_forms), fmt
        assert (platform.elicit_form_writer is not None) is (fmt in with_forms), fmt
        assert (platform.relabel_form_writer is not None) is (fmt in with_forms), fmt
