"""Batches: the unit of work one annotator gets, and choosing them for an export.

Elicitation batches (`e0001`, ...) hold premises for one writer; relabelling batches
(`r0001`, ...) hold pairs for one validator. Both kinds live in the same tables, told apart
by their kind.
"""

from __future__ import annotations

from nlibuild.errors import ConfigError
from nlibuild.models import ElicitExportConfig, ElicitExportResult
from nlibuild.queries.batches import BatchRow, batches_of_kind
from nlibuild.render import counted, run_note
from nlibuild.store import Store

ELICIT_BATCH = "elicit"
"""The kind of a batch of premises for a writer (`nlibuild elicit create`)."""
RELABEL_BATCH = "relabel"
"""The kind of a batch of pairs for a validator (`nlibuild relabel create`)."""

_BATCH_NOUNS = {ELICIT_BATCH: "elicitation", RELABEL_BATCH: "relabelling"}


def chosen_batches(
    store: Store, kind: str, wanted: tuple[str, ...], everything: bool, command: str
) -> list[BatchRow]:
    """The batches of `kind` an export names (or all of them), or a ConfigError saying
    which are missing and how batches are made (`command`, e.g. `elicit create`)."""
    noun = _BATCH_NOUNS.get(kind, kind)
    if not everything and not wanted:
        raise ConfigError("name the batches to export (e.g. e0001, r0001), or pass --all")
    batches = batches_of_kind(store, kind, () if everything else wanted)
    unknown = sorted(set(wanted) - {b.id for b in batches})
    if unknown and not everything:
        raise ConfigError(
            f"no {noun} batch {', '.join(unknown)} in the store; `nlibuild {command}` makes "
            "batches, `nlibuild info` counts them"
        )
    if not batches:
        raise ConfigError(f"the store has no {noun} batches; make some with `nlibuild {command}`")
    return batches


def package_summary(cfg: ElicitExportConfig, result: ElicitExportResult) -> str:
    """The line `elicit export` and `relabel export` end with: what the package holds and
    the files written."""
    return (
        f"Exported {counted(result.batches, 'batch')} ({counted(result.tasks, 'task')}) as "
        f"{cfg.format.value} to {cfg.out}: {', '.join(p.name for p in result.files)} "
        f"{run_note(result)}"
    )
