"""Released tables as they are (issue 28, items 1-3): one vote a row grouped into pairs
(`--columns vote=COLUMN,annotator=COLUMN`, LiveNLI), list cells written as Python writes
them and single labels where a list is expected, and rows shorter than a header with a
stray cell. `tests/data/livenli_sample.csv` is a LiveNLI-shaped file written for these tests:
its header's 15th cell is empty over rows of 14, one worker's label and explanation a row,
labels `true`/`either`/`false` and some hedged `true | either`, and `mnli_labels` as Python
lists (one item's a single label)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import fails, ok_result, query, refused
from test_generic_reader import importing, write_table

import nlibuild
from nlibuild.api import StageWarning
from nlibuild.errors import InputError
from nlibuild.formats.tabular import csv_rows
from nlibuild.models import ImportConfig, ImportFormat
from nlibuild.stages import import_corpus
from nlibuild.store import Store

LIVENLI = Path(__file__).parent / "data" / "livenli_sample.csv"

LIVENLI_LABELS = "true=entailment,either=neutral,false=contradiction"
"""LiveNLI's answers: the hypothesis is true, false, or either, given the premise."""

LIVENLI_OPTIONS = (
    "--format", "table", "--columns", "vote=label,annotator=worker_id", "--labels", LIVENLI_LABELS,
)  # fmt: skip
"""The README's LiveNLI command, after the file."""

LIVENLI_ITEMS = {
    # id: (rows, hedged rows, (e, n, c) of the votes, gold at 3 votes and more than any other)
    "20274n": (12, 2, (4, 5, 1), "neutral"),
    "116176n": (11, 0, (5, 5, 1), "-"),
    "64479c": (11, 1, (0, 1, 9), "contradiction"),
    "9662e": (11, 0, (10, 1, 0), "entailment"),
    "138448c": (10, 1, (2, 3, 4), "contradiction"),
}
"""What the sample holds, item by item, as counted when it was written."""


def sample_rows() -> list[dict[str, str]]:
    """The sample's rows by header cell (the stray 15th cell, which no row fills, left out)."""
    with LIVENLI.open(encoding="utf-8", newline="") as handle:
        return [{k: v for k, v in row.items() if k} for row in csv.DictReader(handle)]


def votes_of(db: Path) -> dict[str, list[tuple[str, int, str]]]:
    """Each pair's votes: (annotator, position, label), in position order."""
    rows = query(
        db,
        "SELECT p.id, a.id, v.position, v.label FROM votes v JOIN pairs p ON p.pk = v.pair_pk "
        "JOIN annotators a ON a.pk = v.annotator_pk ORDER BY p.id, v.position",
    )
    found: dict[str, list[tuple[str, int, str]]] = {}
    for pair_id, annotator, position, label in rows:
        found.setdefault(pair_id, []).append((annotator, position, label))
    return found


def extra_of(db: Path, pair_id: str) -> dict[str, Any]:
    [(extra,)] = query(db, "SELECT extra_json FROM pairs WHERE id = ?", pair_id)
    loaded: dict[str, Any] = json.loads(extra)
    return loaded


# --- one vote a row ---------------------------------------------------------------------


def test_the_livenli_sample_is_one_pair_an_item_and_one_vote_a_worker(db: Path) -> None:
    result = ok_result("--db", db, "import", LIVENLI, *LIVENLI_OPTIONS)
    votes = sum(sum(tally) for _, _, tally, _ in LIVENLI_ITEMS.values())
    assert f"5 pairs, 5 premises, {votes} votes" in result.stdout
    hedged = sum(item[1] for item in LIVENLI_ITEMS.values())
    assert result.stderr.splitlines() == [
        "Warning: 55 rows end before the header's cell 15 (empty); read as empty",
        f"Warning: {hedged} rows left out: their 'label' cell holds several labels, not one "
        "vote ('true | either' on line 8)",
    ]
    stored = votes_of(db)
    for pair_id, (rows, hedged_rows, tally, _) in LIVENLI_ITEMS.items():
        labels = [label for _, _, label in stored[pair_id]]
        assert len(labels) == rows - hedged_rows
        counted = tuple(labels.count(label) for label in ("entailment", "neutral", "contradiction"))
        assert counted == tally
        # Workers by their own IDs, every vote a validator's (positions from 1, no author).
        assert [position for _, position, _ in stored[pair_id]] == list(range(1, len(labels) + 1))
        assert all(annotator.startswith("W") for annotator, _, _ in stored[pair_id])
    assert query(db, "SELECT count(*) FROM pairs WHERE author_label IS NOT NULL") == [(0,)]


