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
from nlibuild.models import CueRow
from nlibuild.report import pmi_smoothing
from nlibuild.report.colors import LABEL_COLORS
from nlibuild.report.html import table
from nlibuild.report.plots import length_samples
from nlibuild.report.tables import informative_cue_rows
from nlibuild.store import Store

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


def table_rows(html: str) -> list[dict[str, str]]:
    """The rows of the first table in `html`, each as {header: cell text}, tags stripped."""
    found = re.search(r"<table[^>]*>(.*?)</table>", html, re.S)
    assert found, "no table"

    def cells(row: str) -> list[str]:
        return [unescape(re.sub(r"<[^>]+>", "", cell))
                for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]  # fmt: skip

    header, *rows = re.findall(r"<tr>(.*?)</tr>", found.group(1), re.S)
    return [dict(zip(cells(header), cells(row), strict=True)) for row in rows]


def svg_texts(html: str) -> list[str]:
    """The text of every chart in `html` (the SVG keeps its text as text)."""
    return [unescape(text) for text in re.findall(r"<text[^>]*>([^<]*)</text>", html)]


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
    # No pair has an author's label: no value, as `stats` gives it.
    (all_pairs,) = table_rows(agreement)
    for statistic in ("gold = author's label", "gold != author's label"):
        assert all_pairs[statistic] == "n.a.", statistic


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


# --- issue 28: the page as a datasheet a team would publish -------------------------------


def test_the_length_histograms_count_the_unit_of_the_lengths_table(
    sample_db: Path, tmp_path: Path
) -> None:
    """The table's means are in sacrebleu's intl tokens; the histograms under it were drawn
    in whitespace tokens (mean 5.04 under a table saying 6.000)."""
    lengths = section(report_page(sample_db, tmp_path / "r.html"), "lengths")
    (english,) = nlibuild.open(sample_db).stats("lengths").to_dicts()
    assert english["unit"] == "tokens (intl)"
    assert "tokens (intl)" in svg_texts(lengths)  # the histogram's axis
    with Store.open(sample_db) as store:
        drawn = length_samples(store)
    hypotheses = drawn[("en", "hypothesis")]
    assert sum(hypotheses) / len(hypotheses) == pytest.approx(english["hypothesis_mean"])


def korean_store(tmp_path: Path) -> Path:
    """Korean pairs whose hypotheses reuse the premise's characters in other words: 학교에
    and 학교에서 share 학교 but are different words (particles)."""
    records = [
        ("학생들이 학교에서 열심히 공부를 한다.", "학생이 학교에 간다.", "entailment"),
        ("아이들이 공원에서 축구를 하고 있다.", "아이가 공원을 걷는다.", "neutral"),
        ("남자가 식당에서 밥을 먹는다.", "남자는 식당에 없다.", "contradiction"),
    ]
    corpus = tmp_path / "klue_like.jsonl"
    corpus.write_text("".join(json.dumps({
        "pairID": f"k{i}", "promptID": f"q{i}", "sentence1": premise, "sentence2": hypothesis,
        "gold_label": label, "annotator_labels": [label] * 5, "genre": "wiki",
    }, ensure_ascii=False) + "\n" for i, (premise, hypothesis, label) in enumerate(records)),
        encoding="utf-8")  # fmt: skip
    nlibuild.create(tmp_path / "ko.db", lang="ko").import_corpus(path=corpus, format="mnli")
    return tmp_path / "ko.db"


def test_korean_overlap_is_counted_in_words_and_the_chart_says_so(tmp_path: Path) -> None:
    """Korean counted in characters put most entailments over the limit (KLUE: 78%, 21% in
    words); and a negator legend over empty bars read as 0% for a language without one."""
    db = korean_store(tmp_path)
    rows = nlibuild.open(db).stats("cues").to_dicts()
    assert {row["overlap_unit"] for row in rows} == {"words"}
    assert all(row["over_limit"] == 0.0 for row in rows)  # no word is the premise's
    cues = section(report_page(db, tmp_path / "ko.html", "--min-count", "1"), "cues")
    charted = svg_texts(cues)
    assert "over the overlap limit (counted in words)" in charted
    assert "with a negator" not in charted
    assert "No negator lexicon for ko" in cues


def test_a_stale_gold_is_a_warning_at_the_top_of_the_page(sample_db: Path, tmp_path: Path) -> None:
    from test_check import relabel_every_waiting_pair

    nlibuild.open(sample_db).aggregate_labels()
    relabel_every_waiting_pair(sample_db, "neutral")
    summary = section(report_page(sample_db, tmp_path / "stale.html"), "summary")
    assert summary.startswith('<h2>Summary counts</h2><p class="warning"')
    assert "the gold label of 4 pairs is stale" in summary
    assert "nlibuild aggregate-labels" in summary
    nlibuild.open(sample_db).aggregate_labels()
    assert "warning" not in section(report_page(sample_db, tmp_path / "fresh.html"), "summary")


