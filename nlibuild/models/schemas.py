"""JSON Schemas of the interchange files, generated from the pydantic models.

`schemas/` in the repository holds their current output; a test fails when the models and
the committed files drift apart (regenerate with `nlibuild schemas --out schemas`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from nlibuild import models
from nlibuild.errors import OutputError

SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "mnli-jsonl.record": models.MnliRecord,
    "ocnli-json.record": models.OcnliRecord,
    "xnli-tsv.row": models.XnliRow,
    "hf-jsonl.record": models.HfRecord,
    "hf-jsonl.labels": models.HfLabelInfo,
    "nlibuild-jsonl.record": models.PairRecord,
    "elicit-task": models.ElicitTask,
    "elicit-answer": models.ElicitAnswer,
    "relabel-task": models.RelabelTask,
    "relabel-vote": models.RelabelVote,
    "translation-unit": models.TranslationUnit,
    "run-record": models.RunRecord,
    "store-summary": models.StoreSummary,
}


def schema_texts() -> dict[str, str]:
    """File name -> JSON text of every schema, in a stable layout."""
    texts = {}
    for name, model in SCHEMA_MODELS.items():
        schema: dict[str, Any] = model.model_json_schema()
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        texts[f"{name}.schema.json"] = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    return texts


def write_schemas(out_dir: Path) -> list[Path]:
    if out_dir.exists() and not out_dir.is_dir():  # a traceback once (fuzzing, issue 26)
        raise OutputError(
            f"--out {out_dir}: that is a file, not a folder; the schemas are files written "
            "into the folder --out names, so choose another path"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in schema_texts().items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
