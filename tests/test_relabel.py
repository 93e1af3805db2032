"""Relabelling: `relabel create`, `export`, `import`.

SNLI, MNLI, XNLI and OCNLI sent 10-19% of their pairs to four more annotators, never the
pair's author; with the author's label each such pair has five.

- `create` picks round(fraction * stratum size) of the pairs not yet relabelled in each
  stratum (protocol, level, genre), at random but by a seeded hash of the pair ID (so the
  same seed gives the same choice whatever order the pairs were stored in), gives each to
  `--validators` distinct annotators who did not write it, least loaded first, and makes
  batches r0001, ... of one annotator each. Too few eligible annotators is an error.
- `export` writes one task per (batch, pair) with our IDs and never the author's label:
  jsonl, a csv sheet with an empty `label` column, a Label Studio task file per batch
  (each batch is one annotator's) with a config whose Choices `label` offers the store's
  extra labels too, and an MTurk input CSV with a radio-group template.
- `import` reads the labels back in each platform's real export shape and writes votes at
  positions 1, 2, ... after the author's 0. A vote by the pair's author is refused and one
  by an annotator the pair was not given to is reported (both stored as violations, neither
  written); the same file twice adds nothing; a different second label is an error naming
  both; any error leaves the store as it was.
"""

from __future__ import annotations

import csv
import json
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from operator import methodcaller
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    copy_store,
    drawn_rows,
    fails,
    ok,
    query,
    read_jsonl,
    refused,
    table_counts,
    without_runs,
    write_jsonl,
)
from elicitation_data import (
    FICTION,
    MTURK_COLUMNS,
    MULTI,
    NEWS,
    SINGLE,
    annotator_map,
    mturk_input,
    read_task_file,
    write_mturk_results,
)

import nlibuild
from nlibuild.models import RelabelCreateResult, RelabelImportResult

ANNOTATORS = "w01,w02,v01,v02,v03,v04"
"""The two writers (authors of every pair) and four more people."""

LABEL_OF = {"e": "entailment", "n": "neutral", "c": "contradiction"}
Task = dict[str, Any]
LabelOf = Callable[[Task], str]


def authors_label(task: Task) -> str:
    """The label the pair's ID says its author gave: `news_0001-c1` is a contradiction."""
    return LABEL_OF[task["pair_id"].rsplit("-", 1)[1][0]]


# --- helpers: the store --------------------------------------------------------------------


def build_store(db: Path, *, reverse: bool = False, preset: Path | None = None) -> Path:
    """An English store (extra label `unrelated`) with SINGLE pairs of six news premises
    and MULTI pairs of six fiction premises, written by w01 and w02: 18 news pairs and 18
    fiction pairs of each level. `reverse` imports the answers in the opposite order;
    `preset`, a preset file the store is made with (its language and labels the same)."""
    made_by = {"preset": preset} if preset else {"lang": "en", "extra_labels": ("unrelated",)}
    corpus = nlibuild.create(db, **made_by)
    for genre, sentences in {"news": NEWS, "fiction": FICTION}.items():
        source = db.parent / f"{genre}.txt"
        source.write_text("\n\n".join(sentences) + "\n", encoding="utf-8")
        corpus.ingest(paths=(source,), genre=genre)
        corpus.sample(genres=(genre,), n=len(sentences), min_len=3, max_len=40)
    for genre, protocol in (("news", "SINGLE"), ("fiction", "MULTI")):
        corpus.elicit_create(
            protocol=protocol, genres=(genre,), annotators=("w01", "w02"), batch_size=3
        )
    package = db.parent / "elicit-package"
    corpus.elicit_export(all=True, format="jsonl", out=package)
    answers = [
        {"batch": t["batch"], "writer": t["writer"], "premise_id": t["premise_id"]}
        | (SINGLE if t["protocol"] == "SINGLE" else MULTI)
        for path in sorted(package.glob("e*.tasks.jsonl"))
        for t in read_jsonl(path)
    ]
    path = db.parent / "answers.jsonl"
    write_jsonl(path, answers[::-1] if reverse else answers)
    corpus.elicit_import(path=path, format="jsonl")
    return db


def create(db: Path, annotators: str = ANNOTATORS, **settings: object) -> RelabelCreateResult:
    """`relabel create --annotators ANNOTATORS` with `settings` (`fraction=0.25`, ...)."""
    return nlibuild.open(db).relabel_create(annotators=tuple(annotators.split(",")), **settings)


def layout(db: Path) -> list[tuple[str, str, str, int]]:
    """(batch, annotator, pair, position) of every relabelling assignment."""
    return query(
        db,
        "SELECT b.id, a.id, s.item_id, s.position FROM assignments s "
        "JOIN batches b ON b.pk = s.batch_pk JOIN annotators a ON a.pk = b.annotator_pk "
        "WHERE b.kind = 'relabel' ORDER BY b.pk, s.position",
    )


def validators_of(db: Path) -> dict[str, list[str]]:
    """pair -> the annotators its relabelling batches went to."""
    found: dict[str, list[str]] = {}
    for _, annotator, pair, _ in layout(db):
        found.setdefault(pair, []).append(annotator)
    return found


def authors(db: Path) -> dict[str, str]:
    return dict(query(db, "SELECT p.id, a.id FROM pairs p JOIN annotators a ON a.pk = p.author_pk"))