def test_the_gold_table_adds_up_to_every_pair(sample_db: Path, tmp_path: Path) -> None:
    corpus = nlibuild.open(sample_db)
    corpus.aggregate_labels()
    # Pairs added after the aggregate-labels run: 3 more pairs without gold.
    extra = tmp_path / "more.jsonl"
    extra.write_text("".join(json.dumps({
        "pairID": f"new{i}", "promptID": "qnew", "sentence1": "A new premise.",
        "sentence2": f"Hypothesis {i}.", "gold_label": "neutral", "annotator_labels": ["neutral"],
    }) + "\n" for i in range(3)), encoding="utf-8")  # fmt: skip
    corpus.import_corpus(path=extra, format="mnli")
    summary = section(report_page(sample_db, tmp_path / "r.html"), "summary")
    gold = table_rows(summary.split("Gold labels")[1])
    counts = {row[""]: int(row["pairs"]) for row in gold}
    assert counts.pop("total") == 51
    assert sum(counts.values()) == 51
    assert any(name.startswith("no gold label") for name in counts)


def test_the_agreement_table_is_wide_with_integer_counts_and_no_empty_group(
    sample_db: Path, tmp_path: Path
) -> None:
    """A released corpus has no protocol or level: its `protocol=-,level=-` group is every
    pair again, so the table is one row, statistics as columns."""
    agreement = section(report_page(sample_db, tmp_path / "r.html"), "agreement")
    (every,) = table_rows(agreement)
    assert (every["group"], every["pairs"], every["validated"]) == ("all", "48", "36")
    assert every["3+ labels agree"].endswith(" of 36)")
    assert "protocol=-" not in agreement
    assert not re.search(r">\d+\.000<", agreement)  # no count as 18.000


def test_one_colour_per_label_in_the_tables_and_the_charts(sample_db: Path, tmp_path: Path) -> None:
    cues = section(report_page(sample_db, tmp_path / "r.html", "--min-count", "2"), "cues")
    for label, color in LABEL_COLORS.items():
        if label in ("entailment", "neutral", "contradiction"):
            assert f'style="--label: {color}">{label}<' in cues, label
            assert f"fill: {color}" in cues, label  # the PMI bars of the label


def test_pmi_smoothing_is_scaled_to_the_corpus_and_named(sample_db: Path, tmp_path: Path) -> None:
    assert pmi_smoothing(550_152) == 100  # Gururangan et al.'s add-100 on SNLI
    assert pmi_smoothing(48) == 1 and pmi_smoothing(55_015) == pytest.approx(10, rel=1e-3)
    cues = section(report_page(sample_db, tmp_path / "r.html", "--min-count", "2"), "cues")
    assert "add-1 smoothing" in cues and "Gururangan" in cues
    given = section(report_page(sample_db, tmp_path / "k.html", "--min-count", "2",
                                "--smoothing", "100"), "cues")  # fmt: skip
    assert "add-100 smoothing of the counts, given with --smoothing" in given


def test_dates_stay_on_one_line_and_signatures_wrap(sample_db: Path, tmp_path: Path) -> None:
    page = report_page(sample_db, tmp_path / "r.html")
    provenance = section(page, "provenance")
    assert '<td class="date">' in provenance and '<td class="signature">' in provenance
    assert "td.date { white-space: nowrap; }" in page
    assert 'class="wide"' not in page  # no scrolling box


def test_the_cue_table_leaves_out_a_group_that_is_all_again(
    sample_db: Path, tmp_path: Path
) -> None:
    """Every pair of a released corpus has one protocol (`-`): its block of the cue table is
    the "all" block again, left out as the agreement table leaves it out."""
    nlibuild.open(sample_db).aggregate_labels()
    cues = section(report_page(sample_db, tmp_path / "r.html", "--min-count", "2"), "cues")
    negators = cues.split("Negators and overlap per label")[1]
    rows = table_rows(negators)
    assert [(row["group by"], row["label"]) for row in rows] == [
        ("all", "entailment"), ("all", "neutral"), ("all", "contradiction")]  # fmt: skip
    assert "it is &#x27;all&#x27; again" in negators


def cue_row(group_by: str, group: str, label: str, pairs: int) -> CueRow:
    return CueRow(group_by=group_by, group=group, label=label, pairs=pairs, negated=None,
                  mean_overlap=0.5, overlap_bins=[], over_limit=0.0, mean_length=5.0,
                  unit="words", overlap_unit="words")  # fmt: skip


def test_a_cue_group_is_left_out_only_where_it_is_every_pair_of_its_language() -> None:
    every = [cue_row("all", f"all ({lang})", label, 4) for lang in ("en", "zh")
             for label in ("entailment", "neutral")]  # fmt: skip
    one_protocol = [cue_row("protocol", row.group.replace("all", "-"), row.label, 4)
                    for row in every]  # fmt: skip
    assert informative_cue_rows(every + one_protocol) == every
    # en written under one protocol, zh under another: neither is every pair, both kept
    by_language = [cue_row("protocol", row.group.replace("all", "mc" if "en" in row.group
                                                          else "s"), row.label, 4)
                   for row in every]  # fmt: skip
    assert informative_cue_rows(every + by_language) == every + by_language
    # two protocols in one language: both are kept
    split = [cue_row("protocol", "s (en)", "entailment", 1),
             cue_row("protocol", "mc (en)", "entailment", 3)]  # fmt: skip
    assert informative_cue_rows(every + split) == every + split
