"""The overlap rule as a setting (the "Trust" issue).

OCNLI (section 3.2): "in all our instructions, we made explicit to the annotators that no
hypothesis should overlap more than 70% with the premise". The hypothesis is what may not
overlap, so by default the share is of the hypothesis's units found in the premise. Which
share is measured (`hypothesis`, `premise`, or `both`: over the limit only when both shares
are), the limit and whether a pair over it is an error or a warning are settings of the
preset's [elicit] section and of `elicit import`; `stats --table subsets` shows how the
share spreads under the configured measure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import (
    FIXTURES,
    assert_user_error,
    compact_table,
    fails,
    ok,
    query,
    requires_fixtures,
    run_cli,
    write_jsonl,
)
from elicitation_data import NEWS, SINGLE
from test_elicit_platforms import premise_corpus
from test_elicit_real_data import basque_elicited_store

import nlibuild
from nlibuild.api import StageWarning
from nlibuild.errors import NlibuildError
from nlibuild.models import (
    DEFAULT_OVERLAP_MEASURE,
    ElicitImportConfig,
    ElicitImportResult,
    Label,
    OverlapMeasure,
    Protocol,
    Rule,
)
from nlibuild.presets import parse_preset, settings_from_preset
from nlibuild.protocol.elicitation import Severity, check_answer
from nlibuild.stats.subsets import overlap_distribution
from nlibuild.text.negators import negator_lexicon
from nlibuild.text.overlap import overlap_share, overlap_shares

HYPOTHESIS, PREMISE, BOTH = OverlapMeasure.HYPOTHESIS, OverlapMeasure.PREMISE, OverlapMeasure.BOTH

# A short hypothesis copying part of a long premise: 5 of its 5 words are in the premise,
# which has 12 words.
LONG_PREMISE = NEWS[0]  # The city council approved a new budget for public parks on Monday.
SHORT_COPY = "The council approved a budget."
# A long hypothesis that holds all of a short premise: 4 of its 13 words are the premise's.
SHORT_PREMISE = "Heavy rain flooded streets."
LONG_EXTENSION = "Heavy rain flooded streets and the river burst its banks near the mill."


# --- the measures ------------------------------------------------------------------------


def test_the_default_measure_is_the_hypothesis_as_ocnli_states_the_rule() -> None:
    assert DEFAULT_OVERLAP_MEASURE is HYPOTHESIS
    assert ElicitImportConfig.model_fields["overlap_measure"].default is HYPOTHESIS
    assert ElicitImportConfig.model_fields["overlap_severity"].default is Severity.ERROR


def test_a_short_copy_of_a_long_premise_is_high_for_the_hypothesis_low_for_the_premise() -> None:
    assert overlap_shares(SHORT_COPY, LONG_PREMISE, "en") == pytest.approx((5 / 5, 5 / 12))
    assert overlap_share(SHORT_COPY, LONG_PREMISE, "en", HYPOTHESIS) == 1.0
    assert overlap_share(SHORT_COPY, LONG_PREMISE, "en", PREMISE) == pytest.approx(5 / 12)
    assert overlap_share(SHORT_COPY, LONG_PREMISE, "en", BOTH) == pytest.approx(5 / 12)


def test_a_long_hypothesis_holding_a_short_premise_is_the_other_way_round() -> None:
    assert overlap_share(LONG_EXTENSION, SHORT_PREMISE, "en", HYPOTHESIS) == pytest.approx(4 / 13)
    assert overlap_share(LONG_EXTENSION, SHORT_PREMISE, "en", PREMISE) == 1.0
    assert overlap_share(LONG_EXTENSION, SHORT_PREMISE, "en", BOTH) == pytest.approx(4 / 13)


def test_both_is_over_the_limit_only_when_both_shares_are() -> None:
    # A near copy: 7 of the hypothesis's 8 words, 7 of the premise's 9.
    premise, hypothesis = (
        "The old captain stared at the dark horizon tonight.",
        ("The old captain stared at the horizon again."),
    )
    assert overlap_shares(hypothesis, premise, "en") == pytest.approx((7 / 8, 7 / 9))
    assert overlap_share(hypothesis, premise, "en", BOTH) == pytest.approx(7 / 9)
    assert 7 / 9 > 0.7
    assert overlap_share(SHORT_COPY, LONG_PREMISE, "en", BOTH) < 0.7


def test_chinese_shares_count_characters() -> None:
    # 他来了: 3 characters, all in the premise's 8 (他昨天下午来了, plus 。 which never counts).
    assert overlap_shares("他来了。", "他昨天下午来了。", "zh") == pytest.approx((3 / 3, 3 / 7))


def test_a_text_without_units_has_no_overlap() -> None:
    assert overlap_shares("...", LONG_PREMISE, "en") == (0.0, 0.0)
    assert overlap_shares(SHORT_COPY, "!", "en") == (0.0, 0.0)


@pytest.mark.parametrize(
    ("measure", "flagged"), [(HYPOTHESIS, True), (PREMISE, False), (BOTH, False)]
)
def test_the_answer_check_flags_under_the_measure_it_is_given(
    measure: OverlapMeasure, flagged: bool
) -> None:
    answer = check_answer(
        "p1", LONG_PREMISE, "en", Protocol.SINGLE, False,
        {Label.ENTAILMENT: [SHORT_COPY], Label.NEUTRAL: ["Everyone was pleased."],
         Label.CONTRADICTION: ["Nothing happened."]},
        negator_lexicon("en"), 0.7, overlap_measure=measure,
    )  # fmt: skip
    overlaps = [f for f in answer.all_findings() if f.rule is Rule.OVERLAP]
    assert bool(overlaps) is flagged
    if flagged:
        assert overlaps[0].pair_id == "p1-e1" and overlaps[0].severity is Severity.ERROR
        assert "100%" in overlaps[0].detail and "hypothesis-relative" in overlaps[0].detail


def test_the_answer_check_gives_the_finding_the_severity_it_is_given() -> None:
    answer = check_answer(
        "p1", LONG_PREMISE, "en", Protocol.SINGLE, False,
        {Label.ENTAILMENT: [SHORT_COPY], Label.NEUTRAL: ["Everyone was pleased."],
         Label.CONTRADICTION: ["Nothing happened."]},
        negator_lexicon("en"), 0.7, overlap_severity=Severity.WARNING,
    )  # fmt: skip
    (flagged,) = [p for p in answer.pairs if p.findings]
    assert [f.severity for f in flagged.findings] == [Severity.WARNING]
    assert not flagged.has_error


# --- settings: the preset, the flags, the signature --------------------------------------


def _preset_file(tmp_path: Path, elicit: str) -> Path:
    path = tmp_path / "mine.toml"
    path.write_text(f'[corpus]\nlang = "en"\n\n[elicit]\n{elicit}\n', encoding="utf-8")
    return path


def _answered_store(tmp_path: Path, preset: Path | None = None) -> tuple[Path, Path]:
    """A store (made with `preset`, if given) of one SINGLE batch of NEWS[0] and the answers
    to it: the entailment a short copy of the premise (hypothesis-relative 100%,
    premise-relative 42%)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    init = {"preset": str(preset)} if preset else {}
    corpus = premise_corpus(tmp_path / "corpus.db", {"news": NEWS[:1]}, **init)
    corpus.elicit_create(protocol="SINGLE", annotators=("w01",))
    db = corpus.path
    (premise_id,) = [row[0] for row in query(db, "SELECT id FROM premises")]
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [{"batch": "e0001", "writer": "w01", "premise_id": premise_id,
          **SINGLE, "entailment": [SHORT_COPY]}],
    )  # fmt: skip
    return db, answers


