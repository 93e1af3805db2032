"""`import --format table`: one reader for csv, tsv, jsonl, JSON arrays and parquet, told
which column holds what (`--columns`) and what the label values mean (`--labels`)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import (
    FIXTURES,
    fails,
    ok,
    query,
    read_jsonl,
    refused,
    table_counts,
)

import nlibuild
from nlibuild.api import Corpus, StageWarning
from nlibuild.errors import NlibuildError
from nlibuild.models import ImportConfig, ImportFormat, ImportResult
from nlibuild.stages import import_corpus
from nlibuild.store import Store

BASQUE = FIXTURES / "xnli_eu_native" / "xnli-eu-native.tsv"

VOTES = [f"v{i}" for i in range(1, 6)]
"""The sample corpus's vote columns: the author's label, then four validators'."""

SAMPLE_ROWS: list[dict[str, str]] = [
    {"pair": "p1", "prem": "A", "text": "A man plays a guitar.", "hypo": "A man makes music.",
     "gold": "e", "domain": "captions", "v1": "e", "v2": "e", "v3": "e", "v4": "n", "v5": "e"},
    {"pair": "p2", "prem": "A", "text": "A man plays a guitar.", "hypo": "The man is asleep.",
     "gold": "c", "domain": "captions", "v1": "c", "v2": "c", "v3": "n", "v4": "c", "v5": "c"},
    {"pair": "p3", "prem": "A", "text": "A man plays a guitar.", "hypo": "He plays for money.",
     "gold": "-", "domain": "captions", "v1": "n", "v2": "e", "v3": "n", "v4": "c", "v5": "e"},
    {"pair": "p4", "prem": "B", "text": "Rain fell all day, \"hard\".", "hypo": "It was dry.",
     "gold": "c", "domain": "news", "v1": "c", "v2": "c", "v3": "c", "v4": "c", "v5": "c"},
    {"pair": "p5", "prem": "B", "text": "Rain fell all day, \"hard\".", "hypo": "It rained.",
     "gold": "e", "domain": "news", "v1": "e", "v2": "", "v3": "", "v4": "", "v5": ""},
]  # fmt: skip
"""Five pairs under two premises, with their own column names, a `"` and a `,` in a text,
a pair without a majority and one with its author's label alone."""

SAMPLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("pair",), "premise_id": ("prem",), "premise": ("text",), "hypothesis": ("hypo",),
    "label": ("gold",), "genre": ("domain",), "votes": tuple(VOTES),
}  # fmt: skip
"""The sample's columns, as `--columns` maps them: each key to its columns."""
SAMPLE_COLUMNS_OPTION = (
    "id=pair,premise_id=prem,premise=text,hypothesis=hypo,label=gold,genre=domain,"
    "votes=v1,v2,v3,v4,v5"
)
"""`SAMPLE_COLUMNS` as the CLI's `--columns` writes it (a key's further columns after commas)."""
NUMBERED_LABELS = {"0": "entailment", "1": "neutral", "2": "contradiction"}
"""`--labels 0=entailment,1=neutral,2=contradiction`."""


KLUE_RECORDS: list[dict[str, Any]] = [
    {"guid": "klue-nli-v1_train_00000", "source": "NSMC", "premise": "힛걸 진심 최고다.",
     "hypothesis": "힛걸 진심 최고로 멋지다.", "gold_label": 0},
    {"guid": "klue-nli-v1_train_00001", "source": "NSMC", "premise": "힛걸 진심 최고다.",
     "hypothesis": "힛걸 진심 최고로 별로다.", "gold_label": 2},
    {"guid": "klue-nli-v1_train_00002", "source": "wikinews", "premise": "비가 온다.",
     "hypothesis": "우산이 필요할지도 모른다.", "gold_label": 1},
]  # fmt: skip
"""KLUE-NLI-like records (Park et al. 2021: a JSON array of objects with `guid`, `premise`,
`hypothesis`, `gold_label`, `source`), with the label numbered as HF-style copies do."""


