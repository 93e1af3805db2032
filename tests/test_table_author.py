"""`import --format table`: whose the votes are.

SNLI and MNLI release `annotator_labels` with the writer's own label first (Bowman et al.
2015, 2.2), so by default a table's first vote is stored as the author's. LiveNLI's and
ChaosNLI's labels are all the crowd's: `--columns author=-` says the file has no author's
label, and every vote is a validator's; `--columns author=COLUMN` reads the author's label
from its own column, and then every `votes` column is a validator's.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from conftest import (
    DATA,
    FIXTURES,
    fails,
    new_store,
    ok,
    query,
    read_jsonl,
    requires_fixtures,
    write_jsonl,
)

import nlibuild
from nlibuild.api import Corpus

E, N, C = "entailment", "neutral", "contradiction"
CROWD = DATA / "crowd_votes.csv"
"""Six pairs with 15 crowd votes each (a JSON list in the `votes` column), no author."""


def write_table(path: Path) -> Path:
    """Three pairs: the writer's label in `writer`, three votes in v1..v3."""
    rows = [
        ("A cat sleeps on a warm windowsill.", "An animal is resting.", "e", "e", "e", "n"),
        ("A cat sleeps on a warm windowsill.", "The cat is hungry.", "n", "n", "c", "n"),
        ("A cat sleeps on a warm windowsill.", "The cat is running.", "c", "c", "c", "c"),
    ]
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["premise", "hypothesis", "writer", "v1", "v2", "v3"])
        writer.writerows(rows)
    return path


def table_store(path: Path, table: Path, **columns: str) -> Corpus:
    """A new English store holding `table` read by `import --format table`, each key of
    `columns` naming its comma-separated columns (`--columns author=-,votes=v1,v2`)."""
    corpus = nlibuild.create(path, lang="en")
    mapping = {key: tuple(names.split(",")) for key, names in columns.items()}
    corpus.import_corpus(path=table, format="table", columns=mapping)
    return corpus


def annotator_rows(corpus: Corpus) -> list[dict[str, Any]]:
    """The rows of `stats --table annotators`."""
    return corpus.stats("annotators").to_dicts()


def agreement_of_all(corpus: Corpus) -> dict[str, dict[str, Any]]:
    """`stats --table agreement`'s rows of the group `all`, by statistic."""
    rows = corpus.stats("agreement").to_dicts()
    return {row["statistic"]: row for row in rows if row["group"] == "all"}


def votes_by_position(db: Path) -> list[tuple[str, int, str, str]]:
    """Every vote: (hypothesis, position, annotator, label), in that order."""
    rows = query(
        db,
        "SELECT p.hypothesis, v.position, a.id, v.label FROM votes v "
        "JOIN pairs p ON p.pk = v.pair_pk JOIN annotators a ON a.pk = v.annotator_pk "
        "ORDER BY p.hypothesis, v.position",
    )
    return [(row[0], row[1], row[2], row[3]) for row in rows]


def annotator_ids(db: Path) -> set[str]:
    return {row[0] for row in query(db, "SELECT id FROM annotators")}


def test_by_default_the_first_vote_column_is_the_authors(tmp_path: Path) -> None:
    table = write_table(tmp_path / "cats.csv")
    db = table_store(tmp_path / "snli-style.db", table, votes="writer,v1,v2,v3").path
    votes = votes_by_position(db)
    assert [v for v in votes if v[1] == 0] == [
        ("An animal is resting.", 0, "cats:author", E),
        ("The cat is hungry.", 0, "cats:author", N),
        ("The cat is running.", 0, "cats:author", C),
    ]
    assert annotator_ids(db) == {"cats:author", "cats:v1", "cats:v2", "cats:v3"}


