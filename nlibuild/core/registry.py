"""Every stage of the pipeline by name: what `nlibuild --help`, a recipe's plan and the Python
API know of a stage before its module is imported.

Each `StageName` names the module that declares the stage's `Stage` (`STAGE`, or the
attribute given); `stage(name)` imports it. A test checks that the two agree, and that every
stage module's `Stage` is listed here. Code that looks runs of a stage up (`WHERE stage =
?`) passes `AGGREGATE_LABELS.name`, so that a stage's name is spelt once, here.
"""

from __future__ import annotations

import difflib
import importlib
from typing import TYPE_CHECKING, Any

from nlibuild.core.stage import StageName
from nlibuild.errors import ConfigError

if TYPE_CHECKING:
    from nlibuild.core.stage import Stage

_S = "nlibuild.stages."

INIT = StageName("init", ("init",), "Create a new, empty store.", _S + "init")
IMPORT = StageName(
    "import",
    ("import",),
    "Load an existing NLI corpus: premises, pairs, every label as a vote, the released gold.",
    _S + "import_corpus",
)
EXPORT = StageName("export", ("export",), "Write the corpus in a released format.", _S + "export")
INGEST = StageName(
    "ingest",
    ("ingest",),
    "Read source texts into the sentence pool: split, clean, measure, deduplicate.",
    _S + "ingest",
)
SAMPLE = StageName(
    "sample",
    ("sample",),
    "Move sentences from the pool into the premises, per genre, by length, seeded.",
    _S + "sample",
)
AGGREGATE_LABELS = StageName(
    "aggregate-labels",
    ("aggregate-labels",),
    "Gold labels from the votes: the NLI label with at least --min-agree of the votes and "
    "more than any other, else '-'.",
    _S + "aggregate",
)
SPLIT = StageName(
    "split",
    ("split",),
    "Dev and test from relabelled pairs with a gold label (OCNLI 3.4), the rest train.",
    _S + "split",
)
CHECK_REPAIR = StageName(
    "check-repair",
    (),
    "Rewrite the pair_labels rows that differ from the votes (`check --repair`).",
    _S + "check",
)
ELICIT_CREATE = StageName(
    "elicit-create",
    ("elicit", "create"),
    "Group unassigned premises into batches, one writer each, genres spread, load balanced.",
    _S + "elicit_create",
)
ELICIT_EXPORT = StageName(
    "elicit-export",
    ("elicit", "export"),
    "Write the work package: task files with our IDs, instructions, the platform's form.",
    _S + "elicit_export",
)
ELICIT_IMPORT = StageName(
    "elicit-import",
    ("elicit", "import"),
    "Read writers' answers, check them against their batch and protocol, add the pairs.",
    _S + "elicit_import",
)
ELICIT_REOPEN = StageName(
    "elicit-reopen",
    (),
    "Reopen a premise its writer answered, so that it can be answered again (the lead "
    "page's reopen): its pairs leave the corpus and are kept with the answer.",
    _S + "elicit_import",
    attribute="REOPEN_STAGE",
)
RELABEL_CREATE = StageName(
    "relabel-create",
    ("relabel", "create"),
    "Pick pairs not yet relabelled, stratum by stratum (or the pairs --pairs lists), and "
    "batch them out to validators.",
    _S + "relabel_create",
)
RELABEL_EXPORT = StageName(
    "relabel-export",
    ("relabel", "export"),
    "Write the work package: one task per pair with our IDs, instructions, the form.",
    _S + "relabel_export",
)
RELABEL_IMPORT = StageName(
    "relabel-import",
    ("relabel", "import"),
    "Read validators' labels, check them against their batches, add them as votes.",
    _S + "relabel_import",
)
RELABEL_UNDO = StageName(
    "relabel-undo",
    (),
    "Remove one vote of a validator's, so that it can be given again (the workbench's undo).",
    _S + "relabel_import",
    attribute="UNDO_STAGE",
)
TRANSLATE_EXPORT = StageName(
    "translate-export",
    ("translate", "export"),
    "Write one unit per row: p:<premise id> (each premise once) and h:<pair id>, with the "
    "source text and an empty text column.",
    _S + "translate",
    attribute="EXPORT_STAGE",
)
TRANSLATE_IMPORT = StageName(
    "translate-import",
    ("translate", "import"),
    "Read translations by unit ID, check coverage and each translation, store them.",
    _S + "translate",
    attribute="IMPORT_STAGE",
)
TRANSLATE_QA = StageName(
    "translate-qa",
    ("translate", "qa"),
    "Corpus BLEU and chrF (and TER) of one kind of translation against another (sacrebleu).",
    _S + "translate_qa",
)
BIAS_HYPOTHESIS_ONLY = StageName(
    "bias-hypothesis-only",
    ("bias", "hypothesis-only"),
    "Train a classifier on the hypotheses alone and report its accuracy beside the majority class.",
    _S + "artifacts",
    attribute="HYPOTHESIS_ONLY_STAGE",
)
STATS_PMI = StageName(
    "stats-pmi",
    (),
    "PMI of each word with each label (`stats --table pmi`), recorded as a run.",
    _S + "artifacts",
    attribute="PMI_STAGE",
)
STATS_CUES = StageName(
    "stats-cues",
    (),
    "Cue words of each label (`stats --table cues`), recorded as a run.",
    _S + "artifacts",
    attribute="CUES_STAGE",
)
SCORE_TRAIN = StageName(
    "score-train",
    ("score", "train"),
    "Fine-tune a local model on the train split, one job a seed, and record every "
    "checkpoint's accuracy (needs the score extra).",
    _S + "score_train",
)
SCORE_PLAN = StageName(
    "score-plan",
    ("score", "plan"),
    "Write one job folder per model x mode x configuration x seed, a launch script and "
    "plan.json, to run on GPU nodes.",
    _S + "score_plan",
)
SCORE_IMPORT = StageName(
    "score-import",
    ("score", "import"),
    "Merge the results of a plan's finished (and partly finished) jobs into the store.",
    _S + "score_import",
)
SCORE_BASELINES = StageName(
    "score-baselines",
    ("score", "baselines"),
    "Majority class, hypothesis-only bag of words and lexical overlap, on CPU, scored on "
    "every language's dev and test.",
    _S + "score_baselines",
)
SCORE_EXPORT_MODEL = StageName(
    "score-export-model",
    ("score", "export-model"),
    "Write a finished job's checkpoint (--select en-dev, target-dev or last) as a model "
    "folder for `nlibuild serve --model`.",
    _S + "score_export_model",
)

