"""One reader for every import told its columns: `translate import`, `elicit import --format
table` and `relabel import --format table` read csv, tsv, jsonl, JSON arrays and parquet as
`import --format table` does (`formats/table_rows.py`). The same content in any of the five
kinds gives the same store; a mapping naming a column the file lacks is one error line
naming the file and the columns it has; `--labels` maps label values; `--lang-column` keeps
the rows of one language; a preset names a mapping for `--columns @NAME`."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from conftest import copy_store, fails, ok, query, read_jsonl, refused
from elicitation_data import NEWS, SINGLE, premise_corpus
from test_generic_reader import write_table
from test_relabel import ANNOTATORS, all_tasks, authors_label, build_store
from test_translate_columns import checks, stored, units_by_id
from test_translate_rows import GERMAN, SOURCE, write_tsv

import nlibuild
from nlibuild.formats.table_rows import label_by_value

KINDS = (".csv", ".tsv", ".jsonl", ".json", ".parquet")
NUMBERED_LABELS = {"0": "entailment", "1": "neutral", "2": "contradiction"}
"""`--labels 0=entailment,1=neutral,2=contradiction`."""

DIGESTED = {
    "pairs": "SELECT id, hypothesis, author_label, premise_pk, batch_pk, author_pk FROM pairs",
    "votes": "SELECT pair_pk, annotator_pk, position, label FROM votes",
    "translations": "SELECT unit_id, lang, kind, text FROM translations",
    "checks": 'SELECT unit_id, "check", detail FROM translation_checks',
    "violations": "SELECT * FROM violations",
}


def digest(db: Path) -> str:
    """A hash of what an import adds, whatever its file's kind (runs differ by the file's
    SHA-256 and are left out)."""
    hashed = hashlib.sha256()
    for sql in DIGESTED.values():
        hashed.update(repr(sorted(query(db, sql), key=repr)).encode())
    return hashed.hexdigest()


# --- translate import ----------------------------------------------------------------------


@pytest.fixture
def english(db: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The English source rows imported into `db`, and their file."""
    path = write_tsv(tmp_path / "source.tsv", ["sentence1", "sentence2", "gold_label"], SOURCE)
    nlibuild.open(db).import_corpus(path=path, format="xnli", lang="en")
    return db, path


@pytest.mark.parametrize("align", ["id", "rows"])
def test_translations_in_every_kind_of_table_file_give_the_same_store(
    english: tuple[Path, Path], tmp_path: Path, align: str
) -> None:
    db, reference = english
    if align == "id":
        rows: list[dict[str, Any]] = [
            {"id": u["unit_id"], "translation": u["text"]} for u in units_by_id(db, tmp_path)
        ]
        settings: dict[str, Any] = {"columns": {"unit_id": "id", "text": "translation"}}
    else:
        rows = [{"label": label, "premise_de": p, "hypothesis_de": h}
                for (_, _, label), (p, h) in zip(SOURCE, GERMAN, strict=True)]  # fmt: skip
        columns = {"premise": "premise_de", "hypothesis": "hypothesis_de"}
        settings = {"align": "rows", "reference": reference, "columns": columns}
    digests = set()
    for kind in KINDS:
        store = copy_store(db, tmp_path / kind.lstrip(".") / "corpus.db")
        path = write_table(tmp_path / f"de{kind}", rows)
        nlibuild.open(store).translate_import(path=path, lang="de", **settings)
        assert len(stored(store)) == 6
        digests.add(digest(store))
    assert len(digests) == 1


def test_a_language_column_picks_the_rows_of_lang(
    english: tuple[Path, Path], tmp_path: Path
) -> None:
    # AmericasNLI-like: one file, the rows of every language, a column naming each row's.
    db, reference = english
    german = [{"language": "de", "label": label, "premise": p, "hypothesis": h}
              for (_, _, label), (p, h) in zip(SOURCE, GERMAN, strict=True)]  # fmt: skip
    spanish = [row | {"language": "es", "premise": "Algo.", "hypothesis": "Otra cosa."}
               for row in german]  # fmt: skip
    mixed = [row for pair in zip(spanish, german, strict=True) for row in pair]
    path = write_table(tmp_path / "americasnli.tsv", mixed)
    nlibuild.open(db).translate_import(path=path, lang="de", align="rows", reference=reference,
                                       lang_column="language")  # fmt: skip
    texts = {text for _, _, _, text in stored(db)}
    assert texts == {t for pair in GERMAN for t in pair}
    refused(db, lambda corpus: corpus.translate_import(
        path=path, lang="fr", align="rows", reference=reference, lang_column="language",
    ), "americasnli.tsv", "no row of fr in column 'language'", "de, es")  # fmt: skip