def strata(db: Path) -> dict[tuple[str, str | None, str], int]:
    """(protocol, level, genre) -> pairs of that stratum."""
    rows = query(
        db,
        "SELECT p.protocol, p.level, pr.genre, count(*) FROM pairs p "
        "JOIN premises pr ON pr.pk = p.premise_pk GROUP BY 1, 2, 3",
    )
    return {(protocol, level, genre): n for protocol, level, genre, n in rows}


def stratum_of(db: Path) -> dict[str, tuple[str, str | None, str]]:
    rows = query(
        db,
        "SELECT p.id, p.protocol, p.level, pr.genre FROM pairs p "
        "JOIN premises pr ON pr.pk = p.premise_pk",
    )
    return {pair: (protocol, level, genre) for pair, protocol, level, genre in rows}


def validator_votes(db: Path) -> list[tuple[str, str, int, str]]:
    """(pair, annotator, position, label) of every vote after the author's."""
    return query(
        db,
        "SELECT p.id, a.id, v.position, v.label FROM votes v JOIN pairs p ON p.pk = v.pair_pk "
        "JOIN annotators a ON a.pk = v.annotator_pk WHERE v.position > 0 "
        "ORDER BY p.id, v.position",
    )


def violations(db: Path) -> list[tuple[str, str, str, int, str, str | None]]:
    """(rule, pair, annotator, kept, detail, batch) of every stored violation."""
    return query(
        db,
        "SELECT v.rule, v.pair_id, a.id, v.kept, v.detail, b.id FROM violations v "
        "JOIN annotators a ON a.pk = v.annotator_pk LEFT JOIN batches b ON b.pk = v.batch_pk "
        "ORDER BY v.pk",
    )


def statuses(db: Path) -> Counter[str]:
    return Counter(
        row[0]
        for row in query(
            db,
            "SELECT s.status FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
            "WHERE b.kind = 'relabel'",
        )
    )


# --- helpers: platform files ---------------------------------------------------------------


def export(db: Path, fmt: str, out: Path, *batches: str) -> Path:
    """`relabel export BATCHES --format FMT --out OUT` (every batch unless named)."""
    nlibuild.open(db).relabel_export(batches=batches, all=not batches, format=fmt, out=out)
    return out


def import_votes(
    db: Path, path: Path | str, fmt: str = "jsonl", **settings: object
) -> RelabelImportResult:
    """`relabel import PATH --format FMT` with `settings` (`annotator_map=...`)."""
    return nlibuild.open(db).relabel_import(path=path, format=fmt, **settings)


def tally(result: RelabelImportResult) -> tuple[int, int, int, int, int, int]:
    """(votes read, added, already imported, refused as the author's, not assigned,
    violations stored), as the closing line gives them."""
    return (result.votes, result.added, result.unchanged, result.author_votes,
            result.unassigned, result.violations_added)  # fmt: skip


def all_tasks(out: Path) -> list[Task]:
    """Every task of a jsonl package, batch by batch."""
    return [t for path in sorted(out.glob("r*.tasks.jsonl")) for t in read_jsonl(path)]


def vote_records(tasks: list[Task], label_of: LabelOf = authors_label) -> list[dict[str, Any]]:
    """The jsonl votes of the annotators the tasks went to."""
    return [
        {"batch": t["batch"], "annotator": t["annotator"], "pair_id": t["pair_id"],
         "label": label_of(t)}
        for t in tasks
    ]  # fmt: skip


