"""The shape every annotation platform has, and the answers and votes its readers return.

A platform sends work out (one task file per batch, plus the form writers fill in, where
the platform has one) and reads what comes back: elicitation answers and relabelling
votes, still in the platform's terms (its worker IDs, labels as written). The import
stages map them to our annotators, batches, premises and pairs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nlibuild.errors import InputError
from nlibuild.formats.input_files import NUL_IN_TEXT, require_regular_file
from nlibuild.formats.tabular import write_text
from nlibuild.labelling.label_names import LabelNames
from nlibuild.labelling.labels import LabelNormaliser
from nlibuild.models import ElicitTask, Label, RelabelTask
from nlibuild.render import counted

RELABEL_FORM = "relabel"
"""The name part of the relabelling package's shared files (`labelstudio-config.relabel.xml`)."""


@dataclass
class RawAnswer:
    """One answer as the platform gave it. `worker` is the platform's ID of the writer."""

    where: str
    worker: str | None
    batch: str | None
    premise_id: str | None
    premise: str | None
    unusable: bool
    hypotheses: dict[Label, list[str]]


def left_open(empty: int) -> str:
    """How reports name the empty submissions of a file: `2 empty submissions left open`."""
    return f"{counted(empty, 'empty submission')} left open"


@dataclass
class AnswerFile:
    answers: list[RawAnswer]
    dropped: Counter[str] = field(default_factory=Counter)
    empty: int = 0
    """Submissions with nothing written and the unusable box not ticked (set by
    `Platform.read_answers`, not by the readers): not among `answers`."""


def is_empty_submission(answer: RawAnswer) -> bool:
    """Whether an answer says nothing: no hypothesis holds text and the premise is not
    marked unusable. Platforms let a writer submit a form untouched (MTurk keeps the row
    with empty Answer columns, Label Studio an annotation with no or blank text areas, a
    sheet its blank row); that is no answer, so its premise must stay open to be asked
    again rather than be closed on nothing."""
    return not answer.unusable and not any(
        text.strip() for texts in answer.hypotheses.values() for text in texts
    )


@dataclass
class RawVote:
    """One label as the platform gave it; `label` is None when the task was left unlabelled."""

    where: str
    line: int | None
    worker: str | None
    batch: str | None
    pair_id: str
    label: str | None
    seconds: float | None = None
    """The time the annotator spent on the pair, where the platform measured it."""


@dataclass
class VoteFile:
    votes: list[RawVote]
    dropped: Counter[str] = field(default_factory=Counter)


ElicitBatchWriter = Callable[[Path, str, Sequence[ElicitTask], LabelNames], Path]
"""(out folder, batch ID, tasks, the labels' names people see) -> the batch's task file."""
RelabelBatchWriter = Callable[[Path, str, Sequence[RelabelTask], LabelNames], Path]
"""(out folder, batch ID, tasks, the labels' names people see) -> the batch's task file."""
ElicitFormWriter = Callable[[Path, str, int, dict[str, str], LabelNames], Path]
"""(out folder, protocol, hypotheses per label, instructions by language, the labels' names
people see) -> the form file."""
RelabelFormWriter = Callable[[Path, Sequence[str], dict[str, str], LabelNames], Path]
"""(out folder, the labels offered, instructions by language, the labels' names people see)
-> the form file. Whatever names it shows, its answers come back as the labels."""
AnswerReader = Callable[[Path, LabelNormaliser, LabelNames], AnswerFile]
"""(file, the label reader, the labels' names people see) -> its answers: a field or label
named by a name people see is read as the label (`fields.answer_field`)."""
VoteReader = Callable[[Path, Sequence[str]], VoteFile]
"""(file, the labels the form offered) -> its votes."""


