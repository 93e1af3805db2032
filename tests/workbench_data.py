"""What the workbench tests share: stores with elicitation batches (built through the
Python API as the elicit tests build theirs, from `elicitation_data`) and an answer as the
form sends it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from elicitation_data import FICTION, NEWS, premise_corpus

from nlibuild.models import Label
from nlibuild.store import Store

BLOCK_NOTHING = "[workbench]\nblocking_rules = []\n"
"""A preset whose submissions no rule refuses, so findings reach the store as violations."""


def writing_store(db: Path, protocol: str = "MULTI_CONSTRAINT", preset: str | None = None) -> Path:
    """English news and fiction premises in batches of 3 for writers w01 and w02; `preset`
    is the text of a preset file the store is made with."""
    init: dict[str, Any] = {"lang": "en"}
    if preset is not None:
        db.parent.mkdir(parents=True, exist_ok=True)
        preset_file = db.parent / "preset.toml"
        preset_file.write_text(preset, encoding="utf-8")
        init["preset"] = preset_file
    corpus = premise_corpus(db, {"news": NEWS, "fiction": FICTION}, **init)
    corpus.elicit_create(protocol=protocol, annotators=("w01", "w02"), batch_size=3)
    return db


def batches_of(db: Path) -> dict[str, list[str]]:
    """writer -> their elicitation batch IDs."""
    from conftest import query

    found: dict[str, list[str]] = {}
    for batch, writer in query(
        db,
        "SELECT b.id, a.id FROM batches b JOIN annotators a ON a.pk = b.annotator_pk "
        "WHERE b.kind = 'elicit' ORDER BY b.pk",
    ):
        found.setdefault(writer, []).append(batch)
    return found


def premises_of(db: Path, batch: str) -> list[tuple[str, str]]:
    """(premise ID, text) of a batch, in its order."""
    from conftest import query

    return [
        (row[0], row[1])
        for row in query(
            db,
            "SELECT p.id, p.text FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
            "JOIN premises p ON p.id = s.item_id WHERE b.id = ? ORDER BY s.position",
            batch,
        )
    ]


def as_labels(answer: dict[str, list[str]]) -> dict[Label, list[str]]:
    return {Label(label): texts for label, texts in answer.items()}


def open_store(db: Path) -> Store:
    return Store.open(db)