def test_gold_comes_from_the_votes_by_the_stores_rule_and_a_second_import_adds_nothing(
    db: Path,
) -> None:
    # LiveNLI releases no gold label: the store's rule (3 votes, more than any other) gives it.
    ok_result("--db", db, "import", LIVENLI, *LIVENLI_OPTIONS)
    before = query(db, "SELECT count(*) FROM votes")
    again = ok_result("--db", db, "import", LIVENLI, *LIVENLI_OPTIONS)
    assert "0 pairs, 0 premises, 0 votes" in again.stdout
    assert "5 pairs already present" in again.stdout
    assert query(db, "SELECT count(*) FROM votes") == before
    with pytest.warns(StageWarning, match="the rule was written for 5"):
        nlibuild.open(db).aggregate_labels()
    golds = dict(
        query(
            db,
            "SELECT p.id, g.label FROM pairs p JOIN gold g ON g.pair_pk = p.pk "
            "WHERE g.method = 'majority'",
        )
    )
    assert golds == {pair_id: item[3] for pair_id, item in LIVENLI_ITEMS.items()}


def test_columns_that_differ_per_worker_are_kept_one_value_a_vote(db: Path) -> None:
    ok_result("--db", db, "import", LIVENLI, *LIVENLI_OPTIONS)
    rows = [row for row in sample_rows() if row["id"] == "20274n" and "|" not in row["label"]]
    extra = extra_of(db, "20274n")
    # The item's own columns once, as the file has them (a list cell kept as its text).
    assert extra["mnli_labels"] == rows[0]["mnli_labels"]
    assert extra["batch"] == rows[0]["batch"]
    # The workers' columns one value a vote, in the order of the stored votes.
    assert list(extra["per_vote"]) == [
        "explanation", "premise_highlight", "hypothesis_highlight", "hit_id", "seconds",
        "feedback",
    ]  # fmt: skip
    by_worker = {row["worker_id"]: row for row in rows}
    workers = [annotator for annotator, _, _ in votes_of(db)["20274n"]]
    for column, values in extra["per_vote"].items():
        assert values == [by_worker[worker][column] for worker in workers]


def test_a_parallel_imports_worker_groups_the_rows_and_passes_the_warnings_on(
    tmp_path: Path,
) -> None:
    # Big files are read by a worker process: its warnings come back with its counts.
    settings = ImportConfig(
        path=LIVENLI, format=ImportFormat.TABLE,
        columns={"vote": ("label",), "annotator": ("worker_id",)},
        label_values=dict(item.split("=") for item in LIVENLI_LABELS.split(",")),
    )  # fmt: skip
    results = []
    for parallel in (False, True):
        with Store.open(nlibuild.create(tmp_path / f"{parallel}.db").path) as store:
            results.append(import_corpus.run(store, settings, parallel=parallel))
    serial, in_worker = results
    assert len(serial.warnings) == 2
    assert in_worker.model_dump(exclude={"run_id", "signature"}) == serial.model_dump(
        exclude={"run_id", "signature"}
    )


