"""`nlibuild split`: train, dev and test, OCNLI's way (OCNLI section 3.4).

Dev and test are drawn from relabelled pairs (a validator's vote and a gold label other
than `-`), optionally of some protocols only, and balanced across levels when asked; the
rest is train. All pairs of one premise go to one split, so no premise leaks from train
into an evaluation set (the pairs of a dev/test premise that are not validated are held
out of every split rather than put in train). Premises are taken in a seeded order of
their IDs, so the result depends on the store's content and the seed only.

With `by_round`, each adversarial round (the round of the pair's batch, `elicit create
--round N`) gets its own dev and test of `dev` and `test` pairs, drawn from its pairs alone,
as ANLI (Nie et al. 2020) keeps R1, R2 and R3 apart; pairs of no round (a base corpus the
first model was trained on) are train. The split names stay train/dev/test, so `score`
reads them as ever; the round is a slice of its evaluation (`score_jobs.SLICES`).

A store whose pairs already have splits (an earlier `split` run, or `import --split`) is
refused unless `replace` is set: splits decide what is trained and evaluated on, so losing
them must be asked for.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from nlibuild.core.progress import step
from nlibuild.core.registry import SPLIT
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError
from nlibuild.models import SplitConfig, SplitGrouping, SplitResult, SplitSource
from nlibuild.protocol.ranking import seeded_rank
from nlibuild.queries.splits import (
    SplitCandidate,
    premises_in_several_splits,
    split_candidates,
    splits_by_run,
)
from nlibuild.render import run_note
from nlibuild.store import Store

NO_LEVEL = "-"


def refuse_existing_splits(store: Store, cfg: SplitConfig) -> None:
    """A `ConfigError` saying which runs' splits would be lost, unless `cfg.replace`."""
    if cfg.replace:
        return
    existing = splits_by_run(store)
    if not existing:
        return
    total = sum(run.pairs for run in existing)
    runs = ", ".join(f"{run.pairs} from run {run.run_id} ({run.stage})" for run in existing)
    raise ConfigError(
        f"{total} pairs already have a split: {runs}; --replace replaces every split with this one"
    )


def run(store: Store, cfg: SplitConfig) -> SplitResult:
    """Draw the splits as one recorded run, with a sign of life on a terminal (the draw
    gives no count as it goes)."""
    with step("split", "splits drawn"):
        return _split(store, cfg)


Item = tuple[int, str | None, str | None, bool]
"""A pair as the draw sees it: its key, protocol, level, and whether it may go to dev/test."""


@dataclass
class Units:
    """The pairs drawn from together (the store's, or with `by_round` one round's), by the
    unit kept in one split: a premise, or with --group-by pair a single pair."""

    items: dict[int, list[Item]] = field(default_factory=lambda: defaultdict(list))
    ids: dict[int, str] = field(default_factory=dict)
    """The public ID of each unit, which seeds its rank."""


NO_ROUND = "-"
"""The round key of pairs whose batch has no round (imported, or written before rounds)."""


def _units_by_round(pairs: list[SplitCandidate], cfg: SplitConfig) -> dict[str, Units]:
    """The candidates as units, all in one group (key "") or, with `by_round`, one group per
    round (`NO_ROUND` for pairs of none)."""
    wanted = {p.value for p in cfg.protocols}
    whole_premises = cfg.group_by is SplitGrouping.PREMISE
    groups: dict[str, Units] = defaultdict(Units)
    for pair in pairs:
        drawable = pair.validated if cfg.draw_from is SplitSource.VALIDATED else pair.labelled
        usable = drawable and (not wanted or pair.protocol in wanted)
        key = "" if not cfg.by_round else NO_ROUND if pair.round is None else str(pair.round)
        unit = pair.premise_pk if whole_premises else pair.pk
        groups[key].items[unit].append((pair.pk, pair.protocol, pair.level, usable))
        groups[key].ids[unit] = pair.premise_id if whole_premises else pair.id
    return groups


def _split(store: Store, cfg: SplitConfig) -> SplitResult:
    with store.recorded_run(SPLIT, cfg) as run:
        run_id = run.id
        refuse_existing_splits(store, cfg)
        pairs = split_candidates(store)
        if not pairs:
            raise ConfigError("the store has no pairs to split")
        groups = _units_by_round(pairs, cfg)
        if cfg.by_round and set(groups) == {NO_ROUND}:
            raise ConfigError(
                "no pair belongs to a round: `elicit create --round N` tags the batches of "
                "round N; split without --by-round"
            )
        rows: list[tuple[int, str]] = []
        held_out = 0
        level_counts: dict[str, Counter[str]] = {"dev": Counter(), "test": Counter()}
        per_round: dict[str, dict[str, int]] = {}
        for key, units in sorted(groups.items(), key=lambda group: _round_order(group[0])):
            # Pairs of no round are train: ANLI's rounds are its dev and test sets.
            assigned = {} if key == NO_ROUND else _draw(units, cfg, key, level_counts)
            group_rows, group_held_out = _rows(units, assigned)
            rows += group_rows
            held_out += group_held_out
            if cfg.by_round:
                counts = Counter(split for _, split in group_rows)
                per_round[key] = {s: counts.get(s, 0) for s in SPLITS}
        store.write_splits(rows, run_id)
        shared = premises_in_several_splits(store)
        counts_by_split = Counter(split for _, split in rows)
        result = SplitResult(
            run_id=run_id,
            signature=run.signature,
            counts={s: counts_by_split.get(s, 0) for s in SPLITS},
            levels={s: dict(sorted(c.items())) for s, c in level_counts.items()},
            held_out=held_out,
            shared_premises=shared,
            rounds=per_round,
        )
        run.finish({**result.counts, "held_out": held_out})
    return result