def _import(db: Path, answers: Path, **settings: Any) -> ElicitImportResult:
    return nlibuild.open(db).elicit_import(path=answers, format="jsonl", **settings)


def _subsets(db: Path, **options: Any) -> list[dict[str, Any]]:
    """The rows of `stats --table subsets` with `options`."""
    return nlibuild.open(db).stats("subsets", **options).to_dicts()


def _violations(db: Path) -> list[tuple[str, str, int]]:
    return [
        (rule, severity, kept)
        for rule, severity, kept in query(db, "SELECT rule, severity, kept FROM violations")
    ]


def test_the_shipped_presets_state_the_ocnli_rule() -> None:
    for name in ("ocnli", "mnli", "xnli"):
        cfg = settings_from_preset(ElicitImportConfig,
            parse_preset(_shipped(name), f"preset {name}"), "elicit", name,
            path=Path("a.jsonl"), format="jsonl",
        )  # fmt: skip
        assert (cfg.max_overlap, cfg.overlap_measure, cfg.overlap_severity) == (
            0.70, HYPOTHESIS, Severity.ERROR,
        )  # fmt: skip


def _shipped(name: str) -> str:
    from nlibuild.presets import load_preset_text

    return load_preset_text(name)


def test_the_preset_measure_is_read_and_a_flag_wins(tmp_path: Path) -> None:
    preset = parse_preset('[elicit]\noverlap_measure = "premise"\noverlap_severity = "warning"')
    cfg = settings_from_preset(
        ElicitImportConfig, preset, "elicit", "mine.toml", path=Path("a.jsonl"), format="jsonl"
    )
    assert (cfg.overlap_measure, cfg.overlap_severity) == (PREMISE, Severity.WARNING)
    flagged = settings_from_preset(ElicitImportConfig,
        preset, "elicit", "mine.toml", path=Path("a.jsonl"), format="jsonl",
        overlap_measure=BOTH, overlap_severity=Severity.ERROR,
    )  # fmt: skip
    assert (flagged.overlap_measure, flagged.overlap_severity) == (BOTH, Severity.ERROR)


