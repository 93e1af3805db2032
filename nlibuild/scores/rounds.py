"""The model in the writers' loop, round by round: `stats --table model-loop` (issue 29).

ANLI (Nie et al. 2020) counts, per round, how often writers fooled the model (its label is
not the one the writer intended), how often that was verified (validators' gold agrees with
the writer), and the tries it took per verified example; and it tests each round's model on
the earlier rounds' test sets. Here a round is the round of a pair's batch (`elicit create
--round N`), what the model said is `model_predictions` (recorded as the pair was
submitted), the gold is `labels.GOLD` (aggregate-labels' majority, else a released one) on
a pair some validator voted on, and the round's model is the identity its pairs carry
(`<job name>@<checkpoint step> sha256:<weights>`, as `score export-model` names it), whose
accuracy on the earlier rounds' test pairs is read from that score job's `round` slice.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from nlibuild.errors import ConfigError
from nlibuild.formats.tabular import write_text
from nlibuild.models import ModelLoopConfig, ModelLoopResult, ModelLoopRow
from nlibuild.queries.rounds import (
    LoopGroup,
    LoopKey,
    checkpoint_of_job,
    fooled_waiting,
    loop_groups,
    loop_tries,
    round_test_accuracy,
    round_test_pairs,
)
from nlibuild.store import Store

ALL = "all"
"""The protocol and writer of a round's own row."""
NONE = "-"
"""A pair's protocol or writer where it has none."""

NO_PREDICTIONS = (
    "no pair{of} was written with a model in the loop: `nlibuild serve --model DIR` (a model "
    "folder of `nlibuild score export-model`) with the preset's [workbench] model_loop "
    "records the model's prediction of every pair submitted"
)

_IDENTITY = re.compile(r"^(?P<job>.+)@(?P<step>\d+)(?: sha256:[0-9a-f]+)?$")
"""A served model's identity: `<job name>@<checkpoint step> sha256:<12 hex of the
weights>` (the job name may hold an `@`: the step follows the last one)."""

EVALUATED_BY = (
    "`nlibuild split --by-round` before the round model's `nlibuild score train` (or `score "
    "plan` and `score import`) evaluates it on them"
)


@dataclass
class Counts:
    pairs: int = 0
    fooled: int = 0
    verified: int = 0
    fooled_unvalidated: int = 0
    tries: int = 0

    def add(self, other: Counts) -> None:
        self.pairs += other.pairs
        self.fooled += other.fooled
        self.verified += other.verified
        self.fooled_unvalidated += other.fooled_unvalidated
        self.tries += other.tries


@dataclass
class Round:
    """One round's counts per protocol and writer, its models, and the earliest run that
    wrote one of its pairs (None: tries, no pair yet)."""

    groups: dict[tuple[str, str], Counts] = field(default_factory=lambda: defaultdict(Counts))
    models: set[str] = field(default_factory=set)
    first_run: int | None = None


@dataclass(frozen=True)
class EarlierAccuracy:
    accuracy: float | None = None
    pairs: int | None = None
    note: str | None = None


def model_loop(store: Store, cfg: ModelLoopConfig) -> ModelLoopResult:
    """The table's rows: per round its own row, then one per protocol and writer; and the
    waiting fooled pairs written to `cfg.out` when given."""
    rounds = _rounds(loop_groups(store, cfg.round), loop_tries(store, cfg.round))
    if not rounds:
        of = f" of round {cfg.round}" if cfg.round is not None else ""
        raise ConfigError(NO_PREDICTIONS.format(of=of))
    test_pairs = round_test_pairs(store)
    lang = store.meta().get("lang", "en")
    rows: list[ModelLoopRow] = []
    for number, found in sorted(rounds.items(), key=lambda item: _round_order(item[0])):
        models = sorted(found.models)
        earlier = earlier_accuracy(store, number, models, found.first_run, test_pairs, lang)
        total = Counts()
        for counts in found.groups.values():
            total.add(counts)
        rows.append(_row(number, ALL, ALL, total, models, earlier))
        rows += [
            _row(number, protocol, writer, counts)
            for (protocol, writer), counts in sorted(found.groups.items())
        ]
    written = None
    if cfg.out is not None:
        ids = fooled_waiting(store, cfg.round)
        of = f"round {cfg.round}" if cfg.round is not None else "every round"
        header = f"# pairs of {of} that fooled the model, waiting for validators\n"
        write_text(cfg.out, header + "".join(f"{pair_id}\n" for pair_id in ids))
        written = len(ids)
    return ModelLoopResult(rows=rows, written=written)


