"""The Chinese negator rule on a hand-labelled sample of natural hypotheses (issue 26: "precision
and recall of the rule measured on a hand-labelled sample of real Chinese hypotheses").

tests/data/zh_negation_sample.tsv holds short statements in the style of OCNLI's hypotheses
(everyday scenes, news, fiction, government texts, phone calls), each labelled by hand
whether it is negated, with the negating word and a note. The labels follow one reading:
- a hypothesis is negated when a word denies its predicate or one of its arguments: 不, 没
  (有), 别, 未, 无, 非 as words or at the start of one (不去, 没来, 无人, 非我所愿), the
  potential form verb + 不 + complement (看不见 'cannot see'), an adverb fused with its
  negator (从来不, 却没能), idioms that deny an event or that something is there (一言不发,
  空无一人), and affixal negation whose meaning is the negation of its parts (非法 'illegal',
  未婚 'unmarried'; Horn 1989, A Natural History of Negation, on affixal negation);
- it is not negated when a negator is frozen into a word that means something else: 不错
  'good', 了不起 'amazing', 对不起 'sorry', 忍不住 'cannot help (doing it)', 无聊 'boring',
  非常 'very', 没收 'confiscate', idioms of praise or manner (坚持不懈, 独一无二), A-not-A
  questions (是不是), and a negator character inside another word (南非, 判别, 特别, 淹没);
- a double negation of two words (没有人不喜欢她, 她不会不知道) is negated: it holds
  negators, and MULTI_CONSTRAINT counts negators; one that is lexicalised as a single
  positive word (不得不 'have to', 非去不可 'must', 无不 'all', 未尝不可 'might as well') is
  not.
The same person wrote the lexicon and the sample, so the figures are a floor for regressions,
not an independent estimate. bench/zh_negation_sample.py prints them beside main's rule.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from nlibuild.text.negators import negator_lexicon

SAMPLE = Path(__file__).parent / "data" / "zh_negation_sample.tsv"

# Measured on 2026-11-27 (bench/RESULTS.md): 138 of 140 flagged are negated, 138 of 142
# negated are flagged; main's rule (1921130) had 71.7% and 60.6%.
PRECISION_FLOOR = 0.985
RECALL_FLOOR = 0.97


def sample_rows(path: Path = SAMPLE) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as lines:
        return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return sample_rows()


def test_the_sample_is_large_and_labelled_one_way(rows: list[dict[str, str]]) -> None:
    assert len(rows) >= 200
    assert len({row["text"] for row in rows}) == len(rows)
    for row in rows:
        assert row["negated"] in ("yes", "no"), row
        # A negated hypothesis names its negating word, which stands in its text.
        negators = [w.strip() for w in row["negator"].split(",") if w.strip()]
        assert bool(negators) == (row["negated"] == "yes"), row
        assert all(word in row["text"] for word in negators), row


def test_the_sample_holds_the_hard_cases(rows: list[dict[str, str]]) -> None:
    notes = " ".join(row["note"] for row in rows)
    for kind in ("potential form", "没-form", "idiom", "affixal negation", "double negation",
                 "A-not-A question", "'South Africa'"):  # fmt: skip
        assert kind in notes, kind
    assert sum(row["negated"] == "yes" for row in rows) >= 100
    assert sum(row["negated"] == "no" for row in rows) >= 100


def test_precision_and_recall_stay_at_least_as_measured(rows: list[dict[str, str]]) -> None:
    lexicon = negator_lexicon("zh")
    flagged = [bool(lexicon.find(row["text"])) for row in rows]
    negated = [row["negated"] == "yes" for row in rows]
    hits = sum(f and n for f, n in zip(flagged, negated, strict=True))
    wrong = [row["text"] for row, f, n in zip(rows, flagged, negated, strict=True) if f != n]
    assert hits / sum(flagged) >= PRECISION_FLOOR, wrong
    assert hits / sum(negated) >= RECALL_FLOOR, wrong
