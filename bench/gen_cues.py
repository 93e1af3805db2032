"""Write a synthetic nlibuild-jsonl corpus whose hypotheses carry planted cue words.

    python bench/gen_cues.py OUT.jsonl [--pairs 1000000] [--seed 7] [--annotators 150]

For benchmarking the annotation-artifact analyses (`stats --table pmi`, `bias
hypothesis-only`) on a corpus where the answer is known. Each line is one pair in
nlibuild's own jsonl (`nlibuild import FILE --format jsonl`): pair_id, premise_id, premise,
hypothesis, genre, lang, level, protocol, labels (the author's, then four validators'),
annotators (the workers who cast them) and gold_label (the label with 3 of the 5 votes,
else `-`).

The corpus is laid out like OCNLI: every premise is written for under one of the four
protocols, by one writer of the worker pool; a SINGLE premise gets one hypothesis per
label (level easy), the MULTI ones three per label (easy, medium, hard: the writer's 1st,
2nd and 3rd). SINGLE premises are drawn three times as often, so each protocol holds about
a quarter of the pairs. Pair IDs follow nlibuild's scheme (`gov_0000012-c2`). The votes
come from gen_mnli.py's simulation of workers of varying skill, so about 58% of pairs are
unanimous and about 98% have a gold label.

Text is made-up words (Zipf-like frequencies, a long tail of rare words, plus a few
English function words); hypotheses copy some words of their premise. Into a share of the
hypotheses one cue word is written, depending on the label the author meant:

* contradiction: a negator (not, no, never, nobody, didn't), except under
  MULTI_CONSTRAINT, whose writers may not use negators and reach for "only" instead
  (OCNLI's finding), with a few negators slipping through;
* entailment: some, at least, outdoors;
* neutral: tall, first, because.

How often depends on the label, the protocol (MULTI_ENCOURAGE the least), the level
(harder, fewer cues) and the writer (each has a propensity). Besides, any hypothesis may
carry a random cue word of any label ("noise"), so every cue occurs under every label.
A cue may open the hypothesis, capitalised ("Not", "At least"). The shares are set so
that a hypothesis-only classifier lands well above the majority baseline but far from
perfect (about 63% with 100,000 training pairs, against about 34%); the premises carry no
cue, so a premise-only one stays near a third.

Generation runs chunk by chunk with numpy, so memory stays flat; a fixed seed gives the
same bytes, and a smaller --pairs gives a prefix of a larger file. The shares of cues per
protocol and label actually written are printed at the end.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import orjson
from gen_mnli import (
    _PATTERN_GOLD,
    _PATTERN_LABELS,
    _POWERS,
    LABELS,
    Pool,
    Tally,
    _draw_workers,
    _fake_words,
    _join_rows,
    _lengths,
    _vote,
    generator_arguments,
    make_pool,
)

INITIALS = ("e", "n", "c")
PROTOCOLS = ("SINGLE", "MULTI", "MULTI_ENCOURAGE", "MULTI_CONSTRAINT")
CONSTRAINT = 3
"""Index of MULTI_CONSTRAINT in PROTOCOLS."""
PROTOCOL_WEIGHTS = (3.0, 1.0, 1.0, 1.0)
"""Premise weights: a SINGLE premise gives 3 pairs, the others 9, so pairs split evenly."""
LEVELS = ("easy", "medium", "hard")
GENRES = ("gov", "news", "lit", "tv", "phone")
"""OCNLI's five genres."""
PREMISES_PER_CHUNK = 10_000
"""Premises generated per chunk (about 60,000 pairs); fixed, since the output depends on it."""

# Text model.
VOCAB_SIZE = 5000
ZIPF = 1.3
"""Exponent of the word frequencies; the rarest words fall under 20 hypotheses per group."""
FUNCTION_WORDS = ("the", "a", "of", "in", "is", "was", "and", "at", "to", "on")
"""Real words placed at the top frequency ranks (so "at" of "at least" occurs alone too)."""
PREMISE_TOKENS = (18.0, 5.0, 6, 40)
HYPOTHESIS_TOKENS = (9.0, 3.0, 3, 20)
OVERLAP = 0.35
"""Chance that a hypothesis word is copied from its premise."""

