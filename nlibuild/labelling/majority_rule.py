"""Which majority rule a store's gold follows, for readers that apply it themselves.

`stats --table agreement` and `annotators` take the stored majority gold where
`aggregate-labels` wrote it, and compute the same rule for the pairs it has not reached
(votes imported since, a store never aggregated). That rule must be the store's own, not the
papers' 3 of 5: a LiveNLI store aggregated with `--min-agree 0.6` needs 9 of a pair's 15
votes, where a count of 3 would take a plurality. So the rule is the `min_agree` of the
newest `aggregate-labels` run, else what that stage would apply now with no flag (the
preset's `[aggregate] min_agree`, else `AggregateConfig`'s default), through the same
`store_settings` the command uses.
"""

from __future__ import annotations

from dataclasses import dataclass

from nlibuild.models import AggregateConfig, min_agree_text
from nlibuild.options import preset_of, store_settings
from nlibuild.presets import stage_defaults
from nlibuild.queries.gold import latest_aggregate_rule
from nlibuild.store import Store


@dataclass(frozen=True)
class MajorityRule:
    """A `min_agree` (a count, or a share of each pair's votes) and where it came from."""

    min_agree: int | float
    origin: str
    """`of aggregate-labels run 4`, `[aggregate] of the store's preset mnli`, or `the
    default; no aggregate-labels run yet`."""

    def text(self) -> str:
        """The rule as a note says it: `at least 60% of a pair's votes agreeing, rounded up
        (--min-agree 0.6, of aggregate-labels run 4)`."""
        return f"{min_agree_text(self.min_agree)} (--min-agree {self.min_agree}, {self.origin})"


def majority_rule(store: Store) -> MajorityRule:
    """The rule of the store's newest `aggregate-labels` run, else the one it would apply."""
    latest = latest_aggregate_rule(store)
    if latest is not None:
        run_id, min_agree = latest
        return MajorityRule(min_agree, f"of aggregate-labels run {run_id}")
    settings = store_settings(store, AggregateConfig, "aggregate")
    if "min_agree" in stage_defaults(preset_of(store), "aggregate"):
        origin = f"[aggregate] of the store's preset {store.meta().get('preset')}"
    else:
        origin = "the default; no aggregate-labels run yet"
    return MajorityRule(settings.min_agree, origin)