def labelstudio_votes(
    path: Path,
    tasks: list[Task],
    user: int,
    label_of: LabelOf = authors_label,
    *,
    cancelled: tuple[str, ...] = (),
) -> Path:
    """Label Studio's full JSON export (Export > JSON) of a project made from our tasks."""
    exported = []
    for index, data in enumerate(tasks):
        skipped = data["pair_id"] in cancelled
        result = [] if skipped else [
            {"value": {"choices": [label_of(data)]}, "id": f"Xy{index:03d}", "from_name": "label",
             "to_name": "hypothesis", "type": "choices", "origin": "manual"}
        ]  # fmt: skip
        annotation = {
            "id": 5001 + index, "completed_by": user, "result": result,
            "was_cancelled": skipped, "ground_truth": False,
            "created_at": "2024-06-03T10:00:00.000000Z",
            "updated_at": "2024-06-03T10:00:00.000000Z", "draft_created_at": None,
            "lead_time": 8.25, "prediction": {}, "result_count": 0,
            "unique_id": f"5a1d6c2e-0b7f-4e44-9d2a-{index:012d}", "import_id": None,
            "last_action": None, "task": 301 + index, "project": 12, "updated_by": user,
            "parent_prediction": None, "parent_annotation": None, "last_created_by": None,
        }  # fmt: skip
        exported.append(
            {"id": 301 + index, "annotations": [annotation], "file_upload": "r.labelstudio.json",
             "drafts": [], "predictions": [], "data": data, "meta": {},
             "created_at": "2024-06-01T08:00:00.000000Z",
             "updated_at": "2024-06-03T10:00:00.000000Z", "inner_id": index + 1,
             "total_annotations": int(not skipped), "cancelled_annotations": int(skipped),
             "total_predictions": 0, "comment_count": 0, "unresolved_comment_count": 0,
             "last_comment_updated_at": None, "project": 12, "updated_by": user,
             "comment_authors": []}
        )  # fmt: skip
    path.write_text(json.dumps(exported, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def mturk_votes(
    path: Path,
    input_csv: Path,
    worker: str,
    label_of: LabelOf = authors_label,
    *,
    shape: str = "crowd",
    rejected: tuple[str, ...] = (),
) -> Path:
    """MTurk's batch results CSV for the HITs of an input CSV. `shape` is how the form
    answers: `crowd` (crowd-radio-group in Answer.taskAnswers: one object per button, named
    after its label), `classic` (an HTML radio group `label`: Answer.label) or `flattened`
    (crowd-form with flatten-objects: Answer.<button>.<value> = true/false)."""
    inputs, hits = mturk_input(input_csv)
    buttons = ["entailment", "neutral", "contradiction", "unrelated"]
    answer_columns = {
        "crowd": ["Answer.taskAnswers"],
        "classic": ["Answer.label"],
        "flattened": [f"Answer.{b}.{b}" for b in buttons],
    }[shape]
    header = [*MTURK_COLUMNS, *(f"Input.{c}" for c in inputs), *answer_columns, "Approve",
              "Reject"]  # fmt: skip
    rows = []
    for index, hit in enumerate(hits):
        label = label_of(hit)
        answers = {
            "crowd": [json.dumps([{b: {b: b == label} for b in buttons}])],
            "classic": [label],
            "flattened": ["true" if b == label else "false" for b in buttons],
        }[shape]
        status = "Rejected" if hit["pair_id"] in rejected else "Approved"
        meta = dict.fromkeys(MTURK_COLUMNS, "") | {
            "HITId": f"3J9UN{index:06d}HIT", "HITTypeId": "3QXNC7EXAMPLE",
            "Title": "Label a pair of sentences", "Reward": "$0.10", "MaxAssignments": "1",
            "AssignmentId": f"3Z7EFS{index:06d}ASG", "WorkerId": worker,
            "AssignmentStatus": status, "WorkTimeInSeconds": "31",
            "LifetimeApprovalRate": "100% (40/40)",
        }  # fmt: skip
        rows.append(
            [meta[c] for c in MTURK_COLUMNS] + [hit[c] for c in inputs] + answers + ["", ""]
        )
    return write_mturk_results(path, header, rows)


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Stores built once per module; tests work on copies."""
    root = tmp_path_factory.mktemp("relabel")
    for name in ("pairs", "reversed"):
        (root / name).mkdir()
    pairs = build_store(root / "pairs" / "corpus.db")
    created = copy_store(pairs, root / "created" / "corpus.db")
    create(created)
    return {
        "pairs": pairs,
        "reversed": build_store(root / "reversed" / "corpus.db", reverse=True),
        "created": created,
    }


@pytest.fixture
def pairs(templates: dict[str, Path], tmp_path: Path) -> Path:
    """72 elicited pairs (SINGLE news; MULTI fiction, three levels), none relabelled."""
    return copy_store(templates["pairs"], tmp_path / "corpus.db")


@pytest.fixture
def created(templates: dict[str, Path], tmp_path: Path) -> Path:
    """`pairs` after `relabel create --annotators w01,w02,v01,v02,v03,v04`: 12 pairs, 4
    validators each, in batches r0001..r0006 of one annotator each."""
    return copy_store(templates["created"], tmp_path / "store" / "corpus.db")


@pytest.fixture
def tasks(created: Path, tmp_path: Path) -> list[Task]:
    return all_tasks(export(created, "jsonl", tmp_path / "package"))


# --- 1. create -----------------------------------------------------------------------------


def test_create_takes_the_rounded_fraction_of_every_stratum(pairs: Path) -> None:
    result = create(pairs)

    assert strata(pairs) == {
        ("SINGLE", None, "news"): 18,
        ("MULTI", "easy", "fiction"): 18,
        ("MULTI", "medium", "fiction"): 18,
        ("MULTI", "hard", "fiction"): 18,
    }
    picked = Counter(stratum_of(pairs)[pair] for pair in validators_of(pairs))
    assert picked == dict.fromkeys(strata(pairs), 3)  # round(0.15 * 18) = round(2.7)
    assert [(batch.id, batch.annotator) for batch in result.batches] == [
        (f"r000{i}", annotator)
        for i, annotator in enumerate(["v01", "v02", "v03", "v04", "w01", "w02"], 1)
    ]
    assert sum(batch.pairs for batch in result.batches) == 48
    assert (result.picked, result.candidates, len(result.strata), result.assignments) == (
        12, 72, 4, 48
    )  # fmt: skip
    assert [(s.candidates, s.picked) for s in result.strata] == [(18, 3)] * 4
    assert (
        "annotators:w01,w02,v01,v02,v03,v04|fraction:0.15|validators:4|"
        "stratify:protocol,level,genre|batch-size:50|seed:13|version:"
    ) in result.signature


def test_create_prints_each_batch_and_what_it_created(pairs: Path) -> None:
    """The command's report (the CLI's test of relabel create): the stage's table of batches
    (batch, annotator, pairs), then the closing line with the run's settings."""
    report = ok("--db", pairs, "relabel", "create", "--annotators", ANNOTATORS)

    rows = drawn_rows(report, "Batches")
    assert [row[:2] for row in rows] == [
        [f"r000{i}", annotator]
        for i, annotator in enumerate(["v01", "v02", "v03", "v04", "w01", "w02"], 1)
    ]
    assert sum(int(row[2]) for row in rows) == 48
    assert report.splitlines()[-1].startswith(
        "Created 6 batches of relabelling for 6 annotators: 12 of 72 waiting pairs (4 strata), "
        "4 validators each, 48 assignments (run "
    )
    assert (
        "annotators:w01,w02,v01,v02,v03,v04|fraction:0.15|validators:4|"
        "stratify:protocol,level,genre|batch-size:50|seed:13|version:"
    ) in report


def test_halves_round_up_and_stratifying_by_nothing_draws_from_all_pairs(pairs: Path) -> None:
    create(pairs, fraction=0.25, stratify=())

    assert len(validators_of(pairs)) == 18  # 0.25 * 72


@pytest.mark.parametrize(("option", "picked"), [("genre", {"news": 3, "fiction": 8})])
def test_strata_can_be_chosen(pairs: Path, option: str, picked: dict[str, int]) -> None:
    create(pairs, stratify=(option,))

    genres = Counter(stratum_of(pairs)[pair][2] for pair in validators_of(pairs))
    assert genres == picked  # round(0.15 * 18) = 3, round(0.15 * 54) = round(8.1) = 8


def test_every_pair_goes_to_distinct_validators_who_did_not_write_it(created: Path) -> None:
    written_by = authors(created)
    for pair, validators in validators_of(created).items():
        assert len(validators) == 4
        assert len(set(validators)) == 4
        assert written_by[pair] not in validators
        assert written_by[pair] in {"w01", "w02"}


def test_the_load_is_balanced_over_annotators_and_runs(pairs: Path) -> None:
    six = [f"v0{i}" for i in range(1, 7)]
    create(pairs, annotators=",".join(six))

    loads = Counter(annotator for _, annotator, _, _ in layout(pairs))
    assert loads == dict.fromkeys(six, 8)  # 12 pairs * 4 validators / 6

    create(pairs, annotators="v01,v02,v03,v04,v05,v06,v07,v08")

    # 8 more pairs, 32 assignments: the newcomers (load 0) take every pair, the others
    # (load 8) share the other 16 evenly.
    loads = Counter(annotator for _, annotator, _, _ in layout(pairs))
    assert loads["v07"] == loads["v08"] == 8
    assert sorted(loads[v] for v in six) == [10, 10, 11, 11, 11, 11]


def test_a_list_of_fifty_validators_longer_than_a_file_name_is_read_as_ids(
    pairs: Path,
) -> None:
    # 50 IDs of 7 characters are 399 characters, over the 255 a file name may have: the
    # list was once taken for a file and its stat's ENAMETOOLONG became an internal error.
    # --annotators is a list or a file: the CLI tells them apart.
    fifty = [f"load{k:03d}" for k in range(1, 51)]
    ok("--db", pairs, "relabel", "create", "--annotators", ",".join(fifty))
    assert {annotator for _, annotator, _, _ in layout(pairs)} <= set(fifty)


def test_authors_among_the_annotators_get_only_other_writers_pairs(created: Path) -> None:
    written_by = authors(created)
    loads = Counter(annotator for _, annotator, _, _ in layout(created))
    for writer in ("w01", "w02"):
        theirs = {p for p, v in validators_of(created).items() if writer in v}
        assert theirs and all(written_by[p] != writer for p in theirs)
        assert loads[writer] == len(theirs)
    others = [loads[v] for v in ("v01", "v02", "v03", "v04")]
    assert max(others) - min(others) <= 1


def test_a_second_create_picks_only_pairs_not_yet_relabelled(created: Path) -> None:
    first, before = validators_of(created), layout(created)

    create(created, batch_size=5)

    now = validators_of(created)
    assert {p: v for p, v in now.items() if p in first} == first
    assert len(now) - len(first) == 4 * 2  # round(0.15 * 15) = 2 more in each stratum
    assert layout(created)[: len(before)] == before
    later = Counter(row[0] for row in layout(created)[len(before) :])
    assert sorted(later)[0] == "r0007"
    assert sum(later.values()) == 8 * 4
    assert max(later.values()) <= 5


def test_the_same_seed_gives_the_same_batches_whatever_the_order(
    templates: dict[str, Path], tmp_path: Path
) -> None:
    one = copy_store(templates["pairs"], tmp_path / "one" / "corpus.db")
    other = copy_store(templates["reversed"], tmp_path / "other" / "corpus.db")
    assert query(one, "SELECT id FROM pairs ORDER BY pk") != query(
        other, "SELECT id FROM pairs ORDER BY pk"
    )

    create(one, seed=7)
    create(other, annotators=",".join(reversed(ANNOTATORS.split(","))), seed=7)

    assert layout(one) == layout(other)
    third = copy_store(templates["pairs"], tmp_path / "third" / "corpus.db")
    create(third, seed=8)
    assert set(validators_of(third)) != set(validators_of(one))


def test_the_annotators_can_come_from_a_file(pairs: Path, tmp_path: Path) -> None:
    """--annotators FILE: the CLI reads the IDs from the file."""
    people = tmp_path / "validators.csv"
    people.write_text("annotator,note\nv01,new\nv02\n# v09 is on leave\nv03\nv04\nv05\n", "utf-8")

    ok("--db", pairs, "relabel", "create", "--annotators", people)

    assert {annotator for _, annotator, _, _ in layout(pairs)} == {
        "v01",
        "v02",
        "v03",
        "v04",
        "v05",
    }


def test_too_few_annotators_for_a_pair_is_an_error(pairs: Path) -> None:
    message = refused(
        pairs, lambda corpus: create(corpus.path, annotators="w01,v01,v02,v03"),
        "needs 4 validators who did not write it", "only 3 of the 4", "its author w01",
        "--annotators", "--validators",
    )  # fmt: skip
    assert message.startswith("pair "), message


def test_nothing_left_to_relabel_is_an_error(created: Path) -> None:
    create(created, fraction=1)
    refused(created, lambda corpus: create(corpus.path), "no pairs are waiting for relabelling")


def test_a_fraction_that_picks_nothing_is_an_error(pairs: Path) -> None:
    refused(
        pairs, lambda corpus: create(corpus.path, fraction=0.01),
        "--fraction 0.01 picks no pair", "4 strata", "at most 18 pairs",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((), ("--annotators",)),
        (("--annotators", "v01,v01"), ("named twice",)),
        (("--annotators", ANNOTATORS, "--stratify", "author"), ("--stratify 'author'",)),
        (("--annotators", ANNOTATORS, "--fraction", 1.5), ("fraction",)),
        (("--annotators", ANNOTATORS, "--protocol", "BOTH"), ("--protocol 'BOTH'",)),
    ],
)
def test_bad_create_options_are_one_error_line(
    pairs: Path, args: tuple[str, ...], says: tuple[str, ...]
) -> None:
    """The options as typed: a bad one is the command's one `Error:` line."""
    fails(pairs, "relabel", "create", *args, says=says)