def test_a_store_made_with_a_premise_measure_preset_imports_under_it(tmp_path: Path) -> None:
    preset = _preset_file(tmp_path, 'overlap_measure = "premise"')
    db, answers = _answered_store(tmp_path, preset)
    report = _import(db, answers)
    assert _violations(db) == []
    assert "overlap-measure:premise" in report.signature
    # The same store and answers under the default measure flag the copy.
    other, answers = _answered_store(tmp_path / "default")
    report = _import(other, answers)
    assert _violations(other) == [("overlap", "error", 1)]
    assert "overlap-measure:hypothesis|overlap-severity:error" in report.signature


def test_an_unknown_measure_in_a_preset_is_one_error_line(tmp_path: Path) -> None:
    preset = _preset_file(tmp_path, 'overlap_measure = "sideways"')
    db = tmp_path / "corpus.db"
    line = assert_user_error(
        run_cli("--db", db, "init", "--preset", preset),
        "mine.toml",
        "[elicit] overlap_measure",
        "'hypothesis', 'premise' or 'both'",
        "sideways",
    )
    assert "Traceback" not in line
    assert not db.exists()


def test_an_unknown_severity_in_a_preset_is_refused_naming_the_key(tmp_path: Path) -> None:
    preset = _preset_file(tmp_path, 'overlap_severity = "fatal"')
    with pytest.raises(NlibuildError) as raised:
        nlibuild.create(tmp_path / "corpus.db", preset=str(preset))
    for fragment in ("[elicit] overlap_severity", "'error' or 'warning'", "fatal"):
        assert fragment in str(raised.value)
    assert not (tmp_path / "corpus.db").exists()


def test_unknown_measure_and_severity_flags_are_one_error_line_each(tmp_path: Path) -> None:
    db, answers = _answered_store(tmp_path)
    fails(db, "elicit", "import", answers, "--overlap-measure", "sideways",
          says=("--overlap-measure 'sideways'", "hypothesis, premise, both"))  # fmt: skip
    fails(db, "elicit", "import", answers, "--overlap-severity", "fatal",
          says=("--overlap-severity 'fatal'", "error, warning"))  # fmt: skip
    fails(db, "stats", "--table", "subsets", "--overlap-measure", "sideways",
          says=("--overlap-measure 'sideways'",))  # fmt: skip


