"""Write a synthetic MNLI-style jsonl corpus, for benchmarking the import.

    python bench/gen_mnli.py OUT.jsonl [--pairs 1000000] [--seed 7] [--annotators 150]

The file looks like an MNLI release to a reader: every premise (`promptID`) has three
hypotheses, one written for each label (the pair's `pairID` is the promptID plus the
label's initial), and every pair carries five votes in `annotator_labels` with the worker
IDs that cast them in `annotator_ids`. Vote 0 is the author's own label; the four
validators are other workers. `gold_label` is the label with at least three votes, or `-`.

The votes come from a small simulation rather than a fixed pattern, so that agreement
measures computed on the corpus behave as on MNLI: each worker has a skill, each pair a
difficulty and, now and then, a "true" label other than the one its author meant, and a
validator's vote is right with a probability that rises with skill and falls with
difficulty. Mistakes lean towards one particular wrong label per pair, as confusions do.
The constants below are tuned so that about 58% of pairs are unanimous and about 98%
have a gold label, MNLI's published figures; the shares reached are printed at the end.

Sentences are strings of made-up lowercase words drawn with Zipf-like frequencies;
hypotheses reuse some of their premise's words. Generation runs chunk by chunk with
numpy, so memory stays flat, and a fixed seed always gives the same bytes.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import orjson

LABELS = ("entailment", "neutral", "contradiction")
INITIALS = ("e", "n", "c")
GENRES = (
    "facetoface",
    "fiction",
    "government",
    "letters",
    "nineeleven",
    "oup",
    "slate",
    "telephone",
    "travel",
    "verbatim",
)
VOTES = 5
"""Votes per pair: the author's and four validators'."""
PROMPTS_PER_CHUNK = 40_000
"""Premises generated per chunk (three pairs each); fixed, since the output depends on it."""

# Agreement model (logit scale), tuned for ~58% unanimous and ~98% with a gold label.
SKILL_MEAN = 2.75
"""Mean worker skill."""
SKILL_SD = 0.6
"""Spread of worker skill across the pool."""
HARD_SHARE = 0.14
"""Share of pairs that are hard (ambiguous or badly written)."""
HARD_DIFFICULTY = 2.5
"""Mean difficulty of a hard pair (exponentially distributed)."""
EASY_DIFFICULTY = 0.35
"""Mean difficulty of an ordinary pair (exponentially distributed)."""
AUTHOR_SLIP = 0.03
"""Chance that a pair's true label is not the one its author meant."""
CONFUSION_BIAS = 0.75
"""Chance that a wrong vote goes to the pair's favoured wrong label."""

# Text model.
VOCAB_SIZE = 4000
PREMISE_TOKENS = (20.0, 6.0, 6, 48)
"""Mean, sd, min, max of premise length in words."""
HYPOTHESIS_TOKENS = (10.0, 3.0, 3, 24)
"""Mean, sd, min, max of hypothesis length in words."""
OVERLAP = 0.45
"""Chance that a hypothesis word is copied from its premise."""

IntArray = npt.NDArray[np.int64]

# All 3**5 vote patterns, pre-built once: index = sum(vote[k] * 3**k).
_PATTERNS = [tuple(reversed(p)) for p in product(range(3), repeat=VOTES)]
_PATTERN_LABELS = [[LABELS[v] for v in p] for p in _PATTERNS]


def _gold_of(pattern: tuple[int, ...]) -> int:
    counts = np.bincount(np.asarray(pattern), minlength=3)
    top = int(counts.argmax())
    return top if counts[top] >= 3 else -1


_PATTERN_GOLD = np.array([_gold_of(p) for p in _PATTERNS], dtype=np.int64)
_POWERS = 3 ** np.arange(VOTES, dtype=np.int64)


@dataclass(frozen=True)
class Pool:
    """The simulated workers and the word list, fixed by the seed."""

    ids: list[str]
    skill: npt.NDArray[np.float64]
    activity: npt.NDArray[np.float64]
    """Probability of each worker being drawn for a task (some work far more than others)."""
    words: list[str]
    word_p: npt.NDArray[np.float64]


@dataclass
class Tally:
    """Agreement counts over everything written so far."""

    pairs: int = 0
    unanimous: int = 0
    with_gold: int = 0
    gold_is_author: int = 0
    validator_is_author: int = 0

    def add(self, votes: IntArray, gold: IntArray) -> None:
        author = votes[:, 0]
        self.pairs += len(votes)
        self.unanimous += int((votes == author[:, None]).all(axis=1).sum())
        self.with_gold += int((gold >= 0).sum())
        self.gold_is_author += int((gold == author).sum())
        self.validator_is_author += int((votes[:, 1:] == author[:, None]).sum())

    def report(self) -> str:
        n = max(self.pairs, 1)
        return (
            f"{self.pairs:,} pairs: all 5 agree {self.unanimous / n:.1%}, "
            f"gold label (>=3 votes) {self.with_gold / n:.1%}, "
            f"gold = author's label {self.gold_is_author / n:.1%}, "
            f"validator vote = author's label {self.validator_is_author / (4 * n):.1%}"
        )


