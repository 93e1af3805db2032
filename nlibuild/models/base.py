"""What the subject modules share: the labels and label orders, the enums and constants
several subjects use, and `_Config`, the base of every stage's settings."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


class Label(StrEnum):
    """The three NLI labels. Only these can ever be gold."""

    ENTAILMENT = "entailment"
    NEUTRAL = "neutral"
    CONTRADICTION = "contradiction"

    @property
    def initial(self) -> str:
        return self.value[0]


NO_GOLD = "-"
"""The gold label of a pair on which no label reached the required agreement."""


NLI_LABELS: tuple[str, ...] = tuple(label.value for label in Label)


class Level(StrEnum):
    """OCNLI's hypothesis levels: the 1st, 2nd and 3rd hypothesis a writer wrote for a label."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Protocol(StrEnum):
    """OCNLI's four elicitation protocols (OCNLI 3.2)."""

    SINGLE = "SINGLE"
    MULTI = "MULTI"
    MULTI_ENCOURAGE = "MULTI_ENCOURAGE"
    MULTI_CONSTRAINT = "MULTI_CONSTRAINT"


class TableFormat(StrEnum):
    TABLE = "table"
    CSV = "csv"
    JSON = "json"
    MD = "md"
    LATEX = "latex"


DEFAULT_LABEL_ORDER: tuple[Label, Label, Label] = (
    Label.ENTAILMENT,
    Label.NEUTRAL,
    Label.CONTRADICTION,
)
"""GLUE, MNLI on the HF hub and XNLI number labels e=0, n=1, c=2; CLUE's OCNLI uses n,e,c."""


def parse_label_order(text: str) -> tuple[Label, Label, Label]:
    """Parse "e,n,c" (initials or full names, any case) into an ordered triple of labels."""
    by_name = {label.value: label for label in Label} | {label.initial: label for label in Label}
    parts = [part.strip().lower() for part in text.split(",") if part.strip()]
    labels = [by_name.get(part) for part in parts]
    if len(labels) != 3 or None in labels or len(set(labels)) != 3:
        raise ValueError(
            f"label order {text!r} must name entailment, neutral and contradiction once each, "
            "e.g. 'e,n,c' (GLUE/XNLI) or 'n,e,c' (CLUE's OCNLI)"
        )
    return (labels[0], labels[1], labels[2])  # type: ignore[return-value]


def format_label_order(order: tuple[Label, ...]) -> str:
    return ",".join(label.initial for label in order)


@dataclass(frozen=True)
class PresetKey:
    """Marks a settings field that a preset may set, in the section its model names
    (`preset_section`): `n: Annotated[int, IN_PRESET] = Field(default=250, ge=1)`.

    The preset's key is the field's name, checked by the field's own type and bounds
    (`presets.py` builds each section from the marked fields), except that TOML is typed:
    a number written as a string is refused rather than coerced. `reads`, when given, takes
    the value as the preset writes it, which is as the command-line option takes it
    (`label_order = "n,e,c"`), and returns what the field takes; it passes through a value
    of another kind, for the field's own check to refuse."""

    reads: Callable[[Any], Any] | None = None


IN_PRESET = PresetKey()
"""A field a preset may set as it is (`Annotated[int, IN_PRESET]`)."""


def upper_case(value: object) -> object:
    """The commands upper-case --protocol, so a preset may write it in either case."""
    return value.upper() if isinstance(value, str) else value


def upper_case_items(value: object) -> object:
    """`protocols = ["multi", "SINGLE"]`: each upper-cased, as the commands take them."""
    return [upper_case(item) for item in value] if isinstance(value, list) else value


def lower_case_items(value: object) -> object:
    """`metrics = ["BLEU", "chrf"]`: each lower-cased, as the commands take them."""
    return (
        [item.lower() if isinstance(item, str) else item for item in value]
        if isinstance(value, list)
        else value
    )


def label_order_text(value: object) -> object:
    """`label_order = "n,e,c"`, as --label-order takes it, into the labels."""
    return parse_label_order(value) if isinstance(value, str) else value