def test_an_author_column_holds_the_authors_label_and_every_vote_is_a_validators(
    tmp_path: Path,
) -> None:
    table = write_table(tmp_path / "cats.csv")
    db = table_store(tmp_path / "author-column.db", table, author="writer", votes="v1,v2,v3").path
    votes = votes_by_position(db)
    assert votes[:4] == [
        ("An animal is resting.", 0, "cats:author", E),
        ("An animal is resting.", 1, "cats:v1", E),
        ("An animal is resting.", 2, "cats:v2", E),
        ("An animal is resting.", 3, "cats:v3", N),
    ]
    assert len(votes) == 12
    authors = query(db, "SELECT hypothesis, author_label FROM pairs ORDER BY hypothesis")
    assert authors == [("An animal is resting.", E), ("The cat is hungry.", N),
                       ("The cat is running.", C)]  # fmt: skip
    # The writer's column is a label, not something kept on the pair.
    assert query(db, "SELECT count(*) FROM pairs WHERE extra_json LIKE '%writer%'") == [(0,)]


def test_author_dash_makes_every_vote_a_validators(tmp_path: Path) -> None:
    table = write_table(tmp_path / "cats.csv")
    db = table_store(tmp_path / "crowd.db", table, author="-", votes="writer,v1,v2,v3").path
    votes = votes_by_position(db)
    assert len(votes) == 12
    assert {position for _, position, _, _ in votes} == {1, 2, 3, 4}
    assert annotator_ids(db) == {"cats:v1", "cats:v2", "cats:v3", "cats:v4"}
    assert query(db, "SELECT count(*) FROM pairs WHERE author_label IS NOT NULL") == [(0,)]
    assert query(db, "SELECT count(*) FROM pair_labels WHERE author_label IS NOT NULL") == [(0,)]


def test_with_no_author_the_statistics_count_every_vote_as_a_validators(
    tmp_path: Path,
) -> None:
    corpus = table_store(tmp_path / "crowd.db", CROWD, author="-")
    annotators = annotator_rows(corpus)
    assert len(annotators) == 15
    assert "crowd_votes:author" not in {row["annotator"] for row in annotators}
    assert {(row["votes"], row["authored"], row["validated"]) for row in annotators} == {(6, 0, 6)}
    assert {row["author_pairs"] for row in annotators} == {0}
    agreement = agreement_of_all(corpus)
    # No author's label: nothing to compare the validators' votes with.
    assert agreement["individual label = author's label"]["denominator"] == 0
    assert agreement["gold = author's label"]["numerator"] == 0
    # ...nor gold with: the two rows are over pairs with an author's label, and none has one.
    for row in ("gold = author's label", "gold != author's label"):
        assert (agreement[row]["value"], agreement[row]["denominator"]) == (None, 0), row
    assert agreement["pairs relabelled"]["denominator"] == 6
    # Every vote is a validator's and counts towards "individual label = gold".
    assert agreement["individual label = gold"]["denominator"] == 5 * 15  # one pair: no gold


def agreement_cells(text: str) -> dict[str, str]:
    """`stats --table agreement`'s table as text: each statistic's cell of the 'all' column."""
    cells = {}
    for line in text.splitlines():
        parts = [part.strip() for part in line.strip("│ ").split("│")]
        if len(parts) == 2:
            cells[parts[0]] = parts[1]
    return cells


def test_with_no_author_gold_against_the_authors_label_is_not_available(tmp_path: Path) -> None:
    """The printed table says n.a. where a share has no pair to be over (the CLI's test of
    import --format table and of the table it prints)."""
    db = new_store(tmp_path / "crowd.db", "--lang", "en")
    ok("--db", db, "import", CROWD, "--format", "table", "--columns", "author=-")
    cells = agreement_cells(ok("--db", db, "stats", "--table", "agreement"))
    assert cells["gold = author's label"] == cells["gold != author's label"] == "n.a."
    assert cells["no gold label"] == "16.7%"  # crowd-03's 5-5-5 tie, of six pairs


def test_gold_against_the_authors_label_counts_only_pairs_with_one(tmp_path: Path) -> None:
    """MNLI/XNLI's validation table: of the pairs with an author's label, gold = the
    author's, gold != the author's and no gold add up to all of them."""
    cats = write_table(tmp_path / "cats.csv")
    corpus = table_store(tmp_path / "mixed.db", cats, author="writer", votes="v1,v2,v3")
    corpus.import_corpus(path=CROWD, format="table", columns={"author": ("-",)})
    agreement = agreement_of_all(corpus)
    assert agreement["no gold label"]["denominator"] == 3 + 6  # every validated pair
    # The three cat pairs have an author's label, and gold (3+ of 4 votes) agrees with it.
    assert agreement["gold = author's label"]["numerator"] == 3
    assert agreement["gold = author's label"]["denominator"] == 3
    assert agreement["gold = author's label"]["value"] == 1.0
    assert agreement["gold != author's label"]["value"] == 0.0