STAGES: tuple[StageName, ...] = (
    INIT,
    IMPORT,
    EXPORT,
    INGEST,
    SAMPLE,
    AGGREGATE_LABELS,
    SPLIT,
    CHECK_REPAIR,
    ELICIT_CREATE,
    ELICIT_EXPORT,
    ELICIT_IMPORT,
    ELICIT_REOPEN,
    RELABEL_CREATE,
    RELABEL_EXPORT,
    RELABEL_IMPORT,
    RELABEL_UNDO,
    TRANSLATE_EXPORT,
    TRANSLATE_IMPORT,
    TRANSLATE_QA,
    BIAS_HYPOTHESIS_ONLY,
    STATS_PMI,
    STATS_CUES,
    SCORE_TRAIN,
    SCORE_PLAN,
    SCORE_IMPORT,
    SCORE_BASELINES,
    SCORE_EXPORT_MODEL,
)
"""Every stage that runs as a recorded run, in the order of a corpus's life."""

BY_NAME = {info.name: info for info in STAGES}


def stage_name(name: str) -> StageName:
    """The registry's entry for `name`; a `ConfigError` with the nearest name otherwise."""
    info = BY_NAME.get(name)
    if info is None:
        guess = difflib.get_close_matches(name, BY_NAME, n=1)
        hint = f"; did you mean {guess[0]}?" if guess else ""
        raise ConfigError(f"unknown stage {name!r}{hint} (known: {', '.join(BY_NAME)})")
    return info


def stage(name: str | StageName) -> Stage[Any, Any]:
    """The `Stage` a stage module declares, imported on first use."""
    from nlibuild.core.stage import Stage

    info = name if isinstance(name, StageName) else stage_name(name)
    declared = getattr(importlib.import_module(info.module), info.attribute)
    assert isinstance(declared, Stage) and declared.info is info, info
    return declared
