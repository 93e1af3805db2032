"""Elicitation on real data (../shared/fixtures).

- XNLIvar's natively written Basque pairs (207 premises x one hypothesis per label, integer
  labels 0/1/2 = e/n/c) come back as the answer set of a SINGLE elicitation batch.
- SNLI's hypotheses exercise the English negator and overlap rules: negation words are the
  top contradiction cue of crowd-written NLI data (Gururangan et al. 2018 list nobody, no
  and never among SNLI's), which is why OCNLI's MULTI_CONSTRAINT protocol limits them.

The stages run through the Python API; the CLI keeps the closing line of `elicit import`.
"""

from __future__ import annotations

import csv
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from conftest import FIXTURES, ok, read_jsonl, requires_fixtures

import nlibuild
from nlibuild.api import StageWarning
from nlibuild.models import ElicitImportResult
from nlibuild.text.negators import negator_lexicon
from nlibuild.text.overlap import overlap_ratio

pytestmark = requires_fixtures

EU = FIXTURES / "xnli_eu_native" / "xnli-eu-native.tsv"
SNLI = FIXTURES / "snli_prefix"


def basque_elicited_store(tmp_path: Path) -> tuple[Path, ElicitImportResult]:
    """XNLIvar's 207 Basque premises sampled and their 621 pairs imported as one writer's
    SINGLE answers; the store and the import's report (its warnings issued as
    `StageWarning`s: the caller catches them)."""
    corpus = nlibuild.create(tmp_path / "eu.db", lang="eu")
    # The premises go through the pool like any sampled text: one per distinct premise.
    corpus.ingest(paths=(EU,), format="tsv", field="premise", genre="native")
    corpus.sample(genres=("native",), n=207, min_len=1, max_len=500)
    corpus.elicit_create(protocol="SINGLE", annotators=("eu01",), batch_size=300)
    # The tsv has premise, hypothesis, label: a long answer sheet naming premises by text.
    report = corpus.elicit_import(
        path=EU, format="csv", batch="e0001", writer="eu01", label_order="e,n,c"
    )
    return corpus.path, report


def test_basque_native_pairs_import_as_one_single_protocol_answer_set(tmp_path: Path) -> None:
    with pytest.warns(StageWarning, match="no negator lexicon for 'eu'"):
        db, report = basque_elicited_store(tmp_path)

    assert (report.answers, report.pairs_added, report.pairs_rejected, report.unusable) == (
        207, 621, 0, 0,
    )  # fmt: skip
    with sqlite3.connect(db) as conn:
        shapes = Counter(
            row[0]
            for row in conn.execute(
                "SELECT group_concat(substr(id, instr(id, '-') + 1), ',') FROM "
                "(SELECT id, premise_pk FROM pairs ORDER BY id) GROUP BY premise_pk"
            )
        )
        facets = conn.execute(
            "SELECT protocol, level, author_label, count(*) FROM pairs "
            "GROUP BY protocol, level, author_label"
        ).fetchall()
        stored = set(conn.execute("SELECT hypothesis, author_label FROM pairs").fetchall())
        rules = dict(conn.execute("SELECT rule, count(*) FROM violations GROUP BY rule"))
    print("Basque violations by rule:", rules)
    # 204 premises have one hypothesis per label. The file's own quirks are caught: one
    # premise appears twice with 3 hypotheses each (too_many on its 2nd e, n and c), and
    # one premise is spelled two ways (lur-hartzea / lurhartzea), its 3 hypotheses split
    # 2 + 1 between the spellings (missing_label 3 times), and one of them is the premise.
    assert shapes == Counter(
        {"c1,e1,n1": 204, "c1,c2,e1,e2,n1,n2": 1, "c1,e1": 1, "n1": 1}
    ) or shapes == Counter({"c1,e1,n1": 204, "c1,c2,e1,e2,n1,n2": 1, "e1,n1": 1, "c1": 1})
    assert {k: v for k, v in rules.items() if k != "overlap"} == {
        "too_many": 3, "missing_label": 3, "copy": 1,
    }  # fmt: skip
    assert facets == [
        ("SINGLE", None, "contradiction", 207),
        ("SINGLE", None, "entailment", 207),
        ("SINGLE", None, "neutral", 207),
    ]
    # The labels are the file's, read in the declared order 0,1,2 = e,n,c.
    with EU.open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    names = ("entailment", "neutral", "contradiction")
    # Hypotheses are stored normalised (NFC, single spaces).
    assert stored == {(" ".join(h.split()), names[int(label)]) for _, h, label in rows}
    # Importing the same file again changes nothing, and the CLI's closing line says so.
    again = ok(
        "--db", db, "elicit", "import", EU, "--format", "csv", "--batch", "e0001",
        "--writer", "eu01", "--label-order", "e,n,c",
    )  # fmt: skip
    assert "Imported 207 answers: 0 pairs added, 0 rejected, 0 marked x, 207 already" in again


def test_snli_contradictions_carry_far_more_negators_than_other_hypotheses(db: Path) -> None:
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=SNLI / "snli_1.0_dev.jsonl", format="snli")
    rows = corpus.stats("subsets").to_dicts()
    assert [(r["protocol"], r["lang"]) for r in rows] == [("(none)", "en")]
    subset = rows[0]
    print("SNLI dev prefix, subsets row:", subset)
    lexicon = negator_lexicon("en")
    by_label: dict[str, list[int]] = {}
    over_limit = 0
    records = read_jsonl(SNLI / "snli_1.0_dev.jsonl")
    for record in records:
        label = record["annotator_labels"][0]
        negated = lexicon.negated(record["sentence2"])
        counts = by_label.setdefault(label, [0, 0])
        counts[0] += 1
        counts[1] += negated
        over_limit += overlap_ratio(record["sentence2"], record["sentence1"], "en") > 0.70
    shares = {label: n / total for label, (total, n) in by_label.items()}
    print(
        "SNLI dev prefix, hypotheses with a negator by author label:",
        {label: f"{n}/{total}" for label, (total, n) in sorted(by_label.items())},
    )
    print(f"SNLI dev prefix, hypotheses over 70% overlap: {over_limit}/{len(records)}")
    assert subset["contradictions"] == by_label["contradiction"][0]
    assert abs(subset["negated_contradictions"] - shares["contradiction"]) < 1e-9
    assert abs(subset["over_overlap_limit"] - over_limit / len(records)) < 1e-9
    # Negation is the contradiction cue: several times as frequent as in other hypotheses.
    assert shares["contradiction"] > 4 * max(shares["entailment"], shares["neutral"])
