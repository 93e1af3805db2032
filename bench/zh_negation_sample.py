"""Precision and recall of the Chinese negator rule on the hand-labelled sample of
tests/data/zh_negation_sample.tsv, before (the rule and lexicon of a commit) and after (the
working tree); and each rule's time over 100,000 hypotheses.

    python bench/zh_negation_sample.py [--before-commit REV] [--sample PATH]

"Before" is `nlibuild/text/negators.py` and `resources/negators/zh.txt` as they are at REV
(default 1921130, main where issue 26's negation work started), loaded from git beside the
working tree's; "after" is `nlibuild.text.negators` as it is now. A hypothesis counts as
flagged when the rule finds any negator in it; precision is the share of flagged hypotheses
labelled `negated = yes`, recall the share of those labelled yes that are flagged. The
script lists each hypothesis a rule gets wrong, with jieba's words, so that a change of
figures can be read off. On the 1,000 Chinese sentences of UD PUD (real text, no labels;
../shared/fixtures) it counts the sentences each rule flags and lists the words where the
two disagree (`negator_precision.chinese_report`). The timing runs each rule over 100,000
distinct hypotheses (the sample's with a running number appended, so that no cache helps),
jieba's dictionary loaded before.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path

from negator_precision import chinese_report, chinese_sentences, seconds_for

from nlibuild.text.negators import negator_lexicon
from nlibuild.text.words import fold, segment

Finder = Callable[[str], list[str]]
SAMPLE = Path(__file__).resolve().parent.parent / "tests" / "data" / "zh_negation_sample.tsv"


def git_show(commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "show", f"{commit}:{path}"], capture_output=True, text=True, check=True
    ).stdout


def finder_at(commit: str, folder: Path) -> Finder:
    """The Chinese `find` of `commit`: its negators.py run as a module of its own, reading
    its own zh.txt (the rest of nlibuild is the working tree's)."""
    (folder / "negators").mkdir()
    lexicon = git_show(commit, "nlibuild/resources/negators/zh.txt")
    (folder / "negators" / "zh.txt").write_text(lexicon, encoding="utf-8")
    name = f"negators_at_{commit}"
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up by name
    source = git_show(commit, "nlibuild/text/negators.py")
    exec(compile(source, f"{commit}:negators.py", "exec"), module.__dict__)
    module.__dict__["RESOURCES"] = folder  # where its negator_lexicon reads zh.txt
    return module.negator_lexicon("zh").find  # type: ignore[no-any-return]


def read_sample(path: Path) -> list[tuple[str, bool]]:
    with path.open(encoding="utf-8", newline="") as lines:
        rows = csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(row["text"], row["negated"] == "yes") for row in rows]


def scores(sample: list[tuple[str, bool]], find: Finder) -> tuple[int, int, int, list[str]]:
    """(flagged, flagged and negated, negated, the hypotheses the rule gets wrong)."""
    flagged = hits = negated = 0
    wrong = []
    for text, is_negated in sample:
        found = find(text)
        flagged += bool(found)
        hits += bool(found) and is_negated
        negated += is_negated
        if bool(found) != is_negated:
            kind = f"flags {'、'.join(found)}" if found else "misses"
            wrong.append(f"{kind}: {text} ({'/'.join(segment(fold(text), 'zh'))})")
    return flagged, hits, negated, wrong


def score_row(rule: str, sample: list[tuple[str, bool]], find: Finder) -> tuple[str, list[str]]:
    flagged, hits, negated, wrong = scores(sample, find)
    precision, recall = hits / flagged, hits / negated
    f1 = 2 * precision * recall / (precision + recall)
    row = (
        f"| {rule} | {len(sample)} | {negated} | {flagged} | {hits} | {precision:.1%} | "
        f"{recall:.1%} | {f1:.3f} |"
    )
    return row, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-commit", default="1921130")
    parser.add_argument("--sample", type=Path, default=SAMPLE)
    parser.add_argument("--fixtures", type=Path, default=Path("../shared/fixtures"))
    args = parser.parse_args()
    sample = read_sample(args.sample)
    with tempfile.TemporaryDirectory() as folder:
        rules = {
            f"before ({args.before_commit})": finder_at(args.before_commit, Path(folder)),
            "after (working tree)": negator_lexicon("zh").find,
        }
        for find in rules.values():
            find("预热")  # jieba's dictionary loads once, outside the timing
        print("| rule | hypotheses | negated | flagged | flagged and negated | precision | "
              "recall | F1 |")  # fmt: skip
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        wrongs = {}
        for rule, find in rules.items():
            row, wrongs[rule] = score_row(rule, sample, find)
            print(row)
        for rule, wrong in wrongs.items():
            print(f"\n{rule}, {len(wrong)} wrong:\n" + "\n".join(f"- {w}" for w in wrong))
        before, after = rules.values()
        if (args.fixtures / "ud_pud").is_dir():
            print("\n" + "\n".join(chinese_report(chinese_sentences(args.fixtures), before, after)))
        texts = [text for text, _ in sample]
        print("\n| 100,000 hypotheses | s |\n|---|---:|")
        for rule, find in rules.items():
            print(f"| {rule} | {seconds_for(find, texts):.2f} |")


if __name__ == "__main__":
    main()
