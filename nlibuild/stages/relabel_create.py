"""`nlibuild relabel create`: send a share of the pairs to more annotators, never the author.

SNLI (Bowman et al. 2015, 2.2), MNLI (Williams et al. 2018, 2.2), XNLI and OCNLI (Hu et al.
2020, 3.3) sent 10-19% of their pairs to four more annotators who had not written them; with
the author's label each such pair has five, and the gold label is their majority.

The pairs are drawn per stratum (`--stratify`, by default protocol, level and genre), so the
validated share is the same in every subset: in each stratum the pairs are ranked by a hash
of the seed and the pair ID (a uniformly random order that does not depend on the order the
pairs were stored in) and the first round(fraction * stratum size) are taken, halves rounding
up. Only pairs not yet relabelled qualify: no validator's vote and in no relabelling batch.

With `--pairs FILE` the pairs are exactly those the file lists (one ID a line, as
`stats --table cartography --out` writes the ambiguous and hard-to-learn pairs of a
model's training dynamics, Swayamdipta et al. 2020), whether relabelled before or not:
sending such pairs back for more labels is the point. An ID the store lacks, an ID listed
twice, and a pair whose author is the only annotator given are errors at their line.

Each picked pair goes to `--validators` distinct annotators, none of them its author: the
least loaded first (over earlier relabelling batches too), ties broken by a seeded rank of
the annotator, pairs taken in their random order. Then every annotator's pairs become
batches `r0001`, `r0002`, ... of at most `--batch-size` pairs of one language.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from nlibuild.core.registry import RELABEL_CREATE
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError, InputError
from nlibuild.formats.id_lists import read_id_lines
from nlibuild.models import (
    CreatedRelabelBatch,
    RelabelCreateConfig,
    RelabelCreateResult,
    RelabelStratum,
    StratumKey,
)
from nlibuild.protocol.batches import RELABEL_BATCH
from nlibuild.protocol.ranking import seeded_rank
from nlibuild.queries.batches import (
    batch_ids,
    items_per_annotator,
    relabel_candidates,
    relabel_pairs,
)
from nlibuild.render import NamedTable, counted, run_note
from nlibuild.store import Store

BATCH_PREFIX = "r"
"""Relabelling batches are `r0001`, `r0002`, ... in creation order."""

_BATCH_NUMBER = re.compile(rf"^{BATCH_PREFIX}(\d+)$")

Candidate = tuple[str, str | None, str | None, str | None, str | None, str, str | None]
"""pair id, author, protocol, level, genre, lang, author's label (`relabel_candidates`)"""

_COLUMN = {StratumKey.PROTOCOL: 2, StratumKey.LEVEL: 3, StratumKey.GENRE: 4,
           StratumKey.LANG: 5, StratumKey.LABEL: 6}  # fmt: skip
"""Where each stratum key sits in a `Candidate`."""


def share(fraction: float, size: int) -> int:
    """round(fraction * size) with halves up, computed exactly (0.15 * 10 is 2, not 1)."""
    exact = Decimal(str(fraction)) * size
    return int(exact.to_integral_value(rounding=ROUND_HALF_UP))


def pick_pairs(
    candidates: list[Candidate], cfg: RelabelCreateConfig
) -> tuple[list[Candidate], list[RelabelStratum]]:
    """The pairs to relabel, in their seeded random order, and what each stratum gave."""
    strata: dict[tuple[str | None, ...], list[Candidate]] = {}
    for pair in candidates:
        strata.setdefault(tuple(pair[_COLUMN[key]] for key in cfg.stratify), []).append(pair)
    picked: list[Candidate] = []
    report = []
    for values, pairs in sorted(strata.items(), key=lambda item: [v or "" for v in item[0]]):
        n = share(cfg.fraction, len(pairs))
        picked += sorted(pairs, key=lambda p: seeded_rank(cfg.seed, p[0]))[:n]
        report.append(
            RelabelStratum(
                values={key.value: value for key, value in zip(cfg.stratify, values, strict=True)},
                candidates=len(pairs),
                picked=n,
            )
        )
    return sorted(picked, key=lambda p: seeded_rank(cfg.seed, p[0])), report


def assign_validators(
    picked: list[Candidate], cfg: RelabelCreateConfig, earlier: dict[str, int]
) -> dict[str, list[Candidate]]:
    """annotator -> their pairs in order: each pair to `cfg.validators` annotators who did
    not write it, the least loaded first (`earlier`: items from earlier runs)."""
    short = sorted(
        (pair for pair in picked if len(set(cfg.annotators) - {pair[1]}) < cfg.validators),
        key=lambda pair: pair[0],
    )
    if short:
        pair_id, author = short[0][0], short[0][1]
        others = len(set(cfg.annotators) - {author})
        raise ConfigError(
            f"pair {pair_id} (and {len(short) - 1} more) needs {cfg.validators} validators who "
            f"did not write it, but only {others} of the {len(cfg.annotators)} annotators "
            f"given are not its author {author}; name more annotators with --annotators, or "
            "lower --validators"
        )
    load = {a: earlier.get(a, 0) for a in cfg.annotators}
    tie_order = {a: seeded_rank(cfg.seed, a) for a in cfg.annotators}
    given: dict[str, list[Candidate]] = {a: [] for a in cfg.annotators}
    for pair in picked:
        eligible = sorted(
            (a for a in cfg.annotators if a != pair[1]), key=lambda a: (load[a], tie_order[a])
        )
        for annotator in eligible[: cfg.validators]:
            load[annotator] += 1
            given[annotator].append(pair)
    return given