def test_create_can_keep_to_one_protocol(pairs: Path) -> None:
    """--protocol in any case (the CLI upper-cases it; the Python API takes SINGLE)."""
    ok("--db", pairs, "relabel", "create", "--annotators", ANNOTATORS, "--protocol", "single")

    assert {stratum_of(pairs)[p][0] for p in validators_of(pairs)} == {"SINGLE"}
    assert set(query(pairs, "SELECT protocol FROM batches WHERE kind = 'relabel'")) == {("SINGLE",)}


# --- 2. export -----------------------------------------------------------------------------

TASK_FILES = {
    "jsonl": "{}.tasks.jsonl",
    "csv": "{}.csv",
    "labelstudio": "{}.labelstudio.json",
    "mturk": "{}.mturk-input.csv",
}
SUPPORT_FILES = {
    "jsonl": [],
    "csv": [],
    "labelstudio": ["labelstudio-config.relabel.xml"],
    "mturk": ["mturk-template.relabel.html"],
}


def exported_tasks(out: Path, fmt: str, batch: str) -> list[Task]:
    return read_task_file(out / TASK_FILES[fmt].format(batch), fmt)


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "labelstudio", "mturk"])
def test_every_task_carries_our_ids_and_never_the_authors_label(
    created: Path, tmp_path: Path, fmt: str
) -> None:
    out = export(created, fmt, tmp_path / "package")

    batches = [f"r000{i}" for i in range(1, 7)]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [TASK_FILES[fmt].format(b) for b in batches]
        + ["instructions.relabel.en.md", "instructions.relabel.zh.md", *SUPPORT_FILES[fmt]]
    )
    texts = dict(query(created, "SELECT p.id, p.hypothesis FROM pairs p"))
    premises = dict(
        query(created, "SELECT p.id, pr.text FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk")
    )
    for batch in batches:
        tasks = exported_tasks(out, fmt, batch)
        expected = [(pair, position) for b, _, pair, position in layout(created) if b == batch]
        assert [t["pair_id"] for t in tasks] == [pair for pair, _ in expected]
        for task in tasks:
            assert task["batch"] == batch
            assert task["annotator"] == dict((b, a) for b, a, _, _ in layout(created))[batch]
            assert task["hypothesis"] == texts[task["pair_id"]]
            assert task["premise"] == premises[task["pair_id"]]
            assert not {"author", "author_label", "writer", "protocol", "level"} & set(task)
            assert fmt != "csv" or task["label"] == ""
    english = (out / "instructions.relabel.en.md").read_text(encoding="utf-8")
    chinese = (out / "instructions.relabel.zh.md").read_text(encoding="utf-8")
    for text in (english, chinese):
        assert text.rstrip().endswith(
            "`label`: `entailment`, `neutral`, `contradiction`, `unrelated`"
        )
    assert "**neutral**" in english and "中立" in chinese