def test_labels_map_a_numbered_label_column_before_it_is_compared(
    english: tuple[Path, Path], tmp_path: Path
) -> None:
    db, reference = english
    # CLUE's numbering (n,e,c), which read as GLUE's (e,n,c) would disagree with the source.
    numbers = {"neutral": "0", "entailment": "1", "contradiction": "2"}
    rows = [{"label": numbers[label], "premise": p, "hypothesis": h}
            for (_, _, label), (p, h) in zip(SOURCE, GERMAN, strict=True)]  # fmt: skip
    path = write_table(tmp_path / "numbered.json", rows)
    settings: dict[str, Any] = {"path": path, "lang": "de", "align": "rows",
                                "reference": reference}  # fmt: skip
    unmapped = copy_store(db, tmp_path / "unmapped" / "corpus.db")
    nlibuild.open(unmapped).translate_import(**settings, force=True)
    assert [c for c in checks(unmapped) if c[1] == "label_mismatch"]
    nlibuild.open(db).translate_import(
        **settings, label_values={"0": "neutral", "1": "entailment", "2": "contradiction"}
    )
    assert not [c for c in checks(db) if c[1] == "label_mismatch"]
    assert len(stored(db)) == 6


PRESET = """
[import.tables.mt]
columns = { premise = "premise_tgt", hypothesis = "hypo", lang = "language" }
"""


def test_a_preset_mapping_names_the_columns_of_a_translation(tmp_path: Path) -> None:
    # Through the CLI: `--columns @NAME` is the command's option, read from the store's preset.
    preset = tmp_path / "mt.toml"
    preset.write_text(PRESET, encoding="utf-8")
    corpus = nlibuild.create(tmp_path / "corpus.db", preset=preset)
    reference = write_tsv(tmp_path / "source.tsv", ["sentence1", "sentence2", "gold_label"], SOURCE)
    corpus.import_corpus(path=reference, format="xnli", lang="en")
    db = corpus.path
    rows = [{"language": "de", "premise_tgt": p, "hypo": h} for p, h in GERMAN]
    path = write_table(tmp_path / "mt.parquet", rows)
    ok("--db", db, "translate", "import", path, "--lang", "de", "--align", "rows",
       "--reference", reference, "--columns", "@mt")  # fmt: skip
    assert {text for *_, text in stored(db)} == {t for pair in GERMAN for t in pair}


def test_a_mapped_column_the_file_lacks_is_one_error_naming_its_columns(
    english: tuple[Path, Path], tmp_path: Path
) -> None:
    db, _ = english
    rows = [{"id": u["unit_id"], "translation": u["text"]} for u in units_by_id(db, tmp_path)]
    path = write_table(tmp_path / "units.parquet", rows)
    refused(db, lambda corpus: corpus.translate_import(
        path=path, lang="de", columns={"unit_id": "unit", "text": "translation"},
    ), "units.parquet", "no column 'unit'", "columns: id, translation")  # fmt: skip


# --- elicit import --format table ----------------------------------------------------------


