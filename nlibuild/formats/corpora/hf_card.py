"""The dataset card (`README.md`) of an `export --format hf` folder.

Its YAML front matter is what `datasets` and the Hub read: `configs` (the data files of each
config and split), `dataset_info` (the features, `label` a ClassLabel with the corpus's label
names, and the rows per split), `language`, `license`, `task_categories` and `task_ids`. The
text below it is for people: how to load it, what is in it, how gold was decided, and the
store's runs that made it. The YAML is written here rather than by a YAML library: every
value is either a plain name of ours or a JSON-quoted string, and JSON strings are YAML.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

from nlibuild._version import VERSION
from nlibuild.core.registry import AGGREGATE_LABELS
from nlibuild.models import UNKNOWN_LICENSE, NoGoldPolicy, RunRecord

ALL_LANGUAGES = "all_languages"
"""The default config of a folder with several languages (the Hub's XNLI names it so)."""


class SplitFile(NamedTuple):
    """One data file: a language's rows of one split."""

    lang: str
    split: str
    path: str
    rows: int
    pairs: int
    labels: Counter[int]
    """Rows per label index; -1 counts the rows without gold."""


@dataclass(frozen=True)
class DatasetCard:
    files: list[SplitFile]
    languages: list[str]
    label_names: list[str]
    no_gold: NoGoldPolicy
    with_genre: bool
    store_has_splits: bool
    unsplit_pairs: int
    license: str | None
    runs: list[RunRecord]


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _configs(card: DatasetCard) -> dict[str, list[SplitFile]]:
    """Config name -> its files: `default` for one language; else one per language and
    `all_languages` over them all."""
    if len(card.languages) <= 1:
        return {"default": card.files}
    configs = {ALL_LANGUAGES: card.files}
    for lang in card.languages:
        configs[lang] = [f for f in card.files if f.lang == lang]
    return configs


def _config_yaml(name: str, files: list[SplitFile]) -> list[str]:
    lines = [f"- config_name: {_quoted(name)}"]
    if name == ALL_LANGUAGES:
        lines.append("  default: true")
    lines.append("  data_files:")
    for split in dict.fromkeys(f.split for f in files):
        lines += [f"  - split: {split}", "    path:"]
        lines += [f"    - {_quoted(f.path)}" for f in files if f.split == split]
    return lines


def _features_yaml(card: DatasetCard) -> list[str]:
    lines = ["  features:"]
    for column in ("id", "premise", "hypothesis"):
        lines += [f"  - name: {column}", "    dtype: string"]
    lines += ["  - name: label", "    dtype:", "      class_label:", "        names:"]
    lines += [f"          '{i}': {_quoted(name)}" for i, name in enumerate(card.label_names)]
    for column in ("genre", "lang") if card.with_genre else ("lang",):
        lines += [f"  - name: {column}", "    dtype: string"]
    return lines


def _info_yaml(card: DatasetCard, name: str) -> list[str]:
    # No `splits` here: `datasets` wants their size in Arrow bytes too, and ignores them
    # with a warning without it; the rows per split are in the card's text.
    return [f"- config_name: {_quoted(name)}", *_features_yaml(card)]


def front_matter(card: DatasetCard) -> list[str]:
    configs = _configs(card)
    lines = ["---", "configs:"]
    for name, files in configs.items():
        lines += _config_yaml(name, files)
    lines.append("dataset_info:")
    for name in configs:
        lines += _info_yaml(card, name)
    lines.append("language:")
    lines += [f"- {_quoted(lang)}" for lang in card.languages]
    lines.append(f"license: {_quoted(card.license or UNKNOWN_LICENSE)}")
    lines += ["task_categories:", "- text-classification"]
    lines += ["task_ids:", "- natural-language-inference", "---"]
    return lines


def _loading(card: DatasetCard) -> list[str]:
    lines = ["## Loading", "", "```python", "from datasets import load_dataset", ""]
    lines.append('corpus = load_dataset("path/to/this/folder")')
    if len(card.languages) > 1:
        lines.append(f'one_language = load_dataset("path/to/this/folder", "{card.languages[-1]}")')
    lines += ["```", ""]
    if len(card.languages) > 1:
        lines += [
            f"The default config, `{ALL_LANGUAGES}`, holds every language; each language is "
            f"a config of its own ({', '.join(f'`{lang}`' for lang in card.languages)}).",
            "",
        ]
    return lines


def _counts(card: DatasetCard) -> list[str]:
    """Rows per split and language, by label."""
    names = [*card.label_names, "no gold"]
    lines = ["## Contents", "", "| split | language | rows | pairs | " + " | ".join(names) + " |"]
    lines.append("|---|---|" + "---:|" * (len(names) + 2))
    for f in card.files:
        by_label = [f.labels.get(i, 0) for i in range(len(card.label_names))]
        cells = [f.split, f.lang, f.rows, f.pairs, *by_label, f.labels.get(-1, 0)]
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    lines.append("")
    if not card.store_has_splits:
        lines += [
            "The store had no splits (`nlibuild split` was not run), so every pair is in `train`.",
            "",
        ]
    else:
        lines += ["The splits are the store's; its `dev` split is `validation` here.", ""]
    if card.unsplit_pairs:
        lines += [f"{card.unsplit_pairs} pairs in none of the store's splits are left out.", ""]
    return lines


def _labels_and_gold(card: DatasetCard) -> list[str]:
    numbered = ", ".join(f"{i} = {name}" for i, name in enumerate(card.label_names))
    fate = (
        "are left out"
        if card.no_gold is NoGoldPolicy.DROP
        else "have label -1, `datasets`' value for a missing class label"
    )
    aggregated = any(r.stage == AGGREGATE_LABELS.name and r.status == "ok" for r in card.runs)
    rule = (
        "nlibuild's majority vote (`aggregate-labels`): the label at least three of a "
        "pair's five votes agree on, the author's and four validators', as MultiNLI and "
        "XNLI assign gold (Conneau et al. 2018, XNLI: a three-vote consensus, `-` "
        "otherwise)."
        if aggregated
        else "the gold label released with the imported corpus (no `aggregate-labels` run "
        "in this store); a pair released without one has no gold label (`-`)."
    )
    lines = ["## Labels and gold", "", f"`label` is a class label: {numbered}.", ""]
    lines += [f"Gold is {rule} Pairs without gold {fate}.", ""]
    if len(card.languages) > 1:
        lines += [
            "A row in a language other than its pair's own holds the human translations of "
            "the premise and the hypothesis, with the source pair's ID and label, as XNLI "
            "gave every language the English labels.",
            "",
        ]
    return lines


def _provenance(card: DatasetCard) -> list[str]:
    lines = ["## Provenance", "", "The store's runs, oldest first, with their signatures:", ""]
    for run in card.runs:
        status = "this export" if run is card.runs[-1] and run.status == "running" else run.status
        lines.append(f"- run {run.id}, `{run.stage}` ({status}): `{run.signature}`")
    lines.append("")
    return lines


def card_text(card: DatasetCard) -> str:
    """The whole README.md."""
    languages = ", ".join(card.languages) or "none"
    license_line = (
        f"License: {card.license}."
        if card.license
        else f"License: `{UNKNOWN_LICENSE}`: nobody gave one (`export --license`, or the "
        "preset's `[export] license`); state the license of the texts before sharing it."
    )
    lines = [*front_matter(card), "", "# NLI corpus", ""]
    lines += [
        f"Natural language inference pairs (premise, hypothesis, label) in {languages}, "
        f"exported by nlibuild {VERSION}. {license_line}",
        "",
    ]
    lines += _loading(card) + _counts(card) + _labels_and_gold(card) + _provenance(card)
    return "\n".join(lines)
