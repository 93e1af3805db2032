"""`nlibuild relabel export`: the work package of relabelling batches for one platform.

One task per pair of a batch, with our IDs inside (batch, annotator, pair_id) and the two
sentences, never the author or the author's label (the validators judge blind, as SNLI's
and MNLI's did). Each batch belongs to one annotator, so a platform that cannot route a task
to chosen people (Label Studio's free edition) gets one task file per batch and annotator.
The instructions (resources/instructions/relabel/, English and Chinese) end with the store's
label set; Label Studio gets a labeling config and MTurk a HIT template with a one-choice
`label` over the same labels. The package is written whole or not at all
(`tabular.write_package`).
"""

from __future__ import annotations

from pathlib import Path

from nlibuild.core.progress import progress
from nlibuild.core.registry import RELABEL_EXPORT
from nlibuild.core.stage import Stage
from nlibuild.formats.platforms import platform_for
from nlibuild.formats.tabular import write_package
from nlibuild.labelling.label_names import LabelNames, label_names_default, shown_name
from nlibuild.models import NLI_LABELS, RelabelExportConfig, RelabelExportResult, RelabelTask
from nlibuild.presets import relabel_instructions_text
from nlibuild.protocol.batches import RELABEL_BATCH, chosen_batches, package_summary
from nlibuild.queries.batches import relabel_items
from nlibuild.queries.meta import store_labels
from nlibuild.store import Store


def relabel_instructions(lang: str, labels: list[str], names: LabelNames = ()) -> str:
    """The validators' instructions in `lang`, closing with the labels this store offers,
    each with the name the forms show for it (`entailment` (蕴含))."""
    extra = labels[len(NLI_LABELS) :]
    closing = f"\n\n`label`: {', '.join(_offered(label, names) for label in labels)}"
    if not extra:
        closing += " (this corpus uses no extra labels)"
    return relabel_instructions_text(lang).strip() + closing + "\n"


def _offered(label: str, names: LabelNames) -> str:
    shown = shown_name(label, names)
    return f"`{label}`" if shown == label else f"`{label}` ({shown})"


def run(store: Store, cfg: RelabelExportConfig) -> RelabelExportResult:
    with store.recorded_run(RELABEL_EXPORT, cfg) as run:
        run_id = run.id
        batches = chosen_batches(store, RELABEL_BATCH, cfg.batches, cfg.all, "relabel create")
        platform = platform_for(cfg.format)
        labels = store_labels(store)
        lang = store.meta().get("lang", "en")
        tasks = 0

        def write(folder: Path) -> list[Path]:
            # Into a staging folder: a batch that fails half-way leaves no half package.
            nonlocal tasks
            files: list[Path] = []
            for batch in batches:
                batch_tasks = [
                    RelabelTask(
                        batch=batch.id,
                        annotator=batch.annotator,
                        lang=pair_lang,
                        pair_id=pair_id,
                        genre=genre,
                        premise=premise,
                        hypothesis=hypothesis,
                    )
                    for pair_id, pair_lang, genre, premise, hypothesis in relabel_items(
                        store, batch.pk
                    )
                ]
                files.append(
                    platform.write_relabel_batch(folder, batch.id, batch_tasks, cfg.label_names)
                )
                tasks += len(batch_tasks)
                advance(1)
            # The corpus language's instructions first: the MTurk form embeds the first.
            langs = sorted(cfg.instruction_langs, key=lambda code: (code != lang, code))
            texts = {code: relabel_instructions(code, labels, cfg.label_names) for code in langs}
            support = platform.write_relabel_support_files(folder, labels, texts, cfg.label_names)
            return files + support

        with progress("relabel export", len(batches), "batches written") as advance:
            files = write_package(cfg.out, write)
        run.finish({"batches": len(batches), "tasks": tasks, "files": len(files)})
    return RelabelExportResult(
        run_id=run_id, signature=run.signature, batches=len(batches), tasks=tasks, files=files
    )


STAGE = Stage(
    RELABEL_EXPORT,
    settings=RelabelExportConfig,
    run=run,
    summary=package_summary,
    defaults=label_names_default,
)
