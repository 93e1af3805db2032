"""`nlibuild elicit export`: the work package of elicitation batches for one platform.

For each batch a task file with our IDs inside every task (batch, writer, premise_id), and
for each protocol among them the writers' instructions (English and Chinese, from
pipelines/instructions/elicit/) and, for Label Studio and MTurk, the form the writers fill in.
"""

from __future__ import annotations

from pathlib import Path

from nlibuild._version import VERSION
from nlibuild.elicitation import hypotheses_per_label
from nlibuild.errors import ConfigError
from nlibuild.formats.platforms import platform_for
from nlibuild.models import ElicitExportConfig, ElicitExportResult, ElicitTask, Protocol
from nlibuild.presets import elicit_instructions
from nlibuild.signature import make_signature
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


def export_signature(stage: str, wanted: tuple[str, ...], everything: bool, fmt: str) -> str:
    return make_signature(
        stage, {"batches": "all" if everything else wanted, "format": fmt}, VERSION
    )


def run(store: Store, cfg: ElicitExportConfig) -> ElicitExportResult:
    signature = export_signature("elicit-export", cfg.batches, cfg.all, cfg.format.value)
    with store.atomic():
        run_id = store.start_run("elicit-export", cfg.model_dump(mode="json"), signature, VERSION)
        batches = chosen_batches(store, KIND, cfg.batches, cfg.all, "elicit create")
        platform = platform_for(cfg.format)
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
            files.append(platform.write_elicit_batch(cfg.out, batch.id, batch_tasks))
            tasks += len(batch_tasks)
        # The corpus language's instructions first: the MTurk form embeds the first.
        langs = sorted(cfg.instruction_langs, key=lambda code: (code != lang, code))
        for protocol_name, per_label in sorted(protocols.items()):
            texts = {code: elicit_instructions(protocol_name, code) for code in langs}
            files += platform.write_elicit_support_files(cfg.out, protocol_name, per_label, texts)
        store.finish_run(run_id, {"batches": len(batches), "tasks": tasks, "files": len(files)})
    return ElicitExportResult(
        run_id=run_id, signature=signature, batches=len(batches), tasks=tasks, files=files
    )
