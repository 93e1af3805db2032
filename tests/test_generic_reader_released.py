"""Released files through `import --format table` with the commands README gives (issue 28):
KLUE-NLI, XNLIvar's Basque pairs and AmericasNLI, each run as README writes it on a small
sample of the released file's shape; parallel tables (`--lang-column` with an `id` column),
`--columns id=-`, and the warning for label columns an import left unread.

The samples in tests/data are written for these tests in the released files' shapes
(their sentences are not the corpora's):
- `klue-nli-v1.1_dev_sample.json`: KLUE-NLI v1.1 (Park et al. 2021), one JSON array, an
  object a pair with `guid`, `source`, `premise`, `hypothesis`, `gold_label`, the author's
  label in `author` and four validators' in `label2`..`label5`, labels as words.
- `americasnli_test_sample.tsv`: AmericasNLI's `test.tsv` (Ebrahimi et al. 2022), unquoted
  tsv with the header `language, premise, hypothesis, label`, one row a pair in one of ten
  languages, language after language, a premise's three hypotheses together, no ID column;
  apostrophes, `¿`, `…` and a raw `"` in its texts.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from conftest import DATA, FIXTURES, PROJECT, fails, ok_result, query
from test_generic_reader import write_table

import nlibuild

SAMPLES = PROJECT / "tests" / "data"
KLUE_SAMPLE = SAMPLES / "klue-nli-v1.1_dev_sample.json"
AMERICASNLI_SAMPLE = SAMPLES / "americasnli_test_sample.tsv"
BASQUE = FIXTURES / "xnli_eu_native" / "xnli-eu-native.tsv"

AMERICASNLI_LANGUAGES = ("aym", "bzd", "cni", "gn", "hch", "nah", "oto", "quy", "shp", "tar")


def readme_import(released_name: str) -> list[str]:
    """README's `nlibuild import RELEASED_NAME ...` line, as arguments after `nlibuild`."""
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    lines = [line for line in readme.splitlines()
             if line.startswith(f"nlibuild import {released_name} ")]  # fmt: skip
    assert len(lines) == 1, f"README has {len(lines)} import lines for {released_name}"
    return shlex.split(lines[0])[1:]


def run_readme_import(db: Path, released_name: str, sample: Path) -> tuple[str, str]:
    """README's command for `released_name` on `sample`: its summary line and its stderr."""
    args = [str(sample) if arg == released_name else arg for arg in readme_import(released_name)]
    result = ok_result("--db", db, *args)
    return result.stdout, result.stderr


def test_readmes_klue_command_reads_the_author_and_four_validators(tmp_path: Path) -> None:
    db = nlibuild.create(tmp_path / "ko.db", lang="ko").path
    summary, stderr = run_readme_import(db, "klue-nli-v1.1_dev.json", KLUE_SAMPLE)
    assert "9 pairs, 5 premises, 45 votes" in summary
    assert stderr == ""
    authors = query(db, "SELECT count(*) FROM votes WHERE position = 0")
    assert authors == [(9,)]
    assert query(db, "SELECT DISTINCT genre FROM premises ORDER BY genre") == [
        ("NSMC",),
        ("airbnb",),
        ("policy",),
        ("wikinews",),
        ("wikitree",),
    ]
    # The released gold is the 3-of-5 majority of those votes (Park et al. 2021, as SNLI).
    nlibuild.open(db).aggregate_labels()
    differing = query(
        db,
        """SELECT count(*) FROM gold_rows mine JOIN gold_rows released
                             USING (pair_pk) WHERE mine.method = 'majority'
                             AND released.method = 'released' AND mine.label != released.label""",
    )
    assert differing == [(0,)]


def test_readmes_old_klue_command_warns_of_the_label_columns_it_leaves(tmp_path: Path) -> None:
    # Issue 28: README's former example stored 0 votes without a word.
    db = nlibuild.create(tmp_path / "ko.db", lang="ko").path
    result = ok_result("--db", db, "import", KLUE_SAMPLE, "--format", "table",
                       "--columns", "id=guid,label=gold_label,genre=source")  # fmt: skip
    assert "0 votes" in result.stdout
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"Warning: {KLUE_SAMPLE}: no vote was stored")
    assert "author, label2, label3, label4, label5 look like labels" in line
    assert "add author=author,votes=label2,label3,label4,label5 to --columns" in line


def test_a_table_with_votes_read_or_no_label_column_does_not_warn(tmp_path: Path) -> None:
    db = nlibuild.create(tmp_path / "corpus.db").path
    row = {"premise": "A dog runs.", "hypothesis": "An animal moves.", "note": "checked"}
    path = write_table(tmp_path / "plain.csv", [row])
    assert ok_result("--db", db, "import", path, "--format", "table").stderr == ""


@pytest.mark.skipif(not BASQUE.exists(), reason="../shared/fixtures/xnli_eu_native is absent")
def test_readmes_basque_command_reads_numbered_labels(tmp_path: Path) -> None:
    db = nlibuild.create(tmp_path / "eu.db", lang="eu").path
    summary, _ = run_readme_import(db, "xnli-eu-native.tsv", BASQUE)
    assert "621 pairs, 207 premises" in summary


