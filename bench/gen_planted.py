"""Write the score demo's corpus: the planted-rule pairs of `nlibuild.scoring.planted` as an
MNLI jsonl file, and their German and French copies as translation files for
`translate import`.

    python bench/gen_planted.py [--out data] [--pairs 2300] [--hedged 0.1] [--seed 27]

writes OUT/planted_nli.jsonl and OUT/translations/planted_nli.{de,fr}.tsv. `make score-demo`
imports them; the files in data/ are this script's output with its defaults, and
tests/test_score_demo.py checks that they still are. The same arguments always give the
same bytes (Python's `random`, seeded; one generator for the pairs and one per language).

Each pair has its own premise (`promptID` NNNNNs, genre `synthetic`) and carries the label
the rule gives it as the one vote of its author; a hedged pair (about `--hedged` of them)
carries five votes, split 3-2 between entailment and neutral, the three for its gold label.
The translations are units as `translate export` writes them: `p:<promptID>` and
`h:<pairID>`, each with its source text.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from nlibuild.scoring.planted import DIVERGENCES, LABELS, Divergence, is_hedged, planted_pair

CORPUS = "planted_nli"
GENRE = "synthetic"
TRANSLATION_COLUMNS = ("unit_id", "source_lang", "source", "lang", "text")


def planted_records(pairs: int, hedged: float, seed: int) -> list[dict[str, Any]]:
    """The corpus as MNLI jsonl records (MNLI's key order)."""
    rng = random.Random(seed)
    records = []
    for n in range(pairs):
        premise, hypothesis, label = planted_pair(rng, hedged_share=hedged)
        gold = LABELS[label]
        votes = [gold]
        if is_hedged(hypothesis):
            other = LABELS[1 - label]  # entailment <-> neutral
            votes = [gold, other, gold, other, gold]
        prompt = f"{n:05d}s"
        records.append({
            "annotator_labels": votes, "genre": GENRE, "gold_label": gold,
            "pairID": prompt + gold[0], "promptID": prompt,
            "sentence1": premise, "sentence2": hypothesis,
        })  # fmt: skip
    return records


def translation_rows(
    records: list[dict[str, Any]], divergence: Divergence, seed: int
) -> list[tuple[str, ...]]:
    """One row a unit, premise then hypothesis of each pair, in `divergence`'s language."""
    rng = random.Random(seed)
    rows: list[tuple[str, ...]] = []
    for record in records:
        for unit, source in (
            (f"p:{record['promptID']}", record["sentence1"]),
            (f"h:{record['pairID']}", record["sentence2"]),
        ):
            rows.append((unit, "en", source, divergence.lang, divergence.translate(source, rng)))
    return rows


def write_corpus(out: Path, pairs: int, hedged: float, seed: int) -> list[Path]:
    """Write the jsonl file and one translation file per language; returns their paths."""
    records = planted_records(pairs, hedged, seed)
    corpus = out / f"{CORPUS}.jsonl"
    out.mkdir(parents=True, exist_ok=True)
    with corpus.open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    written = [corpus]
    (out / "translations").mkdir(exist_ok=True)
    for offset, divergence in enumerate(DIVERGENCES, start=1):
        path = out / "translations" / f"{CORPUS}.{divergence.lang}.tsv"
        # Unquoted, as `translate export` writes tsv: no text holds a tab or a newline.
        rows = [TRANSLATION_COLUMNS, *translation_rows(records, divergence, seed + offset)]
        path.write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the score demo's planted-rule corpus.")
    parser.add_argument("--out", type=Path, default=Path("data"), help="The folder to write.")
    parser.add_argument("--pairs", type=int, default=2300, help="Number of pairs.")
    parser.add_argument("--hedged", type=float, default=0.1, help="Share of hedged pairs.")
    parser.add_argument("--seed", type=int, default=27, help="Random seed.")
    args = parser.parse_args(argv)
    for path in write_corpus(args.out, args.pairs, args.hedged, args.seed):
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
