"""Annotation artifacts: what lets a model guess the label from one sentence alone.

Gururangan et al. (2018) and Poliak et al. (2018) showed that crowd-written hypotheses
carry cues (negators and "nobody" for contradiction, generic words for entailment,
purpose clauses for neutral); OCNLI (section 5, Tables 7 and 8) found the same in
Chinese and that its MULTI_CONSTRAINT protocol traded negators for 只/只有 "only". This
module holds the computations: the words a hypothesis is counted by, PMI between words and
labels, and the hypothesis-only classifier. `stages/artifacts.py` reads the store.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from nlibuild.models import NLI_LABELS, WordUnits
from nlibuild.text.lang import primary_language
from nlibuild.text.words import jieba_module

if TYPE_CHECKING:
    from numpy.typing import NDArray

WORD_PATTERN = r"[^\W_]+(?:'[^\W_]+)*"
"""A word: letters, digits and marks (not the underscore, which \\w would take), with inner
apostrophes (don't, nobody's): the rule of the overlap check (overlap.WORD_PATTERN). Text is
case-folded and ’ made ' first."""

CHAR_PATTERN = r"[\p{L}\p{M}\p{N}]"
"""A character unit: one letter, mark or digit; punctuation and spaces never count."""

UNSEGMENTED_LANGS: frozenset[str] = frozenset({"ja", "th", "my"})
"""Written without spaces and without a segmenter shipped here: counted by character."""


def default_units(lang: str) -> WordUnits:
    """Words, except for the languages above (Chinese has jieba)."""
    return WordUnits.CHARS if primary_language(lang) in UNSEGMENTED_LANGS else WordUnits.WORDS


def units_label(lang: str, units: WordUnits) -> str:
    """What a counted unit is, said in tables: `words (jieba)`, `characters`..."""
    if units is WordUnits.CHARS:
        return "characters"
    return "words (jieba)" if primary_language(lang) == "zh" else "words"


def _fold(text: str) -> str:
    return text.casefold().replace("’", "'")


def _is_word(token: str) -> bool:
    return any(unicodedata.category(c)[0] in "LMN" for c in token)


def word_lists(texts: Sequence[str], lang: str, units: WordUnits) -> pl.Series:
    """The units of each text, as a list column: case-folded words by Unicode word rules
    (Chinese segmented by jieba, its punctuation tokens dropped), or characters."""
    folded = pl.Series("text", [_fold(t) for t in texts], dtype=pl.String)
    if units is WordUnits.CHARS:
        return folded.str.extract_all(CHAR_PATTERN).alias("words")
    if primary_language(lang) == "zh":
        cut = jieba_module().lcut
        return pl.Series(
            "words",
            [[w for w in cut(t) if _is_word(w)] for t in folded.to_list()],
            dtype=pl.List(pl.String),
        )
    return folded.str.extract_all(WORD_PATTERN).alias("words")


# --- PMI (OCNLI Table 8) -----------------------------------------------------------------

_LABEL_ORDER = pl.col("label").replace_strict(
    {label: i for i, label in enumerate(NLI_LABELS)}, default=len(NLI_LABELS), return_dtype=pl.Int64
)


@dataclass(frozen=True)
class Cue:
    group: str
    pairs: int
    word: str
    label: str
    pmi: float
    count: int
    word_count: int


