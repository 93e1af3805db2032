"""The workbench (issue 19, `nlibuild serve`): its settings, and what its library gives the
pages: a writer's batches and tasks, live feedback on a draft, a validator's items.

Every result is a frozen pydantic model a template can read and a JSON response can dump
as it is. What a validator is shown (`RelabelItem`) holds nothing about a pair's author,
its intended label or other people's votes: the papers' validation was blind (MNLI and
OCNLI's validators saw the two sentences only).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from nlibuild.models.base import IN_PRESET, Label, Level, Protocol, _Config
from nlibuild.models.elicit import Rule

TOO_SHORT = "too_short"
"""The workbench's own rule (the protocols have no length rule): a hypothesis under
`WorkbenchConfig.min_hypothesis_chars` characters. A warning unless the preset blocks it."""


def _known_rules(rules: tuple[str, ...] | None) -> tuple[str, ...] | None:
    known = [rule.value for rule in Rule] + [TOO_SHORT]
    for rule in rules or ():
        if rule not in known:
            raise ValueError(f"{rule!r} is not a rule; choose among {', '.join(known)}")
    return rules


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
    min_hypothesis_chars: Annotated[int, IN_PRESET] = Field(
        default=8, ge=0, description="characters (after normalising); 0: no length check"
    )


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
    blocks: bool = Field(description="whether the preset refuses a submission with it")


class NegatorMark(_Shown):
    """A negator in a field's text, [start, end) in the text as typed."""

    negator: str
    start: int
    end: int


class FieldFeedback(_Shown):
    slot: str
    text: str
    overlap: float | None = Field(description="share under the measure; None for no text")
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
    max_overlap: float
    fields: list[FieldFeedback]
    answer_findings: list[FeedbackFinding]
    blocked: bool


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
