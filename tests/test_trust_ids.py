"""Corpora without IDs get IDs derived from their content (issue 16): the same file gives the
same store whatever the order of its lines or the chunks it is read in, and importing it
again, even into a store an earlier version numbered, adds nothing.

The stores are built and exported through the Python API (the chunked and parallel imports
call the import stage's `run`, whose `parallel` no front end sets); the CLI keeps the
closing line of an import that adds nothing."""

from __future__ import annotations

import random
import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    FIXTURES,
    ok,
    query,
    refused,
    requires_fixtures,
    table_counts,
    without_runs,
    write_jsonl,
)

import nlibuild
from nlibuild.errors import ConflictError
from nlibuild.formats import content_ids
from nlibuild.models import ImportConfig, ImportResult, Label
from nlibuild.queries.pairs import stored_pairs
from nlibuild.stages import import_corpus
from nlibuild.store import Store

BASQUE = FIXTURES / "xnli_eu_native" / "xnli-eu-native.tsv"
"""207 natively written Basque premises, 3 hypotheses each, labels 0/1/2, no IDs at all."""
E_N_C = (Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION)

PREMISES = "SELECT id, genre, text FROM premises ORDER BY id"
PAIRS = (
    "SELECT p.id, pr.id, p.hypothesis, g.label FROM pairs p JOIN premises pr "
    "ON pr.pk = p.premise_pk LEFT JOIN gold g ON g.pair_pk = p.pk ORDER BY p.id"
)


def shuffled_copy(path: Path, folder: Path, seed: int = 16) -> Path:
    """`path` with its lines after the header in a seeded random order, under the same name
    (the file stem names the corpus, and so the premise IDs' prefix)."""
    header, *lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    random.Random(seed).shuffle(lines)
    folder.mkdir()
    copy = folder / path.name
    copy.write_text(header + "".join(lines), encoding="utf-8")
    return copy


def import_basque(db: Path, path: Path, parallel: bool = False) -> ImportResult:
    cfg = ImportConfig(path=path, format="xnli", label_order=E_N_C)
    with Store.open(db) as store:
        return import_corpus.run(store, cfg, parallel=parallel)


def basque_store(path: Path) -> Path:
    """A new, empty Basque store at `path`."""
    return nlibuild.create(path, lang="eu").path


def export_jsonl(db: Path) -> bytes:
    out = db.with_suffix(".jsonl")
    nlibuild.open(db).export(format="jsonl", out=out)
    return out.read_bytes()


def corpus_counts(db: Path) -> dict[str, int]:
    """Rows of every table but the log of runs and of imported files (`sources`)."""
    return {t: n for t, n in without_runs(table_counts(db)).items() if t != "sources"}


def sorted_lines(data: bytes) -> list[bytes]:
    return sorted(data.splitlines())


@requires_fixtures
def test_the_same_corpus_in_any_line_order_and_chunking_gets_the_same_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_order = basque_store(tmp_path / "in_order.db")
    import_basque(in_order, BASQUE)
    shuffled = shuffled_copy(BASQUE, tmp_path / "shuffled")
    shuffled_parallel = basque_store(tmp_path / "shuffled_parallel.db")
    import_basque(shuffled_parallel, shuffled, parallel=True)  # the worker's default chunks
    monkeypatch.setattr(import_corpus, "CHUNK_SIZE", 7)  # a premise's 3 lines split apart
    small_chunks = basque_store(tmp_path / "small_chunks.db")
    import_basque(small_chunks, BASQUE)
    shuffled_small_chunks = basque_store(tmp_path / "shuffled_small.db")
    import_basque(shuffled_small_chunks, shuffled)

    expected_premises = query(in_order, PREMISES)
    expected_pairs = query(in_order, PAIRS)
    assert (len(expected_premises), len(expected_pairs)) == (207, 621)
    for db in (shuffled_parallel, small_chunks, shuffled_small_chunks):
        assert query(db, PREMISES) == expected_premises
        assert query(db, PAIRS) == expected_pairs
    # The export follows the order the lines came in; the file order gives the same bytes
    # in any chunks, and the shuffled order the same lines.
    exported = export_jsonl(in_order)
    assert export_jsonl(small_chunks) == exported
    assert sorted_lines(export_jsonl(shuffled_parallel)) == sorted_lines(exported)
    assert sorted_lines(export_jsonl(shuffled_small_chunks)) == sorted_lines(exported)