def write_table(path: Path, rows: list[dict[str, Any]]) -> Path:
    """`rows` as the file kind `path`'s suffix names."""
    columns = list(rows[0])
    if path.suffix == ".csv":
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(columns)
            writer.writerows([[row[c] for c in columns] for row in rows])
    elif path.suffix == ".tsv":  # unquoted, as NLI tsv files are: a `"` is text
        lines = ["\t".join(columns), *("\t".join(row[c] for c in columns) for row in rows)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text(json.dumps(rows, indent=2, ensure_ascii=False), encoding="utf-8")
    else:
        pl.DataFrame(rows).write_parquet(path)
    return path


def importing(**settings: Any) -> Callable[[Corpus], ImportResult]:
    """`import` with `settings`, for `refused` to call on its store."""
    return lambda corpus: corpus.import_corpus(**settings)


def exported(db: Path, tmp_path: Path) -> list[dict[str, Any]]:
    out = tmp_path / f"{db.stem}-export.jsonl"
    nlibuild.open(db).export(format="jsonl", out=out)
    return sorted(read_jsonl(out), key=lambda record: str(record["pair_id"]))


@pytest.mark.parametrize("suffix", [".tsv", ".jsonl", ".json", ".parquet"])
def test_one_corpus_in_every_kind_of_table_file_gives_the_same_store(
    tmp_path: Path, suffix: str
) -> None:
    stores = []
    for kind in (".csv", suffix):
        folder = tmp_path / kind.lstrip(".")
        folder.mkdir()
        path = write_table(folder / f"corpus{kind}", SAMPLE_ROWS)
        db = folder / "corpus.db"
        nlibuild.create(db).import_corpus(path=path, format="table", columns=SAMPLE_COLUMNS)
        stores.append((table_counts(db), exported(db, folder)))
    assert stores[0] == stores[1]
    counts, records = stores[0]
    assert (counts["premises"], counts["pairs"], counts["votes"]) == (2, 5, 21)
    assert [r["pair_id"] for r in records] == ["p1", "p2", "p3", "p4", "p5"]
    assert records[3]["premise"] == 'Rain fell all day, "hard".'
    assert records[0]["labels"] == ["entailment"] * 3 + ["neutral", "entailment"]
    assert records[0]["genre"] == "captions"
    assert records[2]["gold_label"] == "-"
    assert records[4]["labels"] == ["entailment"]


def test_a_klue_like_json_array_with_integer_labels_reads_through_labels(tmp_path: Path) -> None:
    path = write_table(tmp_path / "klue-nli.json", KLUE_RECORDS)
    ko = tmp_path / "ko.db"
    nlibuild.create(ko, lang="ko").import_corpus(
        path=path, format="table", label_values=NUMBERED_LABELS,
        columns={"id": ("guid",), "label": ("gold_label",), "genre": ("source",)},
    )  # fmt: skip
    rows = query(
        ko,
        "SELECT p.id, p.lang, pm.genre, g.label FROM pairs p JOIN premises pm "
        "ON pm.pk = p.premise_pk JOIN gold g ON g.pair_pk = p.pk "
        "WHERE g.method = 'released' ORDER BY p.id",
    )
    assert rows == [
        ("klue-nli-v1_train_00000", "ko", "NSMC", "entailment"),
        ("klue-nli-v1_train_00001", "ko", "NSMC", "contradiction"),
        ("klue-nli-v1_train_00002", "ko", "wikinews", "neutral"),
    ]


def test_fifteen_vote_columns_give_fifteen_votes_a_pair_and_the_stores_gold_rule(
    db: Path, tmp_path: Path
) -> None:
    # LiveNLI-like: a csv with one column a vote. The store's rule is the papers' 3-of-5:
    # the NLI label with at least 3 votes and more than any other, else `-`.
    columns = [f"label{i}" for i in range(1, 16)]
    tallies = [
        ("entailment", ["e"] * 9 + ["n"] * 6),
        ("-", ["e"] * 5 + ["n"] * 5 + ["c"] * 5),
        ("contradiction", ["c"] * 4 + ["n"] * 3 + ["e"] * 3 + [""] * 5),
    ]
    rows = [
        {"premise": f"Premise {i}.", "hypothesis": f"Hypothesis {i}.",
         **dict(zip(columns, votes, strict=True))}
        for i, (_, votes) in enumerate(tallies)
    ]  # fmt: skip
    path = write_table(tmp_path / "livenli.csv", rows)
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=path, format="table", columns={"votes": tuple(columns)})
    per_pair = query(db, "SELECT count(*) FROM votes GROUP BY pair_pk ORDER BY pair_pk")
    assert per_pair == [(15,), (15,), (10,)]
    with pytest.warns(StageWarning, match="the rule was written for 5"):
        corpus.aggregate_labels()
    golds = query(
        db,
        "SELECT p.hypothesis, g.label FROM pairs p JOIN gold g ON g.pair_pk = p.pk "
        "WHERE g.method = 'majority' ORDER BY p.hypothesis",
    )
    assert [gold for _, gold in golds] == [gold for gold, _ in tallies]


