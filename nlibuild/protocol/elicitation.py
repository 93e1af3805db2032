"""The elicitation protocols and the checks every answer goes through.

OCNLI (Hu et al. 2020, section 3.2) compared four ways of asking writers for hypotheses:
SINGLE (one hypothesis per label, as MNLI), MULTI (three per label; the 1st, 2nd and 3rd a
writer wrote for a premise and label are its easy, medium and hard level), MULTI_ENCOURAGE
(MULTI, with a bonus promised for contradictions without negators) and MULTI_CONSTRAINT
(MULTI, where at most one of the three contradictions may contain a negator). In all four,
no hypothesis may overlap more than 70% with its premise, and a writer may mark a premise
unusable (`x`) instead. How that overlap is measured (`OverlapMeasure`), its limit and its
severity are settings of `elicit import` (the preset's [elicit]), as is what Chinese counts
(`overlap_units`: characters as OCNLI did, or jieba's words; Korean counts words, as the
corpus tables do), and so is an optional rule
of no protocol of OCNLI's: a warning for an entailment that holds a negator
(`negator_in_entailment`).

`check_answer` is pure: it turns one writer's answer for one premise into pairs with their
findings. Whether a pair with an error is kept is the import's decision (--on-violation).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import orjson

from nlibuild.models import (
    DEFAULT_LABEL_ORDER,
    DEFAULT_MAX_OVERLAP,
    DEFAULT_OVERLAP_MEASURE,
    DEFAULT_OVERLAP_SEVERITY,
    DEFAULT_OVERLAP_UNITS,
    Label,
    Level,
    OverlapMeasure,
    OverlapUnits,
    Protocol,
    Rule,
)
from nlibuild.models import Severity as Severity  # re-exported: its home was here
from nlibuild.text.lang import length_unit, normalise_text
from nlibuild.text.negators import NegatorLexicon
from nlibuild.text.overlap import counts_characters, overlap_share, table_overlap_units

LABEL_ORDER: tuple[Label, ...] = DEFAULT_LABEL_ORDER
"""The order labels are asked for and reported in (MNLI's and OCNLI's forms)."""

LEVELS: tuple[Level, ...] = (Level.EASY, Level.MEDIUM, Level.HARD)


def hypotheses_per_label(protocol: Protocol) -> int:
    """SINGLE asks for one hypothesis per label; the three MULTI protocols for three."""
    return 1 if protocol is Protocol.SINGLE else 3


PROTOCOL_TAGS = {
    Protocol.SINGLE: "s",
    Protocol.MULTI: "m",
    Protocol.MULTI_ENCOURAGE: "me",
    Protocol.MULTI_CONSTRAINT: "mc",
}
"""The short tag of a protocol in the IDs of pairs from a premise's second (third, ...)
elicitation batch: OCNLI (3.2) gave the same premises to several protocols, and a premise
may be in one batch per protocol, so its pairs need IDs that differ per batch."""


def pair_id(premise_id: str, label: Label, k: int, protocol_tag: str | None = None) -> str:
    """`gov_0001-c2`: the premise, the author's label initial, the k-th hypothesis for it;
    with a protocol tag (`gov_0001-m-c2`) for the pairs of a premise's later batches."""
    if protocol_tag is None:
        return f"{premise_id}-{label.initial}{k}"
    return f"{premise_id}-{protocol_tag}-{label.initial}{k}"


def slot_name(label: Label, k: int) -> str:
    """The form field of the k-th hypothesis for a label: `contradiction_2`."""
    return f"{label.value}_{k}"


RULE_SEVERITY: dict[Rule, Severity] = {
    Rule.OVERLAP: DEFAULT_OVERLAP_SEVERITY,  # a setting: Finding.configured_severity
    Rule.NEGATOR: Severity.ERROR,
    Rule.NEGATED_ENTAILMENT: Severity.WARNING,
    Rule.COPY: Severity.ERROR,
    Rule.DUPLICATE: Severity.ERROR,
    Rule.MISSING_LABEL: Severity.ERROR,
    Rule.TOO_FEW: Severity.WARNING,
    Rule.TOO_MANY: Severity.ERROR,
    Rule.EMPTY: Severity.WARNING,
    Rule.UNUSABLE_WITH_ANSWERS: Severity.WARNING,
    Rule.NOT_IN_BATCH: Severity.ERROR,
    Rule.OTHER_WRITER: Severity.ERROR,
}