@requires_fixtures
def test_derived_ids_name_the_corpus_and_show_the_label(tmp_path: Path) -> None:
    db = basque_store(tmp_path / "eu.db")
    import_basque(db, BASQUE)
    for premise_id, _, _ in query(db, PREMISES):
        assert re.fullmatch(r"xnli-eu-native_[0-9a-f]{12}", premise_id), premise_id
    for pair_id, premise_id, _, gold in query(db, PAIRS):
        assert pair_id == f"{premise_id}-{gold[0]}.{pair_id[-6:]}"
        assert re.fullmatch(r"[0-9a-f]{6}", pair_id[-6:]), pair_id


@requires_fixtures
def test_importing_the_corpus_again_in_any_order_adds_nothing(tmp_path: Path) -> None:
    db = basque_store(tmp_path / "eu.db")
    import_basque(db, BASQUE)
    before = corpus_counts(db)
    corpus = nlibuild.open(db)
    for again in (BASQUE, shuffled_copy(BASQUE, tmp_path / "shuffled")):
        report = corpus.import_corpus(path=again, format="xnli", label_order="e,n,c")
        added = (report.pairs_added, report.premises_added, report.votes_added,
                 report.translations_added)  # fmt: skip
        assert (added, report.pairs_unchanged) == ((0, 0, 0, 0), 621)
    result = import_basque(db, BASQUE, parallel=True)
    assert (result.premises_added, result.pairs_added, result.pairs_unchanged) == (0, 0, 621)
    assert corpus_counts(db) == before


def hand_made_pairs() -> list[dict[str, Any]]:
    """Six ID-less pairs: one text in two genres is two premises, one hypothesis under two
    labels two pairs, and a line given twice one pair."""
    dog, cat = "A dog sleeps on the porch.", "The cat watched the rain."
    return [
        {"premise": dog, "hypothesis": "An animal rests.", "genre": "fiction", "gold_label": "e"},
        {"premise": dog, "hypothesis": "The dog is asleep.", "genre": "fiction", "gold_label": "e"},
        {"premise": dog, "hypothesis": "The dog is old.", "genre": "fiction", "gold_label": "n"},
        {"premise": dog, "hypothesis": "The dog is old.", "genre": "fiction", "gold_label": "c"},
        {"premise": dog, "hypothesis": "An animal rests.", "genre": "fiction", "gold_label": "e"},
        {"premise": dog, "hypothesis": "An animal rests.", "genre": "travel", "gold_label": "e"},
        {"premise": cat, "hypothesis": "It rained.", "gold_label": "entailment"},
    ]


def test_a_hand_made_corpus_imported_again_adds_nothing(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "hand.db")
    db = corpus.path
    pairs = write_jsonl(tmp_path / "hand.jsonl", hand_made_pairs())
    first = corpus.import_corpus(path=pairs, format="jsonl")
    assert (first.pairs_added, first.premises_added, first.pairs_unchanged) == (6, 3, 1)
    ids = query(db, PAIRS)
    # The CLI's closing line says so.
    again = ok("--db", db, "import", pairs, "--format", "jsonl")
    assert "0 pairs, 0 premises, 0 votes, 0 translations added; 7 pairs already" in again
    (tmp_path / "reversed").mkdir()
    reversed_order = write_jsonl(tmp_path / "reversed" / "hand.jsonl", hand_made_pairs()[::-1])
    corpus.import_corpus(path=reversed_order, format="jsonl")
    assert query(db, PAIRS) == ids
    premise_ids = [row[0] for row in query(db, PREMISES)]
    # A premise with no genre is named after the corpus (the file stem).
    assert sorted(re.sub(r"_[0-9a-f]{12}$", "", p) for p in premise_ids) == [
        "fiction", "hand", "travel",
    ]  # fmt: skip


