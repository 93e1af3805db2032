"""A premise may be in one elicitation batch per protocol (the "Trust" issue).

OCNLI (section 3.2) gave the same premises to several protocols (SINGLE, MULTI,
MULTI_ENCOURAGE, MULTI_CONSTRAINT) so that their hypotheses could be compared premise by
premise; `elicit create --protocol P` therefore draws premises that have no batch of P yet,
and the pairs of a premise's second protocol get IDs of their own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import fails, ok, query, refused, write_jsonl
from elicitation_data import MULTI, NEWS, SINGLE

import nlibuild
from nlibuild.models import ElicitCreateResult

LABELS = ("entailment", "neutral", "contradiction")


def _store(tmp_path: Path) -> Path:
    """An English store whose premises are three news sentences, ingested and sampled."""
    corpus = nlibuild.create(tmp_path / "corpus.db", lang="en")
    source = tmp_path / "news.txt"
    source.write_text("\n\n".join(NEWS[:3]) + "\n", encoding="utf-8")
    corpus.ingest(paths=(source,), genre="news")
    corpus.sample(genres=("news",), n=3, min_len=3, max_len=40)
    return corpus.path


def _create(db: Path, protocol: str, *writers: str) -> ElicitCreateResult:
    """`elicit create --protocol PROTOCOL --annotators WRITERS` (w01 unless named)."""
    return nlibuild.open(db).elicit_create(protocol=protocol, annotators=writers or ("w01",))


def _import(db: Path, answers: Path, **settings: str) -> int:
    """`elicit import ANSWERS --format jsonl`: the pairs it added."""
    return nlibuild.open(db).elicit_import(path=answers, format="jsonl", **settings).pairs_added


def _batch_premises(db: Path) -> dict[str, tuple[str, list[str]]]:
    """batch -> (protocol, its premise IDs in order)."""
    out: dict[str, tuple[str, list[str]]] = {}
    for batch, protocol, item in query(
        db, "SELECT b.id, b.protocol, s.item_id FROM batches b "
        "JOIN assignments s ON s.batch_pk = b.pk ORDER BY b.pk, s.position",
    ):  # fmt: skip
        out.setdefault(batch, (protocol, []))[1].append(item)
    return out


def _answers(db: Path, path: Path, batch: str, hypotheses: dict[str, list[str]],
             batch_column: bool = True) -> Path:  # fmt: skip
    premises = _batch_premises(db)[batch][1]
    writer = query(
        db, "SELECT a.id FROM batches b JOIN annotators a ON a.pk = b.annotator_pk "
        "WHERE b.id = ?", batch,
    )[0][0]  # fmt: skip
    records: list[dict[str, Any]] = []
    for premise in premises:
        record: dict[str, Any] = {"writer": writer, "premise_id": premise, "unusable": False,
                                  **hypotheses}  # fmt: skip
        if batch_column:
            record["batch"] = batch
        records.append(record)
    return write_jsonl(path, records)


def test_a_premise_of_a_single_batch_can_go_to_multi_but_not_again_to_single(
    tmp_path: Path,
) -> None:
    db = _store(tmp_path)
    _create(db, "SINGLE")
    _create(db, "MULTI")
    batches = _batch_premises(db)
    assert [(p, sorted(items)) for p, items in batches.values()] == [
        ("SINGLE", sorted(batches["e0001"][1])),
        ("MULTI", sorted(batches["e0001"][1])),
    ]
    assert len(batches["e0001"][1]) == 3
    refused(db, lambda _: _create(db, "SINGLE", "w02"), "no premises", "SINGLE")
    refused(db, lambda _: _create(db, "MULTI", "w02"), "no premises", "MULTI")
    # The other two protocols still have every premise to draw.
    _create(db, "MULTI_CONSTRAINT", "w02")
    assert len(_batch_premises(db)) == 3


def test_answers_of_both_protocols_import_under_distinct_pair_ids(tmp_path: Path) -> None:
    db = _store(tmp_path)
    _create(db, "SINGLE")
    _create(db, "MULTI", "w02")
    single = _answers(db, tmp_path / "single.jsonl", "e0001", SINGLE)
    multi = _answers(db, tmp_path / "multi.jsonl", "e0002", MULTI)

    assert _import(db, single) == 9
    assert _import(db, multi) == 27

    premise = _batch_premises(db)["e0001"][1][0]
    rows = query(
        db, "SELECT p.id, p.protocol, b.id FROM pairs p JOIN batches b ON b.pk = p.batch_pk "
        "JOIN premises pr ON pr.pk = p.premise_pk WHERE pr.id = ? ORDER BY p.id", premise,
    )  # fmt: skip
    single_ids = sorted(f"{premise}-{label[0]}1" for label in LABELS)
    multi_ids = sorted(f"{premise}-m-{label[0]}{k}" for label in LABELS for k in (1, 2, 3))
    assert sorted(r[0] for r in rows if r[1] == "SINGLE") == single_ids
    assert sorted(r[0] for r in rows if r[1] == "MULTI") == multi_ids
    assert {r[2] for r in rows if r[1] == "MULTI"} == {"e0002"}
    assert query(db, "SELECT count(*) FROM violations") == [(0,)]
    # Importing both again changes nothing.
    for answers in (single, multi):
        assert _import(db, answers) == 0


def test_an_answer_without_a_batch_goes_to_its_writers_batch(tmp_path: Path) -> None:
    db = _store(tmp_path)
    _create(db, "SINGLE")
    _create(db, "MULTI", "w02")
    multi = _answers(db, tmp_path / "multi.jsonl", "e0002", MULTI, batch_column=False)

    assert _import(db, multi) == 27
    assert query(db, "SELECT DISTINCT protocol FROM pairs") == [("MULTI",)]
    assert query(db, "SELECT count(*) FROM violations") == [(0,)]


def test_an_answer_without_a_batch_for_a_writer_with_two_is_refused(tmp_path: Path) -> None:
    db = _store(tmp_path)
    _create(db, "SINGLE")
    _create(db, "MULTI")
    multi = _answers(db, tmp_path / "multi.jsonl", "e0002", MULTI, batch_column=False)

    refused(db, lambda _: _import(db, multi), "e0001", "e0002", "--batch")
    # The command's --batch option says which batch; its closing line counts the pairs.
    assert "27 pairs added" in ok(
        "--db", db, "elicit", "import", multi, "--format", "jsonl", "--batch", "e0002"
    )


# --- `elicit create --premises FILE`: chosen premises instead of every waiting one ----------


def test_chosen_premises_are_batched_and_only_they(tmp_path: Path) -> None:
    db = _store(tmp_path)
    ids = [row[0] for row in query(db, "SELECT id FROM premises ORDER BY id")]
    chosen = tmp_path / "chosen.txt"
    chosen.write_text(f"# two of three\n{ids[2]}\n\n{ids[0]}\n{ids[0]}\n", encoding="utf-8")

    corpus = nlibuild.open(db)
    corpus.elicit_create(protocol="SINGLE", annotators=("w01",), premises=chosen)
    assert sorted(_batch_premises(db)["e0001"][1]) == [ids[0], ids[2]]
    # Chosen again for SINGLE they are taken; for MULTI they are still waiting.
    single = {"protocol": "SINGLE", "annotators": ("w01",), "premises": chosen}
    refused(db, lambda again: again.elicit_create(**single), ids[2], "not waiting", "SINGLE")
    corpus.elicit_create(protocol="MULTI", annotators=("w01",), premises=chosen)
    assert sorted(_batch_premises(db)["e0002"][1]) == [ids[0], ids[2]]


def test_an_unknown_chosen_premise_is_one_error_line(tmp_path: Path) -> None:
    """The command's `Error:` line names the file and the IDs (the CLI's test of
    --premises)."""
    db = _store(tmp_path)
    ids = [row[0] for row in query(db, "SELECT id FROM premises ORDER BY id")]
    chosen = tmp_path / "chosen.txt"
    chosen.write_text(f"{ids[0]}\nnope-1\nnope-2\n", encoding="utf-8")

    fails(db, "elicit", "create", "--protocol", "SINGLE", "--annotators", "w01",
          "--premises", chosen,
          says=("chosen.txt", "'nope-1'", "1 more", "not in the store"))  # fmt: skip
    empty = tmp_path / "empty.txt"
    empty.write_text("# none\n", encoding="utf-8")
    fails(db, "elicit", "create", "--protocol", "SINGLE", "--annotators", "w01",
          "--premises", empty, says=("empty.txt", "no premise IDs"))  # fmt: skip