def test_the_labelstudio_config_offers_one_label_among_the_store_labels(
    created: Path, tmp_path: Path
) -> None:
    out = export(created, "labelstudio", tmp_path / "package")

    view = ET.parse(out / "labelstudio-config.relabel.xml").getroot()
    texts = {t.get("name"): t.get("value") for t in view.iter("Text")}
    assert texts == {"premise": "$premise", "hypothesis": "$hypothesis"}
    (choices,) = view.iter("Choices")
    assert choices.get("name") == "label"
    assert choices.get("choice") == "single-radio"
    assert [c.get("value") for c in choices.iter("Choice")] == [
        "entailment", "neutral", "contradiction", "unrelated",
    ]  # fmt: skip


def test_the_mturk_template_has_a_radio_group_of_the_labels_and_the_pair(
    created: Path, tmp_path: Path
) -> None:
    out = export(created, "mturk", tmp_path / "package")

    template = (out / "mturk-template.relabel.html").read_text(encoding="utf-8")
    assert "<crowd-radio-group>" in template
    for label in ("entailment", "neutral", "contradiction", "unrelated"):
        assert f'<crowd-radio-button name="{label}" value="{label}">' in template
    for column in ("${pair_id}", "${batch}", "${premise}", "${hypothesis}"):
        assert column in template
    header = (out / "r0001.mturk-input.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "batch,annotator,lang,pair_id,genre,premise,hypothesis"


def test_exporting_some_batches_and_unknown_ones(created: Path, tmp_path: Path) -> None:
    """The command's closing line names what it wrote (the CLI's test of relabel export)."""
    report = ok(
        "--db", created, "relabel", "export", "r0002", "--format", "csv", "--out", tmp_path / "o"
    )
    assert report.startswith("Exported 1 batch (")
    assert "as csv to " in report and "r0002.csv, instructions.relabel.en.md" in report
    for batch in ("r0009", "e0001"):
        refused(
            created, methodcaller("relabel_export", batches=(batch,), format="csv",
                                  out=tmp_path / "o"),
            f"no relabelling batch {batch}",
        )  # fmt: skip


# --- 3. import: round trips ----------------------------------------------------------------


def assert_votes(db: Path, tasks: list[Task], label_of: LabelOf = authors_label) -> None:
    """Every task became its annotator's vote, and every pair's votes take positions 0..n."""
    votes = validator_votes(db)
    assert {(p, a, label) for p, a, _, label in votes} == {
        (t["pair_id"], t["annotator"], label_of(t)) for t in tasks
    }
    positions: dict[str, list[int]] = {}
    for pair, _, position, _ in votes:
        positions.setdefault(pair, []).append(position)
    for pair, found in positions.items():
        assert sorted(found) == list(range(1, len(found) + 1)), pair


def test_jsonl_votes_become_validator_votes_after_the_authors(
    created: Path, tasks: list[Task], tmp_path: Path
) -> None:
    path = write_jsonl(tmp_path / "votes.jsonl", vote_records(tasks))

    result = import_votes(created, path)

    assert_votes(created, tasks)
    assert statuses(created) == {"answered": 48}
    assert tally(result) == (48, 48, 0, 0, 0, 0) and result.dropped == {}
    assert result.signature.startswith("stage:relabel-import|path:")
    assert {a.annotator: a.added for a in result.annotators} == Counter(
        t["annotator"] for t in tasks
    )
    # Aggregation sees five votes on every relabelled pair.
    fives = query(created, "SELECT count(*) FROM votes GROUP BY pair_pk HAVING count(*) = 5")
    assert len(fives) == 12


def test_a_filled_in_csv_sheet_comes_back_with_short_and_extra_labels(
    created: Path, tmp_path: Path
) -> None:
    out = export(created, "csv", tmp_path / "package")
    sheet = out / "r0003.csv"
    with sheet.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    shorthand = {"entailment": "E", "neutral": "n", "contradiction": "c"}
    rows[0]["label"] = "Unrelated"
    for row in rows[1:-1]:
        row["label"] = shorthand[authors_label(row)]
    filled = tmp_path / "r0003-done.csv"
    with filled.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))  # \r\n line ends, as spreadsheets write
        writer.writeheader()
        writer.writerows(rows)

    result = import_votes(created, filled, "csv")

    def label_of(task: Task) -> str:
        return "unrelated" if task["pair_id"] == rows[0]["pair_id"] else authors_label(task)

    assert_votes(created, rows[:-1], label_of)
    assert statuses(created) == {"answered": len(rows) - 1, "open": 48 - len(rows) + 1}
    assert result.votes == len(rows) - 1
    assert result.dropped == {"left without a label": 1}