def _rounds(groups: Sequence[LoopGroup], tries: dict[LoopKey, int]) -> dict[int | None, Round]:
    """The pairs' counts and the tries per round, protocol and writer (a writer's pairs of
    several models, if a round changed its model, together)."""
    rounds: dict[int | None, Round] = defaultdict(Round)
    for group in groups:
        found = rounds[group.round]
        found.models.add(group.model)
        earliest = found.first_run
        found.first_run = group.first_run if earliest is None else min(earliest, group.first_run)
        counts = Counts(group.pairs, group.fooled, group.verified, group.fooled_unvalidated)
        found.groups[(group.protocol or NONE, group.writer or NONE)].add(counts)
    for key, number in tries.items():  # the round's model is its pairs' (ANLI's round model)
        found = rounds[key.round]
        found.groups[(key.protocol or NONE, key.writer or NONE)].add(Counts(tries=number))
    return dict(rounds)


def _round_order(number: int | None) -> tuple[int, int]:
    """Rounds in order, then the pairs of no round."""
    return (1, 0) if number is None else (0, number)


def _row(
    round_number: int | None,
    protocol: str,
    writer: str,
    counts: Counts,
    models: Sequence[str] = (),
    earlier: EarlierAccuracy | None = None,
) -> ModelLoopRow:
    pairs = counts.pairs
    return ModelLoopRow(
        round=round_number, protocol=protocol, writer=writer, pairs=pairs, fooled=counts.fooled,
        fooled_share=counts.fooled / pairs if pairs else None, verified=counts.verified,
        verified_share=counts.verified / pairs if pairs else None,
        fooled_unvalidated=counts.fooled_unvalidated, tries=counts.tries,
        tries_per_verified=counts.tries / counts.verified if counts.verified else None,
        model=", ".join(models) or None,
        earlier_test_accuracy=earlier.accuracy if earlier else None,
        earlier_test_pairs=earlier.pairs if earlier else None,
        accuracy_note=earlier.note if earlier else None,
    )  # fmt: skip


def earlier_accuracy(
    store: Store,
    round_number: int | None,
    models: Sequence[str],
    first_run: int | None,
    test_pairs: dict[int, int],
    lang: str,
) -> EarlierAccuracy:
    """The accuracy of the round's model on the test pairs of the rounds before it, from the
    score job that made the model (ANLI Table 3: each round's model on A1, A2, A3); else
    why not, and what gives it."""
    if round_number is None:
        return EarlierAccuracy(note="pairs of no round: no earlier round to test on")
    if len(models) > 1:
        return EarlierAccuracy(
            note=f"round {round_number}'s pairs were written against {len(models)} models; "
            "give each round one model"
        )
    earlier = sorted(r for r, n in test_pairs.items() if r < round_number and n)
    if not earlier:
        return EarlierAccuracy(
            note=f"no round before round {round_number} has test pairs (`nlibuild split "
            "--by-round` draws each round's dev and test)"
        )
    if first_run is None:
        return EarlierAccuracy(note=f"round {round_number} has tries but no pair written yet")
    found = _IDENTITY.match(models[0])
    checkpoint = (
        checkpoint_of_job(store, found["job"], int(found["step"]), first_run)
        if found is not None
        else None
    )
    if found is None or checkpoint is None:
        return EarlierAccuracy(
            note=f"the model {models[0]} is no score job's checkpoint in this store; {EVALUATED_BY}"
        )
    scored = round_test_accuracy(store, *checkpoint, lang)
    missing = [r for r in earlier if r not in scored]
    if len(missing) == len(earlier):
        return EarlierAccuracy(
            note=f"score job {found['job']} was not tested on rounds {_listed(earlier)}; "
            f"{EVALUATED_BY}"
        )
    correct = sum(scored[r].correct for r in earlier if r in scored)
    total = sum(scored[r].total for r in earlier if r in scored)
    note = (
        f"rounds {_listed(missing)} were not in its test split; {EVALUATED_BY}" if missing else None
    )
    return EarlierAccuracy(accuracy=correct / total if total else None, pairs=total, note=note)


def _listed(rounds: Iterable[int]) -> str:
    return ", ".join(str(r) for r in rounds)