# --- severity: error or warning ----------------------------------------------------------


def test_as_an_error_the_copy_is_rejected_under_reject(tmp_path: Path) -> None:
    db, answers = _answered_store(tmp_path)
    report = _import(db, answers, on_violation="reject")
    assert (report.pairs_added, report.pairs_rejected) == (2, 1)
    assert _violations(db) == [("overlap", "error", 0)]
    assert query(db, "SELECT count(*) FROM pairs WHERE author_label = 'entailment'") == [(0,)]


def test_as_a_warning_the_copy_is_kept_under_reject_and_counted_as_a_warning(
    tmp_path: Path,
) -> None:
    db, answers = _answered_store(tmp_path)
    report = ok("--db", db, "elicit", "import", answers, "--on-violation", "reject",
                "--overlap-severity", "warning")  # fmt: skip
    assert "3 pairs added, 0 rejected" in report
    assert _violations(db) == [("overlap", "warning", 1)]
    # The writers' table: 0 errors, 1 warning. It is wider than the test's 80-column
    # console, so it comes folded in column groups, each repeating the writer column.
    lines = report.splitlines()
    headers = [[c.strip() for c in line.split("┃")[1:-1]] for line in lines if "┃ writer" in line]
    values = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if "w01" in line]
    assert len(headers) == len(values) >= 2, report
    cell = {
        h: v for hs, vs in zip(headers, values, strict=True) for h, v in zip(hs, vs, strict=True)
    }
    assert (cell["errors"], cell["warnings"]) == ("0", "1"), report


def test_the_preset_severity_is_the_default(tmp_path: Path) -> None:
    preset = _preset_file(tmp_path, 'overlap_severity = "warning"\non_violation = "reject"')
    db, answers = _answered_store(tmp_path, preset)
    report = _import(db, answers)
    assert (report.pairs_added, report.pairs_rejected) == (3, 0)
    assert _violations(db) == [("overlap", "warning", 1)]


# --- stats --table subsets ----------------------------------------------------------------


def test_subsets_shows_the_overlap_distribution_under_the_measure(tmp_path: Path) -> None:
    db, answers = _answered_store(tmp_path)
    _import(db, answers)
    (row,) = _subsets(db)
    # SINGLE's careful e/n/c share nothing with the premise but "The" in the copy: the
    # three hypothesis-relative shares are 1 (the copy), 0 and 0.
    shares = sorted(
        overlap_share(h, NEWS[0], "en", HYPOTHESIS)
        for (h,) in query(db, "SELECT hypothesis FROM pairs")
    )
    assert shares == [0.0, 0.0, 1.0]
    assert row["overlap_measure"] == "hypothesis"
    assert row["overlap_quartiles"] == pytest.approx([0.0, 0.0, 0.5])
    assert row["overlap_bins"] == pytest.approx([2 / 3, 0, 0, 0, 1 / 3])
    assert row["over_overlap_limit"] == pytest.approx(1 / 3)
    (premise_row,) = _subsets(db, overlap_measure="premise")
    assert premise_row["overlap_measure"] == "premise"
    assert premise_row["over_overlap_limit"] == 0
    assert premise_row["overlap_bins"] == pytest.approx([2 / 3, 0, 1 / 3, 0, 0])
    (limited,) = _subsets(db, max_overlap=0.4, overlap_measure="premise")
    assert limited["over_overlap_limit"] == pytest.approx(1 / 3)
    assert limited["overlap_bins"][2] == pytest.approx(1 / 3)  # 40-60%
    assert limited["overlap_quartiles"][1] == 0.0  # the median
    table = ok("--db", db, "stats", "--table", "subsets")
    assert "share of the hypothesis's units found in the premise" in table
    markdown = compact_table(ok("--db", db, "stats", "--table", "subsets", "--format", "md"))
    assert "| overlap q1 med q3 | histogram | over 70% overlap |" in markdown
    assert "| 0.00 0.00 0.50 | 67 0 0 0 33 | 33.3% |" in markdown


