"""Work packages people can read: the labels' names in the validators' language, and
MTurk's instructions as HTML.

- A preset's `[labels.names]` names the labels as people see them (the ocnli preset in
  Chinese); without it the corpus language's built-in names (zh, ko) serve, else the labels.
- Label Studio shows each choice by its name and writes the label (`alias`) into its export;
  MTurk's radio buttons show the names and answer with the labels; a csv sheet's label
  column lists the names; a name typed back (csv, jsonl) is read as its label.
- MTurk's HIT template carries the instructions' Markdown rendered as HTML, raw HTML in the
  text escaped, not the Markdown inside `<pre>`.
"""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import test_relabel
from conftest import copy_store, fails, ok, write_jsonl
from elicitation_data import annotator_map
from test_relabel import (
    Task,
    all_tasks,
    assert_votes,
    authors_label,
    exported_tasks,
    labelstudio_votes,
    mturk_votes,
    vote_records,
)

from nlibuild.errors import ConfigError
from nlibuild.formats.platforms.labelstudio import labelstudio_config
from nlibuild.formats.platforms.mturk import relabel_mturk_template
from nlibuild.labelling.label_names import canonical_label, label_names
from nlibuild.presets import load_preset_text, parse_preset

CHINESE = {"entailment": "蕴含", "neutral": "中立", "contradiction": "矛盾", "unrelated": "无关"}
PRESET = """[corpus]
lang = "en"
extra_labels = ["unrelated"]

[labels.names]
entailment = "蕴含"
neutral = "中立"
contradiction = "矛盾"
unrelated = "无关"
"""


def shown(task: Task) -> str:
    """What a Chinese validator picks or types for the pair's author's label."""
    return CHINESE[authors_label(task)]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """test_relabel's store (relabelling batches of 48 tasks for v01..v04), made with a
    preset whose [labels.names] are Chinese."""
    root = tmp_path_factory.mktemp("localised")
    preset = root / "zh-names.toml"
    preset.write_text(PRESET, encoding="utf-8")

    db = test_relabel.build_store(root / "corpus.db", preset=preset)
    test_relabel.create(db)
    return db


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Path:
    return copy_store(template, tmp_path / "store" / "corpus.db")


def export(db: Path, fmt: str, out: Path) -> Path:
    ok("--db", db, "relabel", "export", "--all", "--format", fmt, "--out", out)
    return out


# --- the names ------------------------------------------------------------------------------


def test_the_ocnli_preset_names_the_labels_in_chinese() -> None:
    names = parse_preset(load_preset_text("ocnli"))["labels"]["names"]
    assert names["entailment"] == "蕴含"
    assert names["neutral"] == "中立"
    assert names["contradiction"] == "矛盾"


def test_built_in_names_serve_where_the_preset_names_none() -> None:
    assert dict(label_names("ko", None))["contradiction"] == "모순"
    assert dict(label_names("zh", None))["neutral"] == "中立"
    assert label_names("en", None) == ()
    assert label_names("zh", {"neutral": "中性"}) == (("neutral", "中性"),)


def test_a_name_typed_back_is_its_label_and_other_text_is_left_alone() -> None:
    names = label_names("zh", None)
    assert canonical_label(" 矛盾 ", names) == "contradiction"
    assert canonical_label("c", names) == "c"


@pytest.mark.parametrize(
    ("names", "says"),
    [
        ('entailment = "是"\nneutral = "是"', "neutral and entailment would both be shown as '是'"),
        ('entailment = "neutral"', "entailment and neutral would both be shown as 'neutral'"),
        ('entailment = " "', "entailment: a name cannot be empty"),
    ],
)
def test_names_that_could_not_be_told_apart_are_refused(names: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_preset(f"[labels.names]\n{names}\n", "mine.toml")
    assert str(caught.value).startswith(f"mine.toml: [labels] names: {says}")


def test_an_unknown_key_of_labels_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"^mine.toml: \[labels\] nmes: unknown key; did you"):
        parse_preset('[labels.nmes]\nentailment = "是"\n', "mine.toml")


# --- round trips ---------------------------------------------------------------------------


def test_a_csv_sheet_lists_the_names_and_comes_back_with_them(store: Path, tmp_path: Path) -> None:
    out = export(store, "csv", tmp_path / "package")
    with (out / "r0003.csv").open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        header = list(reader.fieldnames or [])
        rows = list(reader)
    column = "label (蕴含 / 中立 / 矛盾 / 无关)"
    assert header[-1] == column
    for row in rows:
        row[column] = shown(row)
    filled = tmp_path / "r0003-done.csv"
    with filled.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, header)
        writer.writeheader()
        writer.writerows(rows)

    ok("--db", store, "relabel", "import", filled, "--format", "csv")

    assert_votes(store, rows)