def test_a_labelstudio_export_comes_back_with_mapped_users_and_skips_dropped(
    created: Path, tmp_path: Path
) -> None:
    out = export(created, "labelstudio", tmp_path / "package")
    tasks = exported_tasks(out, "labelstudio", "r0002")
    assert {t["annotator"] for t in tasks} == {"v02"}
    skipped = tasks[1]["pair_id"]
    exported = labelstudio_votes(
        tmp_path / "project-12-at-2024-06-03-10-05-2f9a1c4d.json", tasks, 17, cancelled=(skipped,)
    )
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "17", "v02"))

    result = import_votes(created, exported, "labelstudio", annotator_map=users)

    kept = [t for t in tasks if t["pair_id"] != skipped]
    assert_votes(created, kept)
    assert result.votes == len(kept)
    assert result.dropped == {"cancelled (skipped) in Label Studio": 1}
    assert query(created, "SELECT platform, platform_id FROM annotator_aliases") == [
        ("labelstudio", "17")
    ]


@pytest.mark.parametrize("shape", ["crowd", "classic", "flattened"])
def test_mturk_results_come_back_and_rejected_assignments_are_dropped(
    created: Path, tmp_path: Path, shape: str
) -> None:
    out = export(created, "mturk", tmp_path / "package")
    tasks = exported_tasks(out, "mturk", "r0004")
    rejected = tasks[0]["pair_id"]
    results = mturk_votes(
        tmp_path / "Batch_5123456_batch_results.csv", out / "r0004.mturk-input.csv",
        "A2XK9EXAMPLE", shape=shape, rejected=(rejected,),
    )  # fmt: skip
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A2XK9EXAMPLE", "v04"))

    result = import_votes(created, results, "mturk", annotator_map=workers)

    assert_votes(created, [t for t in tasks if t["pair_id"] != rejected])
    assert result.votes == len(tasks) - 1
    assert result.dropped == {"rejected on MTurk": 1}