@dataclass(frozen=True)
class Finding:
    rule: Rule
    detail: str
    pair_id: str | None = None
    configured_severity: Severity | None = None  # a rule whose severity is a setting (overlap)
    values: tuple[tuple[str, str | int | float], ...] = ()
    """What `detail` says, as values a page words in its own language (the workbench's
    catalogs, nlibuild/workbench/messages.py): `label`, `count`, `share`, ..."""

    @property
    def severity(self) -> Severity:
        return self.configured_severity or RULE_SEVERITY[self.rule]


@dataclass
class CheckedPair:
    id: str
    label: Label
    k: int
    level: Level | None
    hypothesis: str
    negators: list[str]
    findings: list[Finding] = field(default_factory=list)

    @property
    def has_error(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)


@dataclass
class CheckedAnswer:
    pairs: list[CheckedPair]
    findings: list[Finding]  # about the answer as a whole (no pair to attach them to)

    @property
    def negated_contradictions(self) -> int:
        return sum(1 for p in self.pairs if p.label is Label.CONTRADICTION and p.negators)

    def all_findings(self) -> list[Finding]:
        return self.findings + [f for p in self.pairs for f in p.findings]


def answer_key(unusable: bool, hypotheses: dict[Label, list[str]]) -> str:
    """A hash of an answer's content: the same answer imported twice has the same key."""
    content = {
        "x": unusable,
        # Empty fields carry nothing: ["a"] and ["a", ""] are the same answer.
        **{
            label.value: [t for h in hypotheses.get(label, []) if (t := normalise_text(h))]
            for label in Label
        },
    }
    return hashlib.blake2b(orjson.dumps(content), digest_size=12).hexdigest()


