"""Annotation artifacts on real corpora (issue 7): the cues the literature reports are found.

- SNLI (English): Gururangan et al. (2018) list nobody, sleeping, no, tv, cat as the top
  contradiction words of SNLI; on the dev and test prefixes the top contradiction cues hold
  a negator, and a hypothesis-only model trained on the test prefix beats the majority
  class on the dev prefix (the premise alone does not).
- myXNLI: the English source and its human Swahili translation, the same 5,010 pairs: the
  negation cue survives translation (no/never/any in English; hakuna "there is no",
  yoyote "any" in Swahili).
- XNLIvar Basque, written natively, and its English translation: `ez` "not" is the top
  contradiction cue in Basque.

The stages and tables run through the Python API (tests/test_artifacts.py keeps the CLI's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, myxnli_store, requires_fixtures

import nlibuild
from nlibuild.text.negators import negator_lexicon

pytestmark = requires_fixtures

SNLI = FIXTURES / "snli_prefix"
BASQUE = FIXTURES / "xnli_eu_native"


def top_words(db: Path, label: str, **options: Any) -> list[str]:
    """The top words of one label by PMI (`per_label`), best first."""
    rows = nlibuild.open(db).stats("pmi", per_label=True, **options).to_dicts()
    return [r["word"] for r in rows if r["label"] == label and r["group"] == "all"]


@pytest.fixture(scope="module")
def snli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SNLI test prefix as the training split, the dev prefix as dev."""
    corpus = nlibuild.create(tmp_path_factory.mktemp("snli") / "snli.db")
    corpus.import_corpus(path=SNLI / "snli_1.0_test.jsonl", format="snli", split="train")
    corpus.import_corpus(path=SNLI / "snli_1.0_dev.jsonl", format="snli", split="dev")
    return corpus.path


def test_snli_top_contradiction_cues_include_a_negator(snli: Path) -> None:
    # k = 100 is Gururangan et al.'s choice for 550k pairs; on 2,527 pairs it drowns every
    # count, so the prefix is read with k = 10.
    words = top_words(snli, "contradiction", top=5, smoothing=10, min_count=10)
    print("SNLI top contradiction cues:", words)
    assert words == ["sleeping", "alone", "driving", "nobody", "asleep"]
    english = negator_lexicon("en")
    assert any(english.negated(w) for w in words)  # nobody
    # At the default smoothing the frequent words lead, and sleeping still tops the list.
    assert top_words(snli, "contradiction", min_count=10)[0] == "sleeping"


def test_snli_pmi_counts_are_pairs_with_the_word(snli: Path) -> None:
    rows = (
        nlibuild.open(snli)
        .stats("pmi", per_label=True, smoothing=10, min_count=10, top=5)
        .to_dicts()
    )
    nobody = next(r for r in rows if r["word"] == "nobody")
    assert (nobody["label"], nobody["count"], nobody["word_count"]) == ("contradiction", 13, 13)
    assert nobody["pairs"] == 2527  # 2,566 pairs less the 39 whose gold is '-'


def test_snli_hypothesis_only_beats_the_majority_class(snli: Path) -> None:
    result = nlibuild.open(snli).bias_hypothesis_only(train="train", eval=("dev",))
    (dev,) = result.rows
    interval = f"[{dev.low:.3f}, {dev.high:.3f}]"
    print(f"SNLI dev prefix, hypothesis only: {dev.accuracy:.3f} {interval}, "
          f"majority {dev.majority_accuracy:.3f}")  # fmt: skip
    assert dev.pairs == 1273
    assert dev.majority_label == "neutral"
    assert dev.majority_accuracy == pytest.approx(421 / 1273)
    assert dev.accuracy == pytest.approx(0.542, abs=0.005)
    assert dev.low > dev.majority_accuracy + 0.1


def test_snli_premise_only_learns_nothing(snli: Path) -> None:
    # Every SNLI premise has one hypothesis per label: the premise cannot tell them apart.
    result = nlibuild.open(snli).bias_hypothesis_only(premise_only=True, eval=("dev",))
    assert result.rows[0].low < result.rows[0].majority_accuracy + 0.03


@pytest.fixture(scope="module")
def myxnli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = nlibuild.create(tmp_path_factory.mktemp("myxnli") / "myxnli.db").path
    return myxnli_store(db, "test")


def test_myxnli_negation_cue_survives_translation_into_swahili(myxnli: Path) -> None:
    english = top_words(myxnli, "contradiction", top=5)
    swahili = top_words(myxnli, "contradiction", top=5, lang="sw")
    print("myXNLI test, top contradiction cues: en", english, "sw", swahili)
    assert english == ["no", "never", "any", "all", "just"]
    assert swahili == ["hakuna", "yoyote", "tu", "chochote", "kabisa"]


def test_myxnli_cue_table_in_swahili_counts_every_pair(myxnli: Path) -> None:
    corpus = nlibuild.open(myxnli)
    rows = corpus.stats("cues", lang="sw").to_dicts()
    overall = [r for r in rows if r["group"] == "all"]
    assert sum(r["pairs"] for r in overall) == 5010
    assert all(r["negated"] is None for r in overall)  # no Swahili lexicon ships
    english = corpus.stats("cues").to_dicts()
    share = {r["label"]: r["negated"] for r in english if r["group"] == "all"}
    assert share["contradiction"] > 3 * max(share["entailment"], share["neutral"])


def test_basque_native_pairs_put_ez_first_among_contradiction_cues(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "eu.db", lang="eu")
    corpus.import_corpus(
        path=BASQUE / "xnli-eu-native.tsv", format="xnli", lang="eu", label_order="e,n,c"
    )
    corpus.translate_import(
        path=BASQUE / "xnli-eu2en-native.tsv", lang="en", align="rows",
        reference=BASQUE / "xnli-eu-native.tsv",
    )  # fmt: skip
    options: dict[str, Any] = {"top": 4, "min_count": 5, "smoothing": 10}
    basque = top_words(corpus.path, "contradiction", **options)
    english = top_words(corpus.path, "contradiction", **options, lang="en")
    print("XNLIvar Basque, top contradiction cues: eu", basque, "en", english)
    assert basque[0] == "ez"
    assert {"only", "no"} <= set(english)
