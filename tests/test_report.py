"""`nlibuild report --out FILE.html` (the corpus's datasheet, one self-contained page) and
`stats --plot FILE.png`, read as HTML and PNG bytes, without a browser
(tests/test_report_browser.py opens the page in Chromium).

Both are the CLI's alone; the stores are built, and the page's figures read back, through
the Python API (`Corpus.runs()`, `Corpus.stats(...)`)."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    DATA,
    FIXTURES,
    assert_user_error,
    fails,
    ok,
    query,
    requires_fixtures,
    run_cli,
    table_counts,
)

import nlibuild
from nlibuild.report.html import table

SECTION_IDS = ("summary", "agreement", "subsets", "lengths", "cues", "translation", "scores",
               "provenance")  # fmt: skip
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def report_page(db: Path, out: Path, *options: str | int | float) -> str:
    ok("--db", db, "report", "--out", out, *options)
    return out.read_text(encoding="utf-8")


def agreement_rows(db: Path, **options: Any) -> list[dict[str, Any]]:
    """The rows of `stats --table agreement` with `options`."""
    return nlibuild.open(db).stats("agreement", **options).to_dicts()


def section(page: str, key: str) -> str:
    """The HTML of one section of the page."""
    found = re.search(rf'<section id="{key}">(.*?)</section>', page, re.S)
    assert found, f"no section {key}"
    return found.group(1)


def test_the_page_has_every_section_with_its_charts_inline(sample_db: Path, tmp_path: Path) -> None:
    page = report_page(sample_db, tmp_path / "report.html", "--min-count", "2")
    for key in SECTION_IDS:
        assert f'<section id="{key}">' in page
        assert f'href="#{key}"' in page  # the contents list links to it
    for key in ("agreement", "lengths", "cues"):
        assert "<svg" in section(page, key), key
    # Self-contained: no script, no stylesheet or image fetched from anywhere.
    assert "<script" not in page
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "<style>" in page


def test_the_summary_counts_are_the_stores(sample_db: Path, tmp_path: Path) -> None:
    summary = section(report_page(sample_db, tmp_path / "r.html"), "summary")
    # data/sample_mnli.jsonl: 48 pairs of 16 premises, 36 validated.
    assert '<td>pairs</td><td class="number">48</td>' in summary
    assert '<td>premises</td><td class="number">16</td>' in summary
    assert '<td>validated pairs (2+ votes)</td><td class="number">36</td>' in summary


def test_every_run_is_in_the_provenance(sample_db: Path, tmp_path: Path) -> None:
    provenance = section(report_page(sample_db, tmp_path / "r.html"), "provenance")
    runs = nlibuild.open(sample_db).runs()
    assert runs
    for run in runs:
        assert f"<td>{run.stage}</td>" in provenance
        assert run.signature.replace("&", "&amp;") in provenance


def test_sections_without_data_say_which_command_produces_it(db: Path, tmp_path: Path) -> None:
    page = report_page(db, tmp_path / "empty.html")
    assert "Not available" in section(page, "agreement")
    assert "relabel" in section(page, "agreement")
    assert "translate import" in section(page, "translation")
    assert "score train" in section(page, "scores")


def test_text_from_the_store_is_escaped(db: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    record = {
        "annotator_labels": ["neutral"], "genre": "<script>alert(1)</script>",
        "gold_label": "neutral", "pairID": "p1", "promptID": "q1",
        "sentence1": "<script>alert(2)</script> premise", "sentence2": "a <b>hypothesis",
    }  # fmt: skip
    corpus.write_text(json.dumps(record) + "\n", encoding="utf-8")
    nlibuild.open(db).import_corpus(path=corpus, format="mnli")
    page = report_page(db, tmp_path / "r.html")
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section(page, "summary")


def test_a_table_cell_is_escaped() -> None:
    html = table(["a<b"], [["<script>x</script>"], [0.25]])
    assert "<th>a&lt;b</th>" in html
    assert "<td>&lt;script&gt;x&lt;/script&gt;</td>" in html
    assert '<td class="number">0.250</td>' in html


def test_agreement_shows_the_bootstrap_intervals_of_stats(sample_db: Path, tmp_path: Path) -> None:
    options = ("--ci", "0.9", "--resamples", "50", "--seed", "7")
    agreement = section(report_page(sample_db, tmp_path / "r.html", *options), "agreement")
    rows = agreement_rows(sample_db, ci=0.9, resamples=50, seed=7)
    kappa = next(r for r in rows if r["statistic"] == "Fleiss' kappa" and r["group"] == "all")
    assert "90% bootstrap intervals" in agreement
    assert f"{kappa['low']:.3f}" in agreement and f"{kappa['high']:.3f}" in agreement


def test_agreement_rows_are_the_stats_tables_for_a_store_without_authors(
    db: Path, tmp_path: Path
) -> None:
    nlibuild.open(db).import_corpus(path=DATA / "crowd_votes.csv", format="table",
                                    columns={"author": ("-",)})  # fmt: skip
    agreement = section(report_page(db, tmp_path / "r.html"), "agreement")
    # No pair has an author's label: no value, over 0 pairs, as `stats` gives it.
    for statistic in ("gold = author&#x27;s label", "gold != author&#x27;s label"):
        assert (f'<tr><td>{statistic}</td><td>all</td><td>–</td><td class="number">0.000</td>'
                '<td class="number">0</td>') in agreement, statistic  # fmt: skip


def test_agreement_names_the_majority_rule_as_stats_does(sample_db: Path, tmp_path: Path) -> None:
    nlibuild.open(sample_db).aggregate_labels(min_agree=0.6)
    # The Note line is the CLI's (stats prints it on stderr); the page repeats it.
    (note,) = run_cli("--db", sample_db, "stats", "--table", "agreement").stderr.splitlines()
    assert note.startswith("Note: pairs without stored gold get the majority rule: ")
    assert "--min-agree 0.6, of aggregate-labels run" in note
    assert note in unescape(section(report_page(sample_db, tmp_path / "r.html"), "agreement"))


def test_translations_appear_in_quality_and_lengths(sample_db: Path, tmp_path: Path) -> None:
    nlibuild.open(sample_db).translate_import(
        path=DATA / "translations" / "sample_mnli.de.tsv", lang="de", translator="de01"
    )
    page = report_page(sample_db, tmp_path / "r.html")
    assert "<td>de</td>" in section(page, "translation")
    assert "Not available" not in section(page, "translation")
    assert "<td>de</td>" in section(page, "lengths")


def test_the_report_cannot_overwrite_the_store(sample_db: Path) -> None:
    before = table_counts(sample_db)
    assert_user_error(run_cli("--db", sample_db, "report", "--out", sample_db), "--out")
    assert table_counts(sample_db) == before


def test_a_bad_level_is_one_error_line(sample_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    assert_user_error(run_cli("--db", sample_db, "report", "--out", out, "--ci", "1.5"), "ci")
    assert not out.exists()


@pytest.mark.parametrize("name", ["agreement", "lengths", "cues"])
def test_stats_plot_writes_the_tables_chart_as_png(
    sample_db: Path, tmp_path: Path, name: str
) -> None:
    png = tmp_path / f"{name}.png"
    ok("--db", sample_db, "stats", "--table", name, "--plot", png)
    assert png.read_bytes().startswith(PNG_MAGIC)


def test_stats_plot_of_pmi(sample_db: Path, tmp_path: Path) -> None:
    png = tmp_path / "pmi.png"
    ok("--db", sample_db, "stats", "--table", "pmi", "--per-label", "--min-count", "2",
       "--plot", png)  # fmt: skip
    assert png.read_bytes().startswith(PNG_MAGIC)


def test_stats_plot_of_a_table_without_a_chart_is_refused(sample_db: Path, tmp_path: Path) -> None:
    png = tmp_path / "premises.png"
    result = run_cli("--db", sample_db, "stats", "--table", "premises", "--plot", png)
    assert_user_error(result, "--plot does not apply to --table premises", "agreement")
    assert not png.exists()


def test_agreement_by_a_facet_no_pair_has(sample_db: Path) -> None:
    """The report groups agreement by protocol and level; a released corpus has neither
    (every value missing was an SQL error)."""
    rows = agreement_rows(sample_db, by="level")
    assert {row["group"] for row in rows} == {"all", "level=-"}


SNLI_DEV = FIXTURES / "snli_prefix" / "snli_1.0_dev.jsonl"


@requires_fixtures
def test_the_report_of_real_snli_pairs(db: Path, tmp_path: Path) -> None:
    nlibuild.open(db).import_corpus(path=SNLI_DEV, format="snli")
    page = report_page(db, tmp_path / "snli.html", "--min-count", "5")
    assert '<td>pairs</td><td class="number">1289</td>' in section(page, "summary")
    rows = agreement_rows(db)
    kappa = next(r for r in rows if r["statistic"] == "Fleiss' kappa" and r["group"] == "all")
    assert f"{kappa['value']:.3f}" in section(page, "agreement")
    assert "Not available" not in section(page, "cues")


def test_agreement_by_two_facets_of_the_pairs(tmp_path: Path) -> None:
    """Two columns of the pairs (`--by protocol,level` is the report's grouping) bind their
    values in one statement (numbered parameters restarting at ?1 were an internal error)."""
    corpus = nlibuild.create(tmp_path / "ocnli.db", preset="ocnli")
    corpus.import_corpus(path=DATA / "sample_ocnli.json")
    groups = {row["group"] for row in agreement_rows(corpus.path, by="lang,level")}
    single = {row["group"] for row in agreement_rows(corpus.path, by="level")}
    assert len(groups) == len(single) > 2


def test_a_folder_as_the_report_file_is_refused_before_any_run(sample_db: Path) -> None:
    """The page's cue tables record runs of their own: a folder where the file should go is
    refused before them, so the store is as it was."""
    folder = sample_db.parent / "reports"
    folder.mkdir()
    runs = query(sample_db, "SELECT count(*) FROM runs")
    line = fails(sample_db, "report", "--out", folder, says=("a folder is there", "--out"))
    assert "report.html" in line
    assert query(sample_db, "SELECT count(*) FROM runs") == runs
