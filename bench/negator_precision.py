"""Precision of "a negator in the hypothesis => contradiction", before and after whole-word
matching, on the real pairs of ../shared/fixtures; and the time to check 100,000 hypotheses.

    python bench/negator_precision.py [--fixtures ../shared/fixtures] [--before-commit REV]

"Before" is the rule of nlibuild up to REV (default: the commit this branch started from,
2a70c80): the lexicon files of that commit, entries matched as whole words by one regex in
English and wherever their characters occur in Chinese, exceptions winning where they
overlap. "After" is `nlibuild.text.negators` as it is now. Both read the lexicons as written in
their own commit, so a difference is the matching and the lexicon together.

Per data set: hypotheses with a gold label, the base rate of contradictions, the
hypotheses flagged, the share of flagged ones that are contradictions (precision of the
negator as a contradiction cue), and the share of contradictions flagged (recall). The
Chinese sentences of UD PUD have no labels: there the script counts the sentences each rule
flags and lists the words where the two disagree. The timing runs each rule over 100,000
distinct hypotheses (fixture texts with a running number appended, so that no cache helps).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from nlibuild.text.negators import negator_lexicon
from nlibuild.text.words import fold, segment

Pair = tuple[str, str]  # (hypothesis, gold label: entailment, neutral, contradiction)
Finder = Callable[[str], list[str]]
LETTERS = {"e": "entailment", "n": "neutral", "c": "contradiction"}
EU_CODES = {"0": "entailment", "1": "neutral", "2": "contradiction"}


def old_finder(commit: str, lang: str) -> Finder:
    """The substring rule of `commit`, rebuilt from its lexicon file."""
    path = f"nlibuild/resources/negators/{lang}.txt"
    text = subprocess.run(
        ["git", "show", f"{commit}:{path}"], capture_output=True, text=True, check=True
    ).stdout
    negators, suffixes, exceptions = set(), set(), set()
    for line in text.splitlines():
        entry = " ".join(fold(line.split("#", 1)[0]).split())
        if entry.startswith("!"):
            exceptions.add(entry[1:])
        elif entry.startswith("*"):
            suffixes.add(entry[1:])
        elif entry:
            negators.add(entry)
    entries = sorted(negators | exceptions, key=lambda e: (-len(e), e))
    body = "|".join(
        [r"\s+".join(map(re.escape, e.split(" "))) for e in entries]
        + [rf"\w+{re.escape(s)}" for s in sorted(suffixes, key=len)]
    )
    pattern = re.compile(f"(?:{body})" if lang == "zh" else rf"(?<!\w)(?:{body})(?!\w)")

    def find(hypothesis: str) -> list[str]:
        words = (" ".join(m.group().split()) for m in pattern.finditer(fold(hypothesis)))
        return [word for word in words if word not in exceptions]

    return find


def snli(folder: Path) -> Iterator[Pair]:
    for name in ("snli_1.0_dev.jsonl", "snli_1.0_test.jsonl"):
        for line in (folder / "snli_prefix" / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["gold_label"] != "-":
                yield record["sentence2"], record["gold_label"]


def chaosnli(folder: Path) -> Iterator[Pair]:
    for name in ("chaosNLI_snli.jsonl", "chaosNLI_mnli_m.jsonl"):
        for line in (folder / "chaosnli" / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            yield record["example"]["hypothesis"], LETTERS[record["majority_label"]]


def tsv_rows(path: Path) -> Iterator[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as lines:
        yield from csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)


def myxnli_english(folder: Path) -> Iterator[Pair]:
    for split in ("dev", "test"):
        for row in tsv_rows(folder / "myxnli" / f"my.genre.{split}.tsv"):
            yield row["sentence2_en"], row["label"]


def basque_native_in_english(folder: Path) -> Iterator[Pair]:
    for row in tsv_rows(folder / "xnli_eu_native" / "xnli-eu2en-native.tsv"):
        yield row["hypothesis"], EU_CODES[row["label"]]


def chinese_sentences(folder: Path) -> list[str]:
    conllu = (folder / "ud_pud" / "zh_pud-ud-test.conllu").read_text(encoding="utf-8")
    return [
        line.split("=", 1)[1].strip() for line in conllu.splitlines() if line.startswith("# text =")
    ]


def cue_row(name: str, pairs: list[Pair], rule: str, find: Finder) -> str:
    flagged = [label for hypothesis, label in pairs if find(hypothesis)]
    contradictions = sum(label == "contradiction" for _, label in pairs)
    hits = sum(label == "contradiction" for label in flagged)
    precision = f"{hits / len(flagged):.1%}" if flagged else "-"
    return (
        f"| {name} | {rule} | {len(pairs):,} | {contradictions / len(pairs):.1%} | "
        f"{len(flagged):,} | {precision} | {hits / contradictions:.1%} |"
    )


def chinese_report(sentences: list[str], before: Finder, after: Finder) -> list[str]:
    old = [bool(before(s)) for s in sentences]
    new = [bool(after(s)) for s in sentences]
    only_old: Counter[str] = Counter()
    only_new: Counter[str] = Counter()
    for sentence, was, now in zip(sentences, old, new, strict=True):
        if was != now:
            words = segment(fold(sentence), "zh")
            # Each word with a negator character, with the word after it: the context.
            seen = [
                w + "/" + n
                for w, n in zip(words, [*words[1:], ""], strict=True)
                if before(w) or after(w)
            ]
            (only_old if was else only_new).update(seen)
    return [
        f"UD PUD Chinese, {len(sentences):,} sentences: flagged {sum(old)} before, "
        f"{sum(new)} after; {sum(o and not n for o, n in zip(old, new, strict=True))} only "
        f"before, {sum(n and not o for o, n in zip(old, new, strict=True))} only after.",
        "Words (jieba) with a negator character, and the next word, in sentences flagged only "
        f"before: {dict(only_old.most_common(15))}",
        f"The same, in sentences flagged only after: {dict(only_new.most_common(15))}",
    ]


def seconds_for(find: Finder, texts: list[str], n: int = 100_000) -> float:
    hypotheses = [f"{texts[i % len(texts)]} {i}" for i in range(n)]
    started = time.perf_counter()
    for hypothesis in hypotheses:
        find(hypothesis)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=Path("../shared/fixtures"))
    parser.add_argument("--before-commit", default="2a70c80")
    args = parser.parse_args()
    before = {lang: old_finder(args.before_commit, lang) for lang in ("en", "zh")}
    after = {lang: negator_lexicon(lang).find for lang in ("en", "zh")}
    after["zh"]("预热")  # jieba's dictionary loads once, outside the timing
    print("| data set | rule | hypotheses | contradictions | flagged | precision | recall |")
    print("|---|---|---:|---:|---:|---:|---:|")
    sets = {
        "SNLI dev+test prefix": list(snli(args.fixtures)),
        "ChaosNLI (SNLI, MNLI-m)": list(chaosnli(args.fixtures)),
        "myXNLI English dev+test": list(myxnli_english(args.fixtures)),
        "Basque native, English translation": list(basque_native_in_english(args.fixtures)),
    }
    for name, pairs in sets.items():
        print(cue_row(name, pairs, "substring (before)", before["en"]))
        print(cue_row(name, pairs, "whole word (after)", after["en"]))
    sentences = chinese_sentences(args.fixtures)
    print("\n" + "\n".join(chinese_report(sentences, before["zh"], after["zh"])))
    english = [hypothesis for pairs in sets.values() for hypothesis, _ in pairs]
    print("\n| 100,000 hypotheses | before s | after s |\n|---|---:|---:|")
    # Chinese hypotheses are short (OCNLI's average about 10 characters): clauses of UD PUD.
    clauses = [c for s in sentences for c in re.split("[，。；：！？]", s) if len(c) >= 4]
    for lang, texts in (("en", english), ("zh sentences", sentences), ("zh clauses", clauses)):
        rule = lang[:2]
        old, new = seconds_for(before[rule], texts), seconds_for(after[rule], texts)
        print(f"| {lang} | {old:.2f} | {new:.2f} |")


if __name__ == "__main__":
    main()