# Cue model: the cue words of each label, with the chance of each once a cue is planted.
NEGATORS = {"not": 0.35, "no": 0.25, "never": 0.15, "nobody": 0.15, "didn't": 0.10}
ONLY = {"only": 0.90, "not": 0.04, "no": 0.03, "never": 0.03}
"""MULTI_CONSTRAINT contradictions: "only", and the odd negator despite the rule."""
ENTAILMENT_CUES = {"some": 0.45, "at least": 0.35, "outdoors": 0.20}
NEUTRAL_CUES = {"tall": 0.35, "first": 0.35, "because": 0.30}
PLANT = (0.60, 0.55, 0.65)
"""Base chance of a cue, per label the author meant (entailment, neutral, contradiction)."""
PROTOCOL_SCALE = (1.0, 0.9, 0.75, 0.95)
"""The chance of a cue relative to SINGLE, per protocol."""
LEVEL_SCALE = (1.0, 0.9, 0.8)
"""The chance of a cue per level: later hypotheses of a writer carry fewer."""
PROPENSITY_SD = 0.3
"""Spread (log scale) of the writers' leaning on cue words."""
PLANT_MAX = 0.95
NOISE = 0.08
"""Chance that a hypothesis also carries a cue word of any label, chosen uniformly."""

CUE_WORDS: tuple[str, ...] = tuple(
    dict.fromkeys([*NEGATORS, *ONLY, *ENTAILMENT_CUES, *NEUTRAL_CUES])
)
"""Every cue entry (an entry may be two words), in a fixed order."""

IntArray = npt.NDArray[np.int64]


def _cue_choice(cues: dict[str, float]) -> tuple[IntArray, npt.NDArray[np.float64]]:
    """Indices into CUE_WORDS and normalised probabilities of one cue set."""
    index = np.array([CUE_WORDS.index(w) for w in cues], dtype=np.int64)
    p = np.array(list(cues.values()), dtype=np.float64)
    return index, p / p.sum()


def _cue_sets() -> dict[tuple[bool, int], tuple[IntArray, npt.NDArray[np.float64]]]:
    """(under MULTI_CONSTRAINT?, label) -> the cue entries planted and their chances."""
    sets = {}
    for constrained in (False, True):
        sets[constrained, 0] = _cue_choice(ENTAILMENT_CUES)
        sets[constrained, 1] = _cue_choice(NEUTRAL_CUES)
        sets[constrained, 2] = _cue_choice(ONLY if constrained else NEGATORS)
    return sets


def make_vocabulary(seed: int) -> tuple[list[str], npt.NDArray[np.float64]]:
    """The ordinary words (function words first, then made-up ones) and their frequencies.

    No ordinary word is a cue word, so cues occur only where planted or as noise."""
    rng = np.random.default_rng([seed, 10])
    banned = set(FUNCTION_WORDS) | {w for entry in CUE_WORDS for w in entry.split()}
    made_up = [w for w in _fake_words(rng, VOCAB_SIZE + 100) if w not in banned]
    words = [*FUNCTION_WORDS, *made_up[: VOCAB_SIZE - len(FUNCTION_WORDS)]]
    p = 1.0 / (np.arange(VOCAB_SIZE) + 3.0) ** ZIPF
    return words, p / p.sum()


