"""`nlibuild elicit export`: the work package of elicitation batches for one platform.

For each batch a task file with our IDs inside every task (batch, writer, premise_id), and
for each protocol among them the writers' instructions (English and Chinese, from
nlibuild/resources/instructions/elicit/) and, for Label Studio and MTurk, the form the
writers fill in. The package is written whole or not at all (`tabular.write_package`).
"""

from __future__ import annotations

from pathlib import Path

from nlibuild.core.progress import progress
from nlibuild.core.registry import ELICIT_EXPORT
from nlibuild.core.stage import Stage
from nlibuild.formats.platforms import platform_for
from nlibuild.formats.tabular import write_package
from nlibuild.labelling.label_names import label_names_default
from nlibuild.models import ElicitExportConfig, ElicitExportResult, ElicitTask, Protocol
from nlibuild.presets import elicit_instructions
from nlibuild.protocol.batches import ELICIT_BATCH, chosen_batches, package_summary
from nlibuild.protocol.elicitation import hypotheses_per_label
from nlibuild.queries.batches import batch_premises
from nlibuild.store import Store


def run(store: Store, cfg: ElicitExportConfig) -> ElicitExportResult:
    with store.recorded_run(ELICIT_EXPORT, cfg) as run:
        run_id = run.id
        batches = chosen_batches(store, ELICIT_BATCH, cfg.batches, cfg.all, "elicit create")
        platform = platform_for(cfg.format)
        lang = store.meta().get("lang", "en")
        tasks = 0

        def write(folder: Path) -> list[Path]:
            # Into a staging folder: a batch that fails half-way leaves no half package.
            nonlocal tasks
            files: list[Path] = []
            protocols: dict[str, int] = {}
            for batch in batches:
                protocol = Protocol(batch.protocol or Protocol.SINGLE)
                per_label = hypotheses_per_label(protocol)
                protocols[protocol.value] = per_label
                batch_tasks = [
                    ElicitTask(
                        batch=batch.id,
                        writer=batch.annotator,
                        protocol=protocol,
                        lang=premise.lang,
                        premise_id=premise.id,
                        genre=premise.genre,
                        premise=premise.text,
                        hypotheses_per_label=per_label,
                    )
                    for premise in batch_premises(store, batch.pk)
                ]
                files.append(
                    platform.write_elicit_batch(folder, batch.id, batch_tasks, cfg.label_names)
                )
                tasks += len(batch_tasks)
                advance(1)
            # The corpus language's instructions first: the MTurk form embeds the first.
            langs = sorted(cfg.instruction_langs, key=lambda code: (code != lang, code))
            for protocol_name, per_label in sorted(protocols.items()):
                texts = {code: elicit_instructions(protocol_name, code) for code in langs}
                files += platform.write_elicit_support_files(
                    folder, protocol_name, per_label, texts, cfg.label_names
                )
            return files

        with progress("elicit export", len(batches), "batches written") as advance:
            files = write_package(cfg.out, write)
        run.finish({"batches": len(batches), "tasks": tasks, "files": len(files)})
    return ElicitExportResult(
        run_id=run_id, signature=run.signature, batches=len(batches), tasks=tasks, files=files
    )


STAGE = Stage(
    ELICIT_EXPORT,
    settings=ElicitExportConfig,
    run=run,
    summary=package_summary,
    defaults=label_names_default,
)
