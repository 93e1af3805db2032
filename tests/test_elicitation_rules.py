"""The rules every elicited answer is checked against (OCNLI, Hu et al. 2020, section 3.2).

OCNLI collected hypotheses under four protocols:

* SINGLE: one hypothesis per label, as MNLI.
* MULTI: three per label; the 1st, 2nd and 3rd a writer wrote for a premise and label are
  its easy, medium and hard level.
* MULTI_ENCOURAGE: MULTI, with a bonus promised for contradictions without negators (a
  wish, never a rule).
* MULTI_CONSTRAINT: MULTI, where "only one out of the three contradictions can contain a
  negator".

In all four, "no hypothesis should overlap more than 70% with the premise": overlap is the
share of the hypothesis's units also in the premise, counted as multisets, case-folded,
without punctuation or spaces; the units are characters for zh/ja/ko/th/my and words for
other languages. A writer may mark a premise unusable (`x`) instead of answering.

`check_answer` turns one answer into pairs `<premise>-<e|n|c><k>` and findings:

* errors: OVERLAP (over the limit; exactly at it passes), COPY (the premise itself),
  DUPLICATE (the same text twice for a premise, across labels too; the first stays clean),
  MISSING_LABEL (no hypothesis for a label; about the answer, not a pair), TOO_MANY (more
  than the protocol asks for), NEGATOR (MULTI_CONSTRAINT: the second and later negated
  contradiction);
* warnings: TOO_FEW (MULTI: fewer than three), EMPTY (an empty field before a filled one;
  the levels shift up), UNUSABLE_WITH_ANSWERS (`x` and hypotheses: no pairs).

Negators come from a per-language lexicon (resources/negators/<lang>.txt, extendable with
files): entries match whole words of a segmentation (`*n't` a word ending; Chinese entries
where a jieba word starts), and `!` exceptions (not only, 不过) hold a negator without
negating (tests/test_trust_negators.py has the segmentation's cases).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from nlibuild.errors import InputError
from nlibuild.models import DEFAULT_MAX_OVERLAP, Label, Level, Protocol, Rule
from nlibuild.protocol.elicitation import (
    RULE_SEVERITY,
    CheckedAnswer,
    CheckedPair,
    Finding,
    Severity,
    answer_key,
    check_answer,
)
from nlibuild.text.negators import NegatorLexicon, negator_lexicon
from nlibuild.text.overlap import overlap_ratio, overlap_units

E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION
MULTI_PROTOCOLS = (Protocol.MULTI, Protocol.MULTI_ENCOURAGE, Protocol.MULTI_CONSTRAINT)
ALL_PROTOCOLS = (Protocol.SINGLE, *MULTI_PROTOCOLS)
UNCONSTRAINED = (Protocol.SINGLE, Protocol.MULTI, Protocol.MULTI_ENCOURAGE)

EN = negator_lexicon("en")
ZH = negator_lexicon("zh")


# --- 1. overlap ----------------------------------------------------------------------------


def test_overlap_limit_is_ocnli_70_percent() -> None:
    assert DEFAULT_MAX_OVERLAP == 0.70


@pytest.mark.parametrize(
    ("hypothesis", "premise", "lang", "expected"),
    [
        # English: words.
        ("The cat is asleep.", "The cat is on the mat.", "en", 3 / 4),
        ("A dog barked.", "The cat is on the mat.", "en", 0.0),
        ("The cat is on the mat.", "The cat is on the mat.", "en", 1.0),
        ("Birds sing and cats sleep.", "Cats sleep.", "en", 2 / 5),
        # Chinese: characters.
        ("他来过了", "他昨天来了", "zh", 3 / 4),
        ("他没有来。", "他今天来了。", "zh", 1 / 2),
        ("小狗叫了。", "他昨天来了。", "zh", 1 / 4),
    ],
)
def test_overlap_is_the_share_of_hypothesis_units_in_the_premise(
    hypothesis: str, premise: str, lang: str, expected: float
) -> None:
    assert overlap_ratio(hypothesis, premise, lang) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("hypothesis", "premise", "lang", "expected"),
    [
        # "the" twice in the hypothesis, once in the premise: counts once.
        ("The dog chased the cat", "The cat slept.", "en", 2 / 5),
        ("the the the the", "the", "en", 1 / 4),
        # 人 twice in the hypothesis, once in the premise.
        ("人人都来", "人来了", "zh", 2 / 4),
        # Twice in both: both count.
        ("the dog and the cat", "the cat and the dog", "en", 1.0),
    ],
)
def test_overlap_counts_units_as_a_multiset(
    hypothesis: str, premise: str, lang: str, expected: float
) -> None:
    assert overlap_ratio(hypothesis, premise, lang) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("hypothesis", "premise", "lang"),
    [
        ("THE CAT SLEPT", "the cat slept", "en"),
        ("Straße", "STRASSE", "de"),  # case folding, not just lower-casing
        ("the cat, slept!", "the cat slept", "en"),
        ("(the)   cat -- slept?", "the cat slept.", "en"),
        ("“他来了！”", "他来了。", "zh"),
        ("他 来 了", "他来了", "zh"),
        ("ＡＢＣ他来了", "ａｂｃ他来了", "zh"),
    ],
)
def test_overlap_ignores_case_punctuation_and_spaces(
    hypothesis: str, premise: str, lang: str
) -> None:
    assert overlap_ratio(hypothesis, premise, lang) == 1.0


@pytest.mark.parametrize("lang", ["zh", "ja", "ko", "th", "my", "zh-Hant", "ZH_cn"])
def test_character_languages_count_characters(lang: str) -> None:
    assert overlap_units("猫が好き。", lang) == ["猫", "が", "好", "き"]
    assert overlap_units("ab 12", lang) == ["a", "b", "1", "2"]


@pytest.mark.parametrize("lang", ["en", "de", "fr", "eu", "en-GB"])
def test_other_languages_count_words(lang: str) -> None:
    assert overlap_units("The cat, THE dog!", lang) == ["the", "cat", "the", "dog"]
    assert overlap_units("don't stop", lang) == ["don't", "stop"]


def test_a_shared_word_inside_a_longer_word_is_not_overlap() -> None:
    assert overlap_ratio("cat", "category", "en") == 0.0


@pytest.mark.parametrize(
    ("hypothesis", "lang"), [("", "en"), ("   ", "en"), ("?! ...", "en"), ("。！？", "zh")]
)
def test_hypothesis_without_units_has_zero_overlap(hypothesis: str, lang: str) -> None:
    assert overlap_ratio(hypothesis, "the cat 他来了", lang) == 0.0


@pytest.mark.parametrize(
    ("hypothesis", "premise", "lang", "expected"),
    [
        # 7 of 10 words / characters: exactly at the limit.
        ("a b c d e f g x y z", "a b c d e f g", "en", 0.7),
        ("老桥去年维修过三次了。", "这座老桥去年春天因为维修关闭了。", "zh", 0.7),
    ],
)
def test_overlap_exactly_at_the_limit_is_exactly_seventy_percent(
    hypothesis: str, premise: str, lang: str, expected: float
) -> None:
    ratio = overlap_ratio(hypothesis, premise, lang)
    assert ratio == expected
    assert not ratio > DEFAULT_MAX_OVERLAP


def test_curly_and_straight_apostrophes_are_the_same_word_for_overlap() -> None:
    assert overlap_ratio("I don’t know", "I don't know", "en") == 1.0


# --- 2. negators ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("He did not come.", ["not"]),
        ("No bus came.", ["no"]),
        ("She never smiles.", ["never"]),
        ("Nobody knows.", ["nobody"]),
        ("Nothing happened.", ["nothing"]),
        ("None of them left.", ["none"]),
        ("Neither of them left.", ["neither"]),
        ("He can swim, nor can she.", ["nor"]),
        ("They went nowhere.", ["nowhere"]),
        ("No one came.", ["no one"]),
        ("NO ONE  came.", ["no one"]),
        ("He cannot swim.", ["cannot"]),
        ("I don't know.", ["don't"]),
        ("It isn't here.", ["isn't"]),
        ("She can't swim.", ["can't"]),
        ("She won't swim.", ["won't"]),
        ("I DON'T know.", ["don't"]),
        ("I don’t know.", ["don't"]),  # curly apostrophe
        ("It isn’t here.", ["isn't"]),
        ("I do n't know.", ["n't"]),  # tokenised as in the Penn Treebank
        ("I do n’t know.", ["n't"]),
        ('He said "no".', ["no"]),
        ("(not)", ["not"]),
    ],
)
def test_english_negators_are_found(text: str, expected: list[str]) -> None:
    assert EN.find(text) == expected
    assert EN.negated(text)


@pytest.mark.parametrize(
    "text",
    [
        "Take a note.",
        "Tie a knot.",
        "Another day.",
        "Nonetheless, it rained.",
        "Snow fell.",
        "The notion is noble.",
        "Nora knows Norway.",
        "Nevertheless he came.",
        "The nobodies were known.",
        "Donut shop.",
        "A cat sat on the mat.",
        "",
    ],
)
def test_english_negators_never_match_inside_words(text: str) -> None:
    assert EN.find(text) == []
    assert not EN.negated(text)


@pytest.mark.parametrize("text", ["Not only cats but dogs.", "NOT ONLY cats.", "not  only cats"])
def test_english_not_only_is_an_exception(text: str) -> None:
    assert EN.find(text) == []


def test_english_exception_does_not_hide_a_real_negator_elsewhere() -> None:
    assert EN.find("Not only cats, but not dogs.") == ["not"]


def test_english_negators_are_returned_in_order() -> None:
    assert EN.find("Nobody said no, and I don't think it never rains.") == [
        "nobody",
        "no",
        "don't",
        "never",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It is nobody's fault.", ["nobody"]),
        ("Nothing's changed.", ["nothing"]),
        ("No one's home.", ["no one"]),
    ],
)
def test_english_negator_with_possessive_or_contracted_s_is_found(
    text: str, expected: list[str]
) -> None:
    assert EN.find(text) == expected


@pytest.mark.parametrize("text", ["He said 'no'.", "He said ‘no’."])
def test_english_negator_in_single_quotes_is_found(text: str) -> None:
    assert EN.find(text) == ["no"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("他没有来。", ["没有"]),
        ("他没来。", ["没"]),
        ("他不来。", ["不"]),
        ("他无家可归。", ["无"]),
        ("这非我所愿。", ["非"]),
        ("他未到场。", ["未"]),
        ("别走。", ["别"]),
        ("他从不吃肉。", ["从不"]),
        ("他从未来过。", ["从未"]),
        ("这并非真的。", ["并非"]),
        ("他从不吃肉，也没钱。", ["从不", "没"]),
    ],
)
def test_chinese_negators_are_found(text: str, expected: list[str]) -> None:
    assert ZH.find(text) == expected
    assert ZH.negated(text)


@pytest.mark.parametrize(
    "text",
    [
        "不过他来了。",
        "雨不断地下。",
        "无论如何他来了。",
        "不仅他来了。",
        "别人来了。",
        "他非常高兴。",
        "未来很光明。",
        "除非下雨。",
        "他不得不走。",
        "差不多到了。",
        "他来了。",
    ],
)
def test_chinese_words_holding_a_negator_character_do_not_negate(text: str) -> None:
    assert ZH.find(text) == []
    assert not ZH.negated(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("不过他没有来", ["没有"]),
        ("他非常不高兴", ["不"]),
        ("别人没来", ["没"]),
        ("差不多没人来", ["没"]),
        ("未来不会下雨", ["不会"]),
    ],
)
def test_chinese_real_negator_next_to_an_exception_is_still_found(
    text: str, expected: list[str]
) -> None:
    assert ZH.find(text) == expected


@pytest.mark.parametrize("text", ["我不同意。", "他未来得及告别。"])
def test_chinese_negation_starting_like_an_exception_is_found(text: str) -> None:
    assert ZH.negated(text)


# --- 3. lexicon files ----------------------------------------------------------------------


def write_lexicon(tmp_path: Path, text: str, name: str = "extra.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_extra_file_adds_a_negator_to_the_built_in_list(tmp_path: Path) -> None:
    extra = write_lexicon(tmp_path, "# Scots\nnae\n")
    lexicon = negator_lexicon("en", extra_files=(extra,))
    assert lexicon.find("There's nae bother.") == ["nae"]
    assert lexicon.find("He did not come.") == ["not"]  # the built-in ones stay
    assert EN.find("There's nae bother.") == []  # the built-in lexicon is unchanged


def test_extra_file_adds_a_chinese_negator(tmp_path: Path) -> None:
    lexicon = negator_lexicon("zh", extra_files=(write_lexicon(tmp_path, "休\n"),))
    assert lexicon.find("休想离开。") == ["休"]
    assert lexicon.find("他没有来。") == ["没有"]


def test_extra_file_exception_hides_a_phrase(tmp_path: Path) -> None:
    extra = write_lexicon(tmp_path, "!no wonder\n")
    lexicon = negator_lexicon("en", extra_files=(extra,))
    assert lexicon.find("No wonder he left.") == []
    assert lexicon.find("No wonder he did not stay.") == ["not"]
    assert EN.find("No wonder he left.") == ["no"]


def test_extra_file_chinese_exception(tmp_path: Path) -> None:
    lexicon = negator_lexicon("zh", extra_files=(write_lexicon(tmp_path, "!不得了\n"),))
    assert lexicon.find("这太不得了了。") == []


def test_extra_file_word_ending(tmp_path: Path) -> None:
    extra = write_lexicon(tmp_path, "*nae\n")
    lexicon = negator_lexicon("en", extra_files=(extra,))
    assert lexicon.find("He cannae swim and didnae try.") == ["cannae", "didnae"]
    assert lexicon.find("The nae sayers.") == []  # a word ending needs a word before it


def test_entries_are_case_folded_and_comments_ignored(tmp_path: Path) -> None:
    extra = write_lexicon(tmp_path, "\n   \n# a comment\nNAE   # trailing comment\n")
    lexicon = negator_lexicon("en", extra_files=(extra,))
    assert lexicon.find("Nae bother.") == ["nae"]


@pytest.mark.parametrize("bad", ["no1", "no!", "n[o]t", "n.t", "n't?", "*", "!", "no|not"])
def test_bad_lexicon_line_is_an_input_error_naming_file_and_line(tmp_path: Path, bad: str) -> None:
    extra = write_lexicon(tmp_path, f"# extra negators\nnae\n{bad}\n")
    with pytest.raises(InputError) as caught:
        negator_lexicon("en", extra_files=(extra,))
    assert caught.value.line == 3
    assert str(extra) in str(caught.value)
    assert f"{extra}, line 3:" in str(caught.value)


@pytest.mark.parametrize("bad", ["-", "'", "--"])
def test_punctuation_only_lexicon_line_is_an_input_error(tmp_path: Path, bad: str) -> None:
    extra = write_lexicon(tmp_path, f"{bad}\n")
    with pytest.raises(InputError):
        negator_lexicon("en", extra_files=(extra,))


@pytest.mark.parametrize(("lang", "exception"), [("en", "!hello world"), ("zh", "!你好")])
def test_exception_without_a_negator_is_an_input_error(
    tmp_path: Path, lang: str, exception: str
) -> None:
    extra = write_lexicon(tmp_path, f"# exceptions\n\n{exception}\n")
    with pytest.raises(InputError) as caught:
        negator_lexicon(lang, extra_files=(extra,))
    assert f"{extra}, line 3:" in str(caught.value)


def test_exception_may_use_a_negator_from_the_same_extra_file(tmp_path: Path) -> None:
    extra = write_lexicon(tmp_path, "nae\n!nae bother\n")
    lexicon = negator_lexicon("en", extra_files=(extra,))
    assert lexicon.find("Nae bother, nae chance.") == ["nae"]


def test_language_without_built_in_lexicon_is_empty() -> None:
    lexicon = negator_lexicon("eu")
    assert isinstance(lexicon, NegatorLexicon)
    assert lexicon.empty
    assert lexicon.find("not no never ez") == []
    assert not lexicon.negated("ez")


def test_language_without_built_in_lexicon_can_be_given_one(tmp_path: Path) -> None:
    lexicon = negator_lexicon("eu", extra_files=(write_lexicon(tmp_path, "ez\n"),))
    assert not lexicon.empty
    assert lexicon.find("Ez dut nahi.") == ["ez"]


def test_built_in_lexicons_are_not_empty() -> None:
    assert not EN.empty
    assert not ZH.empty
    assert negator_lexicon("zh-Hant").find("他没有来") == ["没有"]


# --- 4. check_answer -----------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    """A premise with clean hypotheses in one language, for building answers."""

    lang: str
    premise: str
    lexicon: NegatorLexicon
    entailments: tuple[str, str, str]
    neutrals: tuple[str, str, str]
    contradictions: tuple[str, str, str]  # none negated
    negated: tuple[str, str, str]  # contradictions with a negator
    at_limit: str  # overlaps exactly 70%
    over_limit: str  # overlaps just over 70%
    negated_neutral: str

    def full(self, protocol: Protocol) -> dict[Label, list[str]]:
        """A complete answer: one hypothesis per label for SINGLE, three for MULTI*."""
        n = 1 if protocol is Protocol.SINGLE else 3
        return {
            E: list(self.entailments[:n]),
            N: list(self.neutrals[:n]),
            C: list(self.contradictions[:n]),
        }


ENGLISH = Example(
    lang="en",
    premise="The old bridge over the river was closed for repairs last spring.",
    lexicon=EN,
    entailments=(
        "A bridge was being repaired.",
        "Repairs took place on a crossing.",
        "Something spanned the water.",
    ),
    neutrals=("Engineers found cracks in it.", "The city paid for the work.", "Tourists came."),
    contradictions=(
        "Traffic crossed it all spring.",
        "The bridge had just opened.",
        "Boats sailed under a new bridge.",
    ),
    negated=("Nothing was closed.", "The bridge never shut.", "Repairs didn't happen."),
    at_limit="The old bridge was closed for repairs by city workers.",  # 7/10
    over_limit="The old bridge was closed for repairs by the city workers.",  # 8/11
    negated_neutral="Nobody drove across it.",
)

CHINESE = Example(
    lang="zh",
    premise="这座老桥去年春天因为维修关闭了。",
    lexicon=ZH,
    entailments=("桥曾经维修过。", "有人修理了一座桥。", "春天有工程。"),
    neutrals=("维修花了很多钱。", "工人们很辛苦。", "市民们抱怨交通。"),
    contradictions=("这座桥去年一直开放。", "桥是今年新建的。", "维修在秋天进行。"),
    negated=("桥没有关闭。", "去年没人维修它。", "桥从未维修。"),
    at_limit="老桥去年维修过三次了。",  # 7/10
    over_limit="这座老桥去年维修过三次。",  # 8/11
    negated_neutral="市民们不满意。",
)


@pytest.fixture(params=[ENGLISH, CHINESE], ids=["en", "zh"])
def ex(request: pytest.FixtureRequest) -> Example:
    assert isinstance(request.param, Example)
    return request.param


def check(
    ex: Example,
    protocol: Protocol,
    hypotheses: dict[Label, list[str]],
    *,
    unusable: bool = False,
    max_overlap: float = DEFAULT_MAX_OVERLAP,
) -> CheckedAnswer:
    return check_answer(
        "p1", ex.premise, ex.lang, protocol, unusable, hypotheses, ex.lexicon, max_overlap
    )


def rules_by_pair(answer: CheckedAnswer) -> dict[str, list[Rule]]:
    return {p.id: [f.rule for f in p.findings] for p in answer.pairs}


def pair(answer: CheckedAnswer, pair_id: str) -> CheckedPair:
    (found,) = [p for p in answer.pairs if p.id == pair_id]
    return found


def answer_rules(answer: CheckedAnswer) -> list[Rule]:
    return [f.rule for f in answer.findings]


def test_example_hypotheses_are_clean(ex: Example) -> None:
    """The building blocks below: under 70% overlap, distinct, negators only where meant."""
    clean = ex.entailments + ex.neutrals + ex.contradictions
    assert len(set(clean + ex.negated)) == 12
    for text in clean:
        assert overlap_ratio(text, ex.premise, ex.lang) <= 0.7, text
        assert ex.lexicon.find(text) == [], text
    for text in (*ex.negated, ex.negated_neutral):
        assert overlap_ratio(text, ex.premise, ex.lang) <= 0.7, text
        assert ex.lexicon.negated(text), text
    assert overlap_ratio(ex.at_limit, ex.premise, ex.lang) == 0.7
    assert overlap_ratio(ex.over_limit, ex.premise, ex.lang) == pytest.approx(8 / 11)


# Pair IDs and levels.


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_complete_answer_has_no_findings(ex: Example, protocol: Protocol) -> None:
    answer = check(ex, protocol, ex.full(protocol))
    assert answer.all_findings() == []
    assert not any(p.has_error for p in answer.pairs)


def test_single_gives_one_pair_per_label_without_level(ex: Example) -> None:
    answer = check(ex, Protocol.SINGLE, ex.full(Protocol.SINGLE))
    assert [(p.id, p.label, p.k, p.level) for p in answer.pairs] == [
        ("p1-e1", E, 1, None),
        ("p1-n1", N, 1, None),
        ("p1-c1", C, 1, None),
    ]
    assert [p.hypothesis for p in answer.pairs] == [
        ex.entailments[0],
        ex.neutrals[0],
        ex.contradictions[0],
    ]


@pytest.mark.parametrize("protocol", MULTI_PROTOCOLS)
def test_multi_pair_ids_and_levels_follow_the_order_written(
    ex: Example, protocol: Protocol
) -> None:
    answer = check(ex, protocol, ex.full(protocol))
    levels = [Level.EASY, Level.MEDIUM, Level.HARD]
    assert [(p.id, p.level) for p in answer.pairs] == [
        (f"p1-{initial}{k}", levels[k - 1]) for initial in "enc" for k in (1, 2, 3)
    ]
    assert [p.hypothesis for p in answer.pairs] == [
        *ex.entailments,
        *ex.neutrals,
        *ex.contradictions,
    ]


def test_pairs_are_reported_in_label_order_whatever_the_dict_order(ex: Example) -> None:
    hypotheses = ex.full(Protocol.SINGLE)
    reordered = {C: hypotheses[C], E: hypotheses[E], N: hypotheses[N]}
    answer = check(ex, Protocol.SINGLE, reordered)
    assert [p.id for p in answer.pairs] == ["p1-e1", "p1-n1", "p1-c1"]


def test_hypotheses_are_stored_with_white_space_normalised(ex: Example) -> None:
    hypotheses = ex.full(Protocol.SINGLE)
    hypotheses[E] = [f"  {ex.entailments[0]}\n"]
    answer = check(ex, Protocol.SINGLE, hypotheses)
    assert pair(answer, "p1-e1").hypothesis == ex.entailments[0]


# OVERLAP.


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_overlap_over_the_limit_is_an_error(ex: Example, protocol: Protocol) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[N][0] = ex.over_limit
    answer = check(ex, protocol, hypotheses)
    assert rules_by_pair(answer)["p1-n1"] == [Rule.OVERLAP]
    assert pair(answer, "p1-n1").has_error
    assert [p.id for p in answer.pairs if p.findings] == ["p1-n1"]
    assert "73%" in pair(answer, "p1-n1").findings[0].detail


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_overlap_exactly_at_the_limit_passes(ex: Example, protocol: Protocol) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[N][0] = ex.at_limit
    assert check(ex, protocol, hypotheses).all_findings() == []


def test_overlap_limit_can_be_changed(ex: Example) -> None:
    hypotheses = ex.full(Protocol.SINGLE)
    hypotheses[N][0] = ex.at_limit
    answer = check(ex, Protocol.SINGLE, hypotheses, max_overlap=0.5)
    assert rules_by_pair(answer)["p1-n1"] == [Rule.OVERLAP]


# COPY.


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_copy_of_the_premise_is_an_error(ex: Example, protocol: Protocol) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[E][0] = ex.premise
    answer = check(ex, protocol, hypotheses)
    assert rules_by_pair(answer)["p1-e1"] == [Rule.COPY]  # not also OVERLAP
    assert pair(answer, "p1-e1").has_error


def test_copy_ignores_case_and_white_space() -> None:
    hypotheses = ENGLISH.full(Protocol.SINGLE)
    hypotheses[C] = ["  the OLD bridge over\tthe river   was closed for repairs last SPRING. "]
    answer = check(ENGLISH, Protocol.SINGLE, hypotheses)
    assert rules_by_pair(answer)["p1-c1"] == [Rule.COPY]


def test_premise_with_other_punctuation_is_overlap_not_copy(ex: Example) -> None:
    hypotheses = ex.full(Protocol.SINGLE)
    hypotheses[E] = [ex.premise.rstrip(".。") + "!"]
    answer = check(ex, Protocol.SINGLE, hypotheses)
    assert rules_by_pair(answer)["p1-e1"] == [Rule.OVERLAP]


# DUPLICATE.


@pytest.mark.parametrize("protocol", MULTI_PROTOCOLS)
def test_same_hypothesis_twice_for_a_label_is_a_duplicate(ex: Example, protocol: Protocol) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[N][2] = hypotheses[N][0]
    answer = check(ex, protocol, hypotheses)
    assert rules_by_pair(answer)["p1-n1"] == []
    assert rules_by_pair(answer)["p1-n3"] == [Rule.DUPLICATE]
    assert "p1-n1" in pair(answer, "p1-n3").findings[0].detail
    assert pair(answer, "p1-n3").has_error


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_same_hypothesis_under_two_labels_is_a_duplicate(ex: Example, protocol: Protocol) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[C][0] = hypotheses[E][0]
    answer = check(ex, protocol, hypotheses)
    assert rules_by_pair(answer)["p1-e1"] == []
    assert rules_by_pair(answer)["p1-c1"] == [Rule.DUPLICATE]
    assert "p1-e1" in pair(answer, "p1-c1").findings[0].detail


def test_duplicate_ignores_case_and_white_space() -> None:
    hypotheses = ENGLISH.full(Protocol.SINGLE)
    hypotheses[N] = ["  a BRIDGE  was being repaired. "]
    answer = check(ENGLISH, Protocol.SINGLE, hypotheses)
    assert rules_by_pair(answer) == {
        "p1-e1": [],
        "p1-n1": [Rule.DUPLICATE],
        "p1-c1": [],
    }


def test_every_repeat_is_a_duplicate_of_the_first(ex: Example) -> None:
    text = ex.entailments[0]
    answer = check(ex, Protocol.MULTI, {E: [text, text, text], N: [text], C: [text]})
    assert rules_by_pair(answer) == {
        "p1-e1": [],
        "p1-e2": [Rule.DUPLICATE],
        "p1-e3": [Rule.DUPLICATE],
        "p1-n1": [Rule.DUPLICATE],
        "p1-c1": [Rule.DUPLICATE],
    }
    assert all("p1-e1" in f.detail for p in answer.pairs for f in p.findings)


# MISSING_LABEL.


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
@pytest.mark.parametrize("missing", [E, N, C])
@pytest.mark.parametrize("how", ["absent", "no fields", "one empty field"])
def test_no_hypothesis_for_a_label_is_an_answer_level_error(
    ex: Example, protocol: Protocol, missing: Label, how: str
) -> None:
    hypotheses = ex.full(protocol)
    if how == "absent":
        del hypotheses[missing]
    elif how == "no fields":
        hypotheses[missing] = []
    else:
        hypotheses[missing] = [" "]
    answer = check(ex, protocol, hypotheses)
    assert answer_rules(answer) == [Rule.MISSING_LABEL]
    finding = answer.findings[0]
    assert finding.pair_id is None
    assert finding.severity is Severity.ERROR
    assert missing.value in finding.detail
    assert all(p.label is not missing for p in answer.pairs)
    assert all(not p.findings for p in answer.pairs)


def test_label_with_all_three_fields_empty_is_only_missing(ex: Example) -> None:
    hypotheses = ex.full(Protocol.MULTI)
    hypotheses[N] = ["", "  ", ""]
    answer = check(ex, Protocol.MULTI, hypotheses)
    assert answer_rules(answer) == [Rule.MISSING_LABEL]


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_empty_answer_misses_every_label(ex: Example, protocol: Protocol) -> None:
    answer = check(ex, protocol, {})
    assert answer.pairs == []
    assert answer_rules(answer) == [Rule.MISSING_LABEL] * 3


# TOO_FEW.


@pytest.mark.parametrize("protocol", MULTI_PROTOCOLS)
def test_multi_with_two_of_three_is_a_warning(ex: Example, protocol: Protocol) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[C] = hypotheses[C][:2]
    answer = check(ex, protocol, hypotheses)
    assert answer_rules(answer) == [Rule.TOO_FEW]
    assert answer.findings[0].severity is Severity.WARNING
    assert answer.findings[0].pair_id is None
    assert [p.id for p in answer.pairs if p.label is C] == ["p1-c1", "p1-c2"]
    assert not any(p.has_error for p in answer.pairs)


@pytest.mark.parametrize("protocol", MULTI_PROTOCOLS)
def test_multi_with_one_of_three_is_a_warning(ex: Example, protocol: Protocol) -> None:
    answer = check(ex, protocol, ex.full(Protocol.SINGLE))
    assert answer_rules(answer) == [Rule.TOO_FEW] * 3
    assert [p.level for p in answer.pairs] == [Level.EASY] * 3


def test_single_with_one_per_label_is_never_too_few(ex: Example) -> None:
    answer = check(ex, Protocol.SINGLE, ex.full(Protocol.SINGLE))
    assert Rule.TOO_FEW not in answer_rules(answer)


# TOO_MANY.


def test_single_with_two_entailments_flags_the_second(ex: Example) -> None:
    hypotheses = ex.full(Protocol.SINGLE)
    hypotheses[E] = list(ex.entailments[:2])
    answer = check(ex, Protocol.SINGLE, hypotheses)
    assert rules_by_pair(answer) == {
        "p1-e1": [],
        "p1-e2": [Rule.TOO_MANY],
        "p1-n1": [],
        "p1-c1": [],
    }
    assert pair(answer, "p1-e2").level is None
    assert pair(answer, "p1-e2").has_error
    assert answer.findings == []


@pytest.mark.parametrize("protocol", MULTI_PROTOCOLS)
def test_multi_with_four_flags_the_fourth(ex: Example, protocol: Protocol) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[N] = [*ex.neutrals, ex.negated_neutral]
    answer = check(ex, protocol, hypotheses)
    assert [p.id for p in answer.pairs if p.findings] == ["p1-n4"]
    assert rules_by_pair(answer)["p1-n4"] == [Rule.TOO_MANY]
    assert pair(answer, "p1-n4").level is None
    assert answer.findings == []


# EMPTY.


@pytest.mark.parametrize("protocol", MULTI_PROTOCOLS)
def test_empty_field_before_a_filled_one_warns_and_shifts_levels(
    ex: Example, protocol: Protocol
) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[E] = ["", ex.entailments[0], ex.entailments[1]]
    answer = check(ex, protocol, hypotheses)
    assert answer_rules(answer) == [Rule.EMPTY, Rule.TOO_FEW]
    empty = answer.findings[0]
    assert empty.severity is Severity.WARNING
    assert "entailment_1" in empty.detail
    entailments = [p for p in answer.pairs if p.label is E]
    assert [(p.id, p.level, p.hypothesis) for p in entailments] == [
        ("p1-e1", Level.EASY, ex.entailments[0]),
        ("p1-e2", Level.MEDIUM, ex.entailments[1]),
    ]
    assert not any(p.has_error for p in answer.pairs)


@pytest.mark.parametrize("protocol", MULTI_PROTOCOLS)
def test_empty_middle_field_is_named(ex: Example, protocol: Protocol) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[C] = [ex.contradictions[0], "   ", ex.contradictions[2]]
    answer = check(ex, protocol, hypotheses)
    assert answer_rules(answer) == [Rule.EMPTY, Rule.TOO_FEW]
    assert "contradiction_2" in answer.findings[0].detail
    assert "contradiction_1" not in answer.findings[0].detail
    assert pair(answer, "p1-c2").hypothesis == ex.contradictions[2]
    assert pair(answer, "p1-c2").level is Level.MEDIUM


def test_single_with_an_empty_field_first_warns(ex: Example) -> None:
    hypotheses = ex.full(Protocol.SINGLE)
    hypotheses[N] = ["", ex.neutrals[0]]
    answer = check(ex, Protocol.SINGLE, hypotheses)
    assert answer_rules(answer) == [Rule.EMPTY]
    assert pair(answer, "p1-n1").hypothesis == ex.neutrals[0]
    assert pair(answer, "p1-n1").level is None


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_empty_fields_after_the_last_filled_one_are_not_empty_findings(
    ex: Example, protocol: Protocol
) -> None:
    hypotheses = {label: [*texts, "", ""] for label, texts in ex.full(protocol).items()}
    answer = check(ex, protocol, hypotheses)
    assert answer.all_findings() == []


# UNUSABLE (x).


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_unusable_with_answers_gives_no_pairs_and_a_warning(
    ex: Example, protocol: Protocol
) -> None:
    answer = check(ex, protocol, ex.full(protocol), unusable=True)
    assert answer.pairs == []
    assert answer_rules(answer) == [Rule.UNUSABLE_WITH_ANSWERS]
    assert answer.findings[0].severity is Severity.WARNING
    assert answer.findings[0].pair_id is None


def test_unusable_with_even_a_rule_breaking_answer_only_warns(ex: Example) -> None:
    hypotheses = {E: [ex.premise, ex.premise], C: list(ex.negated)}
    answer = check(ex, Protocol.MULTI_CONSTRAINT, hypotheses, unusable=True)
    assert answer.pairs == []
    assert answer_rules(answer) == [Rule.UNUSABLE_WITH_ANSWERS]


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
@pytest.mark.parametrize(
    "hypotheses", [{}, {E: [], N: [], C: []}, {E: ["", " "], N: [""], C: ["\n"]}]
)
def test_unusable_with_nothing_written_gives_nothing(
    ex: Example, protocol: Protocol, hypotheses: dict[Label, list[str]]
) -> None:
    answer = check(ex, protocol, hypotheses, unusable=True)
    assert answer.pairs == []
    assert answer.findings == []
    assert answer.negated_contradictions == 0


# NEGATOR (MULTI_CONSTRAINT).


def test_constraint_flags_the_second_negated_contradiction_not_the_first(ex: Example) -> None:
    hypotheses = ex.full(Protocol.MULTI_CONSTRAINT)
    hypotheses[C] = [ex.negated[0], ex.negated[1], ex.contradictions[2]]
    answer = check(ex, Protocol.MULTI_CONSTRAINT, hypotheses)
    assert rules_by_pair(answer)["p1-c1"] == []
    assert rules_by_pair(answer)["p1-c2"] == [Rule.NEGATOR]
    assert rules_by_pair(answer)["p1-c3"] == []
    assert pair(answer, "p1-c2").has_error
    assert "p1-c1" in pair(answer, "p1-c2").findings[0].detail
    assert answer.findings == []


def test_constraint_flags_the_second_and_third_of_three(ex: Example) -> None:
    hypotheses = ex.full(Protocol.MULTI_CONSTRAINT)
    hypotheses[C] = list(ex.negated)
    answer = check(ex, Protocol.MULTI_CONSTRAINT, hypotheses)
    assert {pid: rules for pid, rules in rules_by_pair(answer).items() if rules} == {
        "p1-c2": [Rule.NEGATOR],
        "p1-c3": [Rule.NEGATOR],
    }
    assert answer.negated_contradictions == 3


def test_constraint_finding_names_the_negator(ex: Example) -> None:
    hypotheses = ex.full(Protocol.MULTI_CONSTRAINT)
    hypotheses[C] = [ex.contradictions[0], ex.negated[0], ex.negated[1]]
    answer = check(ex, Protocol.MULTI_CONSTRAINT, hypotheses)
    (finding,) = pair(answer, "p1-c3").findings
    assert finding.rule is Rule.NEGATOR
    assert finding.pair_id == "p1-c3"
    assert ex.lexicon.find(ex.negated[1])[0] in finding.detail
    assert "p1-c2" in finding.detail


@pytest.mark.parametrize("position", [0, 1, 2])
def test_constraint_allows_one_negated_contradiction(ex: Example, position: int) -> None:
    hypotheses = ex.full(Protocol.MULTI_CONSTRAINT)
    hypotheses[C][position] = ex.negated[position]
    answer = check(ex, Protocol.MULTI_CONSTRAINT, hypotheses)
    assert answer.all_findings() == []
    assert answer.negated_contradictions == 1


def test_constraint_ignores_negators_in_entailments_and_neutrals(ex: Example) -> None:
    hypotheses = ex.full(Protocol.MULTI_CONSTRAINT)
    hypotheses[E][0] = ex.negated[1]  # a negated sentence written as an entailment
    hypotheses[N][1] = ex.negated_neutral
    hypotheses[C][2] = ex.negated[0]
    answer = check(ex, Protocol.MULTI_CONSTRAINT, hypotheses)
    assert answer.all_findings() == []
    assert answer.negated_contradictions == 1
    assert pair(answer, "p1-e1").negators == []
    assert pair(answer, "p1-n2").negators == []
    assert pair(answer, "p1-c3").negators == ex.lexicon.find(ex.negated[0])


def test_exception_words_do_not_count_as_negated_contradictions() -> None:
    hypotheses = CHINESE.full(Protocol.MULTI_CONSTRAINT)
    hypotheses[C] = ["桥没有关闭。", "不过桥在秋天开放。", "未来桥会重建。"]
    answer = check(CHINESE, Protocol.MULTI_CONSTRAINT, hypotheses)
    assert answer.all_findings() == []
    assert answer.negated_contradictions == 1


@pytest.mark.parametrize("protocol", UNCONSTRAINED)
def test_other_protocols_never_flag_negators(ex: Example, protocol: Protocol) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[C] = list(ex.negated[: len(hypotheses[C])])
    answer = check(ex, protocol, hypotheses)
    assert answer.all_findings() == []


def test_single_with_two_negated_contradictions_is_too_many_not_negator(ex: Example) -> None:
    hypotheses = ex.full(Protocol.SINGLE)
    hypotheses[C] = list(ex.negated[:2])
    answer = check(ex, Protocol.SINGLE, hypotheses)
    assert rules_by_pair(answer)["p1-c2"] == [Rule.TOO_MANY]
    assert answer.negated_contradictions == 2


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_negated_contradictions_are_counted_in_every_protocol(
    ex: Example, protocol: Protocol
) -> None:
    hypotheses = ex.full(protocol)
    hypotheses[C] = list(ex.negated[: len(hypotheses[C])])
    hypotheses[N][0] = ex.negated_neutral
    answer = check(ex, protocol, hypotheses)
    assert answer.negated_contradictions == len(hypotheses[C])
    for p in answer.pairs:
        if p.label is C:
            assert p.negators == ex.lexicon.find(p.hypothesis) != []
        else:
            assert p.negators == []


def test_negators_are_recorded_on_the_pair_in_order() -> None:
    hypotheses = ENGLISH.full(Protocol.MULTI)
    hypotheses[C][0] = "Nobody said it was not open."
    answer = check(ENGLISH, Protocol.MULTI, hypotheses)
    assert pair(answer, "p1-c1").negators == ["nobody", "not"]


def test_empty_lexicon_finds_no_negated_contradictions(ex: Example) -> None:
    hypotheses = ex.full(Protocol.MULTI_CONSTRAINT)
    hypotheses[C] = list(ex.negated)
    answer = check_answer(
        "p1",
        ex.premise,
        ex.lang,
        Protocol.MULTI_CONSTRAINT,
        False,
        hypotheses,
        negator_lexicon("eu"),
    )
    assert answer.all_findings() == []
    assert answer.negated_contradictions == 0


# Several rules at once.


def test_findings_are_collected_per_pair_and_per_answer(ex: Example) -> None:
    hypotheses = {
        E: ["", ex.premise, ex.over_limit],
        C: [ex.negated[0], ex.negated[1], ex.premise, ex.contradictions[0]],
    }
    answer = check(ex, Protocol.MULTI_CONSTRAINT, hypotheses)
    assert answer_rules(answer) == [Rule.EMPTY, Rule.TOO_FEW, Rule.MISSING_LABEL]
    assert rules_by_pair(answer) == {
        "p1-e1": [Rule.COPY],
        "p1-e2": [Rule.OVERLAP],
        "p1-c1": [],
        "p1-c2": [Rule.NEGATOR],
        "p1-c3": [Rule.COPY],
        "p1-c4": [Rule.TOO_MANY],
    }
    assert len(answer.all_findings()) == 8
    assert answer.all_findings()[:3] == answer.findings
    assert all(f.pair_id for f in answer.all_findings()[3:])


# Severity.


def test_every_rule_has_a_severity() -> None:
    assert set(RULE_SEVERITY) == set(Rule)


def test_only_too_few_empty_unusable_and_negated_entailment_are_warnings() -> None:
    # NEGATED_ENTAILMENT is an optional rule of no OCNLI protocol (test_negated_entailment).
    warnings = {rule for rule, severity in RULE_SEVERITY.items() if severity is Severity.WARNING}
    assert warnings == {
        Rule.TOO_FEW, Rule.EMPTY, Rule.UNUSABLE_WITH_ANSWERS, Rule.NEGATED_ENTAILMENT
    }  # fmt: skip


@pytest.mark.parametrize("rule", list(Rule))
def test_finding_severity_comes_from_its_rule(rule: Rule) -> None:
    assert Finding(rule, "detail").severity is RULE_SEVERITY[rule]


@pytest.mark.parametrize("rule", list(Rule))
def test_pair_has_error_only_for_error_findings(rule: Rule) -> None:
    checked = CheckedPair("p1-e1", E, 1, Level.EASY, "text", [], [Finding(rule, "d", "p1-e1")])
    assert checked.has_error is (RULE_SEVERITY[rule] is Severity.ERROR)


def test_pair_without_findings_has_no_error() -> None:
    assert not CheckedPair("p1-e1", E, 1, None, "text", []).has_error


def test_pair_with_a_warning_and_an_error_has_an_error() -> None:
    findings = [Finding(Rule.TOO_FEW, "w"), Finding(Rule.OVERLAP, "e")]
    assert CheckedPair("p1-e1", E, 1, None, "text", [], findings).has_error


# answer_key.


def test_answer_key_ignores_white_space() -> None:
    a = {E: ["A bridge was repaired."], N: ["Tourists came."], C: ["It opened."]}
    b = {E: ["  A bridge  was\nrepaired. "], N: ["Tourists\tcame."], C: ["It opened.  "]}
    assert answer_key(False, a) == answer_key(False, b)
    assert answer_key(True, a) == answer_key(True, b)


def test_answer_key_ignores_the_order_of_the_dict() -> None:
    a = {E: ["a"], N: ["b"], C: ["c"]}
    assert answer_key(False, a) == answer_key(False, {C: ["c"], N: ["b"], E: ["a"]})


def test_answer_key_for_a_missing_label_equals_an_empty_list() -> None:
    assert answer_key(True, {}) == answer_key(True, {E: [], N: [], C: []})


@pytest.mark.parametrize(
    "changed",
    [
        {E: ["A bridge was mended."], N: ["Tourists came."], C: ["It opened."]},
        {E: ["A bridge was repaired."], N: ["Tourists came."], C: ["It closed."]},
        {E: ["It opened."], N: ["Tourists came."], C: ["A bridge was repaired."]},
        {E: ["A bridge was repaired.", "More."], N: ["Tourists came."], C: ["It opened."]},
        {E: ["A bridge was repaired."], N: [], C: ["It opened."]},
        {E: ["a bridge was repaired."], N: ["Tourists came."], C: ["It opened."]},
    ],
    ids=["entailment", "contradiction", "labels-swapped", "one-more", "one-less", "case"],
)
def test_answer_key_changes_with_a_hypothesis(changed: dict[Label, list[str]]) -> None:
    original = {E: ["A bridge was repaired."], N: ["Tourists came."], C: ["It opened."]}
    assert answer_key(False, original) != answer_key(False, changed)


def test_answer_key_changes_with_the_unusable_flag() -> None:
    hypotheses = {E: ["A bridge was repaired."], N: ["Tourists came."], C: ["It opened."]}
    assert answer_key(False, hypotheses) != answer_key(True, hypotheses)
    assert answer_key(False, {}) != answer_key(True, {})


def test_answer_key_is_a_short_stable_hex_string() -> None:
    key = answer_key(False, {E: ["a"]})
    assert key == answer_key(False, {E: ["a"]})
    assert len(key) == 24
    int(key, 16)


def test_answer_key_ignores_fields_left_empty() -> None:
    # A form with a third field left empty and a sheet without the column are one answer.
    written = {E: ["A bridge was repaired."], N: ["Tourists came."], C: ["It opened."]}
    with_blanks = {
        E: ["A bridge was repaired.", "", ""],
        N: ["Tourists came.", ""],
        C: ["It opened."],
    }
    assert answer_key(False, written) == answer_key(False, with_blanks)