def listed_pairs(store: Store, cfg: RelabelCreateConfig, path: Path) -> list[Candidate]:
    """The pairs a `--pairs` file names, in file order; see the module's docstring."""
    lines = read_id_lines(path, "pair")
    first_line: dict[str, int] = {}
    for line, pair_id in lines:
        if pair_id in first_line:
            raise InputError(
                path, f"pair {pair_id} is listed again (first on line {first_line[pair_id]}); "
                "list each pair once", line,
            )  # fmt: skip
        first_line[pair_id] = line
    found = {pair[0]: pair for pair in relabel_pairs(store, list(first_line))}
    for line, pair_id in lines:
        if pair_id not in found:
            raise InputError(
                path, f"pair {pair_id!r} is not in the store; list the IDs of stored pairs "
                "(`nlibuild export` shows them)", line,
            )  # fmt: skip
        author = found[pair_id][1]
        if not set(cfg.annotators) - {author}:
            raise InputError(
                path, f"pair {pair_id} was written by {author}, every annotator given, and an "
                "author never relabels their own pair; name other annotators with --annotators",
                line,
            )  # fmt: skip
    return [found[pair_id] for pair_id in first_line]


def _chosen_pairs(
    store: Store, cfg: RelabelCreateConfig, protocol: str | None
) -> tuple[list[Candidate], list[Candidate], list[RelabelStratum]]:
    """(candidates, picked, strata): the listed pairs, else a share of each stratum."""
    if cfg.pairs is not None:
        listed = listed_pairs(store, cfg, cfg.pairs)
        picked = sorted(listed, key=lambda pair: seeded_rank(cfg.seed, pair[0]))
        return listed, picked, [RelabelStratum(values={}, candidates=len(listed),
                                               picked=len(listed))]  # fmt: skip
    candidates = relabel_candidates(store, protocol)
    if not candidates:
        of = f" of protocol {protocol}" if protocol else ""
        raise ConfigError(
            f"no pairs{of} are waiting for relabelling (every pair has validators' votes "
            "or a relabelling batch); add pairs with `nlibuild elicit import`"
        )
    picked, strata = pick_pairs(candidates, cfg)
    if not picked:
        raise ConfigError(
            f"--fraction {cfg.fraction} picks no pair: each of the {len(strata)} strata is "
            f"too small (at most {max(s.candidates for s in strata)} pairs); raise "
            "--fraction, or stratify by fewer keys with --stratify"
        )
    return candidates, picked, strata


def run(store: Store, cfg: RelabelCreateConfig) -> RelabelCreateResult:
    protocol = cfg.protocol.value if cfg.protocol else None
    with store.recorded_run(RELABEL_CREATE, cfg) as run:
        run_id = run.id
        candidates, picked, strata = _chosen_pairs(store, cfg, protocol)
        given = assign_validators(picked, cfg, items_per_annotator(store, RELABEL_BATCH))
        annotator_pks = store.ensure_annotators(cfg.annotators)
        numbers = [int(m.group(1)) for i in batch_ids(store) if (m := _BATCH_NUMBER.match(i))]
        number = max(numbers, default=0) + 1
        created: list[CreatedRelabelBatch] = []
        for annotator, pairs in sorted(given.items()):
            by_lang: dict[str, list[str]] = {}
            for pair in pairs:
                by_lang.setdefault(pair[5], []).append(pair[0])
            for lang, pair_ids in sorted(by_lang.items()):
                for start in range(0, len(pair_ids), cfg.batch_size):
                    chunk = pair_ids[start : start + cfg.batch_size]
                    batch_id = f"{BATCH_PREFIX}{number:04d}"
                    number += 1
                    store.add_batch(batch_id, RELABEL_BATCH, protocol, lang,
                                    annotator_pks[annotator], chunk, run_id)  # fmt: skip
                    created.append(CreatedRelabelBatch(
                        id=batch_id, annotator=annotator, lang=lang, pairs=len(chunk)
                    ))  # fmt: skip
        assignments = sum(b.pairs for b in created)
        run.finish({"candidates": len(candidates), "pairs": len(picked), "assignments": assignments,
             "batches": len(created)},
        )  # fmt: skip
    return RelabelCreateResult(
        run_id=run_id,
        signature=run.signature,
        candidates=len(candidates),
        picked=len(picked),
        assignments=assignments,
        strata=strata,
        batches=created,
    )


def summary(cfg: RelabelCreateConfig, result: RelabelCreateResult) -> str:
    strata = "stratum" if len(result.strata) == 1 else "strata"
    return (
        f"Created {counted(len(result.batches), 'batch')} of relabelling for "
        f"{counted(len({b.annotator for b in result.batches}), 'annotator')}: "
        f"{result.picked} of {counted(result.candidates, 'waiting pair')} "
        f"({len(result.strata)} {strata}), {cfg.validators} validators each, "
        f"{counted(result.assignments, 'assignment')} {run_note(result)}"
    )


def tables(_cfg: RelabelCreateConfig, result: RelabelCreateResult) -> list[NamedTable]:
    """Each batch made: the annotator it goes to and how many pairs it holds."""
    rows = [(b.id, b.annotator, b.pairs) for b in result.batches]
    return [NamedTable("relabel-batches", "Batches", ["batch", "annotator", "pairs"], rows)]


STAGE = Stage(RELABEL_CREATE, settings=RelabelCreateConfig, run=run, summary=summary, tables=tables)
