"""A Hugging Face dataset folder that `datasets.load_dataset(folder)` reads as it is.

The layout is the Hub's manual configuration of a dataset repository: the card's YAML names
the data files of each config and split, and declares the features, so `datasets` decodes
`label` as a ClassLabel without being told:

    README.md                     the dataset card (`hf_card.py`)
    data/<split>.jsonl            one language: the config `default`
    data/<lang>/<split>.jsonl     several: a config per language, and `all_languages`
                                  (the default config) over every language's files

Splits are the store's (`nlibuild split`), with `dev` written as `validation`, the name
`datasets` and the Hub use; a store without splits is written whole as `train`. Nothing but
data lies under `data/`: `datasets` would take a sidecar there for data (hf-jsonl's
`.labels.json` does exactly that), so the label names live in the card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nlibuild.errors import OutputError
from nlibuild.formats.corpora.base import CorpusFormat, WriteSettings, Written
from nlibuild.formats.corpora.hf_card import DatasetCard, SplitFile, card_text
from nlibuild.formats.corpora.xnli import texts_in_language, wanted_languages
from nlibuild.formats.tabular import inside_folder, write_json_lines, write_package
from nlibuild.models import NO_GOLD, NoGoldPolicy, lang_code_problem
from nlibuild.store import ExportRow

HUB_SPLIT_NAMES = {"train": "train", "dev": "validation", "test": "test"}
"""The store's split names as `datasets` names them (its `Split.VALIDATION`)."""

SPLIT_ORDER = ("train", "validation", "test")


def _records(
    rows: list[ExportRow], lang: str, settings: WriteSettings, with_genre: bool
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(hub split, record) of every pair that has texts in `lang` and a split."""
    translations = settings.human_translations()
    index = {label.value: i for i, label in enumerate(settings.label_order)}
    splits = settings.splits()
    for row in rows:
        split = HUB_SPLIT_NAMES[splits[row.pk]] if splits else "train"
        texts = texts_in_language(row, lang, translations)
        if texts is None:
            continue
        gold = row.gold if row.gold not in (None, NO_GOLD) else None
        if gold is None and settings.no_gold is NoGoldPolicy.DROP:
            continue
        record: dict[str, Any] = {
            "id": row.id,
            "premise": texts[0],
            "hypothesis": texts[1],
            "label": index[gold] if gold is not None else -1,
        }
        if with_genre:
            record["genre"] = row.genre
        record["lang"] = lang
        yield split, record


def _write_language(
    folder: Path,
    prefix: str,
    rows: list[ExportRow],
    lang: str,
    settings: WriteSettings,
    written_ids: set[str],
) -> list[SplitFile]:
    """The split files of one language under `folder`, and what each holds; adds the IDs
    of the pairs written to `written_ids`."""
    with_genre = any(row.genre is not None for row in rows)
    by_split: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLIT_ORDER}
    for split, record in _records(rows, lang, settings, with_genre):
        by_split[split].append(record)
    files = []
    for split, records in by_split.items():
        if not records:
            continue  # `datasets` cannot read an empty json file, so there is none
        path = f"{prefix}{split}.jsonl"
        # A second line of defence: languages are checked where they enter and above.
        data_file = inside_folder(folder / "data", path.removeprefix("data/"), f"language {lang!r}")
        write_json_lines(data_file, iter(records))
        labels = Counter(int(record["label"]) for record in records)
        pairs = {str(record["id"]) for record in records}
        written_ids |= pairs
        files.append(SplitFile(lang, split, path, len(records), len(pairs), labels))
    return files


def _refuse_bad_languages(out: Path, langs: list[str]) -> None:
    """A stored language that is no language code (`models.lang_code_problem`) would name
    a folder and a config of the dataset card: refused before anything is written."""
    for lang in langs:
        problem = lang_code_problem(lang)
        if problem is not None:
            raise OutputError(
                f"{out}: cannot name a folder after a stored language: {problem}; nothing "
                "was written (give --lang to export the others)"
            )


def write(rows: Iterator[ExportRow], out: Path, settings: WriteSettings) -> Written:
    """The dataset folder at `out`, written all or nothing (`tabular.write_package`)."""
    splits = settings.splits()
    buffered: list[ExportRow] = []
    unsplit = 0
    for row in rows:
        if splits and row.pk not in splits:
            unsplit += 1
        else:
            buffered.append(row)
    langs = wanted_languages(buffered, settings.human_translations(), settings.langs)
    _refuse_bad_languages(out, langs)
    files: list[SplitFile] = []
    written_ids: set[str] = set()

    def write_folder(folder: Path) -> list[Path]:
        several = len(langs) > 1
        for lang in langs:
            prefix = f"data/{lang}/" if several else "data/"
            files.extend(_write_language(folder, prefix, buffered, lang, settings, written_ids))
        card = DatasetCard(
            files=files,
            languages=langs,
            label_names=[label.value for label in settings.label_order],
            no_gold=settings.no_gold,
            with_genre=any(row.genre is not None for row in buffered),
            store_has_splits=bool(splits),
            unsplit_pairs=unsplit,
            license=settings.license,
            runs=settings.runs(),
        )
        (folder / "README.md").write_text(card_text(card), encoding="utf-8")
        return [folder / "README.md", *(folder / f.path for f in files)]

    write_package(out, write_folder)
    split_rows = Counter[str]()
    for f in files:
        split_rows[f.split] += f.rows
    return Written(
        rows=sum(f.rows for f in files),
        pairs=len(written_ids),
        languages=tuple(sorted({f.lang for f in files})),
        split_rows=tuple((split, split_rows[split]) for split in SPLIT_ORDER if split_rows[split]),
        unsplit_pairs=unsplit,
    )


FORMAT = CorpusFormat("hf", writer=write, multilingual=True, integer_labels=True)