class CueTally:
    """Per protocol and meant label: pairs, and those with a cue of each kind."""

    KINDS = ("negator", "only", "entailment cue", "neutral cue")

    def __init__(self) -> None:
        self.pairs = np.zeros((len(PROTOCOLS), 3), dtype=np.int64)
        self.with_kind = np.zeros((len(PROTOCOLS), 3, len(self.KINDS)), dtype=np.int64)
        kind_of = np.full(len(CUE_WORDS), -1, dtype=np.int64)
        for kind, cues in enumerate((NEGATORS, {"only": 1}, ENTAILMENT_CUES, NEUTRAL_CUES)):
            for word in cues:
                kind_of[CUE_WORDS.index(word)] = kind
        self.kind_of = kind_of

    def add(self, protocol: IntArray, meant: IntArray, cue_tokens: IntArray) -> None:
        """`cue_tokens`: per pair, up to two cue entries (-1 for none)."""
        np.add.at(self.pairs, (protocol, meant), 1)
        kinds = np.where(cue_tokens >= 0, self.kind_of[np.maximum(cue_tokens, 0)], -1)
        for k in range(len(self.KINDS)):
            has = (kinds == k).any(axis=1)
            np.add.at(self.with_kind[:, :, k], (protocol[has], meant[has]), 1)

    def report(self) -> str:
        lines = ["cue shares by protocol and author's label (negator / only / e-cue / n-cue):"]
        for p, name in enumerate(PROTOCOLS):
            cells = []
            for c, label in enumerate(LABELS):
                n = max(int(self.pairs[p, c]), 1)
                shares = " / ".join(f"{x / n:4.0%}" for x in self.with_kind[p, c].tolist())
                cells.append(f"{label[:4]} {shares}")
            lines.append(f"  {name:<16} {int(self.pairs[p].sum()):>9,}  " + "  |  ".join(cells))
        return "\n".join(lines)


def _plant(
    rng: np.random.Generator,
    protocol: IntArray,
    meant: IntArray,
    level: IntArray,
    propensity: npt.NDArray[np.float64],
) -> IntArray:
    """Per pair, the planted cue entry and the noise cue entry (-1 for none), shape (n, 2)."""
    n = len(meant)
    chance = (
        np.asarray(PLANT)[meant]
        * np.asarray(PROTOCOL_SCALE)[protocol]
        * np.asarray(LEVEL_SCALE)[level]
        * propensity
    )
    planted = rng.random(n) < np.minimum(chance, PLANT_MAX)
    cues = np.full((n, 2), -1, dtype=np.int64)
    constrained = protocol == CONSTRAINT
    for (under_constraint, label), (index, p) in _cue_sets().items():
        rows = np.flatnonzero(planted & (constrained == under_constraint) & (meant == label))
        cues[rows, 0] = rng.choice(index, size=len(rows), p=p)
    noisy = rng.random(n) < NOISE
    cues[:, 1] = np.where(noisy, rng.integers(len(CUE_WORDS), size=n), -1)
    return cues