def test_the_same_file_read_with_its_first_vote_as_the_authors_differs(tmp_path: Path) -> None:
    corpus = table_store(tmp_path / "first-is-author.db", CROWD)
    annotators = {row["annotator"]: row for row in annotator_rows(corpus)}
    assert annotators["crowd_votes:author"]["authored"] == 6
    assert len(annotators) == 15  # the author and v1..v14


def test_a_wrong_author_mapping_is_one_error_line_and_changes_nothing(tmp_path: Path) -> None:
    """--columns as written: the `Error:` line names the file, the option and the column."""
    db = new_store(tmp_path / "crowd.db", "--lang", "en")
    table = write_table(tmp_path / "cats.csv")
    fails(db, "import", table, "--format", "table", "--columns", "author=nobody,votes=v1,v2",
          says=("cats.csv", "--columns author=nobody", "no column 'nobody'"))  # fmt: skip
    fails(db, "import", table, "--format", "table", "--columns", "author=writer,v1",
          says=("author takes one column",))  # fmt: skip
    fails(db, "import", table, "--format", "table", "--columns", "author=v1,votes=v1,v2",
          says=("cats.csv", "column 'v1' to both"))  # fmt: skip
    # `--labels` adds to the default reading (issue 28): `c` is read, a typo in a target is not.
    fails(db, "import", table, "--format", "table", "--columns", "author=writer,votes=v1",
          "--labels", "e=entailment,n=nuetral",
          says=("--labels n=nuetral", "did you mean n=neutral?"))  # fmt: skip


# --- ChaosNLI: 100 crowd labels a pair, and the 5 original ones ------------------------------

CHAOS_SNLI = FIXTURES / "chaosnli" / "chaosNLI_snli.jsonl"


def chaos_table(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """ChaosNLI's SNLI items as a table: the 100 crowd labels as one list (`label_count`,
    in the order e n c), and the original writer's label (`old_labels[0]`) beside them."""
    items = read_jsonl(CHAOS_SNLI)
    records = [
        {
            "uid": item["uid"],
            "premise": item["example"]["premise"],
            "hypothesis": item["example"]["hypothesis"],
            "writer": item["old_labels"][0],
            "crowd": ["e"] * item["label_count"][0]
            + ["n"] * item["label_count"][1]
            + ["c"] * item["label_count"][2],
        }
        for item in items
    ]
    return write_jsonl(tmp_path / "chaos_snli.jsonl", records), items


@requires_fixtures
def test_chaosnli_crowd_labels_are_validators_and_the_writer_is_the_author(
    tmp_path: Path,
) -> None:
    table, items = chaos_table(tmp_path)
    corpus = table_store(tmp_path / "crowd.db", table, id="uid", votes="crowd", author="-")
    crowd = corpus.path
    assert query(crowd, "SELECT count(*), min(position) FROM votes") == [(100 * len(items), 1)]
    assert query(crowd, "SELECT count(*) FROM pairs WHERE author_pk IS NOT NULL") == [(0,)]
    assert len(annotator_ids(crowd)) == 100
    assert "chaos_snli:author" not in annotator_ids(crowd)
    annotators = annotator_rows(corpus)
    assert sum(row["validated"] for row in annotators) == 100 * len(items)
    assert {row["authored"] for row in annotators} == {0}

    writer = table_store(tmp_path / "with-writer.db", table, id="uid", votes="crowd",
                         author="writer")  # fmt: skip
    with_writer = writer.path
    authors = dict(query(with_writer, "SELECT id, author_label FROM pairs"))
    assert authors == {item["uid"]: item["old_labels"][0] for item in items}
    stored = query(with_writer, "SELECT n_votes, count(*) FROM pair_labels GROUP BY n_votes")
    assert stored == [(101, len(items))]
    # The author's label is compared with the 100 validators' votes, never with itself.
    agreement = agreement_of_all(writer)
    assert agreement["individual label = author's label"]["denominator"] == 100 * len(items)