def test_readmes_americasnli_command_reads_every_row_in_its_language(tmp_path: Path) -> None:
    db = nlibuild.create(tmp_path / "anli.db").path
    summary, stderr = run_readme_import(db, "americasnli-test.tsv", AMERICASNLI_SAMPLE)
    assert "30 pairs, 10 premises, 0 votes" in summary
    assert stderr == ""
    by_language = query(db, "SELECT lang, count(*) FROM pairs GROUP BY lang ORDER BY lang")
    assert by_language == [(lang, 3) for lang in sorted(AMERICASNLI_LANGUAGES)]
    golds = query(db, "SELECT label, count(*) FROM gold_rows GROUP BY label ORDER BY label")
    assert golds == [("contradiction", 10), ("entailment", 10), ("neutral", 10)]
    texts = {text for (text,) in query(db, "SELECT text FROM premises WHERE lang = 'oto'")}
    assert texts == {'Ma tä bi ñäni "ya ngu" ha bi ehe ndunthi.'}


PARALLEL = [
    {"id": "12451", "language": "aym", "premise": "Jupax utaruw saraski.",
     "hypothesis": "Jupax utaruw puri.", "label": "neutral"},
    {"id": "12452", "language": "aym", "premise": "Jupax utaruw saraski.",
     "hypothesis": "Jupax janiw sarkiti.", "label": "contradiction"},
    {"id": "12451", "language": "quy", "premise": "Paymi wasinta rishan.",
     "hypothesis": "Paymi wasinman chayarqan.", "label": "neutral"},
    {"id": "12452", "language": "quy", "premise": "Paymi wasinta rishan.",
     "hypothesis": "Paymi manam rinchu.", "label": "contradiction"},
    {"id": "12453", "language": "quy", "premise": "Paymi wasinta rishan.",
     "hypothesis": "Paymi purishan.", "label": "entailment"},
]  # fmt: skip
"""A parallel table: ids 12451 and 12452 in two languages, 12453 in Quechua alone."""


def translations(db: Path) -> dict[tuple[str, str], str]:
    rows = query(db, "SELECT unit_id, lang, text FROM translations WHERE kind = 'human'")
    return {(unit, lang): text for unit, lang, text in rows}


def test_rows_sharing_an_id_across_languages_are_one_pair(tmp_path: Path) -> None:
    # Issue 28: "pair 12451 is already in this file" where the rows are one pair's languages.
    path = write_table(tmp_path / "parallel.tsv", PARALLEL)
    db = nlibuild.create(tmp_path / "first.db").path
    ok_result("--db", db, "import", path, "--format", "table", "--lang-column", "language")
    pairs = query(db, "SELECT id, lang, hypothesis FROM pairs ORDER BY id")
    assert pairs == [("12451", "aym", "Jupax utaruw puri."),
                     ("12452", "aym", "Jupax janiw sarkiti."),
                     ("12453", "quy", "Paymi purishan.")]  # fmt: skip
    ((aymara_premise,),) = query(db, "SELECT id FROM premises WHERE lang = 'aym'")
    assert translations(db) == {
        (f"p:{aymara_premise}", "quy"): "Paymi wasinta rishan.",
        ("h:12451", "quy"): "Paymi wasinman chayarqan.",
        ("h:12452", "quy"): "Paymi manam rinchu.",
    }
    # `--lang` picks the language that holds the pairs; importing again adds nothing.
    held = nlibuild.create(tmp_path / "quy.db").path
    for _ in range(2):
        ok_result("--db", held, "import", path, "--format", "table", "--lang-column",
                  "language", "--lang", "quy")  # fmt: skip
    assert query(held, "SELECT DISTINCT lang FROM pairs") == [("quy",)]
    assert translations(held)[("h:12451", "aym")] == "Jupax utaruw puri."
    assert query(held, "SELECT count(*) FROM pairs") == [(3,)]


def test_rows_of_one_id_that_disagree_on_the_label_are_refused(tmp_path: Path) -> None:
    rows = [*PARALLEL[:3], PARALLEL[3] | {"label": "neutral"}]
    path = write_table(tmp_path / "parallel.tsv", rows)
    db = nlibuild.create(tmp_path / "corpus.db").path
    fails(db, "import", path, "--format", "table", "--lang-column", "language",
          says=("parallel.tsv, line 5", "pair 12452", "(quy: gold neutral)",
                "than on line 3 (aym: gold contradiction)", "--columns id=-"))  # fmt: skip


def test_id_dash_reads_every_row_as_a_pair_with_an_id_from_its_content(tmp_path: Path) -> None:
    # Issue 28: `--columns id=-` was "no column '-'".
    path = write_table(tmp_path / "parallel.tsv", PARALLEL)
    db = nlibuild.create(tmp_path / "corpus.db").path
    ok_result("--db", db, "import", path, "--format", "table", "--lang-column", "language",
              "--columns", "id=-")  # fmt: skip
    ids = [pair_id for (pair_id,) in query(db, "SELECT id FROM pairs")]
    assert len(ids) == 5 and not set(ids) & {"12451", "12452", "12453"}
    assert query(db, "SELECT count(*) FROM translations") == [(0,)]
    # The column left unread is kept on the pair, as every unmapped column is.
    kept = query(db, "SELECT DISTINCT json_extract(extra_json, '$.id') FROM pairs ORDER BY 1")
    assert kept == [("12451",), ("12452",), ("12453",)]


def test_the_sample_corpora_still_import_as_before(tmp_path: Path) -> None:
    # data/crowd_votes.csv has an `id` column and no language column: not a parallel table.
    db = nlibuild.create(tmp_path / "crowd.db").path
    result = ok_result("--db", db, "import", DATA / "crowd_votes.csv", "--format", "table",
                       "--columns", "author=-")  # fmt: skip
    assert result.stderr == ""
    assert query(db, "SELECT count(*) FROM translations") == [(0,)]