SPLITS = ("train", "dev", "test")


def _round_order(key: str) -> tuple[int, int]:
    """Rounds in their order (1, 2, ..., 10), then the pairs of no round."""
    return (1, 0) if key == NO_ROUND else (0, int(key or 0))


def _draw(
    units: Units, cfg: SplitConfig, round_key: str, level_counts: dict[str, Counter[str]]
) -> dict[int, str]:
    """Dev and test units of one group, `cfg.dev` and `cfg.test` usable pairs each; adds
    their pairs per level to `level_counts`."""
    by_unit = units.items
    # Units that can go to dev/test (some pair validated with a gold label), those with
    # more usable pairs first (a premise with all its levels keeps the levels balanced), in
    # a seeded order within.
    usable_count = {pk: sum(1 for *_, u in items if u) for pk, items in by_unit.items()}
    eligible = sorted(
        (pk for pk, n in usable_count.items() if n),
        key=lambda pk: (-usable_count[pk], seeded_rank(cfg.seed, units.ids[pk])),
    )
    available = sum(usable_count[pk] for pk in eligible)
    if cfg.dev + cfg.test > available:
        _refuse_sizes(cfg, available, round_key)
    levels = sorted({lvl or NO_LEVEL for pk in eligible for _, _, lvl, u in by_unit[pk] if u})
    assigned: dict[int, str] = {}
    for split, size in (("dev", cfg.dev), ("test", cfg.test)):
        quota = math.ceil(size / len(levels)) if cfg.balance_level and levels else size
        counts: Counter[str] = Counter()
        total = 0
        for unit in eligible:
            if total >= size:
                break
            if unit in assigned:
                continue
            mine = Counter(lvl or NO_LEVEL for _, _, lvl, u in by_unit[unit] if u)
            if cfg.balance_level and any(counts[k] + n > quota for k, n in mine.items()):
                continue
            if total + sum(mine.values()) > size:
                continue
            assigned[unit] = split
            counts.update(mine)
            total += sum(mine.values())
        level_counts[split].update(counts)
    return assigned


def _refuse_sizes(cfg: SplitConfig, available: int, round_key: str) -> None:
    wanted = sorted(p.value for p in cfg.protocols)
    kind = "validated " if cfg.draw_from is SplitSource.VALIDATED else ""
    where = f" in round {round_key}" if round_key else ""
    raise ConfigError(
        f"--dev {cfg.dev} and --test {cfg.test} need {cfg.dev + cfg.test} {kind}"
        f"pairs with a gold label{where}, and the store has {available}"
        + (f" of {', '.join(wanted)}" if wanted else "")
        + "; run `aggregate-labels` after relabelling, ask for fewer"
        + (", or draw from every labelled pair with --from labelled" if kind else "")
    )


def _rows(units: Units, assigned: dict[int, str]) -> tuple[list[tuple[int, str]], int]:
    """(pair key, split) of every pair of the group, and how many were held out: the pairs
    of a dev/test unit that may not go to dev/test are in no split rather than train."""
    rows: list[tuple[int, str]] = []
    held_out = 0
    for unit, items in units.items.items():
        split = assigned.get(unit, "train")
        for pk, _, _, usable in items:
            if split != "train" and not usable:
                held_out += 1
                continue
            rows.append((pk, split))
    return rows, held_out


def summary(_cfg: SplitConfig, result: SplitResult) -> str:
    levels = "; ".join(
        f"{name} by level: " + ", ".join(f"{k} {n}" for k, n in counts.items())
        for name, counts in result.levels.items()
        if counts
    )
    leak = (
        f"{len(result.shared_premises)} premises in several splits: "
        + ", ".join(result.shared_premises[:5])
        if result.shared_premises
        else "no premise is shared across splits"
    )
    rounds = "".join(
        f"; round {key}: " + ", ".join(f"{name} {n}" for name, n in counts.items())
        if key != NO_ROUND
        else f"; no round: train {counts['train']}"
        for key, counts in result.rounds.items()
    )
    return (
        f"Split: train {result.counts['train']}, dev {result.counts['dev']}, test "
        f"{result.counts['test']} ({levels}){rounds}; {result.held_out} unvalidated pairs of "
        f"dev/test premises held out; {leak} {run_note(result)}"
    )


STAGE = Stage(SPLIT, settings=SplitConfig, run=run, summary=summary)
