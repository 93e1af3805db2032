"""`nlibuild relabel export`: the work package of relabelling batches for one platform.

One task per pair of a batch, with our IDs inside (batch, annotator, pair_id) and the two
sentences, never the author or the author's label (the validators judge blind, as SNLI's
and MNLI's did). Each batch belongs to one annotator, so a platform that cannot route a task
to chosen people (Label Studio's free edition) gets one task file per batch and annotator.
The instructions (pipelines/instructions/relabel/, English and Chinese) end with the store's
label set; Label Studio gets a labeling config and MTurk a HIT template with a one-choice
`label` over the same labels.
"""

from __future__ import annotations

from pathlib import Path

from nlibuild._version import VERSION
from nlibuild.errors import ConfigError
from nlibuild.formats.platforms import platform_for
from nlibuild.models import NLI_LABELS, RelabelExportConfig, RelabelExportResult, RelabelTask
from nlibuild.presets import INSTRUCTIONS_DIR
from nlibuild.stages.elicit_export import chosen_batches, export_signature
from nlibuild.stages.relabel_create import KIND
from nlibuild.store import Store

RELABEL_INSTRUCTIONS = INSTRUCTIONS_DIR / "relabel"


def store_labels(store: Store) -> list[str]:
    """The labels a validator may give: the three NLI labels, then the store's extra
    labels (meta `extra_labels`, from `init --extra-labels` or the preset)."""
    extra = [e for e in store.meta().get("extra_labels", "").split(",") if e]
    return [*NLI_LABELS, *(e for e in extra if e not in NLI_LABELS)]


def relabel_instructions(lang: str, labels: list[str]) -> str:
    """The validators' instructions in `lang`, closing with the labels this store offers."""
    path = RELABEL_INSTRUCTIONS / f"{lang}.md"
    if not path.is_file():
        known = sorted(p.stem for p in RELABEL_INSTRUCTIONS.glob("*.md"))
        raise ConfigError(
            f"{path}: no relabelling instructions in {lang!r}; write that file or choose one "
            f"of {', '.join(known)} with --instructions"
        )
    extra = labels[len(NLI_LABELS) :]
    closing = f"\n\n`label`: {', '.join(f'`{label}`' for label in labels)}"
    if not extra:
        closing += " (this corpus uses no extra labels)"
    return path.read_text(encoding="utf-8").strip() + closing + "\n"


def run(store: Store, cfg: RelabelExportConfig) -> RelabelExportResult:
    signature = export_signature("relabel-export", cfg.batches, cfg.all, cfg.format.value)
    with store.atomic():
        run_id = store.start_run("relabel-export", cfg.model_dump(mode="json"), signature, VERSION)
        batches = chosen_batches(store, KIND, cfg.batches, cfg.all, "relabel create")
        platform = platform_for(cfg.format)
        labels = store_labels(store)
        lang = store.meta().get("lang", "en")
        files: list[Path] = []
        tasks = 0
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
                for pair_id, pair_lang, genre, premise, hypothesis in store.relabel_items(batch.pk)
            ]
            files.append(platform.write_relabel_batch(cfg.out, batch.id, batch_tasks))
            tasks += len(batch_tasks)
        # The corpus language's instructions first: the MTurk form embeds the first.
        langs = sorted(cfg.instruction_langs, key=lambda code: (code != lang, code))
        texts = {code: relabel_instructions(code, labels) for code in langs}
        files += platform.write_relabel_support_files(cfg.out, labels, texts)
        store.finish_run(run_id, {"batches": len(batches), "tasks": tasks, "files": len(files)})
    return RelabelExportResult(
        run_id=run_id, signature=signature, batches=len(batches), tasks=tasks, files=files
    )
