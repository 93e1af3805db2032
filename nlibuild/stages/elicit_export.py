"""`nlibuild elicit export`: the work package of elicitation batches for one platform.

For each batch a task file with our IDs inside every task (batch, writer, premise_id), and
for each protocol among them the writers' instructions (English and Chinese, from
nlibuild/resources/instructions/elicit/) and, for Label Studio and MTurk, the form the
writers fill in.
"""

from __future__ import annotations

from pathlib import Path

from nlibuild.elicitation import hypotheses_per_label
from nlibuild.errors import ConfigError
from nlibuild.formats.platforms import write_batch, write_support_files
from nlibuild.models import ElicitExportConfig, ElicitExportResult, ElicitTask, Protocol
from nlibuild.presets import elicit_instructions
from nlibuild.stages.elicit_create import KIND
from nlibuild.store import BatchRow, Store

_BATCH_NOUNS = {"elicit": "elicitation", "relabel": "relabelling"}


def chosen_batches(
    store: Store, kind: str, wanted: tuple[str, ...], everything: bool, command: str
) -> list[BatchRow]:
    """The batches of `kind` an export names (or all of them), or a ConfigError saying
    which are missing and how batches are made (`command`, e.g. `elicit create`)."""
    noun = _BATCH_NOUNS.get(kind, kind)
    if not everything and not wanted:
        raise ConfigError("name the batches to export (e.g. e0001, r0001), or pass --all")
    batches = store.batches(kind, () if everything else wanted)
    unknown = sorted(set(wanted) - {b.id for b in batches})
    if unknown and not everything:
        raise ConfigError(
            f"no {noun} batch {', '.join(unknown)} in the store; `nlibuild {command}` makes "
            "batches, `nlibuild info` counts them"
        )
    if not batches:
        raise ConfigError(f"the store has no {noun} batches; make some with `nlibuild {command}`")
    return batches


def run(store: Store, cfg: ElicitExportConfig) -> ElicitExportResult:
    with store.recorded_run("elicit-export", cfg) as run:
        run_id = run.id
        batches = chosen_batches(store, KIND, cfg.batches, cfg.all, "elicit create")
        lang = store.meta().get("lang", "en")
        files: list[Path] = []
        tasks = 0
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
                for premise in store.batch_premises(batch.pk)
            ]
            files.append(write_batch(cfg.out, cfg.format, batch.id, batch_tasks))
            tasks += len(batch_tasks)
        # The corpus language's instructions first: the MTurk form embeds the first.
        langs = sorted(cfg.instruction_langs, key=lambda code: (code != lang, code))
        for protocol_name, per_label in sorted(protocols.items()):
            texts = {code: elicit_instructions(protocol_name, code) for code in langs}
            files += write_support_files(cfg.out, cfg.format, protocol_name, per_label, texts)
        run.finish({"batches": len(batches), "tasks": tasks, "files": len(files)})
    return ElicitExportResult(
        run_id=run_id, signature=run.signature, batches=len(batches), tasks=tasks, files=files
    )