def test_rows_of_one_id_with_another_text_are_one_error_naming_both_lines(
    db: Path, tmp_path: Path
) -> None:
    rows = sample_rows()
    second = next(i for i, row in enumerate(rows) if i > 0 and row["id"] == rows[0]["id"])
    rows[second]["hypothesis"] = "Someone else's hypothesis."
    path = write_table(tmp_path / "livenli.csv", rows)
    fails(db, "import", path, *LIVENLI_OPTIONS,
          says=(f"livenli.csv, line {second + 2}", f"pair {rows[0]['id']}",
                "different hypothesis than on line 2"))  # fmt: skip


def test_one_worker_twice_on_a_pair_is_one_error_naming_both_lines(
    db: Path, tmp_path: Path
) -> None:
    rows = sample_rows()
    repeat = {**rows[0], "label": "false"}
    path = write_table(tmp_path / "livenli.csv", [*rows, repeat])
    fails(db, "import", path, *LIVENLI_OPTIONS,
          says=(f"line {len(rows) + 2}", f"annotator {rows[0]['worker_id']}", "on line 2",
                "one label per pair"))  # fmt: skip


def test_without_annotators_the_votes_are_the_corpus_anonymous_validators(
    db: Path, tmp_path: Path
) -> None:
    rows = [{**row, "worker_id": ""} for row in sample_rows()]  # an anonymised release
    path = write_table(tmp_path / "live.csv", rows)
    with pytest.warns(StageWarning, match="several labels"):
        nlibuild.open(db).import_corpus(
            path=path, format="table", columns={"vote": ("label",)},
            label_values=dict(item.split("=") for item in LIVENLI_LABELS.split(",")),
        )  # fmt: skip
    assert [a for a, _, _ in votes_of(db)["9662e"]] == [f"live:v{i}" for i in range(1, 12)]


def test_a_hedged_cell_as_a_list_is_left_out_like_a_barred_one(db: Path, tmp_path: Path) -> None:
    rows = [
        {"id": "p1", "premise": "P.", "hypothesis": "H.", "answer": "entailment"},
        {"id": "p1", "premise": "P.", "hypothesis": "H.", "answer": "['neutral', 'entailment']"},
        {"id": "p1", "premise": "P.", "hypothesis": "H.", "answer": "['neutral']"},
        {"id": "p1", "premise": "P.", "hypothesis": "H.", "answer": ""},
    ]
    path = write_table(tmp_path / "hedged.csv", rows)
    with pytest.warns(StageWarning) as warned:
        nlibuild.open(db).import_corpus(path=path, format="table", columns={"vote": ("answer",)})
    assert [str(w.message) for w in warned] == [
        "1 row left out: its 'answer' cell holds several labels, not one vote "
        "('neutral | entailment' on line 3)",
        "1 row left out: its 'answer' cell is empty: no vote (first on line 5)",
    ]
    assert [label for _, _, label in votes_of(db)["p1"]] == ["entailment", "neutral"]


def test_keys_that_cannot_go_with_one_vote_a_row_are_refused_before_reading(db: Path) -> None:
    for columns, says in [
        ({"vote": ("label",), "votes": ("mnli_labels",)}, "name one of them"),
        ({"annotator": ("worker_id",)}, "give the vote's column too"),
        ({"vote": ("label",), "author": ("worker_id",)}, "leave author out"),
    ]:
        refused(db, importing(path=LIVENLI, format="table", columns=columns), says)


def test_a_repeated_id_read_one_pair_a_row_points_to_vote(db: Path) -> None:
    # The second stop: each row read as a pair, the item's rows conflict.
    fails(db, "import", LIVENLI, "--format", "table", "--columns", "votes=label",
          "--labels", f"{LIVENLI_LABELS},true | either=-,either | false=-",
          says=("is already in this file on line", "--columns vote=COLUMN"))  # fmt: skip


# --- list cells ---------------------------------------------------------------------------