def test_votes_without_an_annotator_are_their_batchs_annotators(
    created: Path, tasks: list[Task], tmp_path: Path
) -> None:
    records = [{k: v for k, v in r.items() if k != "annotator"} for r in vote_records(tasks)]
    path = write_jsonl(tmp_path / "votes.jsonl", records)

    import_votes(created, path)

    assert_votes(created, tasks)


def test_integer_labels_need_and_follow_the_label_order(
    created: Path, tasks: list[Task], tmp_path: Path
) -> None:
    order = ["neutral", "entailment", "contradiction"]  # CLUE's OCNLI numbering
    records = [r | {"label": order.index(r["label"])} for r in vote_records(tasks)]
    path = write_jsonl(tmp_path / "votes.jsonl", records)

    refused(created, lambda corpus: import_votes(corpus.path, path), "line 1", "--label-order")

    import_votes(created, path, label_order=tuple(order))
    assert_votes(created, tasks)


# --- 4. import: what is refused, reported, or an error ---------------------------------------


def test_a_vote_by_the_pairs_author_is_refused_and_stored_as_a_violation(
    created: Path, tasks: list[Task], tmp_path: Path
) -> None:
    written_by = authors(created)
    own = next(t for t in tasks if t["annotator"] == "v01")
    author = written_by[own["pair_id"]]
    records = [*vote_records(tasks), {"pair_id": own["pair_id"], "annotator": author,
                                      "label": "neutral"}]  # fmt: skip
    path = write_jsonl(tmp_path / "votes.jsonl", records)

    result = import_votes(created, path)

    assert_votes(created, tasks)  # the author's extra vote is not among them
    assert tally(result)[:4] == (49, 48, 0, 1)
    assert violations(created) == [
        ("author_vote", own["pair_id"], author, 0,
         f"{author} wrote {own['pair_id']} and cannot validate it (voted neutral)", None)
    ]  # fmt: skip
    author_votes = query(
        created,
        "SELECT v.position, v.label FROM votes v JOIN pairs p ON p.pk = v.pair_pk "
        "JOIN annotators a ON a.pk = v.annotator_pk WHERE p.id = ? AND a.id = ?",
        own["pair_id"], author,
    )  # fmt: skip
    assert author_votes == [(0, authors_label(own))]


def test_a_vote_by_someone_the_pair_was_not_given_to_is_reported_not_written(
    created: Path, tasks: list[Task], tmp_path: Path
) -> None:
    """Reported in the command's closing line and its table per annotator (the CLI's test
    of relabel import)."""
    pair = tasks[0]["pair_id"]
    outsider = next(
        a for a in ("v01", "v02", "v03", "v04", "w01", "w02")
        if a not in validators_of(created)[pair] and a != authors(created)[pair]
    )  # fmt: skip
    records = [{"pair_id": pair, "annotator": outsider, "label": "contradiction"},
               *vote_records(tasks)]  # fmt: skip
    path = write_jsonl(tmp_path / "votes.jsonl", records)

    report = ok("--db", created, "relabel", "import", path)

    assert_votes(created, tasks)
    assert "0 refused (by the pair's author), 1 not assigned to their annotator; " in report
    assert "1 violation stored" in report
    assert violations(created) == [
        ("unassigned", pair, outsider, 0,
         f"{outsider} labelled {pair} (contradiction), which no relabelling batch gave them",
         None)
    ]  # fmt: skip
    # The last cell of the outsider's row is the `not assigned` column (the table is wider
    # than the test's console, so its last column group holds it).
    row = [line for line in report.splitlines() if f" {outsider} " in line][-1]
    assert row.split("│")[1:-1][-1].strip() == "1"


def test_importing_the_same_file_twice_changes_nothing_the_second_time(
    created: Path, tasks: list[Task], tmp_path: Path
) -> None:
    own = tasks[0]
    author = authors(created)[own["pair_id"]]
    records = [*vote_records(tasks[:20]), {"pair_id": own["pair_id"], "annotator": author,
                                           "label": "neutral"}]  # fmt: skip
    path = write_jsonl(tmp_path / "votes.jsonl", records)
    import_votes(created, path)
    before = table_counts(created)
    votes = validator_votes(created)

    again = shutil.copy(path, tmp_path / "votes-downloaded-again.jsonl")
    result = import_votes(created, again)

    assert tally(result)[:4] == (21, 0, 20, 1)
    assert result.violations_added == 0
    assert without_runs(table_counts(created)) == without_runs(before)
    assert validator_votes(created) == votes

    rest = write_jsonl(tmp_path / "rest.jsonl", vote_records(tasks))
    assert tally(import_votes(created, rest))[1:3] == (28, 20)
    assert_votes(created, tasks)


