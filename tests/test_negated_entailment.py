"""An optional rule: an entailment that holds a negator (issue 26: "a negator in an
entailment is not a rule at all; some protocols want it").

OCNLI (section 5) found negators among the strongest hypothesis-only cues of contradiction;
a protocol may ask writers to keep them out of entailments too. The rule is the preset's
[elicit] `negator_in_entailment` (or `elicit import --negator-in-entailment`), off by
default; when on, such an entailment is a `negated_entailment` warning: reported, kept under
`--on-violation reject`, never blocking.
"""

from __future__ import annotations

from pathlib import Path

from conftest import ok, query, write_jsonl
from elicitation_data import NEWS
from test_elicit_platforms import premise_corpus

import nlibuild
from nlibuild.models import ElicitImportConfig, Label, Protocol, Rule
from nlibuild.presets import parse_preset, settings_from_preset
from nlibuild.protocol.elicitation import CheckedAnswer, Severity, check_answer
from nlibuild.text.negators import negator_lexicon

# NEWS[1]: "Heavy rain flooded several streets in the old town overnight."
ANSWER = {
    "entailment": ["The streets did not stay dry."],
    "neutral": ["The town hall was closed."],
    "contradiction": ["No rain fell that night."],
}


def check(
    lang: str, hypotheses: dict[str, list[str]], negator_in_entailment: bool = False
) -> CheckedAnswer:
    return check_answer(
        "p1", NEWS[1], lang, Protocol.SINGLE, False,
        {Label(label): texts for label, texts in hypotheses.items()},
        negator_lexicon(lang), negator_in_entailment=negator_in_entailment,
    )  # fmt: skip


def rules_of(answer: CheckedAnswer) -> list[tuple[str | None, Rule, Severity]]:
    return [(f.pair_id, f.rule, f.severity) for f in answer.all_findings()]


def test_off_by_default_a_negated_entailment_is_no_finding() -> None:
    assert ElicitImportConfig.model_fields["negator_in_entailment"].default is False
    assert rules_of(check("en", ANSWER)) == []


def test_when_on_a_negated_entailment_is_a_warning_naming_the_negator() -> None:
    answer = check("en", ANSWER, negator_in_entailment=True)
    assert rules_of(answer) == [("p1-e1", Rule.NEGATED_ENTAILMENT, Severity.WARNING)]
    (finding,) = answer.all_findings()
    assert "(not)" in finding.detail
    assert not any(pair.has_error for pair in answer.pairs)


def test_neutrals_and_contradictions_with_negators_are_not_its_business() -> None:
    answer = check(
        "en",
        {**ANSWER, "entailment": ["Water covered streets."], "neutral": ["Nobody was hurt."]},
        negator_in_entailment=True,
    )
    assert rules_of(answer) == []


def test_it_counts_negators_as_the_contradiction_rule_does_in_chinese() -> None:
    # 看不见 'cannot see' is a negator (a potential form); 不错 'good' is not.
    zh = {"neutral": ["城里有人。"], "contradiction": ["天气晴朗。"]}
    negated = check("zh", {**zh, "entailment": ["街上看不见路面。"]}, negator_in_entailment=True)
    assert rules_of(negated) == [("p1-e1", Rule.NEGATED_ENTAILMENT, Severity.WARNING)]
    fine = check("zh", {**zh, "entailment": ["雨下得不错。"]}, negator_in_entailment=True)
    assert rules_of(fine) == []


def test_the_preset_key_turns_it_on_and_a_flag_wins() -> None:
    preset = parse_preset("[elicit]\nnegator_in_entailment = true")
    args = {"path": Path("a.jsonl"), "format": "jsonl"}
    assert settings_from_preset(ElicitImportConfig, preset, "elicit", "m.toml", **args
                                ).negator_in_entailment  # fmt: skip
    off = settings_from_preset(
        ElicitImportConfig, preset, "elicit", "m.toml", negator_in_entailment=False, **args
    )
    assert not off.negator_in_entailment


def _answered_store(tmp_path: Path, elicit: str = "") -> tuple[Path, Path]:
    preset = tmp_path / "mine.toml"
    preset.write_text(f'[corpus]\nlang = "en"\n\n[elicit]\n{elicit}\n', encoding="utf-8")
    corpus = premise_corpus(tmp_path / "corpus.db", {"news": NEWS[1:2]}, preset=str(preset))
    corpus.elicit_create(protocol="SINGLE", annotators=("w01",))
    (premise_id,) = [row[0] for row in query(corpus.path, "SELECT id FROM premises")]
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [{"batch": "e0001", "writer": "w01", "premise_id": premise_id, **ANSWER}],
    )
    return corpus.path, answers


def _violations(db: Path) -> list[tuple[str, str, int]]:
    return [tuple(row) for row in query(db, "SELECT rule, severity, kept FROM violations")]


def test_an_import_under_the_preset_stores_the_warning_and_keeps_the_pair(
    tmp_path: Path,
) -> None:
    db, answers = _answered_store(tmp_path, 'negator_in_entailment = true\non_violation = "reject"')
    report = nlibuild.open(db).elicit_import(path=answers, format="jsonl")
    assert (report.pairs_added, report.pairs_rejected) == (3, 0)
    assert _violations(db) == [("negated_entailment", "warning", 1)]
    assert "negator-in-entailment:yes" in report.signature


def test_the_flag_turns_it_on_for_one_import(tmp_path: Path) -> None:
    db, answers = _answered_store(tmp_path)
    ok("--db", db, "elicit", "import", answers, "--negator-in-entailment")
    assert _violations(db) == [("negated_entailment", "warning", 1)]


def test_without_it_the_same_import_stores_nothing(tmp_path: Path) -> None:
    db, answers = _answered_store(tmp_path)
    report = nlibuild.open(db).elicit_import(path=answers, format="jsonl")
    assert _violations(db) == []
    assert "negator-in-entailment:no" in report.signature
