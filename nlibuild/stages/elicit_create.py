"""`nlibuild elicit create`: put unassigned premises into batches, one writer per batch.

A premise may be in one elicitation batch per protocol: OCNLI (3.2) gave the same premises
to SINGLE, MULTI, MULTI_ENCOURAGE and MULTI_CONSTRAINT to compare the protocols, so
`--protocol P` draws premises with no batch of P and no pairs of P (nor pairs of unknown
protocol, as a corpus's may be).

Genres are spread across batches: each genre's premises are put in a seeded random order,
then the genres are interleaved, so consecutive premises (and hence every batch) mix the
genres in proportion. Batches go to the writer with the fewest premises so far (over all
earlier runs too), so the work is balanced; `--max-per-writer` caps one writer's share
(OCNLI 3.2: "no single annotator produced an excessive amount of data", after Geva et
al. 2019 on annotator bias). Premises left over when every writer is at the cap stay
unassigned for a later run with more writers.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from nlibuild.core.registry import ELICIT_CREATE
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError, InputError
from nlibuild.formats.id_lists import read_id_lines
from nlibuild.models import CreatedBatch, ElicitCreateConfig, ElicitCreateResult
from nlibuild.protocol.batches import ELICIT_BATCH
from nlibuild.protocol.ranking import seeded_rank
from nlibuild.queries.batches import batch_ids, items_per_annotator, unassigned_premises
from nlibuild.queries.premises import premises_by_id
from nlibuild.render import NamedTable, counted, run_note
from nlibuild.store import Store

BATCH_PREFIX = "e"
"""Elicitation batches are `e0001`, `e0002`, ... in creation order."""

_BATCH_NUMBER = re.compile(rf"^{BATCH_PREFIX}(\d+)$")


def interleave_genres(premises: list[tuple[str, str | None]], seed: int) -> list[str]:
    """Premise IDs in batch order: each genre shuffled (seeded, by ID, so input order does
    not matter), then one from each genre in turn, larger genres spread evenly."""
    by_genre: dict[str, list[str]] = {}
    for premise_id, genre in premises:
        by_genre.setdefault(genre or "", []).append(premise_id)
    queues = [
        sorted(ids, key=lambda i: seeded_rank(seed, i)) for _, ids in sorted(by_genre.items())
    ]
    # Spread a genre of n premises over positions (i + 0.5) / n of the whole run: merging on
    # that fraction interleaves genres of different sizes evenly.
    placed = [
        ((index + 0.5) / len(queue), g, premise)
        for g, queue in enumerate(queues)
        for index, premise in enumerate(queue)
    ]
    return [premise for _, _, premise in sorted(placed)]


def _next_batch_number(existing: list[str]) -> int:
    numbers = [int(m.group(1)) for i in existing if (m := _BATCH_NUMBER.match(i))]
    return max(numbers, default=0) + 1


def read_premise_ids(path: Path) -> list[str]:
    """The premise IDs of a `--premises` file: one a line; blank lines and `#` comments
    skipped; each ID once."""
    return list(dict.fromkeys(item for _, item in read_id_lines(path, "premise")))


def _chosen(
    store: Store, cfg: ElicitCreateConfig, path: Path, waiting: list[tuple[str, str | None, str]]
) -> list[tuple[str, str | None, str]]:
    """The waiting premises a `--premises` file names; an ID the store lacks, or one not
    waiting for this protocol, is an error naming it (and counting the rest like it)."""
    chosen = read_premise_ids(path)
    known = premises_by_id(store, chosen)
    unknown = [i for i in chosen if i not in known]
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise InputError(path, f"premise {unknown[0]!r}{more} is not in the store")
    by_id = {p[0]: p for p in waiting}
    taken = [i for i in chosen if i not in by_id]
    if taken:
        more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
        raise ConfigError(
            f"premise {taken[0]}{more} is not waiting for writers of {cfg.protocol.value}: it "
            f"has pairs or a batch of {cfg.protocol.value}, or is outside --genre/--lang"
        )
    # The order stays the batches' usual one (genres interleaved, seeded), not the file's.
    return [by_id[i] for i in sorted(chosen)]


def run(store: Store, cfg: ElicitCreateConfig) -> ElicitCreateResult:
    with store.recorded_run(ELICIT_CREATE, cfg) as run:
        run_id = run.id
        premises = unassigned_premises(
            store, ELICIT_BATCH, cfg.protocol.value, cfg.genres, cfg.lang
        )
        if cfg.premises is not None:
            premises = _chosen(store, cfg, cfg.premises, premises)
        if not premises:
            where = f" of genre {', '.join(cfg.genres)}" if cfg.genres else ""
            raise ConfigError(
                f"no premises{where} are waiting for writers of {cfg.protocol.value} (every "
                f"premise has pairs or a batch of {cfg.protocol.value}); draw more with "
                "`nlibuild sample`, or give these premises another --protocol"
            )
        writer_pks = store.ensure_annotators(cfg.annotators)
        loads = items_per_annotator(store, ELICIT_BATCH)
        load = {w: loads.get(w, 0) for w in cfg.annotators}
        tie_order = {w: seeded_rank(cfg.seed, w) for w in cfg.annotators}
        cap = cfg.max_per_writer
        number = _next_batch_number(batch_ids(store))
        created: list[CreatedBatch] = []
        left = 0
        by_lang: dict[str, list[tuple[str, str | None]]] = {}
        for premise_id, genre, premise_lang in premises:
            by_lang.setdefault(premise_lang, []).append((premise_id, genre))
        for lang, lang_premises in sorted(by_lang.items()):
            genre_of = dict(lang_premises)
            queue = interleave_genres(lang_premises, cfg.seed)
            start = 0  # the queue is consumed from here on (no copying of its rest)
            while start < len(queue):
                open_writers = [w for w in cfg.annotators if cap is None or load[w] < cap]
                if not open_writers:
                    break
                writer = min(open_writers, key=lambda w: (load[w], tie_order[w]))
                room = cfg.batch_size if cap is None else min(cfg.batch_size, cap - load[writer])
                items = queue[start : start + room]
                start += len(items)
                batch_id = f"{BATCH_PREFIX}{number:04d}"
                number += 1
                store.add_batch(batch_id, ELICIT_BATCH, cfg.protocol.value, lang,
                                writer_pks[writer], items, run_id, cfg.round)  # fmt: skip
                load[writer] += len(items)
                genres = Counter(genre_of[i] or "-" for i in items)
                created.append(CreatedBatch(id=batch_id, writer=writer, premises=len(items),
                                            genres=dict(sorted(genres.items())),
                                            round=cfg.round))  # fmt: skip
            left += len(queue) - start
        run.finish({"batches": len(created), "premises": sum(b.premises for b in created),
             "unassigned": left},
        )  # fmt: skip
    return ElicitCreateResult(
        run_id=run_id, signature=run.signature, batches=created, unassigned=left
    )


def summary(cfg: ElicitCreateConfig, result: ElicitCreateResult) -> str:
    left = f"; {result.unassigned} left unassigned (every writer is at the cap)"
    of_round = f" (round {cfg.round})" if cfg.round is not None else ""
    return (
        f"Created {counted(len(result.batches), 'batch')} of {cfg.protocol.value}{of_round} for "
        f"{counted(len({b.writer for b in result.batches}), 'writer')}: "
        f"{counted(sum(b.premises for b in result.batches), 'premise')}"
        f"{left if result.unassigned else ''} {run_note(result)}"
    )


def tables(_cfg: ElicitCreateConfig, result: ElicitCreateResult) -> list[NamedTable]:
    """Each batch made: its writer, and how many premises of each genre it holds."""
    rows = [
        (b.id, b.writer, b.premises, ", ".join(f"{g} {n}" for g, n in b.genres.items()))
        for b in result.batches
    ]
    columns = ["batch", "writer", "premises", "genres"]
    return [NamedTable("elicit-batches", "Batches", columns, rows)]


STAGE = Stage(ELICIT_CREATE, settings=ElicitCreateConfig, run=run, summary=summary, tables=tables)
