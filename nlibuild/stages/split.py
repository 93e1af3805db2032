"""`nlibuild split`: train, dev and test, OCNLI's way (OCNLI section 3.4).

Dev and test are drawn from relabelled pairs (a validator's vote and a gold label other
than `-`), optionally of some protocols only, and balanced across levels when asked; the
rest is train. All pairs of one premise go to one split, so no premise leaks from train
into an evaluation set (the pairs of a dev/test premise that are not validated are held
out of every split rather than put in train). Premises are taken in a seeded order of
their IDs, so the result depends on the store's content and the seed only.

A store whose pairs already have splits (an earlier `split` run, or `import --split`) is
refused unless `replace` is set: splits decide what is trained and evaluated on, so losing
them must be asked for.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from nlibuild.core.progress import step
from nlibuild.core.registry import SPLIT
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError
from nlibuild.models import SplitConfig, SplitGrouping, SplitResult, SplitSource
from nlibuild.protocol.ranking import seeded_rank
from nlibuild.queries.splits import (
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


def _split(store: Store, cfg: SplitConfig) -> SplitResult:
    with store.recorded_run(SPLIT, cfg) as run:
        run_id = run.id
        refuse_existing_splits(store, cfg)
        pairs = split_candidates(store)
        if not pairs:
            raise ConfigError("the store has no pairs to split")
        wanted = {p.value for p in cfg.protocols}
        # "Premise" below is the unit kept together: a premise, or with --group-by pair a
        # single pair (keyed by its own key and ID).
        by_premise: dict[int, list[tuple[int, str | None, str | None, bool]]] = defaultdict(list)
        premise_ids: dict[int, str] = {}
        whole_premises = cfg.group_by is SplitGrouping.PREMISE
        for pair in pairs:
            drawable = pair.validated if cfg.draw_from is SplitSource.VALIDATED else pair.labelled
            usable = drawable and (not wanted or pair.protocol in wanted)
            unit = pair.premise_pk if whole_premises else pair.pk
            by_premise[unit].append((pair.pk, pair.protocol, pair.level, usable))
            premise_ids[unit] = pair.premise_id if whole_premises else pair.id
        # Premises that can go to dev/test (some pair validated with a gold label), those
        # with more usable pairs first (a premise with all its levels keeps the levels
        # balanced), in a seeded order within.
        usable_count = {pk: sum(1 for *_, u in items if u) for pk, items in by_premise.items()}
        eligible = sorted(
            (pk for pk, n in usable_count.items() if n),
            key=lambda pk: (-usable_count[pk], seeded_rank(cfg.seed, premise_ids[pk])),
        )
        available = sum(sum(1 for *_, u in by_premise[pk] if u) for pk in eligible)
        if cfg.dev + cfg.test > available:
            kind = "validated " if cfg.draw_from is SplitSource.VALIDATED else ""
            raise ConfigError(
                f"--dev {cfg.dev} and --test {cfg.test} need {cfg.dev + cfg.test} {kind}"
                f"pairs with a gold label, and the store has {available}"
                + (f" of {', '.join(sorted(wanted))}" if wanted else "")
                + "; run `aggregate-labels` after relabelling, ask for fewer"
                + (", or draw from every labelled pair with --from labelled" if kind else "")
            )
        levels = sorted(
            {lvl or NO_LEVEL for pk in eligible for _, _, lvl, u in by_premise[pk] if u}
        )
        assigned: dict[int, str] = {}
        level_counts: dict[str, Counter[str]] = {}
        for split, size in (("dev", cfg.dev), ("test", cfg.test)):
            quota = math.ceil(size / len(levels)) if cfg.balance_level and levels else size
            counts: Counter[str] = Counter()
            total = 0
            for premise_pk in eligible:
                if total >= size:
                    break
                if premise_pk in assigned:
                    continue
                mine = Counter(lvl or NO_LEVEL for _, _, lvl, u in by_premise[premise_pk] if u)
                if cfg.balance_level and any(counts[k] + n > quota for k, n in mine.items()):
                    continue
                if total + sum(mine.values()) > size:
                    continue
                assigned[premise_pk] = split
                counts.update(mine)
                total += sum(mine.values())
            level_counts[split] = counts
        rows: list[tuple[int, str]] = []
        held_out = 0
        for premise_pk, items in by_premise.items():
            split = assigned.get(premise_pk, "train")
            for pk, _, _, usable in items:
                if split != "train" and not usable:
                    held_out += 1
                    continue
                rows.append((pk, split))
        store.write_splits(rows, run_id)
        shared = premises_in_several_splits(store)
        counts_by_split = Counter(split for _, split in rows)
        result = SplitResult(
            run_id=run_id,
            signature=run.signature,
            counts={s: counts_by_split.get(s, 0) for s in ("train", "dev", "test")},
            levels={s: dict(sorted(c.items())) for s, c in level_counts.items()},
            held_out=held_out,
            shared_premises=shared,
        )
        run.finish({**result.counts, "held_out": held_out})
    return result


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
    return (
        f"Split: train {result.counts['train']}, dev {result.counts['dev']}, test "
        f"{result.counts['test']} ({levels}); {result.held_out} unvalidated pairs of dev/test "
        f"premises held out; {leak} {run_note(result)}"
    )


STAGE = Stage(SPLIT, settings=SplitConfig, run=run, summary=summary)