def test_python_lists_and_single_labels_in_a_votes_column_are_lists(
    db: Path, tmp_path: Path
) -> None:
    # LiveNLI's MNLI labels, one row an item: `['neutral', 'entailment', ...]` as pandas
    # writes a list to csv, and for one item a single label.
    items = {row["id"]: row for row in reversed(sample_rows())}
    rows = [{k: row[k] for k in ("id", "premise", "hypothesis", "mnli_labels")}
            for row in items.values()]  # fmt: skip
    rows.append({"id": "json1", "premise": "P.", "hypothesis": "H.",
                 "mnli_labels": '["contradiction", "neutral"]'})  # fmt: skip
    path = write_table(tmp_path / "mnli_labels.csv", rows)
    ok_result("--db", db, "import", path, "--format", "table", "--columns", "votes=mnli_labels")
    stored = votes_of(db)
    assert [label for _, _, label in stored["9662e"]] == ["neutral"]
    assert [label for _, _, label in stored["20274n"]] == [
        "neutral", "neutral", "entailment", "neutral", "neutral",
    ]  # fmt: skip
    assert [label for _, _, label in stored["json1"]] == ["contradiction", "neutral"]


def test_a_cell_opening_a_list_that_is_none_is_one_error(db: Path, tmp_path: Path) -> None:
    rows = [{"premise": "P.", "hypothesis": "H.", "votes": "['neutral', 'entail"}]
    path = write_table(tmp_path / "broken.csv", rows)
    refused(db, importing(path=path, format="table"),
            "broken.csv, line 2", "column 'votes'", "neither a JSON list nor a Python")  # fmt: skip


# --- ragged rows --------------------------------------------------------------------------


def _written(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_short_row_lacking_a_read_cell_names_it_and_not_the_quoting(
    db: Path, tmp_path: Path
) -> None:
    path = _written(tmp_path / "short.csv", "premise,hypothesis,label\nP.,H.,e\nP.,H2.\n")
    message = refused(db, importing(path=path, format="table"),
                      "short.csv, line 3", "2 columns where the header has 3",
                      "no cell 3 'label'", "column 'label' is read")  # fmt: skip
    assert "quoting" not in message


def test_the_quoting_hint_where_quoting_is_the_likely_cause(db: Path, tmp_path: Path) -> None:
    longer = _written(tmp_path / "longer.csv", "premise,hypothesis\nA man, a plan.,H.\n")
    open_quote = _written(tmp_path / "open.csv", 'premise,hypothesis,label\n"P.,H.,e\nQ.,H.,e\n')
    tabbed = _written(tmp_path / "tabbed.tsv", "premise\thypothesis\nP.\tH.\textra\n")
    for path, says in [
        (longer, ("line 2", "3 columns where the header has 2", "check the quoting")),
        (open_quote, ("line 3", "1 columns where the header has 3", "a quote left open")),
        (tabbed, ("line 2", "a tab inside a text")),
    ]:
        refused(db, importing(path=path, format="table"), *says)


def test_a_stray_header_cell_no_row_fills_is_one_warning(db: Path, tmp_path: Path) -> None:
    path = _written(
        tmp_path / "stray.csv",
        "premise,hypothesis,label,Unnamed: 3\nP.,H.,e\nP.,H2.,n,\nP.,H3.,c\n",
    )
    with pytest.warns(StageWarning) as warned:
        nlibuild.open(db).import_corpus(path=path, format="table")
    assert [str(w.message) for w in warned] == [
        "2 rows end before the header's cell 4 'Unnamed: 3'; read as empty"
    ]
    assert query(db, "SELECT count(*) FROM pairs") == [(3,)]


def test_readers_that_take_no_short_row_say_which_cells_it_lacks(tmp_path: Path) -> None:
    path = _written(tmp_path / "answers.csv", "batch,writer,premise_id,stray\nb1,w1,p1\n")
    _, rows = csv_rows(path)
    with pytest.raises(InputError) as raised:
        list(rows)
    assert "the row has no cell 4 'stray'; fill them in, or remove a stray header cell" in str(
        raised.value
    )