@dataclass(frozen=True)
class Platform:
    """One platform. The fields are the platform's own code (a form writer is None where
    the platform has no form) and what its answer files are; the methods are what the
    stages call, adding what every platform shares (a file with no answers is refused)."""

    answer_file_kind: str
    """What an answer file of this platform is read as, for messages ("a csv file")."""
    names_workers: bool
    """Answers name the platform's workers, so `--writer` cannot name one."""
    elicit_batch_writer: ElicitBatchWriter
    answer_reader: AnswerReader
    relabel_batch_writer: RelabelBatchWriter
    vote_reader: VoteReader
    elicit_form_writer: ElicitFormWriter | None = None
    relabel_form_writer: RelabelFormWriter | None = None

    def write_elicit_batch(
        self, out: Path, batch: str, tasks: Sequence[ElicitTask], names: LabelNames = ()
    ) -> Path:
        """The task file of one elicitation batch; returns its path."""
        return self.elicit_batch_writer(out, batch, tasks, names)

    def write_elicit_support_files(
        self,
        out: Path,
        protocol: str,
        per_label: int,
        instructions: dict[str, str],
        names: LabelNames = (),
    ) -> list[Path]:
        """Instructions (one file per language) and the platform's form for one protocol."""
        written = _write_instructions(out, protocol, instructions)
        if self.elicit_form_writer is not None:
            form = self.elicit_form_writer(out, protocol, per_label, instructions, names)
            written.append(form)
        return written

    def read_answers(
        self, path: Path, normaliser: LabelNormaliser, names: LabelNames = ()
    ) -> AnswerFile:
        """Every answer of a file this platform gave back; `names` are the names people saw
        for the labels, which the file may use for them."""
        _require_file(path)
        read = self.answer_reader(path, normaliser, names)
        # One rule for every platform, decided here rather than in each reader: an empty
        # submission is set aside and counted, so the stage never sees it as an answer.
        answers = [a for a in read.answers if not is_empty_submission(a)]
        parsed = AnswerFile(answers, read.dropped, len(read.answers) - len(answers))
        if not parsed.answers:
            raise self._no_answers(path, parsed.dropped, parsed.empty)
        # Every platform's hypotheses meet here, before any becomes a pair of the store.
        for answer in parsed.answers:
            texts = [answer.premise or "", *(t for ts in answer.hypotheses.values() for t in ts)]
            if any("\x00" in text for text in texts):
                raise InputError(path, f"{answer.where}: this answer {NUL_IN_TEXT}")
        return parsed

    def write_relabel_batch(
        self, out: Path, batch: str, tasks: Sequence[RelabelTask], names: LabelNames = ()
    ) -> Path:
        """The task file of one relabelling batch; returns its path."""
        return self.relabel_batch_writer(out, batch, tasks, names)

    def write_relabel_support_files(
        self,
        out: Path,
        labels: Sequence[str],
        instructions: dict[str, str],
        names: LabelNames = (),
    ) -> list[Path]:
        """Instructions (one file per language) and the platform's form for relabelling."""
        written = _write_instructions(out, RELABEL_FORM, instructions)
        if self.relabel_form_writer is not None:
            written.append(self.relabel_form_writer(out, labels, instructions, names))
        return written

    def read_votes(self, path: Path, labels: Sequence[str]) -> VoteFile:
        """Every vote of a file this platform gave back; `labels` are the label values the
        form offered (an MTurk radio group names its buttons after them)."""
        _require_file(path)
        parsed = self.vote_reader(path, labels)
        # A task with its label left empty is no answer: the task file sent back unfilled
        # would otherwise import as a run that added nothing.
        unlabelled = sum(1 for vote in parsed.votes if vote.label is None)
        if unlabelled == len(parsed.votes):
            dropped = parsed.dropped.copy()
            if unlabelled:
                dropped["left without a label"] += unlabelled
            raise self._no_answers(path, dropped)
        return parsed

    def _no_answers(self, path: Path, dropped: Counter[str], empty: int = 0) -> InputError:
        """The error for a file with nothing to import: an import that adds nothing and
        exits 0 would pass for one that worked, so an empty or wrong export is refused."""
        skipped = "".join(f"; {n} {reason}" for reason, n in sorted(dropped.items()))
        if empty:
            skipped += f"; {left_open(empty)}"
        return InputError(
            path,
            f"holds no answers (read as {self.answer_file_kind}{skipped}); give the file "
            "exported once the work was done",
        )


def _require_file(path: Path) -> None:
    require_regular_file(path, "answer file")


def _write_instructions(out: Path, form: str, instructions: dict[str, str]) -> list[Path]:
    written = []
    for lang, text in instructions.items():
        path = out / f"instructions.{form}.{lang}.md"
        write_text(path, text)
        written.append(path)
    return written
