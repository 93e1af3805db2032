"""`stats --table cartography`: the ambiguous and hard-to-learn pairs of a score run's
training dynamics (Swayamdipta et al. 2020), for `relabel create --pairs`."""

from __future__ import annotations

from rich.console import Console

from nlibuild.models import CartographyConfig, CartographyResult, TableFormat
from nlibuild.render import counted, render_table
from nlibuild.stats import StatsOptions, StatsTable
from nlibuild.store import Store


def cartography_settings(options: StatsOptions, store: Store) -> CartographyConfig:
    given = {"run": options.run, "top": options.top, "out": options.out}
    return CartographyConfig(**{key: value for key, value in given.items() if value is not None})


def compute_cartography(store: Store, settings: CartographyConfig) -> CartographyResult:
    from nlibuild.core.outputs import refuse_outputs_onto_store
    from nlibuild.scores.cartography import cartography

    refuse_outputs_onto_store(store.path, settings)
    return cartography(store, settings)


def render_cartography(
    result: CartographyResult, settings: CartographyConfig, fmt: TableFormat, out: Console
) -> None:
    render_table(
        out,
        f"Dataset cartography (Swayamdipta et al. 2020), score run {result.run_id}: "
        f"the {settings.top} most ambiguous and hardest-to-learn pairs",
        ["list", "pair", "gold", "confidence", "variability", "correctness", "premise",
         "hypothesis"],
        [(r.list, r.pair, r.gold, r.confidence, r.variability, r.correctness, r.premise,
          r.hypothesis) for r in result.rows],
        fmt,
        decimals=3,
    )  # fmt: skip
    if fmt is TableFormat.TABLE:
        regions = ", ".join(f"{name} {count}" for name, count in result.regions.items())
        written = (
            f"; {counted(result.written, 'pair ID')} written to {settings.out}"
            if result.written is not None else ""
        )  # fmt: skip
        out.print(
            f"{counted(result.pairs, 'pair')} over {counted(result.jobs, 'job')}; "
            f"regions: {regions}{written}",
            markup=False,
        )


TABLE = StatsTable(
    name="cartography",
    rank=90,
    help="Dataset cartography (Swayamdipta et al. 2020) of a score run's training pairs: "
    "confidence (mean probability of the gold label across epochs), variability (its "
    "standard deviation) and correctness, averaged over the run's seeds; lists the --top "
    "(default 20) pairs of highest variability (ambiguous) and of lowest confidence (hard to "
    "learn), and counts the regions: the top third by variability is ambiguous, else the "
    "bottom third by confidence hard, else the top third by confidence easy, else other. "
    "--out FILE writes the listed pair IDs, one a line, for `relabel create --pairs FILE`. "
    "--run picks the score run (default: the newest with training dynamics).",
    options=frozenset({"run", "top", "out"}),
    settings=cartography_settings,
    compute=compute_cartography,
    render=render_cartography,
    rows=lambda result, settings: result.rows,
)
