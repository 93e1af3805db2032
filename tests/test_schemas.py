"""schemas/ is generated from the models; a change to one without the other fails here."""

from __future__ import annotations

import json

from conftest import FIXTURES, PROJECT, SAMPLE_MNLI, requires_fixtures

from nlibuild.models import MnliRecord, OcnliRecord
from nlibuild.models.schemas import schema_texts


def test_committed_schemas_match_the_models() -> None:
    committed = {
        p.name: p.read_text(encoding="utf-8") for p in (PROJECT / "schemas").glob("*.json")
    }
    generated = schema_texts()
    assert sorted(committed) == sorted(generated), "run `make schemas` and commit schemas/"
    for name, text in generated.items():
        assert committed[name] == text, f"{name} drifted: run `make schemas` and commit schemas/"


def test_the_sample_data_follows_the_record_schemas() -> None:
    for line in SAMPLE_MNLI.read_text(encoding="utf-8").splitlines():
        MnliRecord.model_validate_json(line)
    for line in (PROJECT / "data" / "sample_ocnli.json").read_text(encoding="utf-8").splitlines():
        OcnliRecord.model_validate_json(line)


@requires_fixtures
def test_snli_release_lines_follow_the_mnli_record_schema() -> None:
    path = FIXTURES / "snli_prefix" / "snli_1.0_dev.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines()[:200]:
        record = MnliRecord.model_validate_json(line)
        assert json.loads(line)["pairID"] == record.pairID