def number_ids_as_before(db: Path) -> None:
    """Rewrite the store's IDs to the numbered form nlibuild gave ID-less corpora before
    (`<prefix>_0001` in input order, `<premise>-<initial><k>`), as an older store has them."""
    with sqlite3.connect(db) as conn:
        numbers: Counter[str] = Counter()
        premises = conn.execute("SELECT pk, id FROM premises ORDER BY pk").fetchall()
        for pk, premise_id in premises:
            prefix = premise_id.rsplit("_", 1)[0]
            numbers[prefix] += 1
            conn.execute(
                "UPDATE premises SET id = ? WHERE pk = ?", (f"{prefix}_{numbers[prefix]:04d}", pk)
            )
        counts: Counter[tuple[int, str]] = Counter()
        pairs = conn.execute(
            "SELECT p.pk, p.id, pr.pk, pr.id FROM pairs p JOIN premises pr "
            "ON pr.pk = p.premise_pk ORDER BY p.pk"
        ).fetchall()
        for pk, pair_id, premise_pk, premise_id in pairs:
            initial = pair_id.rsplit("-", 1)[1][0]
            counts[(premise_pk, initial)] += 1
            numbered = f"{premise_id}-{initial}{counts[(premise_pk, initial)]}"
            conn.execute("UPDATE pairs SET id = ? WHERE pk = ?", (numbered, pk))


@requires_fixtures
def test_a_store_numbered_by_an_earlier_version_keeps_its_ids_and_gains_no_duplicates(
    tmp_path: Path,
) -> None:
    db = basque_store(tmp_path / "old.db")
    import_basque(db, BASQUE)
    number_ids_as_before(db)
    numbered_premises, numbered_pairs = query(db, PREMISES), query(db, PAIRS)
    assert numbered_pairs[0][0] == "xnli-eu-native_0001-c1"
    before = corpus_counts(db)
    for again in (BASQUE, shuffled_copy(BASQUE, tmp_path / "shuffled")):
        result = import_basque(db, again)
        assert (result.premises_added, result.pairs_added, result.pairs_unchanged) == (0, 0, 621)
    assert import_basque(db, BASQUE, parallel=True).pairs_added == 0
    assert corpus_counts(db) == before
    assert (query(db, PREMISES), query(db, PAIRS)) == (numbered_premises, numbered_pairs)

    # New content beside the old: a new hypothesis for a numbered premise, a new premise.
    premise = BASQUE.read_text(encoding="utf-8").splitlines()[1].split("\t")[0]
    grown = tmp_path / "grown" / BASQUE.name
    grown.parent.mkdir()
    grown.write_text(
        BASQUE.read_text(encoding="utf-8")
        + f"{premise}\tHipotesi berri bat da hau.\t1\nPremisa berri bat.\tBerria da.\t0\n",
        encoding="utf-8",
    )
    result = import_basque(db, grown)
    assert (result.premises_added, result.pairs_added, result.pairs_unchanged) == (1, 2, 621)
    numbered = query(db, "SELECT id FROM premises WHERE text = ?", premise)[0][0]
    new_pair = query(db, "SELECT id FROM pairs WHERE hypothesis = 'Hipotesi berri bat da hau.'")
    assert re.fullmatch(rf"{numbered}-n\.[0-9a-f]{{6}}", new_pair[0][0])
    new_premise = query(db, "SELECT id FROM premises WHERE text = 'Premisa berri bat.'")
    assert re.fullmatch(r"xnli-eu-native_[0-9a-f]{12}", new_premise[0][0])


