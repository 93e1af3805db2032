"""The workbench (issue 19, `nlibuild serve`): its settings, and what its library gives the
pages: a writer's batches and tasks, live feedback on a draft, a validator's items.

Every result is a frozen pydantic model a template can read and a JSON response can dump
as it is. What a validator is shown (`RelabelItem`) holds nothing about a pair's author,
its intended label or other people's votes: the papers' validation was blind (MNLI and
OCNLI's validators saw the two sentences only).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, NonNegativeInt

from nlibuild.models.base import IN_PRESET, Label, Level, Protocol, _Config, lang_code_problem
from nlibuild.models.elicit import Rule

TOO_SHORT = "too_short"
"""The workbench's own rule (the protocols have no length rule): a hypothesis under
`WorkbenchConfig.least_hypothesis_chars(lang)` characters. A warning unless the preset blocks it."""


def _known_rules(rules: tuple[str, ...] | None) -> tuple[str, ...] | None:
    known = [rule.value for rule in Rule] + [TOO_SHORT]
    for rule in rules or ():
        if rule not in known:
            raise ValueError(f"{rule!r} is not a rule; choose among {', '.join(known)}")
    return rules


DEFAULT_MIN_HYPOTHESIS_CHARS: dict[str, int] = {"zh": 5, "ja": 6, "ko": 5}
"""Built-in lengths for languages whose characters carry more than a letter each: a normal
Chinese hypothesis is 6 to 7 characters (issue 26), so the 8 of space-delimited
languages warned on most of them; Japanese writes endings in kana, and
Korean puts spaces between words of Hangul syllables."""
DEFAULT_MIN_HYPOTHESIS_CHARS_ELSE = 8
"""Every other language: 8 characters, a short clause in a space-delimited language."""


def _known_length_keys(setting: int | dict[str, int] | None) -> int | dict[str, int] | None:
    for key in setting if isinstance(setting, dict) else ():
        problem = lang_code_problem(key) if key != "default" else None
        if problem is not None or key != key.lower() or "-" in key:
            raise ValueError(f"{key!r} is not a primary language code (zh, en, ...) nor `default`")
    return setting


class ModelLoop(StrEnum):
    """Whether the writing page shows a served model's prediction of each hypothesis (issue
    29, `nlibuild serve --model`): `off`; `show`, the label and probabilities beside the
    protocol's findings; `adversarial`, the same, and whether the hypothesis fooled the model
    (its label differs from the writer's), the goal of ANLI's and Dynabench's rounds. Both
    show it live, as the writer types; each check of a changed hypothesis is a try."""

    OFF = "off"
    SHOW = "show"
    ADVERSARIAL = "adversarial"


class WorkbenchConfig(_Config):
    """[workbench]: which findings block a submission, and the length under which a
    hypothesis is too short. Warnings never block unless named here."""

    preset_section = "workbench"

    blocking_rules: Annotated[tuple[str, ...] | None, AfterValidator(_known_rules), IN_PRESET] = (
        Field(
            default=None,
            description="rules whose findings refuse a submission (elicitation's rule names, "
            "too_short); unset: every rule whose severity is error",
        )
    )
    min_hypothesis_chars: Annotated[
        NonNegativeInt | dict[str, NonNegativeInt] | None,
        AfterValidator(_known_length_keys),
        IN_PRESET,
    ] = Field(
        default=None,
        description="characters (after normalising): one number for every language, or a "
        "table of languages (`zh = 5`, `default = 8` for the rest); unset: "
        + ", ".join(f"{lang} {least}" for lang, least in DEFAULT_MIN_HYPOTHESIS_CHARS.items())
        + f", else {DEFAULT_MIN_HYPOTHESIS_CHARS_ELSE}; 0: no length check",
    )
    model_loop: Annotated[ModelLoop, IN_PRESET] = Field(
        default=ModelLoop.OFF,
        description="off, show (the served model's label and probabilities beside each "
        "hypothesis) or adversarial (also whether it fooled the model); needs `serve --model`",
    )

    def least_hypothesis_chars(self, lang: str) -> int:
        """The length under which a hypothesis in `lang` is too short: the preset's number,
        its table's entry for the language (else its `default`), else the built-in one."""
        setting = self.min_hypothesis_chars
        if isinstance(setting, int):
            return setting
        primary = lang.replace("_", "-").split("-")[0].lower()
        table = setting or {}
        if primary in table:
            return table[primary]
        if "default" in table:
            return table["default"]
        return DEFAULT_MIN_HYPOTHESIS_CHARS.get(primary, DEFAULT_MIN_HYPOTHESIS_CHARS_ELSE)


class VoteUndoConfig(_Config):
    """A validator takes back their vote on a pair (the workbench's undo), as a run."""

    annotator: str
    batch: str
    pair: str
    source: str = "workbench"


class _Shown(BaseModel):
    model_config = ConfigDict(frozen=True)


class WorkBatch(_Shown):
    """One of a person's batches, with how far it got."""

    id: str
    kind: str
    protocol: Protocol | None
    lang: str
    items: int
    open: int

    @property
    def answered(self) -> int:
        return self.items - self.open


class FormSlot(_Shown):
    """One field of the writing form: the k-th hypothesis for a label (`contradiction_2`),
    with its level in the MULTI protocols (the 1st, 2nd, 3rd are easy, medium, hard)."""

    name: str
    label: Label
    label_name: str = Field(description="the label as the writer reads it ([labels.names])")
    k: int
    level: Level | None


class Draft(_Shown):
    """A writer's unsubmitted fields for one premise, as last saved."""

    fields: dict[str, str]
    unusable: bool
    updated_at: str


class StoredViolation(_Shown):
    """What the import's checks found in a submitted answer, as `violations` keeps it."""

    rule: str
    severity: str
    detail: str
    kept: bool


class StoredPair(_Shown):
    """A hypothesis the writer submitted, as stored: its pair, label, level and findings."""

    id: str
    label: Label
    level: Level | None
    hypothesis: str
    violations: list[StoredViolation]


class SubmittedAnswer(_Shown):
    """An answered premise's answer, shown read-only: the pairs it added (with their
    violations), whether it was marked unusable, and findings of no stored pair (a
    rejected pair's, the answer's own)."""

    unusable: bool
    pairs: list[StoredPair]
    other_violations: list[StoredViolation]


class WritingPremise(_Shown):
    id: str
    genre: str | None
    lang: str
    text: str
    answered: bool
    draft: Draft | None


class WritingTask(_Shown):
    """What the writing page of one batch shows."""

    batch: str
    protocol: Protocol
    lang: str
    instructions: str = Field(description="Markdown, as `elicit export` writes them")
    instructions_lang: str
    label_names: dict[str, str]
    slots: list[FormSlot]
    premises: list[WritingPremise]


class FeedbackFinding(_Shown):
    rule: str
    severity: str
    message: str
    values: dict[str, str | int | float] = Field(
        default_factory=dict,
        description="what `message` says, as values a page words in its own language: "
        "`label`, `count`, `share`, `slot` (the field a pair was typed in), ...",
    )
    blocks: bool = Field(description="whether the preset refuses a submission with it")


class NegatorMark(_Shown):
    """A negator in a field's text, [start, end) in the text as typed."""

    negator: str
    start: int
    end: int


class SharedUnit(_Shown):
    """A unit of a field's text that the premise holds too (overlap), [start, end) in the
    text as typed; `unit` is the unit as counted (case-folded)."""

    unit: str
    start: int
    end: int


class FieldFeedback(_Shown):
    slot: str
    text: str
    overlap: float | None = Field(description="share under the measure; None for no text")
    shared: list[SharedUnit] = Field(
        default_factory=list,
        description="the units counted as overlap, in the order of the text (a unit twice "
        "in the text and once in the premise is shared once: its first occurrence)",
    )
    negators: list[NegatorMark]
    negator_forbidden: bool = Field(
        description="MULTI_CONSTRAINT: another contradiction already holds the one negator "
        "allowed (OCNLI 3.2)"
    )
    negator_discouraged: bool = Field(
        description="MULTI_ENCOURAGE: contradictions without negators are asked for"
    )
    findings: list[FeedbackFinding]


class DraftFeedback(_Shown):
    """Feedback on a whole draft: per field, and on the answer as a whole."""

    overlap_measure: str
    overlap_units: str = Field(description="what overlap counts: words or characters")
    max_overlap: float
    fields: list[FieldFeedback]
    answer_findings: list[FeedbackFinding]
    blocked: bool
    empty: bool = Field(
        default=False,
        description="nothing written and not marked unusable: no findings yet (the rules of "
        "a whole answer, such as a missing label, wait for the first text), not submittable",
    )


class SubmissionResult(_Shown):
    """What a submission recorded: its run (None when it changed nothing) and findings."""

    run_id: int | None
    unchanged: bool
    pairs_added: list[str]
    violations_added: int
    findings: list[FeedbackFinding]


class LabelChoice(_Shown):
    label: str
    name: str
    key: str = Field(description="the keyboard key: 1, 2, 3, then on")


class RelabelItem(_Shown):
    """One pair as a validator sees it: the two sentences and their own vote, nothing else."""

    pair_id: str
    position: int
    lang: str
    genre: str | None
    premise: str
    hypothesis: str
    own_vote: str | None


class RelabelPage(_Shown):
    batch: str
    lang: str
    labels: list[LabelChoice]
    items: list[RelabelItem]


class VoteResult(_Shown):
    run_id: int | None
    unchanged: bool
    label: str