@pytest.fixture
def elicit_store(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """Six news premises in SINGLE batches of three for w01 and w02, and their tasks."""
    db = premise_corpus(tmp_path / "corpus.db", {"news": NEWS}, lang="en").path
    corpus = nlibuild.open(db)
    corpus.elicit_create(protocol="SINGLE", annotators=("w01", "w02"), batch_size=3)
    package = tmp_path / "package"
    corpus.elicit_export(all=True, format="jsonl", out=package)
    tasks = [t for path in sorted(package.glob("e*.tasks.jsonl")) for t in read_jsonl(path)]
    return db, tasks


def test_answers_in_every_kind_of_table_file_give_the_same_store(
    elicit_store: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    template, tasks = elicit_store
    rows = [{"batch_id": t["batch"], "who": t["writer"], "premise_id": t["premise_id"],
             **{f"{label}_1": texts[0] for label, texts in SINGLE.items()}}
            for t in tasks]  # fmt: skip
    digests = set()
    for kind in KINDS:
        db = copy_store(template, tmp_path / kind.lstrip(".") / "corpus.db")
        path = write_table(tmp_path / f"answers{kind}", rows)
        result = nlibuild.open(db).elicit_import(
            path=path, format="table", columns={"batch": "batch_id", "worker": "who"}
        )
        assert (result.answers, result.dropped, result.left_open) == (6, {}, 0)
        assert result.pairs_added == 18
        digests.add(digest(db))
    assert len(digests) == 1
    # Through the CLI: `--columns` as text, and the Error line.
    fails(template, "elicit", "import", path, "--format", "table", "--columns", "worker=writer",
          says=("answers.parquet", "no column 'writer'", "batch_id, who"))  # fmt: skip


def test_answers_with_the_jsonl_platforms_columns_need_no_mapping(
    elicit_store: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    # A list a label, as the jsonl platform's answers hold them, here in a JSON array file.
    template, tasks = elicit_store
    rows = [{"batch": t["batch"], "writer": t["writer"], "premise_id": t["premise_id"], **SINGLE}
            for t in tasks]  # fmt: skip
    as_table = copy_store(template, tmp_path / "table" / "corpus.db")
    nlibuild.open(as_table).elicit_import(
        path=write_table(tmp_path / "answers.json", rows), format="table"
    )
    as_jsonl = copy_store(template, tmp_path / "jsonl" / "corpus.db")
    nlibuild.open(as_jsonl).elicit_import(
        path=write_table(tmp_path / "answers.jsonl", rows), format="jsonl"
    )
    assert digest(as_table) == digest(as_jsonl)


# --- relabel import --format table ---------------------------------------------------------


@pytest.fixture(scope="module")
def relabel_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    root = tmp_path_factory.mktemp("relabel-table")
    corpus = nlibuild.open(build_store(root / "corpus.db"))
    corpus.relabel_create(annotators=tuple(ANNOTATORS.split(",")))
    corpus.relabel_export(all=True, format="jsonl", out=root / "package")
    db = corpus.path
    return db, all_tasks(root / "package")


def test_votes_in_every_kind_of_table_file_give_the_same_store_through_labels(
    relabel_template: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    template, tasks = relabel_template
    number = {"entailment": "0", "neutral": "1", "contradiction": "2"}
    rows = [{"batch": t["batch"], "rater": t["annotator"], "pair": t["pair_id"],
             "answer": number[authors_label(t)]} for t in tasks]  # fmt: skip
    as_jsonl = copy_store(template, tmp_path / "jsonl-platform" / "corpus.db")
    words = [{"batch": r["batch"], "annotator": r["rater"], "pair_id": r["pair"],
              "label": authors_label(t)} for r, t in zip(rows, tasks, strict=True)]  # fmt: skip
    nlibuild.open(as_jsonl).relabel_import(
        path=write_table(tmp_path / "votes.jsonl", words), format="jsonl"
    )
    columns = {"worker": "rater", "pair_id": "pair", "label": "answer"}
    digests = set()
    for kind in KINDS:
        db = copy_store(template, tmp_path / kind.lstrip(".") / "corpus.db")
        path = write_table(tmp_path / f"votes{kind}", rows)
        nlibuild.open(db).relabel_import(
            path=path, format="table", columns=columns, label_values=NUMBERED_LABELS
        )
        digests.add(digest(db))
    assert digests == {digest(as_jsonl)}
    # Through the CLI: `--columns` and `--labels` as text, and the Error line.
    fails(template, "relabel", "import", path, "--format", "table",
          "--columns", "worker=rater,pair_id=pair,label=answer", "--labels", "0=entailment",
          says=("votes.parquet, line 2", "label '1'", "--label-order"))  # fmt: skip
    refused(template, lambda corpus: corpus.relabel_import(path=path, format="table"),
            "votes.parquet", "no pair_id column", "batch, rater, pair, answer")  # fmt: skip


def test_columns_are_refused_for_a_platform_format(
    relabel_template: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    template, _ = relabel_template
    path = tmp_path / "votes.jsonl"
    path.write_text("{}\n", encoding="utf-8")
    refused(template, lambda corpus: corpus.relabel_import(
        path=path, format="jsonl", columns={"label": "x"},
    ), "--columns and --labels are for --format table")  # fmt: skip


def test_a_damaged_parquet_file_is_one_error_line_for_every_import(
    relabel_template: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    # The fuzz suite mutates text files; a parquet file cut short stands for its binary kin.
    template, tasks = relabel_template
    whole = write_table(tmp_path / "whole.parquet", [{"pair_id": t["pair_id"], "label": "e"}
                                                     for t in tasks])  # fmt: skip
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    for call in (lambda corpus: corpus.relabel_import(path=cut, format="table"),
                 lambda corpus: corpus.elicit_import(path=cut, format="table"),
                 lambda corpus: corpus.translate_import(path=cut, lang="de")):  # fmt: skip
        refused(template, call, "cut.parquet", "cannot be read as parquet")


def test_corpus_rows_and_votes_map_label_values_with_one_rule(tmp_path: Path) -> None:
    # `import --format table` (units.py) and `relabel import --format table` both call it.
    values = {"0": "entailment", "1": "neutral", "x": "-"}
    path = tmp_path / "labels.csv"
    assert label_by_value(path, 2, "answer", "1", values) == "neutral"
    assert label_by_value(path, 2, "answer", "x", values) is None
    # A value --labels does not name is read as without --labels (issue 28: it adds to the
    # default reading), by the caller's normaliser, which refuses what is no label.
    assert label_by_value(path, 7, "answer", "c", values) == "c"
