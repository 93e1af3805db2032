"""What overlap counts (issue 26): OCNLI (3.2) counted Chinese overlap in characters, so a
hypothesis that reuses the premise's characters in words of its own is over 70%; the
preset's `[elicit] overlap_units = "words"` counts jieba's words instead. Space-delimited
languages count words either way. The units come with their places in the text as typed,
so that a page can highlight them."""

from __future__ import annotations

import pytest

from nlibuild.errors import ConfigError
from nlibuild.models import (
    ElicitImportConfig,
    Label,
    OverlapMeasure,
    OverlapUnits,
    PlatformFormat,
    Protocol,
)
from nlibuild.presets import parse_preset
from nlibuild.protocol.elicitation import check_answer
from nlibuild.text.negators import negator_lexicon
from nlibuild.text.overlap import (
    overlap_share,
    overlap_unit_spans,
    overlap_units,
    shared_unit_spans,
)

PREMISE = "市政府昨天批准了明年的公园预算。"
NEW_WORDS = "政府明天批准公园的预算。"
"""Every character is the premise's (明 and 天 from 昨天 and 明年), but 明天 is a new word."""
WORDS = OverlapUnits.WORDS


def test_chinese_overlap_counts_characters_by_default_and_jiebas_words_when_asked() -> None:
    measure = OverlapMeasure.HYPOTHESIS
    assert overlap_share(NEW_WORDS, PREMISE, "zh", measure) == 1.0
    assert overlap_units(NEW_WORDS, "zh", WORDS) == ["政府", "明天", "批准", "公园", "的", "预算"]
    assert overlap_share(NEW_WORDS, PREMISE, "zh", measure, WORDS) == pytest.approx(4 / 6)
    # Space-delimited languages count words whatever the setting.
    english = ("The council approved the budget.", "The budget was approved by the council.")
    assert overlap_share(*english, "en", measure) == overlap_share(*english, "en", measure, WORDS)


def test_the_import_rule_counts_in_the_units_it_is_given() -> None:
    hypotheses = {Label.ENTAILMENT: [NEW_WORDS], Label.NEUTRAL: ["公园很大。"],
                  Label.CONTRADICTION: ["市政府拒绝了预算。"]}  # fmt: skip
    lexicon = negator_lexicon("zh")
    by_chars = check_answer("p1", PREMISE, "zh", Protocol.SINGLE, False, hypotheses, lexicon)
    by_words = check_answer(
        "p1", PREMISE, "zh", Protocol.SINGLE, False, hypotheses, lexicon, overlap_units=WORDS
    )
    [flagged] = [f for p in by_chars.pairs for f in p.findings if p.id == "p1-e1"]
    assert flagged.rule.value == "overlap" and "(hypothesis-relative; limit 70%)" in flagged.detail
    assert not [f for p in by_words.pairs for f in p.findings if p.id == "p1-e1"]


def test_the_preset_key_takes_characters_or_words_and_nothing_else() -> None:
    def units(preset: str) -> OverlapUnits:
        section = parse_preset(preset).get("elicit", {})
        config = ElicitImportConfig(path="a.jsonl", format=PlatformFormat.JSONL, **section)
        return config.overlap_units

    assert units("") is OverlapUnits.CHARACTERS
    assert units('[elicit]\noverlap_units = "words"\n') is WORDS
    with pytest.raises(ConfigError, match="overlap_units"):
        parse_preset('[elicit]\noverlap_units = "syllables"\n')


@pytest.mark.parametrize(
    ("text", "lang", "units"),
    [
        ("Don’t  STRASSE straße, it’s 3.5 km!", "en", OverlapUnits.CHARACTERS),
        ("政府明天 批准「公园」的预算。", "zh", OverlapUnits.CHARACTERS),
        ("政府明天 批准「公园」的预算。", "zh", WORDS),
        ("시청이 어제 예산을 승인했다.", "ko", WORDS),
        ("İstanbul’da ŞEHİR", "tr", WORDS),
    ],
)
def test_unit_spans_are_the_counted_units_with_their_places(
    text: str, lang: str, units: OverlapUnits
) -> None:
    spans = overlap_unit_spans(text, lang, units)
    assert [span.unit for span in spans] == overlap_units(text, lang, units)
    for span in spans:
        # A unit is the folded text there; folding can make one character more (İ is i and
        # a combining dot, which no word holds).
        typed = text[span.start : span.end].casefold().replace("’", "'")
        assert span.unit == typed or (span.unit in typed and len(typed) > len(span.unit))


def test_a_unit_twice_in_the_hypothesis_and_once_in_the_premise_is_shared_once() -> None:
    shared = shared_unit_spans("budget, budget and more budget", "the budget passed", "en")
    assert [(s.unit, s.start, s.end) for s in shared] == [("budget", 0, 6)]