def test_a_different_second_vote_is_an_error_naming_both(
    created: Path, tasks: list[Task], tmp_path: Path
) -> None:
    votes = write_jsonl(tmp_path / "votes.jsonl", vote_records(tasks))
    import_votes(created, votes)
    first = tasks[5]
    other = next(label for label in LABEL_OF.values() if label != authors_label(first))
    changed = write_jsonl(
        tmp_path / "changed.jsonl",
        [{"pair_id": first["pair_id"], "annotator": first["annotator"], "label": other}],
    )

    refused(
        created, lambda corpus: import_votes(corpus.path, changed),
        "changed.jsonl, line 1", first["annotator"], first["pair_id"], other,
        f"the store holds their vote {authors_label(first)} (run ", "remove this one",
    )  # fmt: skip


def test_two_different_votes_in_one_file_are_an_error_naming_both_lines(
    created: Path, tasks: list[Task], tmp_path: Path
) -> None:
    task = tasks[0]
    second = {"pair_id": task["pair_id"], "annotator": task["annotator"], "label": "unrelated"}
    records = [*vote_records(tasks[:3]), second]
    path = write_jsonl(tmp_path / "votes.jsonl", records)

    refused(
        created, lambda corpus: import_votes(corpus.path, path),
        "votes.jsonl, line 4", "unrelated", authors_label(task), "at line 1", "keep one",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            {"label": "maybe"},
            (
                "votes.jsonl, line 3: label 'maybe' is not one of entailment, "
                "neutral, contradiction, unrelated",
                "extra label",
            ),
        ),
        ({"batch": "r0099"}, ("line 3", "batch 'r0099' is not a relabelling batch")),
        ({"batch": "e0001"}, ("line 3", "batch 'e0001' is not a relabelling batch")),
        ({"pair_id": "news_0099-e1"}, ("line 3", "pair 'news_0099-e1' is not in this store")),
        ({"annotator": "A3WORKER"}, ("line 3", "jsonl worker 'A3WORKER'", "--annotator-map")),
        ({"pair_id": ""}, ("line 3", "pair_id")),
    ],
)
def test_bad_votes_are_an_error_and_leave_the_store_unchanged(
    created: Path, tasks: list[Task], tmp_path: Path, change: dict[str, str], says: tuple[str, ...]
) -> None:
    records = vote_records(tasks[:4])
    records[2] |= change
    path = write_jsonl(tmp_path / "votes.jsonl", records)

    refused(created, lambda corpus: import_votes(corpus.path, path), *says)
    assert validator_votes(created) == []


def test_a_labelstudio_file_of_another_project_is_an_error(created: Path, tmp_path: Path) -> None:
    out = export(created, "labelstudio", tmp_path / "package")
    tasks = exported_tasks(out, "labelstudio", "r0001")
    exported = labelstudio_votes(tmp_path / "export.json", tasks, 17)
    project = json.loads(exported.read_text(encoding="utf-8"))
    project[1]["annotations"][0]["result"][0]["from_name"] = "sentiment"
    exported.write_text(json.dumps(project), encoding="utf-8")

    refused(
        created, lambda corpus: import_votes(corpus.path, exported, "labelstudio"),
        "export.json: task 302, annotation 5002: result field 'sentiment'",
    )  # fmt: skip


def test_mturk_results_without_the_pair_column_are_an_error(created: Path, tmp_path: Path) -> None:
    results = tmp_path / "results.csv"
    results.write_text('"AssignmentId","WorkerId","AssignmentStatus","Answer.label"\n', "utf-8")

    refused(
        created, lambda corpus: import_votes(corpus.path, results, "mturk"),
        "results.csv, line 1: missing column(s) Input.batch, Input.pair_id",
    )  # fmt: skip


def test_a_csv_without_a_label_column_is_an_error(created: Path, tmp_path: Path) -> None:
    out = export(created, "mturk", tmp_path / "package")

    refused(
        created, lambda corpus: import_votes(corpus.path, out / "r0001.mturk-input.csv", "csv"),
        "r0001.mturk-input.csv, line 1: no label column",
    )  # fmt: skip


def test_a_pair_imported_without_votes_gets_validators_from_position_1(
    db: Path, tmp_path: Path
) -> None:
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [
            {"pair_id": "g_1-a", "premise": "A man sleeps on a bench.", "genre": "g",
             "hypothesis": "Someone rests.", "labels": []},
            {"pair_id": "g_1-b", "premise": "A man sleeps on a bench.", "genre": "g",
             "hypothesis": "Nobody rests.", "labels": ["contradiction"], "annotators": ["x1"]},
        ],
    )  # fmt: skip
    nlibuild.open(db).import_corpus(path=corpus, format="jsonl")
    create(db, annotators="a,b,x1", validators=2, fraction=1, stratify=())
    assert validators_of(db)["g_1-b"] == ["a", "b"]  # x1 wrote it
    tasks = all_tasks(export(db, "jsonl", tmp_path / "package"))

    votes = write_jsonl(tmp_path / "v.jsonl", vote_records(tasks, lambda t: "n"))
    import_votes(db, votes)

    assert_votes(db, tasks, lambda t: "neutral")
    assert sorted(p for p, _, position, _ in validator_votes(db) if position == 1) == [
        "g_1-a", "g_1-b",
    ]  # fmt: skip