def test_a_language_column_puts_each_rows_pair_in_its_language(db: Path, tmp_path: Path) -> None:
    # AmericasNLI-like: one file, one language a row.
    rows = [
        {"language": "quy", "premise": "Wasiymanmi rini.", "hypothesis": "Wasiyta rini.",
         "label": "entailment"},
        {"language": "gn", "premise": "Aha che rógape.", "hypothesis": "Ndahái che rógape.",
         "label": "contradiction"},
        {"language": "quy", "premise": "Wasiymanmi rini.", "hypothesis": "Mana rinichu.",
         "label": "contradiction"},
    ]  # fmt: skip
    path = write_table(tmp_path / "americasnli.tsv", rows)
    nlibuild.open(db).import_corpus(path=path, format="table", columns={"lang": ("language",)})
    langs = query(db, "SELECT lang, count(*) FROM pairs GROUP BY lang ORDER BY lang")
    assert langs == [("gn", 1), ("quy", 2)]
    premise_langs = query(db, "SELECT lang, count(*) FROM premises GROUP BY lang ORDER BY lang")
    assert premise_langs == [("gn", 1), ("quy", 1)]


KLUE_PRESET = """
[corpus]
lang = "ko"

[import.tables.klue]
columns = { id = "guid", label = "gold_label", genre = "source" }
labels = { "0" = "entailment", "1" = "neutral", "2" = "contradiction" }
"""


def test_a_preset_names_a_mapping_that_columns_at_name_selects(tmp_path: Path) -> None:
    # Through the CLI: `--columns @NAME` is the command's option, read from the store's preset.
    preset = tmp_path / "klue.toml"
    preset.write_text(KLUE_PRESET, encoding="utf-8")
    db = nlibuild.create(tmp_path / "ko.db", preset=preset).path
    path = write_table(tmp_path / "klue-nli.json", KLUE_RECORDS)
    ok("--db", db, "import", path, "--format", "table", "--columns", "@klue")
    assert query(db, "SELECT count(*) FROM pairs WHERE lang = 'ko'") == [(3,)]
    run = query(db, "SELECT signature FROM runs WHERE stage = 'import'")[0][0]
    assert "columns:genre=source,id=guid,label=gold_label" in run
    fails(db, "import", path, "--format", "table", "--columns", "@kluee",
          says=("--columns @kluee", "has no [import.tables.kluee]", "it has klue"))  # fmt: skip


def test_a_named_mapping_is_the_same_for_a_recipe_and_the_python_api(tmp_path: Path) -> None:
    """`columns="@NAME"` reads the preset's table as `--columns @NAME` does (a stage default),
    so the run and its signature are the command's."""
    preset = tmp_path / "klue.toml"
    preset.write_text(KLUE_PRESET, encoding="utf-8")
    corpus = nlibuild.create(tmp_path / "ko.db", preset=preset)
    path = write_table(tmp_path / "klue-nli.json", KLUE_RECORDS)
    result = corpus.import_corpus(path=path, format="table", columns="@klue")
    assert result.pairs_added == 3
    assert "columns:genre=source,id=guid,label=gold_label" in result.signature
    refused(
        corpus.path,
        lambda c: c.import_corpus(path=path, format="table", columns="@kluee"),
        "--columns @kluee", "has no [import.tables.kluee]", "it has klue",
    )  # fmt: skip


def test_a_misspelt_key_of_a_named_mapping_is_refused_at_init(tmp_path: Path) -> None:
    preset = tmp_path / "klue.toml"
    preset.write_text(KLUE_PRESET.replace("genre =", "genr ="), encoding="utf-8")
    with pytest.raises(NlibuildError) as raised:
        nlibuild.create(tmp_path / "ko.db", preset=preset)
    for fragment in ("klue.toml", "import.tables.klue", "no key 'genr'"):
        assert fragment in str(raised.value)
    assert not (tmp_path / "ko.db").exists()