def test_jsonl_votes_may_give_the_names(store: Path, tmp_path: Path) -> None:
    tasks = all_tasks(export(store, "jsonl", tmp_path / "package"))
    path = write_jsonl(tmp_path / "votes.jsonl", vote_records(tasks, shown))

    ok("--db", store, "relabel", "import", path)

    assert_votes(store, tasks)


def test_labelstudio_shows_the_names_and_exports_the_labels(store: Path, tmp_path: Path) -> None:
    out = export(store, "labelstudio", tmp_path / "package")
    (choices,) = ET.parse(out / "labelstudio-config.relabel.xml").getroot().iter("Choices")
    assert [(c.get("value"), c.get("alias")) for c in choices.iter("Choice")] == [
        ("蕴含", "entailment"), ("中立", "neutral"), ("矛盾", "contradiction"),
        ("无关", "unrelated"),
    ]  # fmt: skip
    tasks = exported_tasks(out, "labelstudio", "r0002")
    # Label Studio writes the alias into the results; one answer gives the name instead,
    # as an export from a config without aliases would.
    by_alias = labelstudio_votes(tmp_path / "ls.json", tasks, 17)
    exported = json.loads(by_alias.read_text(encoding="utf-8"))
    exported[0]["annotations"][0]["result"][0]["value"]["choices"] = [shown(tasks[0])]
    by_alias.write_text(json.dumps(exported, ensure_ascii=False), encoding="utf-8")
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "17", "v02"))

    ok("--db", store, "relabel", "import", by_alias, "--format", "labelstudio",
       "--annotator-map", users)  # fmt: skip

    assert_votes(store, tasks)


def test_mturk_buttons_show_the_names_and_answer_with_the_labels(
    store: Path, tmp_path: Path
) -> None:
    out = export(store, "mturk", tmp_path / "package")
    template = (out / "mturk-template.relabel.html").read_text(encoding="utf-8")
    for label, name in CHINESE.items():
        assert f'<crowd-radio-button name="{label}" value="{label}">{name}<' in template
    tasks = exported_tasks(out, "mturk", "r0004")
    results = mturk_votes(tmp_path / "results.csv", out / "r0004.mturk-input.csv", "A2XK9")
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A2XK9", "v04"))

    ok("--db", store, "relabel", "import", results, "--format", "mturk", "--annotator-map", workers)

    assert_votes(store, tasks)


def test_a_name_no_label_has_is_still_an_error(store: Path, tmp_path: Path) -> None:
    tasks = all_tasks(export(store, "jsonl", tmp_path / "package"))
    path = write_jsonl(tmp_path / "votes.jsonl", vote_records(tasks[:1], lambda _: "蕴涵"))
    fails(store, "relabel", "import", path, says=("'蕴涵' is not one of entailment",))


def test_the_instructions_close_with_each_label_and_its_name(store: Path, tmp_path: Path) -> None:
    out = export(store, "csv", tmp_path / "package")
    chinese = (out / "instructions.relabel.zh.md").read_text(encoding="utf-8")
    assert chinese.rstrip().endswith(
        "`label`: `entailment` (蕴含), `neutral` (中立), `contradiction` (矛盾), `unrelated` (无关)"
    )


def test_the_elicitation_form_heads_each_label_with_its_name() -> None:
    config = labelstudio_config(1, "SINGLE", label_names("ko", None))
    headers = [h.get("value") for h in ET.fromstring(config).iter("Header")]
    assert headers[-3:] == ["함의", "중립", "모순"]


# --- MTurk's instructions as HTML ------------------------------------------------------------


def test_mturk_instructions_are_html_with_raw_html_escaped() -> None:
    markdown = "# Relabel\n\n- **entailment**: true\n\nNever <script>alert(1)</script> run.\n"

    template = relabel_mturk_template(["entailment"], markdown)

    assert "<pre" not in template
    assert "<h1>Relabel</h1>" in template
    assert "<li><strong>entailment</strong>: true</li>" in template
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in template
    assert template.count("<script") == 1  # crowd-html-elements' own


def test_the_exported_mturk_template_renders_the_corpus_instructions(
    store: Path, tmp_path: Path
) -> None:
    out = export(store, "mturk", tmp_path / "package")
    template = (out / "mturk-template.relabel.html").read_text(encoding="utf-8")
    assert "<h2>The task</h2>" in template
    assert "**" not in template and "## " not in template