def write_chunk(
    out: BinaryIO,
    pool: Pool,
    vocabulary: tuple[list[str], npt.NDArray[np.float64]],
    propensity: npt.NDArray[np.float64],
    seed: int,
    chunk: int,
    numbers: dict[str, int],
    limit: int,
    tallies: tuple[Tally, CueTally],
) -> int:
    """Write up to `limit` pairs of one chunk of premises; return the pairs written.

    `numbers` holds the last premise number used per genre and is updated."""
    rng = np.random.default_rng([seed, 11, chunk])
    words, word_p = vocabulary
    size = len(words)
    premises = PREMISES_PER_CHUNK
    weights = np.asarray(PROTOCOL_WEIGHTS)
    p_protocol = rng.choice(len(PROTOCOLS), size=premises, p=weights / weights.sum())
    p_genre = rng.integers(len(GENRES), size=premises)
    p_author = rng.choice(len(pool.ids), size=premises, p=pool.activity)
    p_len = _lengths(rng, premises, PREMISE_TOKENS)
    p_tok = rng.choice(size, size=(premises, PREMISE_TOKENS[3]), p=word_p)
    premise_texts = _join_rows(words, p_tok, p_len)

    # Pairs, premise by premise: labels e, n, c, each with its levels (1 under SINGLE, else 3).
    per_premise = np.where(p_protocol == 0, 3, 9)
    prem_of = np.repeat(np.arange(premises), per_premise)
    within = np.arange(len(prem_of)) - np.repeat(np.cumsum(per_premise) - per_premise, per_premise)
    levels_of = np.where(p_protocol[prem_of] == 0, 1, 3)
    meant = within // levels_of
    level = within % levels_of
    protocol = p_protocol[prem_of]
    n = len(prem_of)

    h_max = HYPOTHESIS_TOKENS[3]
    h_len = _lengths(rng, n, HYPOTHESIS_TOKENS)
    h_tok = rng.choice(size, size=(n, h_max), p=word_p)
    copy_pos = (rng.random((n, h_max)) * p_len[prem_of][:, None]).astype(np.int64)
    copied = p_tok[prem_of[:, None], copy_pos]
    h_tok = np.where(rng.random((n, h_max)) < OVERLAP, copied, h_tok)
    # Cues overwrite two distinct positions of the hypothesis; cue entry j is word size + j.
    cues = _plant(rng, protocol, meant, level, propensity[p_author[prem_of]])
    first = (rng.random(n) * h_len).astype(np.int64)
    second = (first + 1 + (rng.random(n) * (h_len - 1)).astype(np.int64)) % h_len
    rows = np.arange(n)
    for column, position in ((0, first), (1, second)):
        has = cues[:, column] >= 0
        h_tok[rows[has], position[has]] = size + cues[has, column]
    hypotheses = _join_rows([*words, *CUE_WORDS], h_tok, h_len)

    who = _draw_workers(rng, pool, p_author[prem_of])
    votes = _vote(rng, pool, meant, who)
    pattern = votes @ _POWERS
    gold = _PATTERN_GOLD[pattern]
    # The whole chunk is drawn whatever `limit` is, so a shorter file is a prefix of a longer.
    n = min(n, limit)
    tallies[0].add(votes[:n], gold[:n])
    tallies[1].add(protocol[:n], meant[:n], cues[:n])

    premise_ids = []
    for g in p_genre.tolist():
        genre = GENRES[g]
        numbers[genre] += 1
        premise_ids.append(f"{genre}_{numbers[genre]:07d}")
    ids = pool.ids
    dumps = orjson.dumps
    newline = orjson.OPT_APPEND_NEWLINE
    write = out.write
    for i, (p, m, lv, k, pat, g, w) in enumerate(
        zip(
            prem_of[:n].tolist(),
            meant[:n].tolist(),
            level[:n].tolist(),
            protocol[:n].tolist(),
            pattern[:n].tolist(),
            gold[:n].tolist(),
            who[:n].tolist(),
            strict=True,
        )
    ):
        premise_id = premise_ids[p]
        write(
            dumps(
                {
                    "pair_id": f"{premise_id}-{INITIALS[m]}{lv + 1}",
                    "premise_id": premise_id,
                    "premise": premise_texts[p],
                    "hypothesis": hypotheses[i],
                    "genre": GENRES[p_genre[p]],
                    "lang": "en",
                    "level": LEVELS[lv],
                    "protocol": PROTOCOLS[k],
                    "labels": _PATTERN_LABELS[pat],
                    "annotators": [ids[x] for x in w],
                    "gold_label": LABELS[g] if g >= 0 else "-",
                },
                option=newline,
            )
        )
    return n


def generate(out: Path, pairs: int, seed: int, annotators: int) -> tuple[Tally, CueTally]:
    """Write `pairs` pairs to `out`; return the agreement and cue tallies."""
    pool = make_pool(seed, annotators)
    vocabulary = make_vocabulary(seed)
    propensity = np.random.default_rng([seed, 12]).lognormal(0.0, PROPENSITY_SD, annotators)
    tallies = (Tally(), CueTally())
    numbers = dict.fromkeys(GENRES, 0)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with open(tmp, "wb", buffering=1 << 20) as handle:
        left = pairs
        chunk = 0
        while left > 0:
            left -= write_chunk(
                handle, pool, vocabulary, propensity, seed, chunk, numbers, left, tallies
            )
            chunk += 1
    tmp.replace(out)
    return tallies


def main(argv: list[str] | None = None) -> int:
    args = generator_arguments(
        "Write a synthetic nlibuild-jsonl corpus with planted cue words.", argv
    )
    started = time.perf_counter()
    agreement, cues = generate(args.out, args.pairs, args.seed, args.annotators)
    elapsed = time.perf_counter() - started
    print(f"wrote {args.out} in {elapsed:.1f}s", file=sys.stderr)
    print(agreement.report(), file=sys.stderr)
    print(cues.report(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