@requires_fixtures
def test_ids_whose_digests_clash_grow_until_they_differ_and_are_found_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One hex digit: 207 premises and their hypotheses must clash, and the IDs grow.
    monkeypatch.setattr(content_ids, "PREMISE_DIGITS", 1)
    monkeypatch.setattr(content_ids, "PAIR_DIGITS", 1)
    db = basque_store(tmp_path / "eu.db")
    import_basque(db, BASQUE)
    premise_ids = [row[0] for row in query(db, PREMISES)]
    assert len(set(premise_ids)) == 207
    assert {len(p) - len("xnli-eu-native_") for p in premise_ids} >= {1, 5}
    result = import_basque(db, shuffled_copy(BASQUE, tmp_path / "shuffled"))
    assert (result.premises_added, result.pairs_added, result.pairs_unchanged) == (0, 0, 621)


def test_a_derived_id_skips_ids_taken_by_other_content() -> None:
    free = content_ids.premise_id("news", "news", "A man sleeps.")
    assert re.fullmatch(r"news_[0-9a-f]{12}", free)
    assert content_ids.premise_id("news", "news", "A man sleeps.", set()) == free
    longer = content_ids.premise_id("news", "news", "A man sleeps.", {free})
    assert longer.startswith(free) and len(longer) == len(free) + 4
    # The genre is part of what the digest says: one text in two genres is two premises.
    assert content_ids.premise_id("news", None, "A man sleeps.") != free
    pair = content_ids.pair_id(free, "c", "Nobody sleeps.", {"other"})
    assert re.fullmatch(rf"{free}-c\.[0-9a-f]{{6}}", pair)
    assert content_ids.pair_id(free, "c", "Nobody sleeps.", {pair}, {"x"}).startswith(pair)


def test_every_digest_length_taken_is_a_conflict_naming_the_id() -> None:
    class Everything:
        def __contains__(self, item: object) -> bool:
            return True

    with pytest.raises(ConflictError, match=r"ID news_[0-9a-f]{64} is already taken"):
        content_ids.premise_id("news", "news", "A man sleeps.", Everything())


def test_a_premise_id_of_the_file_equal_to_a_derived_one_is_one_error(tmp_path: Path) -> None:
    db = nlibuild.create(tmp_path / "mixed.db").path
    derived = content_ids.premise_id("fiction", "fiction", "A dog sleeps.")
    mixed = write_jsonl(
        tmp_path / "mixed.jsonl",
        [
            {"premise": "A dog sleeps.", "hypothesis": "It rests.", "genre": "fiction",
             "gold_label": "e"},
            {"premise": "A cat sleeps.", "hypothesis": "It rests.", "genre": "fiction",
             "premise_id": derived, "gold_label": "e"},
        ],
    )  # fmt: skip
    refused(
        db, lambda corpus: corpus.import_corpus(path=mixed, format="jsonl"),
        "line 2", f"premise {derived} is already the ID of the premise on line 1",
    )  # fmt: skip


def steps_to_look_up_one_pair(db: Path, pair_id: str) -> int:
    """SQLite virtual machine steps `stored_pairs` takes to find one pair: the work a
    re-import does for each chunk, counted exactly (a clock would be flaky)."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0  # go on

    with Store.open(db) as store:
        store.conn.set_progress_handler(count, 1)
        assert pair_id in stored_pairs(store, [pair_id])
        store.conn.set_progress_handler(None, 1)
    return steps


def test_finding_a_stored_pair_costs_the_same_in_a_bigger_store(sample_db: Path) -> None:
    """A re-import looks its chunk's pairs up; when that read the whole gold table each
    time, re-importing a million pairs took minutes instead of seconds."""
    small = steps_to_look_up_one_pair(sample_db, "10412ge")
    more = [
        {"premise": f"Premise number {n}.", "hypothesis": f"Hypothesis {n}.", "genre": "extra",
         "labels": ["e", "e", "n"], "gold_label": "e"}
        for n in range(3000)
    ]  # fmt: skip
    nlibuild.open(sample_db).import_corpus(
        path=write_jsonl(sample_db.parent / "more.jsonl", more), format="jsonl"
    )
    assert steps_to_look_up_one_pair(sample_db, "10412ge") < 2 * small
