"""Write a synthetic plain-text corpus of 10 genres, for benchmarking `nlibuild ingest`.

    python bench/gen_sources.py OUT_DIR [--megabytes 1000] [--seed 11]

One file per genre (OUT_DIR/<genre>.txt, equal shares of the total size), paragraphs of 3
to 6 sentences separated by blank lines. Sentences are made-up lowercase words with
Zipf-like frequencies, capitalised, 4 to 30 words long (about 100 bytes, so 1 GB holds
about 10 million), ending in . ? or !, and now and then holding what a sentence splitter
must not split at: a title abbreviation ("Dr. Ambel"), an initial, a decimal number.
Nearly every sentence is unique, as in real text, so ingest does real deduplication work
rather than discarding repeats. A fixed seed gives the same bytes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

GENRES = (
    "facetoface", "fiction", "government", "letters", "nineeleven",
    "oup", "slate", "telephone", "travel", "verbatim",
)  # fmt: skip
VOCABULARY = 30_000
SENTENCES_PER_CHUNK = 50_000
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"] + ["th", "sh", "ch"]
TITLES = ("Dr.", "Mr.", "Mrs.", "Prof.", "St.")


def make_vocabulary(rng: np.random.Generator) -> np.ndarray:
    lengths = rng.integers(1, 4, size=VOCABULARY)
    syllables = np.array(SYLLABLES)
    words = {"".join(syllables[rng.integers(0, len(SYLLABLES), size=n)]) for n in lengths.tolist()}
    return np.array(sorted(words))


def write_genre(path: Path, size: int, rng: np.random.Generator, vocab: np.ndarray) -> int:
    """Write about `size` bytes of paragraphs to `path`; returns the sentence count."""
    ranks = np.arange(1, len(vocab) + 1)
    weights = 1.0 / ranks**1.05
    weights /= weights.sum()
    written = 0
    sentences = 0
    with open(path, "w", encoding="utf-8") as handle:
        while written < size:
            lengths = rng.integers(4, 31, size=SENTENCES_PER_CHUNK)
            words = vocab[rng.choice(len(vocab), size=int(lengths.sum()), p=weights)].tolist()
            ends = rng.choice([". ", "? ", "! "], size=SENTENCES_PER_CHUNK, p=[0.9, 0.06, 0.04])
            extras = rng.integers(0, 20, size=SENTENCES_PER_CHUNK).tolist()
            numbers = rng.integers(0, 1000, size=SENTENCES_PER_CHUNK).tolist()
            paragraph_sizes = rng.integers(3, 7, size=SENTENCES_PER_CHUNK).tolist()
            parts: list[str] = []
            start = 0
            in_paragraph = 0
            paragraph_index = 0
            for i, n in enumerate(lengths.tolist()):
                sentence = words[start : start + n]
                start += n
                sentence[0] = sentence[0].capitalize()
                extra = extras[i]
                if extra == 0:  # a title abbreviation before a name
                    sentence.insert(1, f"{TITLES[numbers[i] % len(TITLES)]} Ambel")
                elif extra == 1:  # an initial
                    sentence.insert(1, f"{chr(65 + numbers[i] % 26)}. Corvin")
                elif extra == 2:  # a decimal number
                    sentence.insert(1, f"{numbers[i] / 10:.1f}")
                parts.append(" ".join(sentence) + ends[i])
                in_paragraph += 1
                if in_paragraph >= paragraph_sizes[paragraph_index]:
                    parts.append("\n\n")
                    in_paragraph = 0
                    paragraph_index += 1
            text = "".join(parts).replace(" \n", "\n")
            handle.write(text)
            written += len(text.encode("utf-8"))
            sentences += len(lengths)
    return sentences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--megabytes", type=int, default=1000, help="Total size (default 1000).")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    vocab = make_vocabulary(rng)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    per_genre = args.megabytes * 1_000_000 // len(GENRES)
    total = 0
    for genre in GENRES:
        total += write_genre(args.out_dir / f"{genre}.txt", per_genre, rng, vocab)
    print(
        f"wrote {len(GENRES)} files, about {total:,} sentences, to {args.out_dir} "
        f"in {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
