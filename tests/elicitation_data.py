"""What the elicitation and relabelling tests share: the premises, a careful writer's
answers, a store of sampled premises (built through the Python API), and the platform files
they both read and write (exported task files, the worker map of `--annotator-map`, MTurk's
input and batch results CSVs)."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conftest import read_jsonl

import nlibuild
from nlibuild.api import Corpus

NEWS = [
    "The city council approved a new budget for public parks on Monday.",
    "Heavy rain flooded several streets in the old town overnight.",
    "The museum will open a new wing dedicated to modern sculpture next spring.",
    "Local farmers reported a record harvest of apples this autumn.",
    "A small bakery on the main square won a national bread competition.",
    "The train line between the two towns was closed for repairs last week.",
]
FICTION = [
    "She folded the letter twice and hid it under the loose floorboard.",
    "The old captain stared at the horizon as the storm gathered.",
    "Nobody in the village remembered who had planted the oak tree.",
    "He whistled a tune his grandmother used to sing in the kitchen.",
    "The twins ran across the frozen lake before their mother could call them back.",
    "A black cat slept on the piano while the guests argued about politics.",
]

# What a careful writer sends back: no overlap with any premise, no duplicates, at most
# one negated contradiction (so MULTI_CONSTRAINT is happy too).
SINGLE = {
    "entailment": ["Something was reported."],
    "neutral": ["Everyone was pleased about it."],
    "contradiction": ["Nothing like that happened."],
}
MULTI = {
    "entailment": ["Something was reported.", "Someone did something.", "An event took place."],
    "neutral": ["Everyone was pleased.", "It cost a fortune.", "Critics disliked it."],
    "contradiction": [
        "Nothing like that happened.",
        "Everything stayed the same.",
        "It all went differently.",
    ],
}

MTURK_COLUMNS = (
    "HITId", "HITTypeId", "Title", "Description", "Keywords", "Reward", "CreationTime",
    "MaxAssignments", "RequesterAnnotation", "AssignmentDurationInSeconds",
    "AutoApprovalDelayInSeconds", "Expiration", "NumberOfSimilarHITs", "LifetimeInSeconds",
    "AssignmentId", "WorkerId", "AssignmentStatus", "AcceptTime", "SubmitTime",
    "AutoApprovalTime", "ApprovalTime", "RejectionTime", "RequesterFeedback",
    "WorkTimeInSeconds", "LifetimeApprovalRate", "Last30DaysApprovalRate",
    "Last7DaysApprovalRate",
)  # fmt: skip
"""The HIT and assignment columns of MTurk's batch results CSV, in its order."""


def premise_corpus(db: Path, genres: Mapping[str, list[str]], **init: Any) -> Corpus:
    """A store (`nlibuild.create(db, **init)`: `lang="en"`, `preset=...`) whose premises
    are the sentences given per genre: each genre's sentences ingested from `<genre>.txt`
    beside the store and all sampled."""
    corpus = nlibuild.create(db, **init)
    sample_every_sentence(corpus, genres)
    return corpus


def sample_every_sentence(corpus: Corpus, genres: Mapping[str, list[str]]) -> None:
    """Each genre's sentences ingested from `<genre>.txt` beside the store, and every one of
    them sampled as a premise (a sentence of 3 to 40 tokens; the tests' sentences are)."""
    for genre, sentences in genres.items():
        source = corpus.path.parent / f"{genre}.txt"
        source.write_text("\n\n".join(sentences) + "\n", encoding="utf-8")
        corpus.ingest(paths=(source,), genre=genre)
        corpus.sample(genres=(genre,), n=len(sentences), min_len=3, max_len=40)


def annotator_map(path: Path, *rows: tuple[str, str, str]) -> Path:
    """The `--annotator-map` CSV: (platform, platform_id, annotator) per row."""
    lines = ["platform,platform_id,annotator", *(",".join(row) for row in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_task_file(path: Path, fmt: str) -> list[dict[str, Any]]:
    """The tasks of an exported task file as the platform gets them: the records of
    `jsonl`, each task's `data` of a `labelstudio` task file, the rows of a `csv` sheet or
    an `mturk` input CSV."""
    if fmt == "jsonl":
        return read_jsonl(path)
    if fmt == "labelstudio":
        tasks = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(tasks, list), path
        return [task["data"] for task in tasks]
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def mturk_input(input_csv: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The columns and the HITs (one a row) of an exported MTurk input CSV."""
    with input_csv.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def write_mturk_results(path: Path, header: Sequence[str], rows: Sequence[Sequence[str]]) -> Path:
    """A batch results CSV as MTurk downloads it: every field quoted."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
        writer.writerow(header)
        writer.writerows(rows)
    return path