class _Config(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    preset_section: ClassVar[str | None] = None
    """The preset section whose keys fill this model's fields marked `IN_PRESET` (a
    `PresetKey`), as defaults under the flags; None: no preset fills it. A field of a
    stage's settings that is itself a model naming the same section (`ScoreTrainConfig`'s
    `training`, a `ScoreTraining`) is filled from the same section, its keys written flat
    (`[score] epochs`, not a table of their own)."""


SEED_LIMIT = 2**32
"""Seeds are below this: scikit-learn's `random_state` (the hypothesis-only baseline) takes
no larger one, and a larger one was a traceback rather than an option error."""

Seed = Annotated[int, Field(ge=0, lt=SEED_LIMIT)]
"""A random seed, as every stage's settings take it."""


ANNOTATOR_ID_PATTERN = r"^[A-Za-z0-9][\w.@\-]*$"


# --- language codes ------------------------------------------------------------------------

LANG_CODE_MAX_LENGTH = 35
"""RFC 5646 4.4.1: the length of tag every implementation must be able to keep."""
_LANG_CODE = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*")
_LANG_CODE_CHARACTER = re.compile(r"[A-Za-z0-9-]")


def lang_code_problem(code: str) -> str | None:
    """What makes `code` no language code, or None for one: a BCP-47-like tag (RFC 5646),
    letters, digits and '-', starting with a language of 2 or 3 letters (`en`, `zh-Hant`,
    `pt-BR`, `yue`). A language names files (`data/<lang>/train.jsonl`, the instructions'
    `common.<lang>.md`), so a code can hold no '/', '.', space or other character a path
    could be made of."""
    if _LANG_CODE.fullmatch(code) and len(code) <= LANG_CODE_MAX_LENGTH:
        return None
    shown = repr(code) if len(code) <= 40 else repr(code[:40]) + "..."
    hint = "a language code is letters, digits and '-', starting with 2-3 letters (en, zh-Hant)"
    if not code:
        return f"a language code is empty; {hint}"
    stray = next((char for char in code if not _LANG_CODE_CHARACTER.fullmatch(char)), None)
    if stray == "_":
        return f"{shown} is not a language code: write {code.replace('_', '-')!r} ('-', not '_')"
    if stray is not None:
        return f"{shown} is not a language code: it holds {stray!r}; {hint}"
    if len(code) > LANG_CODE_MAX_LENGTH:
        return f"{shown} is not a language code: longer than {LANG_CODE_MAX_LENGTH} characters"
    return f"{shown} is not a language code: {_misshapen_part(code.split('-'))} (en, zh-Hant)"


def _misshapen_part(parts: list[str]) -> str:
    """Which part of a tag of letters, digits and '-' breaks the rule."""
    if not re.fullmatch(r"[A-Za-z]{2,3}", parts[0]):
        return f"it starts with {parts[0]!r}, not a language of 2-3 letters"
    if "" in parts:
        return "it has an empty part between '-'"
    longest = max(parts, key=len)
    return f"its part {longest!r} is longer than 8 characters"


def check_lang_code(code: str) -> str:
    """`code` itself when it is a language code; else a ValueError saying what is wrong."""
    problem = lang_code_problem(code)
    if problem is not None:
        raise ValueError(problem)
    return code


LangCode = Annotated[str, AfterValidator(check_lang_code)]
"""A language code, as every settings field that holds a language takes it
(`lang_code_problem` is the rule; readers check a file's per-row languages with it too)."""


DEFAULT_MAX_OVERLAP = 0.70
"""OCNLI 3.2: "no hypothesis should overlap more than 70% with the premise"."""


class OverlapMeasure(StrEnum):
    """Which share of a pair's units the overlap rule compares with its limit. Units and
    shared units are those of `overlap.overlap_units`, counted as multisets."""

    HYPOTHESIS = "hypothesis"  # shared units / the hypothesis's units
    PREMISE = "premise"  # shared units / the premise's units
    BOTH = "both"  # the smaller of the two: over the limit only when both shares are


DEFAULT_OVERLAP_MEASURE = OverlapMeasure.HYPOTHESIS
"""OCNLI 3.2 makes the hypothesis the subject: "no hypothesis should overlap more than 70%
with the premise", i.e. at most 70% of what the hypothesis says may come from the premise.
(A premise-relative share would let a short hypothesis copy a long premise's words.)"""


class OverlapUnits(StrEnum):
    """What the overlap rule counts in a language written without spaces: its characters
    one by one (as OCNLI counted, 3.2), or its words (Chinese cut by jieba). Korean, written
    with spaces between words that carry their particles, counts its words at the spaces
    either way (`text.overlap.SPACED_WITH_PARTICLES`), as do space-delimited languages;
    Japanese, Thai and Burmese have no segmenter here and count characters either way."""

    CHARACTERS = "characters"
    WORDS = "words"


DEFAULT_OVERLAP_UNITS = OverlapUnits.CHARACTERS
"""OCNLI's 70% rule was stated for characters: a Chinese hypothesis reusing the premise's
characters in new words counts as overlap, as it did for OCNLI's writers."""


class PlatformFormat(StrEnum):
    """How a work package goes out to writers and their answers come back."""

    JSONL = "jsonl"
    CSV = "csv"
    LABELSTUDIO = "labelstudio"
    MTURK = "mturk"
    TABLE = "table"
    """Answers back only: any table file, read by `--columns` (`formats/platforms/table.py`)."""


ANSWER_COLUMN_KEYS = ("batch", "premise_id", "premise", "worker", "unusable")
"""What `elicit import --format table --columns` can name, besides the hypotheses: a column
a slot (`entailment_1`), or a list a label (`entailment`)."""
VOTE_COLUMN_KEYS = ("batch", "pair_id", "worker", "label")
"""What `relabel import --format table --columns` can name."""
_HYPOTHESIS_KEY = re.compile(r"(entailment|neutral|contradiction)(_[1-9])?")


def check_platform_columns(
    fmt: PlatformFormat, columns: dict[str, str], keys: tuple[str, ...], hypotheses: bool
) -> None:
    """A ValueError for a `--columns` mapping of an elicit or relabel import that is not
    for `--format table` or names a key it does not read."""
    if columns and fmt is not PlatformFormat.TABLE:
        raise ValueError(f"--columns and --labels are for --format table, not {fmt.value}")
    for key, column in columns.items():
        if key not in keys and not (hypotheses and _HYPOTHESIS_KEY.fullmatch(key)):
            more = ", entailment_1 .. contradiction_9, entailment" if hypotheses else ""
            raise ValueError(f"--columns: no key {key!r}; the keys are {', '.join(keys)}{more}")
        if not column.strip():
            raise ValueError(f"--columns: {key} names no column; write {key}=COLUMN")