def pmi_cues(
    words: pl.Series,
    labels: Sequence[str],
    groups: Sequence[str],
    smoothing: float,
    min_count: int,
    top: int,
    per_label: bool = False,
) -> list[Cue]:
    """The `top` (word, label) pairs of each group by PMI, highest first (with
    `per_label`, the top words of each label of each group, as Gururangan et al. list them).

    Counts are per pair: n(w, c) is the number of pairs of gold label c whose hypothesis
    contains w (once, however often it occurs), shown as "n(w, c)/n(w)" as in OCNLI Table 8.
    Following Gururangan et al. (2018, section 3), add-k smoothing is applied to the
    word-by-label count table of the group (every cell of its V words and C labels gets k),
    which favours frequent words over rare ones:

        PMI(w, c) = ln[ p(w, c) / (p(w) p(c)) ]
                  = ln[ (n(w,c) + k) (T + C V k) / ((n(w) + C k) (N_c + V k)) ]

    with N_c = sum over w of n(w, c) and T = sum of all n(w, c). Only words in at least
    `min_count` pairs of the group are ranked; ties are broken by count, then word, then
    label (entailment, neutral, contradiction).
    """
    frame = pl.DataFrame(
        {
            "words": words,
            "label": pl.Series(labels, dtype=pl.String),
            "group": pl.Series(groups, dtype=pl.String),
        }
    )
    pairs = frame.group_by("group").len("pairs")
    counts = (
        frame.select(pl.col("words").list.unique(), "label", "group")
        .explode("words")
        .drop_nulls("words")
        .group_by("group", "words", "label")
        .len("n")
    )
    k = float(smoothing)
    c = float(len(NLI_LABELS))
    word_totals = counts.group_by("group", "words").agg(pl.col("n").sum().alias("n_word"))
    label_totals = counts.group_by("group", "label").agg(pl.col("n").sum().alias("n_label"))
    group_totals = counts.group_by("group").agg(
        pl.col("n").sum().alias("total"), pl.col("words").n_unique().alias("vocabulary")
    )
    scored = (
        counts.join(word_totals, on=["group", "words"])
        .join(label_totals, on=["group", "label"])
        .join(group_totals, on="group")
        .join(pairs, on="group")
        .filter(pl.col("n_word") >= min_count)
        .with_columns(
            (
                ((pl.col("n") + k) * (pl.col("total") + c * pl.col("vocabulary") * k)).log()
                - (
                    (pl.col("n_word") + c * k) * (pl.col("n_label") + pl.col("vocabulary") * k)
                ).log()
            ).alias("pmi")
        )
        # Equal PMIs computed along different paths differ in the last bits: rank on the
        # value rounded to 12 digits, then count, word and label, so the order is the same
        # on every run.
        .with_columns(rank_pmi=pl.col("pmi").round(12), label_order=_LABEL_ORDER)
        .sort(
            ["group", "rank_pmi", "n", "words", "label_order"],
            descending=[False, True, True, False, False],
        )
        .group_by(["group", "label"] if per_label else "group", maintain_order=True)
        .head(top)
    )
    return [
        Cue(
            row["group"],
            row["pairs"],
            row["words"],
            row["label"],
            row["pmi"],
            row["n"],
            row["n_word"],
        )
        for row in scored.iter_rows(named=True)
        if math.isfinite(row["pmi"])
    ]


# --- the hypothesis-only classifier (OCNLI Table 7, Poliak et al. 2018) --------------------


def _space_delimited(lang: str) -> bool:
    return primary_language(lang) not in UNSEGMENTED_LANGS | {"zh"}


def model_texts(texts: Sequence[str], lang: str) -> list[str]:
    """The texts as the classifier reads them: case-folded, and where spaces do not
    delimit words, the PMI's units joined by spaces (jieba's words for Chinese)."""
    if _space_delimited(lang):
        return [_fold(t) for t in texts]
    units = word_lists(texts, lang, default_units(lang))
    return [" ".join(found) for found in units.to_list()]


def single_sentence_model(lang: str, seed: int) -> Any:
    """TF-IDF over word 1-2-grams and character 2-4-grams (within word boundaries), and a
    multinomial logistic regression: a strong linear model on one sentence alone. Takes
    `model_texts`. Seeded, though lbfgs is deterministic anyway."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import FeatureUnion, Pipeline

    word_features = TfidfVectorizer(
        token_pattern=WORD_PATTERN if _space_delimited(lang) else r"\S+",
        ngram_range=(1, 2), lowercase=False, min_df=2, sublinear_tf=True, dtype=np.float32,
    )  # fmt: skip
    char_features = TfidfVectorizer(
        analyzer="char_wb", ngram_range=(2, 4), lowercase=False, min_df=2, sublinear_tf=True,
        dtype=np.float32, max_features=200_000,
    )  # fmt: skip
    return Pipeline(
        [
            ("features", FeatureUnion([("words", word_features), ("chars", char_features)])),
            # tol 1e-3: on 100k pairs lbfgs then stops after ~30 iterations instead of 200,
            # at the same accuracy (bench/bench_artifacts.py).
            ("model", LogisticRegression(C=1.0, tol=1e-3, max_iter=1000, random_state=seed)),
        ]
    )


def accuracy_interval(
    correct: NDArray[np.bool_], level: float, resamples: int, seed: int
) -> tuple[float, float]:
    """Percentile bootstrap interval of an accuracy. Resampling n pairs with replacement
    and counting the correct ones is a Binomial(n, accuracy) draw, so the resamples are
    drawn as such: the same distribution without an n-by-resamples index array."""
    n = len(correct)
    if n == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = rng.binomial(n, float(correct.mean()), resamples) / n
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))