def _fake_words(rng: np.random.Generator, count: int) -> list[str]:
    """`count` distinct pronounceable made-up words, shortest first (short = frequent)."""
    onsets = [*"bcdfghjklmnprstvwz", "br", "ch", "dr", "gl", "pl", "sh", "st", "th", "tr"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ea", "oo"]
    codas = ["", "", "", "n", "r", "s", "t", "l", "nd", "st"]
    seen: set[str] = set()
    words: list[str] = []
    while len(words) < count:
        syllables = int(rng.choice([1, 2, 2, 3, 3, 4]))
        word = "".join(
            onsets[rng.integers(len(onsets))]
            + vowels[rng.integers(len(vowels))]
            + codas[rng.integers(len(codas))]
            for _ in range(syllables)
        )
        if word not in seen:
            seen.add(word)
            words.append(word)
    words.sort(key=len)
    return words


def make_pool(seed: int, annotators: int) -> Pool:
    """Workers with their skill and activity, and the vocabulary, for this seed."""
    rng = np.random.default_rng([seed, 0])
    width = max(3, len(str(annotators)))
    ids = [f"w{i:0{width}d}" for i in range(1, annotators + 1)]
    skill = rng.normal(SKILL_MEAN, SKILL_SD, annotators)
    activity = rng.lognormal(0.0, 0.8, annotators)
    words = _fake_words(rng, VOCAB_SIZE)
    word_p = 1.0 / (np.arange(VOCAB_SIZE) + 3.0) ** 1.05
    return Pool(ids, skill, activity / activity.sum(), words, word_p / word_p.sum())


def _lengths(rng: np.random.Generator, n: int, spec: tuple[float, float, int, int]) -> IntArray:
    mean, sd, low, high = spec
    return np.clip(np.rint(rng.normal(mean, sd, n)), low, high).astype(np.int64)


def _join_rows(words: list[str], tokens: IntArray, lengths: IntArray) -> list[str]:
    """One capitalised sentence per row of `tokens`, using the first `lengths[i]` words."""
    flat = tokens[np.arange(tokens.shape[1]) < lengths[:, None]].tolist()
    texts: list[str] = []
    start = 0
    for length in lengths.tolist():
        end = start + length
        text = " ".join([words[t] for t in flat[start:end]])
        texts.append(text[0].upper() + text[1:] + ".")
        start = end
    return texts


def _draw_workers(rng: np.random.Generator, pool: Pool, authors: IntArray) -> IntArray:
    """Five distinct workers per pair: the given author, then four validators."""
    n = len(authors)
    size = len(pool.ids)
    who = np.empty((n, VOTES), dtype=np.int64)
    who[:, 0] = authors
    who[:, 1:] = rng.choice(size, size=(n, VOTES - 1), p=pool.activity)
    while True:
        ordered = np.sort(who, axis=1)
        clash = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not clash.any():
            return who
        rows = np.flatnonzero(clash)
        who[rows, 1:] = rng.choice(size, size=(len(rows), VOTES - 1), p=pool.activity)


def _vote(rng: np.random.Generator, pool: Pool, meant: IntArray, who: IntArray) -> IntArray:
    """The five votes of each pair: the author's intended label, then the validators'."""
    n = len(meant)
    slip = rng.random(n) < AUTHOR_SLIP
    truth = np.where(slip, (meant + rng.integers(1, 3, n)) % 3, meant)
    # The wrong label a pair pulls validators towards: its author's intent if the author
    # slipped, else one of the two others at random.
    lure = np.where(slip, meant, (truth + rng.integers(1, 3, n)) % 3)
    hard = rng.random(n) < HARD_SHARE
    difficulty = rng.exponential(np.where(hard, HARD_DIFFICULTY, EASY_DIFFICULTY))
    logit = pool.skill[who[:, 1:]] - difficulty[:, None]
    right = rng.random((n, VOTES - 1)) < 1.0 / (1.0 + np.exp(-logit))
    other = 3 - truth - lure
    wrong = np.where(rng.random((n, VOTES - 1)) < CONFUSION_BIAS, lure[:, None], other[:, None])
    votes = np.empty((n, VOTES), dtype=np.int64)
    votes[:, 0] = meant
    votes[:, 1:] = np.where(right, truth[:, None], wrong)
    return votes


def write_chunk(
    out: BinaryIO,
    pool: Pool,
    seed: int,
    chunk: int,
    prompts: int,
    first_prompt: int,
    pairs: int,
    tally: Tally,
) -> int:
    """Write the jsonl lines of one chunk of `pairs` pairs; return the last prompt number."""
    rng = np.random.default_rng([seed, 1, chunk])
    # Prompt numbers: increasing, with gaps, like a release that dropped some prompts.
    prompt_no = first_prompt + np.cumsum(rng.integers(1, 4, prompts))
    genre = rng.integers(len(GENRES), size=prompts)
    author = rng.choice(len(pool.ids), size=prompts, p=pool.activity)

    p_len = _lengths(rng, prompts, PREMISE_TOKENS)
    p_tok = rng.choice(VOCAB_SIZE, size=(prompts, PREMISE_TOKENS[3]), p=pool.word_p)
    premises = _join_rows(pool.words, p_tok, p_len)

    # Pairs: prompt i gives pairs 3i (e), 3i+1 (n), 3i+2 (c), shuffled within the chunk;
    # only the chunk's last prompt can fall short of three (when `pairs` is not 3 * prompts).
    order = rng.permutation(pairs)
    prompt_of = order // 3
    meant = order % 3
    h_max = HYPOTHESIS_TOKENS[3]
    h_len = _lengths(rng, pairs, HYPOTHESIS_TOKENS)
    h_tok = rng.choice(VOCAB_SIZE, size=(pairs, h_max), p=pool.word_p)
    copy_pos = (rng.random((pairs, h_max)) * p_len[prompt_of][:, None]).astype(np.int64)
    copied = p_tok[prompt_of[:, None], copy_pos]
    h_tok = np.where(rng.random((pairs, h_max)) < OVERLAP, copied, h_tok)
    hypotheses = _join_rows(pool.words, h_tok, h_len)

    who = _draw_workers(rng, pool, author[prompt_of])
    votes = _vote(rng, pool, meant, who)
    pattern = votes @ _POWERS
    gold = _PATTERN_GOLD[pattern]
    tally.add(votes, gold)

    ids = pool.ids
    prompt_text = [str(p) for p in prompt_no.tolist()]
    genre_text = [GENRES[g] for g in genre.tolist()]
    dumps = orjson.dumps
    newline = orjson.OPT_APPEND_NEWLINE
    write = out.write
    for i, (p, m, pat, g, w) in enumerate(
        zip(
            prompt_of.tolist(),
            meant.tolist(),
            pattern.tolist(),
            gold.tolist(),
            who.tolist(),
            strict=True,
        )
    ):
        prompt_id = prompt_text[p]
        write(
            dumps(
                {
                    "annotator_labels": _PATTERN_LABELS[pat],
                    "annotator_ids": [ids[x] for x in w],
                    "genre": genre_text[p],
                    "gold_label": LABELS[g] if g >= 0 else "-",
                    "pairID": prompt_id + INITIALS[m],
                    "promptID": prompt_id,
                    "sentence1": premises[p],
                    "sentence2": hypotheses[i],
                },
                option=newline,
            )
        )
    return int(prompt_no[-1])


def generate(out: Path, pairs: int, seed: int, annotators: int) -> Tally:
    """Write `pairs` pairs to `out` and return the agreement tally."""
    pool = make_pool(seed, annotators)
    tally = Tally()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    prompt_no = 10_000 + int(np.random.default_rng([seed, 2]).integers(0, 90_000))
    with open(tmp, "wb", buffering=1 << 20) as handle:
        left = pairs
        chunk = 0
        while left > 0:
            n = min(left, 3 * PROMPTS_PER_CHUNK)
            prompts = -(-n // 3)
            prompt_no = write_chunk(handle, pool, seed, chunk, prompts, prompt_no, n, tally)
            left -= n
            chunk += 1
    tmp.replace(out)
    return tally


def generator_arguments(description: str, argv: list[str] | None) -> argparse.Namespace:
    """The command line every corpus generator takes: OUT, --pairs, --seed, --annotators."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("out", type=Path, help="The jsonl file to write.")
    parser.add_argument("--pairs", type=int, default=1_000_000, help="Number of pairs.")
    parser.add_argument("--seed", type=int, default=7, help="Random seed.")
    parser.add_argument(
        "--annotators", type=int, default=150, help="Size of the worker pool (at least 5)."
    )
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    if args.annotators < VOTES:
        parser.error(f"--annotators must be at least {VOTES}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = generator_arguments("Write a synthetic MNLI-style jsonl corpus.", argv)
    started = time.perf_counter()
    tally = generate(args.out, args.pairs, args.seed, args.annotators)
    elapsed = time.perf_counter() - started
    print(f"wrote {args.out} in {elapsed:.1f}s", file=sys.stderr)
    print(tally.report(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