def check_answer(
    premise_id: str,
    premise: str,
    lang: str,
    protocol: Protocol,
    unusable: bool,
    hypotheses: dict[Label, list[str]],
    lexicon: NegatorLexicon,
    max_overlap: float = DEFAULT_MAX_OVERLAP,
    protocol_tag: str | None = None,
    *,
    overlap_measure: OverlapMeasure = DEFAULT_OVERLAP_MEASURE,
    overlap_severity: Severity = DEFAULT_OVERLAP_SEVERITY,
    overlap_units: OverlapUnits = DEFAULT_OVERLAP_UNITS,
    negator_in_entailment: bool = False,
) -> CheckedAnswer:
    """The pairs one answer makes, each with what the protocol's rules found.

    `protocol_tag` goes into the pair IDs (`pair_id`): None for a premise's first batch.
    A hypothesis whose `overlap_measure` share is over `max_overlap` is an OVERLAP finding
    of `overlap_severity`, its units counted as `overlap_units` asks (characters or, for
    Chinese, jieba's words: `overlap.counts_characters`); Korean counts words either way
    (`overlap.table_overlap_units`). With `negator_in_entailment`, an
    entailment holding a negator is a NEGATED_ENTAILMENT warning.

    `hypotheses` holds, per label, the form's fields in order (empty strings for fields
    left empty). Levels follow the order of the filled fields.
    """
    # Korean counts words, as the corpus tables do (`SPACED_WITH_PARTICLES`): a finding
    # stored here and the tables' share over the limit then count the same units.
    overlap_units = table_overlap_units(lang, overlap_units)
    texts = {label: [normalise_text(h) for h in hypotheses.get(label, [])] for label in Label}
    filled = {label: [t for t in texts[label] if t] for label in Label}
    findings: list[Finding] = []
    if unusable:
        written = sum(len(v) for v in filled.values())
        if written:
            findings.append(
                Finding(
                    Rule.UNUSABLE_WITH_ANSWERS,
                    f"{premise_id} is marked x but has {written} hypotheses; they were ignored",
                    values=(("count", written),),
                )
            )
        return CheckedAnswer([], findings)

    wanted = hypotheses_per_label(protocol)
    pairs: list[CheckedPair] = []
    for label in LABEL_ORDER:
        label_texts = texts[label]
        last_filled = max((i for i, t in enumerate(label_texts) if t), default=-1)
        gaps = [i + 1 for i, t in enumerate(label_texts[: max(last_filled, 0)]) if not t]
        if gaps:
            fields = ", ".join(slot_name(label, k) for k in gaps)
            findings.append(
                Finding(
                    Rule.EMPTY,
                    f"{premise_id}: {fields} empty before a filled one",
                    values=(("label", label.value), ("numbers", ",".join(map(str, gaps)))),
                )
            )
        count = len(filled[label])
        if count == 0:
            findings.append(
                Finding(
                    Rule.MISSING_LABEL,
                    f"{premise_id}: no {label.value} written",
                    values=(("label", label.value),),
                )
            )
        elif count < wanted:
            findings.append(
                Finding(
                    Rule.TOO_FEW,
                    f"{premise_id}: {count} of {wanted} {label.value} written",
                    values=(("label", label.value), ("count", count), ("wanted", wanted)),
                )
            )
        for k, text in enumerate(filled[label], 1):
            level = LEVELS[k - 1] if protocol is not Protocol.SINGLE and k <= len(LEVELS) else None
            pair_key = pair_id(premise_id, label, k, protocol_tag)
            pair = CheckedPair(pair_key, label, k, level, text, [])
            if label is Label.CONTRADICTION or (
                negator_in_entailment and label is Label.ENTAILMENT
            ):
                pair.negators = lexicon.find(text)
            if k > wanted:
                pair.findings.append(
                    Finding(
                        Rule.TOO_MANY,
                        f"{protocol.value} asks for {wanted} {label.value} per premise; "
                        f"this is number {k}",
                        pair.id,
                        values=(("label", label.value), ("wanted", wanted)),
                    )
                )
            pairs.append(pair)

    seen: dict[str, CheckedPair] = {}
    # Named only where the setting changed what is counted, so that the default's messages
    # (and the violations stored with them) read as before.
    in_words = (
        ", in words"
        if length_unit(lang) == "chars" and not counts_characters(lang, overlap_units)
        else ""
    )
    premise = normalise_text(premise)
    folded_premise = premise.casefold()
    for pair in pairs:
        folded = pair.hypothesis.casefold()
        if folded == folded_premise:
            pair.findings.append(Finding(Rule.COPY, "the hypothesis is the premise", pair.id))
        elif folded in seen:
            pair.findings.append(
                Finding(
                    Rule.DUPLICATE,
                    f"the same text as {seen[folded].id}",
                    pair.id,
                    values=(("label", seen[folded].label.value), ("k", seen[folded].k)),
                )
            )
        else:
            share = overlap_share(pair.hypothesis, premise, lang, overlap_measure, overlap_units)
            if share > max_overlap:
                pair.findings.append(
                    Finding(
                        Rule.OVERLAP,
                        f"overlaps {share:.0%} with the premise ({overlap_measure.value}-"
                        f"relative{in_words}; limit {max_overlap:.0%})",
                        pair.id,
                        overlap_severity,
                        values=(("share", share), ("limit", max_overlap)),
                    )
                )
        seen.setdefault(folded, pair)

    if protocol is Protocol.MULTI_CONSTRAINT:
        # OCNLI 3.2: "only one out of the three contradictions can contain a negator".
        negated = [p for p in pairs if p.label is Label.CONTRADICTION and p.negators]
        for pair in negated[1:]:
            pair.findings.append(
                Finding(
                    Rule.NEGATOR,
                    f"a second contradiction with a negator ({', '.join(pair.negators)}) after "
                    f"{negated[0].id}; MULTI_CONSTRAINT allows one",
                    pair.id,
                    values=(
                        ("negators", ", ".join(pair.negators)),
                        ("label", negated[0].label.value),
                        ("k", negated[0].k),
                    ),
                )
            )
    if negator_in_entailment:
        _warn_of_negated_entailments(pairs)
    return CheckedAnswer(pairs, findings)


def _warn_of_negated_entailments(pairs: list[CheckedPair]) -> None:
    """Negators are the strongest hypothesis-only cue of contradiction (OCNLI 5, as in SNLI
    and MNLI); a protocol that wants them to tell nothing of the label may ask writers to
    keep them out of entailments as well. A warning: a negated entailment can be right."""
    for pair in pairs:
        if pair.label is Label.ENTAILMENT and pair.negators:
            pair.findings.append(
                Finding(
                    Rule.NEGATED_ENTAILMENT,
                    f"an entailment with a negator ({', '.join(pair.negators)}); this "
                    "protocol asks for entailments without one",
                    pair.id,
                    values=(("negators", ", ".join(pair.negators)),),
                )
            )