@pytest.mark.skipif(not BASQUE.exists(), reason="needs ../shared/fixtures/xnli_eu_native")
def test_the_basque_native_file_through_table_gives_the_pairs_of_its_own_reader(
    tmp_path: Path,
) -> None:
    for folder in ("xnli", "table"):
        (tmp_path / folder).mkdir()
    as_xnli = nlibuild.create(tmp_path / "xnli" / "eu.db", lang="eu")
    as_xnli.import_corpus(path=BASQUE, format="xnli", label_order="e,n,c")
    as_table = nlibuild.create(tmp_path / "table" / "eu.db", lang="eu")
    as_table.import_corpus(path=BASQUE, format="table", label_values=NUMBERED_LABELS)
    assert exported(as_table.path, tmp_path / "table") == exported(as_xnli.path, tmp_path / "xnli")
    assert as_table.info().pairs == 621


def test_votes_as_a_list_in_one_column(db: Path, tmp_path: Path) -> None:
    rows = [
        {"premise": "A dog runs.", "hypothesis": "An animal moves.", "votes": ["e", "e", "n"]},
        {"premise": "A dog runs.", "hypothesis": "A cat sleeps.", "votes": ["c", "c", "c"]},
    ]
    path = write_table(tmp_path / "lists.parquet", rows)
    nlibuild.open(db).import_corpus(path=path, format="table")
    assert query(db, "SELECT count(*) FROM votes") == [(6,)]


def test_an_unknown_column_is_one_error_naming_file_and_column(db: Path, tmp_path: Path) -> None:
    path = write_table(tmp_path / "corpus.csv", SAMPLE_ROWS)
    refused(db, importing(path=path, format="table", columns={"premise": ("sentence1",)}),
            "corpus.csv, line 1", "no column 'sentence1'", "text, hypo")  # fmt: skip


def test_an_unknown_label_value_is_one_error_at_its_line(db: Path, tmp_path: Path) -> None:
    rows = [{"premise": "P.", "hypothesis": "H.", "label": "0"},
            {"premise": "P.", "hypothesis": "H2.", "label": "3"}]  # fmt: skip
    path = write_table(tmp_path / "corpus.tsv", rows)
    refused(db, importing(path=path, format="table", label_values=NUMBERED_LABELS),
            "corpus.tsv", "'3' (first on line 3)", "add them to --labels")  # fmt: skip


def test_labels_add_to_the_default_reading_rather_than_replace_it(db: Path, tmp_path: Path) -> None:
    # Issue 28: dropping one stray value took all four usual labels written out.
    rows = [{"premise": "P.", "hypothesis": "H1.", "answer": "entailment"},
            {"premise": "P.", "hypothesis": "H2.", "answer": "maybe"},
            {"premise": "P.", "hypothesis": "H3.", "answer": "c"}]  # fmt: skip
    path = write_table(tmp_path / "stray.csv", rows)
    ok("--db", db, "import", path, "--format", "table", "--columns", "votes=answer",
       "--labels", "maybe=-")  # fmt: skip
    assert query(db, "SELECT label FROM votes ORDER BY pair_pk") == [
        ("entailment",),
        ("contradiction",),
    ]


def test_a_typo_in_a_labels_target_names_the_closest_label(db: Path, tmp_path: Path) -> None:
    path = write_table(tmp_path / "corpus.csv", SAMPLE_ROWS)
    line = fails(db, "import", path, "--format", "table", "--labels", "2=contradicton",
                 says=("--labels 2=contradicton", "did you mean 2=contradiction?"))  # fmt: skip
    assert "--extra-labels contradicton" not in line


def test_a_duplicate_key_is_one_error_naming_the_option(db: Path, tmp_path: Path) -> None:
    # Through the CLI: only its options' text can name a key twice.
    path = write_table(tmp_path / "corpus.csv", SAMPLE_ROWS)
    fails(db, "import", path, "--format", "table", "--columns", "premise=text,premise=hypo",
          says=("--columns names premise twice",))  # fmt: skip
    fails(db, "import", path, "--format", "table", "--labels", "e=entailment,e=neutral",
          says=("--labels names the value e twice",))  # fmt: skip


def test_the_columns_option_is_read_as_the_mapping_it_writes_out(tmp_path: Path) -> None:
    # Through the CLI: `--columns` gives a key its columns after commas (votes=v1,v2,...), and
    # `--lang-column C` is `lang=C`; the store is the one the mapping itself makes.
    rows = [{**row, "language": "en"} for row in SAMPLE_ROWS]
    path = write_table(tmp_path / "corpus.csv", rows)
    (tmp_path / "cli").mkdir()
    (tmp_path / "api").mkdir()
    by_option = nlibuild.create(tmp_path / "cli" / "corpus.db").path
    ok("--db", by_option, "import", path, "--format", "table",
       "--columns", SAMPLE_COLUMNS_OPTION, "--lang-column", "language")  # fmt: skip
    by_mapping = nlibuild.create(tmp_path / "api" / "corpus.db")
    by_mapping.import_corpus(path=path, format="table",
                             columns=SAMPLE_COLUMNS | {"lang": ("language",)})  # fmt: skip
    assert table_counts(by_option) == table_counts(by_mapping.path)
    assert exported(by_option, tmp_path / "cli") == exported(by_mapping.path, tmp_path / "api")