def test_subsets_reads_the_measure_and_limit_of_the_preset(tmp_path: Path) -> None:
    preset = _preset_file(tmp_path, 'overlap_measure = "premise"\nmax_overlap = 0.4')
    db, answers = _answered_store(tmp_path, preset)
    _import(db, answers)
    (row,) = _subsets(db)
    # The copy's premise-relative share, 5/12, is over 0.4 (and would not be over 0.7).
    assert (row["overlap_measure"], row["over_overlap_limit"]) == ("premise", pytest.approx(1 / 3))
    assert "share of the premise's units found in the hypothesis" in ok(
        "--db", db, "stats", "--table", "subsets"
    )


def test_subsets_of_an_empty_store_has_no_rows(db: Path) -> None:
    assert _subsets(db) == []


# --- real data ----------------------------------------------------------------------------

SNLI_DEV = FIXTURES / "snli_prefix" / "snli_1.0_dev.jsonl"


def _flagged_by_measure(db: Path) -> dict[str, dict[str, Any]]:
    rows = {}
    for measure in OverlapMeasure:
        (row,) = _subsets(db, overlap_measure=measure.value)
        rows[measure.value] = row
        print(f"{db.stem}: {measure.value}-relative: over 70% {row['over_overlap_limit']:.2%}, "
              f"quartiles {row['overlap_quartiles']}, bins {row['overlap_bins']}")  # fmt: skip
    return rows


@requires_fixtures
def test_snli_short_hypotheses_are_flagged_far_more_often_relative_to_themselves(
    tmp_path: Path,
) -> None:
    corpus = nlibuild.create(tmp_path / "snli.db")
    corpus.import_corpus(path=SNLI_DEV, format="snli")
    rows = _flagged_by_measure(corpus.path)
    hypothesis, premise, both = (rows[m.value]["over_overlap_limit"] for m in OverlapMeasure)
    # SNLI hypotheses are short sentences about a longer caption: as with OCNLI, the
    # hypothesis-relative share flags many times more pairs than the premise-relative.
    assert hypothesis > 3 * premise
    assert both <= min(hypothesis, premise)
    assert rows["hypothesis"]["overlap_quartiles"][1] > rows["premise"]["overlap_quartiles"][1]


@requires_fixtures
def test_basque_native_pairs_under_each_measure(tmp_path: Path) -> None:
    with pytest.warns(StageWarning, match="no negator lexicon for 'eu'"):
        db, report = basque_elicited_store(tmp_path)
    assert report.pairs_added == 621
    rows = _flagged_by_measure(db)
    # The import checked the default (hypothesis-relative) measure: its findings are the
    # table's pairs over the limit, less the one hypothesis that is its premise (a `copy`,
    # which is not checked for overlap too).
    flagged = query(db, "SELECT rule, count(*) FROM violations WHERE rule IN ('overlap', 'copy') "
                    "GROUP BY rule ORDER BY rule")  # fmt: skip
    assert flagged == [
        ("copy", 1),
        ("overlap", round(rows["hypothesis"]["over_overlap_limit"] * 621) - 1),
    ]
    hypothesis, premise, both = (rows[m.value]["over_overlap_limit"] for m in OverlapMeasure)
    assert hypothesis > premise >= both


def test_the_distribution_of_one_pair_and_of_none() -> None:
    one = overlap_distribution([0.8], 0.7)
    assert (one.quartiles, one.bins, one.over_limit) == ((0.8, 0.8, 0.8), [0, 0, 0, 0, 1], 1)
    # A share on a bin's lower edge is in that bin; 1.0 is in the last.
    edges = overlap_distribution([0.0, 0.2, 0.4, 1.0], 0.7)
    assert edges.bins == [0.25, 0.25, 0.25, 0, 0.25]
    assert edges.quartiles == pytest.approx((0.15, 0.3, 0.55))
    none = overlap_distribution([], 0.7)
    assert (none.quartiles, none.over_limit) == (None, None)