def test_mapping_mistakes_are_refused_before_anything_is_read(db: Path, tmp_path: Path) -> None:
    path = write_table(tmp_path / "corpus.csv", SAMPLE_ROWS)
    for columns, says in [
        ({"premise": ("text",), "hypothesis": ("hypo",), "sentence": ("text",)},
         ("no key 'sentence'",)),
        ({"premise": ("text", "hypo")}, ("premise takes one column",)),
        ({"premise": ("text",), "hypothesis": ("text",)},
         ("corpus.csv", "column 'text' to both premise and hypothesis")),
    ]:  # fmt: skip
        refused(db, importing(path=path, format="table", columns=columns), *says)
    refused(db, importing(path=path, format="xnli", columns={"premise": ("text",)}),
            "--columns and --labels are for --format table")  # fmt: skip


def test_bad_files_are_one_error_at_the_record(db: Path, tmp_path: Path) -> None:
    array = tmp_path / "broken.json"
    array.write_text('[\n  {"premise": "P.", "hypothesis": "H."},\n  {"premise": "P."\n]\n')
    not_array = tmp_path / "object.json"
    not_array.write_text('{"premise": "P.", "hypothesis": "H."}\n')
    empty_text = write_table(
        tmp_path / "empty.jsonl",
        [{"premise": "P.", "hypothesis": "H."}, {"premise": "P.", "hypothesis": " "}],
    )
    unknown_kind = tmp_path / "corpus.xlsx"
    unknown_kind.write_bytes(b"PK")
    not_parquet = tmp_path / "corpus.parquet"
    not_parquet.write_text("premise,hypothesis\n")
    for path, says in [
        (array, ("broken.json, line 4", "not valid JSON")),
        (not_array, ("object.json", "one JSON array")),
        (empty_text, ("empty.jsonl, line 2", "column 'hypothesis' is empty")),
        (unknown_kind, ("corpus.xlsx", ".parquet")),
        (not_parquet, ("corpus.parquet", "parquet")),
    ]:
        refused(db, importing(path=path, format="table"), *says)


def test_a_json_array_record_is_found_at_the_line_it_starts_on(db: Path, tmp_path: Path) -> None:
    records = [{"premise": "P.", "hypothesis": f"H{i}.", "label": "e"} for i in range(3)]
    records[2]["label"] = "maybe"
    path = write_table(tmp_path / "corpus.json", records)  # indent=2: 5 lines a record
    refused(db, importing(path=path, format="table"), "corpus.json", "'maybe' (first on line 12)")


def test_the_mapping_reaches_a_parallel_imports_worker(tmp_path: Path) -> None:
    # Files of 16 MiB or more are read by a worker process, which gets the settings as JSON.
    rows = [{**row, "gold": {"e": "0", "n": "1", "c": "2", "-": "-1"}[row["gold"]]}
            for row in SAMPLE_ROWS]  # fmt: skip
    path = write_table(tmp_path / "corpus.csv", rows)
    cfg = ImportConfig(
        path=path,
        format=ImportFormat.TABLE,
        columns={
            "id": ("pair",),
            "premise_id": ("prem",),
            "premise": ("text",),
            "hypothesis": ("hypo",),
            "label": ("gold",),
            "votes": tuple(VOTES),
        },
        # --labels maps the votes' values too: the gold column is numbered, the votes lettered.
        label_values={
            "0": "entailment",
            "1": "neutral",
            "2": "contradiction",
            "-1": "-",
            "e": "entailment",
            "n": "neutral",
            "c": "contradiction",
        },
    )
    stores = []
    for parallel in (False, True):
        db = nlibuild.create(tmp_path / f"parallel-{parallel}.db").path
        with Store.open(db) as store:
            import_corpus.run(store, cfg, parallel=parallel)
        stores.append(exported(db, tmp_path))
    assert stores[0] == stores[1]
    assert [record["gold_label"] for record in stores[0]] == [
        "entailment", "contradiction", "-", "contradiction", "entailment",
    ]  # fmt: skip
